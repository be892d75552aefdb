//! Anthropic Messages: `POST {base}/messages` with `system`, alternating `user`/`assistant`
//! messages of content blocks (`text`, `image`, `tool_use`, `tool_result`), `max_tokens` and
//! `stream: true`; the answer is `message_start` (input usage), `content_block_start`
//! (`text`, `thinking` or `tool_use`), `content_block_delta` (`text_delta`, `thinking_delta`,
//! `input_json_delta`), `content_block_stop`, `message_delta` (`stop_reason`, output usage),
//! `message_stop`, `ping` and `error`.

use serde_json::Value;

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::request::ToolChoice;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::json::Json;
use super::{count, description, split_system, text, Next, WireState};

/// `max_tokens` when the catalog says nothing (the field is required).
pub const DEFAULT_MAX_TOKENS: u64 = 8192;

/// The role a message goes under (Anthropic and Gemini want the roles to alternate: tool
/// results and the next text are one user message), or `None` when it has nothing to send.
pub(super) fn role_of(message: &Message, assistant: &'static str) -> Option<&'static str> {
    let has = match message {
        Message::System { content, .. } => !content.is_empty(),
        Message::User { parts } => parts
            .iter()
            .any(|p| !matches!(p, UserPart::Text(t) if t.is_empty())),
        Message::Assistant { parts } => parts
            .iter()
            .any(|p| !matches!(p, AssistantPart::Text(t) if t.is_empty())),
        Message::Tool { results } => !results.is_empty(),
    };
    let role = match message {
        Message::Assistant { .. } => assistant,
        _ => "user",
    };
    has.then_some(role)
}

/// Opens a message of `role` under `key`, or goes on in the open one of the same role.
pub(super) fn turn(j: &mut Json, open: &mut Option<&'static str>, role: &'static str, key: &str) {
    if *open == Some(role) {
        return;
    }
    if open.is_some() {
        j.end(']').end('}');
    }
    j.obj().pair("role", role).key(key).list();
    *open = Some(role);
}

/// The request body.
pub fn body(call: &ModelCall<'_>) -> String {
    let (system, rest) = split_system(call.messages);
    let max_tokens = call
        .model_info
        .and_then(|m| m.max_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let mut j = Json::default();
    j.obj().pair("model", call.model);
    j.key("max_tokens").raw(&max_tokens.to_string());
    j.key("stream").raw("true");
    if !system.is_empty() {
        j.pair("system", &system);
    }
    j.key("messages").list();
    let mut open = None;
    for message in rest {
        let Some(role) = role_of(message, "assistant") else {
            continue;
        };
        turn(&mut j, &mut open, role, "content");
        match message {
            Message::System { content, .. } => {
                j.obj().pair("type", "text").pair("text", content).end('}');
            }
            Message::User { parts } => {
                for part in parts {
                    match part {
                        UserPart::Text(t) if t.is_empty() => {}
                        UserPart::Text(t) => {
                            j.obj().pair("type", "text").pair("text", t).end('}');
                        }
                        UserPart::Image(i) => {
                            j.obj().pair("type", "image").key("source").obj();
                            j.pair("type", "base64").pair("media_type", &i.media_type);
                            j.pair("data", &i.data_base64).end('}').end('}');
                        }
                    }
                }
            }
            Message::Assistant { parts } => {
                for part in parts {
                    match part {
                        AssistantPart::Text(t) if t.is_empty() => {}
                        AssistantPart::Text(t) => {
                            j.obj().pair("type", "text").pair("text", t).end('}');
                        }
                        AssistantPart::ToolCall(c) => {
                            j.obj().pair("type", "tool_use").pair("id", &c.id);
                            j.pair("name", &c.name).key("input").raw(c.input.get());
                            j.end('}');
                        }
                    }
                }
            }
            Message::Tool { results } => {
                for r in results {
                    j.obj().pair("type", "tool_result");
                    j.pair("tool_use_id", &r.tool_call_id)
                        .pair("content", &r.output);
                    j.end('}');
                }
            }
        }
    }
    if open.is_some() {
        j.end(']').end('}');
    }
    j.end(']');
    if !call.tools.is_empty() {
        j.key("tools").list();
        for t in call.tools {
            j.obj().pair("name", &t.name);
            j.pair("description", &description(&t.description));
            j.key("input_schema").raw(t.input_schema.get()).end('}');
        }
        let choice = match call.tool_choice {
            ToolChoice::Auto => "auto",
            ToolChoice::None => "none",
            ToolChoice::Required => "any",
        };
        j.end(']')
            .key("tool_choice")
            .obj()
            .pair("type", choice)
            .end('}');
    }
    j.end('}');
    j.into_string()
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
