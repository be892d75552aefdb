//! OpenAI Chat Completions (xAI, OpenRouter, Groq, Mistral, DeepSeek and every model server):
//! `POST {base}/chat/completions` with `stream: true` and the usage asked for; the answer is
//! `data:` chunks of `choices[0].delta` (`content`, `reasoning_content` or `reasoning`,
//! `tool_calls[]` assembled by `index`), a `finish_reason`, a last chunk with `usage`, and
//! `data: [DONE]`.

use serde_json::Value;

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::json::Json;
use super::{count, description, text, Next, WireState};

/// The request body.
pub fn body(call: &ModelCall<'_>) -> String {
    let mut j = Json::default();
    j.obj().pair("model", call.model).key("messages").list();
    for message in call.messages {
        match message {
            Message::System { content, .. } => {
                j.obj()
                    .pair("role", "system")
                    .pair("content", content)
                    .end('}');
            }
            Message::User { parts } => {
                j.obj().pair("role", "user").key("content");
                match parts.as_slice() {
                    // Plain text as a string: what every OpenAI-compatible server reads.
                    [UserPart::Text(t)] => {
                        j.str(t);
                    }
                    _ => {
                        j.list();
                        for part in parts {
                            match part {
                                UserPart::Text(t) if t.is_empty() => {}
                                UserPart::Text(t) => {
                                    j.obj().pair("type", "text").pair("text", t).end('}');
                                }
                                UserPart::Image(i) => {
                                    let url =
                                        format!("data:{};base64,{}", i.media_type, i.data_base64);
                                    j.obj().pair("type", "image_url").key("image_url").obj();
                                    j.pair("url", &url).end('}').end('}');
                                }
                            }
                        }
                        j.end(']');
                    }
                }
                j.end('}');
            }
            Message::Assistant { parts } => {
                let text: String = parts
                    .iter()
                    .filter_map(|p| match p {
                        AssistantPart::Text(t) => Some(t.as_str()),
                        AssistantPart::ToolCall(_) => None,
                    })
                    .collect();
                j.obj().pair("role", "assistant").key("content");
                if text.is_empty() {
                    j.raw("null");
                } else {
                    j.str(&text);
                }
                if message.tool_calls().next().is_some() {
                    j.key("tool_calls").list();
                    for c in message.tool_calls() {
                        j.obj().pair("id", &c.id).pair("type", "function");
                        j.key("function").obj().pair("name", &c.name);
                        j.pair("arguments", c.input.get()).end('}').end('}');
                    }
                    j.end(']');
                }
                j.end('}');
            }
            Message::Tool { results } => {
                for r in results {
                    j.obj()
                        .pair("role", "tool")
                        .pair("tool_call_id", &r.tool_call_id);
                    j.pair("content", &r.output).end('}');
                }
            }
        }
    }
    j.end(']').key("stream").raw("true");
    j.key("stream_options")
        .obj()
        .key("include_usage")
        .raw("true")
        .end('}');
    if !call.tools.is_empty() {
        j.key("tools").list();
        for t in call.tools {
            j.obj().pair("type", "function").key("function").obj();
            j.pair("name", &t.name)
                .pair("description", &description(&t.description));
            j.key("parameters")
                .raw(t.input_schema.get())
                .end('}')
                .end('}');
        }
        j.end(']').pair("tool_choice", call.tool_choice.label());
    }
    j.end('}');
    j.into_string()
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
