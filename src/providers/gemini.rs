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

use super::anthropic::push;
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
pub fn body(call: &ModelCall<'_>) -> Value {
    let (system, rest) = split_system(call.messages);
    let mut contents = Vec::new();
    for message in rest {
        let (role, parts): (&str, Vec<Value>) = match message {
            Message::System { content, .. } => ("user", vec![json!({"text": content})]),
            Message::User { parts } => ("user", parts.iter().filter_map(|part| match part {
                UserPart::Text(t) if t.is_empty() => None,
                UserPart::Text(t) => Some(json!({"text": t})),
                UserPart::Image(i) => Some(json!({"inlineData": {"mimeType": i.media_type, "data": i.data_base64}})),
            }).collect()),
            Message::Assistant { parts } => ("model", parts.iter().filter_map(|part| match part {
                AssistantPart::Text(t) if t.is_empty() => None,
                AssistantPart::Text(t) => Some(json!({"text": t})),
                AssistantPart::ToolCall(c) => Some(json!({"functionCall": {"name": c.name, "args": arguments(&c.input)}})),
            }).collect()),
            Message::Tool { results } => ("user", results.iter().map(|r| json!({"functionResponse": {
                "name": r.tool_name, "response": {"content": r.output}}})).collect()),
        };
        push(&mut contents, role, parts, "parts");
    }
    let mut body = json!({"contents": contents});
    if !system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    if !call.tools.is_empty() {
        let declarations: Vec<Value> = call.tools.iter().map(|t| json!({"name": t.name,
            "description": description(&t.description), "parameters": schema(&arguments(&t.input_schema))})).collect();
        body["tools"] = json!([{"functionDeclarations": declarations}]);
        let mode = match call.tool_choice {
            ToolChoice::Auto => "AUTO",
            ToolChoice::None => "NONE",
            ToolChoice::Required => "ANY",
        };
        body["toolConfig"] = json!({"functionCallingConfig": {"mode": mode}});
    }
    body
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
