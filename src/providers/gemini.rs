//! Gemini: `POST {base}/models/{model}:streamGenerateContent?alt=sse` with
//! `systemInstruction`, `contents` (`user` and `model` turns of `text`, `inlineData`,
//! `functionCall` and `functionResponse` parts), `tools[].functionDeclarations` and
//! `toolConfig`; the answer is `data:` chunks of `candidates[0].content.parts` (`text`, a
//! `thought: true` text, a whole `functionCall`, whose id is minted: `call_<n>`), a
//! `finishReason` and `usageMetadata`. No end marker: the body's end after a `finishReason`
//! finishes it.

use serde_json::{json, Map, Value};

use crate::agent::protocol::ModelCall;
use crate::gateway::events::FinishReason;
use crate::gateway::request::ToolChoice;
use crate::gateway::{AssistantPart, Message, SseEvent, UserPart};

use super::anthropic::{role_of, turn};
use super::json::Json;
use super::{arguments, count, description, split_system, text, Next, WireState};

/// A JSON Schema in the subset Gemini takes: `$schema`, `additionalProperties`, `$id`,
/// `$ref`/`$defs` and `default` are dropped, at every depth.
fn schema(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "$schema" | "additionalProperties" | "$id" | "$defs" | "$ref" | "default"
                    )
                })
                .map(|(k, v)| (k.clone(), schema(v)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(schema).collect()),
        other => other.clone(),
    }
}

/// The request body.
pub fn body(call: &ModelCall<'_>) -> String {
    let (system, rest) = split_system(call.messages);
    let mut j = Json::default();
    j.obj();
    if !system.is_empty() {
        j.key("systemInstruction").obj().key("parts").list();
        j.obj().pair("text", &system).end('}').end(']').end('}');
    }
    j.key("contents").list();
    let mut open = None;
    for message in rest {
        let Some(role) = role_of(message, "model") else {
            continue;
        };
        turn(&mut j, &mut open, role, "parts");
        match message {
            Message::System { content, .. } => {
                j.obj().pair("text", content).end('}');
            }
            Message::User { parts } => {
                for part in parts {
                    match part {
                        UserPart::Text(t) if t.is_empty() => {}
                        UserPart::Text(t) => {
                            j.obj().pair("text", t).end('}');
                        }
                        UserPart::Image(i) => {
                            j.obj()
                                .key("inlineData")
                                .obj()
                                .pair("mimeType", &i.media_type);
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
                            j.obj().pair("text", t).end('}');
                        }
                        AssistantPart::ToolCall(c) => {
                            j.obj().key("functionCall").obj().pair("name", &c.name);
                            j.key("args").raw(c.input.get()).end('}').end('}');
                        }
                    }
                }
            }
            Message::Tool { results } => {
                for r in results {
                    j.obj()
                        .key("functionResponse")
                        .obj()
                        .pair("name", &r.tool_name);
                    j.key("response").obj().pair("content", &r.output);
                    j.end('}').end('}').end('}');
                }
            }
        }
    }
    if open.is_some() {
        j.end(']').end('}');
    }
    j.end(']');
    if !call.tools.is_empty() {
        j.key("tools")
            .list()
            .obj()
            .key("functionDeclarations")
            .list();
        for t in call.tools {
            j.obj().pair("name", &t.name);
            j.pair("description", &description(&t.description));
            let parameters = schema(&arguments(&t.input_schema)).to_string();
            j.key("parameters").raw(&parameters).end('}');
        }
        j.end(']').end('}').end(']');
        let mode = match call.tool_choice {
            ToolChoice::Auto => "AUTO",
            ToolChoice::None => "NONE",
            ToolChoice::Required => "ANY",
        };
        j.key("toolConfig").obj().key("functionCallingConfig").obj();
        j.pair("mode", mode).end('}').end('}');
    }
    j.end('}');
    j.into_string()
}

/// One `data:` chunk.
pub(super) fn data(state: &mut WireState, value: &Value, out: &mut Vec<SseEvent>) -> Next {
    if let Some(error) = value.get("error") {
        WireState::error(out, text(error, "status"), text(error, "message"));
        state.reason(FinishReason::Error, "error");
        state.finish(out);
        return Next::Finished;
    }
    if let Some(usage) = value.get("usageMetadata") {
        state.usage.input_tokens = count(usage, "promptTokenCount");
        // The visible answer and the thinking together, as the other protocols count them.
        let thoughts = count(usage, "thoughtsTokenCount");
        state.usage.output_tokens = count(usage, "candidatesTokenCount")
            .map(|n| n.saturating_add(thoughts.unwrap_or(0)))
            .or(thoughts);
        state.usage.reasoning_tokens = thoughts;
        state.usage.cache_read_tokens = count(usage, "cachedContentTokenCount");
    }
    let Some(candidate) = value
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Next::Continue;
    };
    let parts = candidate
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        if let Some(call) = part.get("functionCall") {
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            state.whole(text(call, "name").unwrap_or_default(), &args, out);
        } else if let Some(t) = text(part, "text") {
            let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
            WireState::text(out, t, thought);
        }
    }
    if let Some(raw) = text(candidate, "finishReason") {
        let reason = match raw {
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
            | "IMAGE_SAFETY" => FinishReason::ContentFilter,
            "MALFORMED_FUNCTION_CALL" => FinishReason::Error,
            _ => FinishReason::Other,
        };
        state.reason(reason, raw);
    }
    Next::Continue
}
