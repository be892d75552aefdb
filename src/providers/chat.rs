//! OpenAI Chat Completions (xAI, OpenRouter, Groq, Mistral, DeepSeek and every model server):
//! `POST {base}/chat/completions` with `stream: true` and the usage asked for; the answer is
//! `data:` chunks of `choices[0].delta` (`content`, `reasoning_content` or `reasoning`,
//! `tool_calls[]` assembled by `index`), a `finish_reason`, a last chunk with `usage`, and
//! `data: [DONE]`.

use serde_json::{json, Value};

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::{count, description, text, Next, WireState};

/// The request body.
pub fn body(call: &ModelCall<'_>) -> Value {
    let mut messages = Vec::new();
    for message in call.messages {
        match message {
            Message::System { content, .. } => {
                messages.push(json!({"role": "system", "content": content}));
            }
            Message::User { parts } => {
                let content: Vec<Value> = parts
                    .iter()
                    .filter_map(|part| match part {
                        UserPart::Text(t) if t.is_empty() => None,
                        UserPart::Text(t) => Some(json!({"type": "text", "text": t})),
                        UserPart::Image(image) => Some(json!({"type": "image_url", "image_url": {
                            "url": format!("data:{};base64,{}", image.media_type, image.data_base64)
                        }})),
                    })
                    .collect();
                // Plain text as a string: what every OpenAI-compatible server reads.
                let content = match content.as_slice() {
                    [one] if one.get("type") == Some(&json!("text")) => one["text"].clone(),
                    _ => Value::Array(content),
                };
                messages.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant { parts } => {
                let mut text = String::new();
                let mut calls = Vec::new();
                for part in parts {
                    match part {
                        AssistantPart::Text(t) => text.push_str(t),
                        AssistantPart::ToolCall(c) => calls.push(json!({
                            "id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": c.input.get()},
                        })),
                    }
                }
                let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                messages.push(m);
            }
            Message::Tool { results } => {
                for r in results {
                    messages.push(
                        json!({"role": "tool", "tool_call_id": r.tool_call_id, "content": r.output}),
                    );
                }
            }
        }
    }
    let mut body = json!({
        "model": call.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !call.tools.is_empty() {
        let tools: Vec<Value> = call
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": description(&t.description),
                    "parameters": super::arguments(&t.input_schema),
                }})
            })
            .collect();
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!(call.tool_choice.label());
    }
    body
}

/// One `data:` payload.
pub(super) fn data(state: &mut WireState, value: &Value, out: &mut Vec<SseEvent>) -> Next {
    if let Some(error) = value.get("error") {
        let message = text(error, "message").or_else(|| error.as_str());
        let code = text(error, "code").or_else(|| text(error, "type"));
        WireState::error(out, code, message);
        state.reason(FinishReason::Error, "error");
        state.finish(out);
        return Next::Finished;
    }
    if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
        state.usage.input_tokens = count(usage, "prompt_tokens");
        state.usage.output_tokens = count(usage, "completion_tokens");
        state.usage.cache_read_tokens = usage
            .get("prompt_tokens_details")
            .and_then(|d| count(d, "cached_tokens"));
        state.usage.reasoning_tokens = usage
            .get("completion_tokens_details")
            .and_then(|d| count(d, "reasoning_tokens"));
    }
    let Some(choice) = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Next::Continue;
    };
    if let Some(delta) = choice.get("delta") {
        // DeepSeek and vLLM say `reasoning_content`, OpenRouter and Ollama `reasoning` (a
        // server that sends both repeats itself: one is read).
        if let Some(t) = text(delta, "reasoning_content").or_else(|| text(delta, "reasoning")) {
            WireState::text(out, t, true);
        }
        if let Some(t) = text(delta, "content") {
            WireState::text(out, t, false);
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = count(call, "index").unwrap_or(0).to_string();
            let function = call.get("function");
            let name = function.and_then(|f| text(f, "name"));
            state.start(&key, text(call, "id"), name, out);
            if let Some(args) = function.and_then(|f| text(f, "arguments")) {
                state.args(&key, args, out);
            }
        }
    }
    if let Some(raw) = text(choice, "finish_reason") {
        let reason = match raw {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "content_filter" => FinishReason::ContentFilter,
            _ => FinishReason::Other,
        };
        state.reason(reason, raw);
    }
    Next::Continue
}
