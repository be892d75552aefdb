//! OpenAI Responses (`openai`, and the ChatGPT and Grok plans): `POST {base}/responses` with
//! `instructions`, `input` items (messages, `function_call`, `function_call_output`),
//! `stream: true` and `store: false`; the answer is typed events: `response.output_text.delta`,
//! `response.reasoning_*text.delta`, `response.output_item.added` (a `function_call`) with its
//! `function_call_arguments.delta/done`, and `response.completed`, `response.incomplete`,
//! `response.failed` or `error`.

use serde_json::Value;

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::json::Json;
use super::{count, description, split_system, text, Next, WireState};

/// The request body.
pub fn body(call: &ModelCall<'_>) -> String {
    let (instructions, rest) = split_system(call.messages);
    let mut j = Json::default();
    j.obj()
        .pair("model", call.model)
        .pair("instructions", &instructions);
    j.key("input").list();
    for message in rest {
        match message {
            // A system message after the history (none today): as a developer message.
            Message::System { content, .. } => {
                j.obj()
                    .pair("role", "developer")
                    .pair("content", content)
                    .end('}');
            }
            Message::User { parts } => {
                j.obj().pair("role", "user").key("content").list();
                for part in parts {
                    match part {
                        UserPart::Text(t) if t.is_empty() => {}
                        UserPart::Text(t) => {
                            j.obj().pair("type", "input_text").pair("text", t).end('}');
                        }
                        UserPart::Image(i) => {
                            let url = format!("data:{};base64,{}", i.media_type, i.data_base64);
                            j.obj()
                                .pair("type", "input_image")
                                .pair("image_url", &url)
                                .end('}');
                        }
                    }
                }
                j.end(']').end('}');
            }
            Message::Assistant { parts } => {
                for part in parts {
                    match part {
                        AssistantPart::Text(t) if t.is_empty() => {}
                        AssistantPart::Text(t) => {
                            j.obj().pair("role", "assistant").key("content").list();
                            j.obj().pair("type", "output_text").pair("text", t);
                            j.end('}').end(']').end('}');
                        }
                        AssistantPart::ToolCall(c) => {
                            j.obj().pair("type", "function_call").pair("call_id", &c.id);
                            j.pair("name", &c.name).pair("arguments", c.input.get());
                            j.end('}');
                        }
                    }
                }
            }
            Message::Tool { results } => {
                for r in results {
                    j.obj().pair("type", "function_call_output");
                    j.pair("call_id", &r.tool_call_id).pair("output", &r.output);
                    j.end('}');
                }
            }
        }
    }
    j.end(']')
        .key("stream")
        .raw("true")
        .key("store")
        .raw("false");
    if !call.tools.is_empty() {
        j.key("tools").list();
        for t in call.tools {
            j.obj().pair("type", "function").pair("name", &t.name);
            j.pair("description", &description(&t.description));
            j.key("parameters").raw(t.input_schema.get());
            j.key("strict").raw("false").end('}');
        }
        j.end(']').pair("tool_choice", call.tool_choice.label());
        j.key("parallel_tool_calls").raw("true");
    }
    j.end('}');
    j.into_string()
}

/// One event payload.
pub(super) fn data(state: &mut WireState, value: &Value, out: &mut Vec<SseEvent>) -> Next {
    let kind = text(value, "type").unwrap_or_default();
    match kind {
        "response.output_text.delta" => {
            WireState::text(out, text(value, "delta").unwrap_or_default(), false);
        }
        "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
            WireState::text(out, text(value, "delta").unwrap_or_default(), true);
        }
        "response.output_item.added" => {
            let item = value.get("item").unwrap_or(&Value::Null);
            if text(item, "type") == Some("function_call") {
                let key = text(item, "id").unwrap_or_default().to_owned();
                state.start(&key, text(item, "call_id"), text(item, "name"), out);
                state.args(&key, text(item, "arguments").unwrap_or_default(), out);
            }
        }
        "response.function_call_arguments.delta" => {
            let key = text(value, "item_id").unwrap_or_default().to_owned();
            state.args(&key, text(value, "delta").unwrap_or_default(), out);
        }
        "response.function_call_arguments.done" => {
            let key = text(value, "item_id").unwrap_or_default().to_owned();
            state.close(&key, text(value, "arguments"), out);
        }
        "response.output_item.done" => {
            let item = value.get("item").unwrap_or(&Value::Null);
            if text(item, "type") == Some("function_call") {
                let key = text(item, "id").unwrap_or_default().to_owned();
                state.start(&key, text(item, "call_id"), text(item, "name"), out);
                state.close(&key, text(item, "arguments"), out);
            }
        }
        "response.completed" | "response.incomplete" | "response.failed" => {
            let response = value.get("response").unwrap_or(&Value::Null);
            if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
                state.usage.input_tokens = count(usage, "input_tokens");
                state.usage.output_tokens = count(usage, "output_tokens");
                state.usage.cache_read_tokens = usage
                    .get("input_tokens_details")
                    .and_then(|d| count(d, "cached_tokens"));
                state.usage.reasoning_tokens = usage
                    .get("output_tokens_details")
                    .and_then(|d| count(d, "reasoning_tokens"));
            }
            let why = response
                .get("incomplete_details")
                .and_then(|d| text(d, "reason"))
                .unwrap_or_default();
            let reason = match (kind, why) {
                ("response.completed", _) => FinishReason::Stop,
                ("response.incomplete", "content_filter") => FinishReason::ContentFilter,
                ("response.incomplete", _) => FinishReason::Length,
                _ => {
                    let error = response.get("error").unwrap_or(&Value::Null);
                    WireState::error(out, text(error, "code"), text(error, "message"));
                    FinishReason::Error
                }
            };
            state.reason(reason, text(response, "status").unwrap_or(kind));
            state.finish(out);
            return Next::Finished;
        }
        "error" => {
            let error = value.get("error").unwrap_or(value);
            WireState::error(
                out,
                text(error, "code").or_else(|| text(error, "type")),
                text(error, "message"),
            );
            state.reason(FinishReason::Error, "error");
            state.finish(out);
            return Next::Finished;
        }
        _ => {}
    }
    Next::Continue
}
