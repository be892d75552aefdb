//! Anthropic Messages: `POST {base}/messages` with `system`, alternating `user`/`assistant`
//! messages of content blocks (`text`, `image`, `tool_use`, `tool_result`), `max_tokens` and
//! `stream: true`; the answer is `message_start` (input usage), `content_block_start`
//! (`text`, `thinking` or `tool_use`), `content_block_delta` (`text_delta`, `thinking_delta`,
//! `input_json_delta`), `content_block_stop`, `message_delta` (`stop_reason`, output usage),
//! `message_stop`, `ping` and `error`.

use serde_json::{json, Value};

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::request::ToolChoice;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::{arguments, count, description, split_system, text, Next, WireState};

/// `max_tokens` when the catalog says nothing (the field is required).
pub const DEFAULT_MAX_TOKENS: u64 = 8192;

/// Appends `blocks` as a message of `role`, merged into the last one of the same role (the API
/// wants the roles to alternate: tool results and the next text are one user message).
pub(super) fn push(messages: &mut Vec<Value>, role: &str, blocks: Vec<Value>, key: &str) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = messages.last_mut() {
        if last.get("role").and_then(Value::as_str) == Some(role) {
            if let Some(Value::Array(parts)) = last.get_mut(key) {
                parts.extend(blocks);
                return;
            }
        }
    }
    messages.push(json!({"role": role, key: blocks}));
}

/// The request body.
pub fn body(call: &ModelCall<'_>) -> Value {
    let (system, rest) = split_system(call.messages);
    let mut messages = Vec::new();
    for message in rest {
        let (role, blocks): (&str, Vec<Value>) = match message {
            Message::System { content, .. } => {
                ("user", vec![json!({"type": "text", "text": content})])
            }
            Message::User { parts } => (
                "user",
                parts
                    .iter()
                    .filter_map(|part| match part {
                        UserPart::Text(t) if t.is_empty() => None,
                        UserPart::Text(t) => Some(json!({"type": "text", "text": t})),
                        UserPart::Image(i) => Some(json!({"type": "image", "source": {
                    "type": "base64", "media_type": i.media_type, "data": i.data_base64}})),
                    })
                    .collect(),
            ),
            Message::Assistant { parts } => (
                "assistant",
                parts
                    .iter()
                    .filter_map(|part| match part {
                        AssistantPart::Text(t) if t.is_empty() => None,
                        AssistantPart::Text(t) => Some(json!({"type": "text", "text": t})),
                        AssistantPart::ToolCall(c) => Some(json!({"type": "tool_use", "id": c.id,
                    "name": c.name, "input": arguments(&c.input)})),
                    })
                    .collect(),
            ),
            Message::Tool { results } => (
                "user",
                results
                    .iter()
                    .map(|r| {
                        json!({
                "type": "tool_result", "tool_use_id": r.tool_call_id, "content": r.output})
                    })
                    .collect(),
            ),
        };
        push(&mut messages, role, blocks, "content");
    }
    let max_tokens = call
        .model_info
        .and_then(|m| m.max_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({
        "model": call.model,
        "max_tokens": max_tokens,
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!(system);
    }
    if !call.tools.is_empty() {
        let tools: Vec<Value> = call
            .tools
            .iter()
            .map(|t| {
                json!({"name": t.name,
            "description": description(&t.description), "input_schema": arguments(&t.input_schema)})
            })
            .collect();
        body["tools"] = Value::Array(tools);
        let choice = match call.tool_choice {
            ToolChoice::Auto => "auto",
            ToolChoice::None => "none",
            ToolChoice::Required => "any",
        };
        body["tool_choice"] = json!({"type": choice});
    }
    body
}

/// One event payload.
pub(super) fn data(state: &mut WireState, value: &Value, out: &mut Vec<SseEvent>) -> Next {
    let index = count(value, "index").unwrap_or(0);
    let key = index.to_string();
    match text(value, "type").unwrap_or_default() {
        "message_start" => {
            if let Some(usage) = value.get("message").and_then(|m| m.get("usage")) {
                let read = count(usage, "cache_read_input_tokens");
                let write = count(usage, "cache_creation_input_tokens");
                state.usage.input_tokens = count(usage, "input_tokens").map(|n| {
                    n.saturating_add(read.unwrap_or(0))
                        .saturating_add(write.unwrap_or(0))
                });
                state.usage.cache_read_tokens = read;
                state.usage.cache_write_tokens = write;
                state.usage.output_tokens = count(usage, "output_tokens");
            }
        }
        "content_block_start" => {
            let block = value.get("content_block").unwrap_or(&Value::Null);
            match text(block, "type").unwrap_or_default() {
                "tool_use" => state.start(&key, text(block, "id"), text(block, "name"), out),
                "text" => WireState::text(out, text(block, "text").unwrap_or_default(), false),
                "thinking" => {
                    WireState::text(out, text(block, "thinking").unwrap_or_default(), true)
                }
                _ => {}
            }
        }
        "content_block_delta" => {
            let delta = value.get("delta").unwrap_or(&Value::Null);
            match text(delta, "type").unwrap_or_default() {
                "text_delta" => {
                    WireState::text(out, text(delta, "text").unwrap_or_default(), false)
                }
                "thinking_delta" => {
                    WireState::text(out, text(delta, "thinking").unwrap_or_default(), true)
                }
                "input_json_delta" => {
                    state.args(&key, text(delta, "partial_json").unwrap_or_default(), out)
                }
                _ => {}
            }
        }
        "content_block_stop" => state.close(&key, None, out),
        "message_delta" => {
            if let Some(raw) = value.get("delta").and_then(|d| text(d, "stop_reason")) {
                let reason = match raw {
                    "end_turn" | "stop_sequence" | "pause_turn" => FinishReason::Stop,
                    "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
                    "tool_use" => FinishReason::ToolCalls,
                    "refusal" => FinishReason::ContentFilter,
                    _ => FinishReason::Other,
                };
                state.reason(reason, raw);
            }
            if let Some(n) = value.get("usage").and_then(|u| count(u, "output_tokens")) {
                state.usage.output_tokens = Some(n);
            }
        }
        "message_stop" => {
            state.finish(out);
            return Next::Finished;
        }
        "error" => {
            let error = value.get("error").unwrap_or(&Value::Null);
            WireState::error(out, text(error, "type"), text(error, "message"));
            state.reason(FinishReason::Error, "error");
            state.finish(out);
            return Next::Finished;
        }
        _ => {}
    }
    Next::Continue
}
