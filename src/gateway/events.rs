//! Typed stream events of the language-model SSE response, and the (rare, not hot) parsing of
//! `finish` and `error` payloads.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::caps::acp::Usage;

/// Longest provider error detail kept from an `error` event, in bytes.
pub const MAX_STREAM_ERROR_BYTES: usize = 600;

/// One decoded stream event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// `response-metadata`.
    ResponseMetadata(ResponseMetadata),
    /// `text-delta` (non-empty). With coalescing on, consecutive deltas are merged.
    TextDelta(String),
    /// `reasoning-delta` (non-empty; not stored in history). Coalesced like text.
    ReasoningDelta(String),
    /// `tool-input-start`.
    ToolInputStart {
        /// Streamed input id (the tool call id).
        id: String,
        /// Tool name.
        tool_name: String,
    },
    /// `tool-input-delta`.
    ToolInputDelta {
        /// Streamed input id.
        id: String,
        /// Argument text fragment.
        delta: String,
    },
    /// `tool-input-end`.
    ToolInputEnd {
        /// Streamed input id.
        id: String,
    },
    /// `tool-call`, with its arguments resolved.
    ToolCall(ToolCall),
    /// `tool-result` (provider-executed calls only).
    ToolResult(ProviderToolResult),
    /// `error`.
    Error(StreamError),
    /// `finish`: the last event of a response.
    Finish(Box<Finish>),
}

/// `response-metadata` fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseMetadata {
    /// Response/generation id.
    pub id: Option<String>,
    /// ISO-8601 timestamp.
    pub timestamp: Option<String>,
    /// Resolved model id (1–128 chars; longer or empty values are dropped).
    pub model_id: Option<String>,
}

/// A finished tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// `toolCallId` (empty when the event had none; the agent rejects that).
    pub id: String,
    /// `toolName` (empty when the event had none).
    pub name: String,
    /// Argument JSON text (always valid JSON; `{}` when `malformed`).
    pub arguments_json: String,
    /// The model's arguments were not valid JSON and were replaced by `{}`.
    pub malformed: bool,
    /// Executed by the provider (e.g. gateway web search), not by us.
    pub provider_executed: bool,
}

/// A provider-executed tool's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderToolResult {
    /// `toolCallId`.
    pub tool_call_id: String,
    /// `result`, as JSON text (`null` when absent).
    pub result_json: String,
    /// `preliminary`.
    pub preliminary: bool,
}

/// A provider failure reported inside the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    /// `code` or `type`, when given.
    pub code: Option<String>,
    /// Detail text, at most [`MAX_STREAM_ERROR_BYTES`] bytes.
    pub message: String,
}

/// `finishReason.unified`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// `stop`.
    Stop,
    /// `length`.
    Length,
    /// `content-filter`.
    ContentFilter,
    /// `tool-calls`.
    ToolCalls,
    /// `error`.
    Error,
    /// `other`.
    Other,
}

impl FinishReason {
    /// Parses a `unified` value.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "stop" => Self::Stop,
            "length" => Self::Length,
            "content-filter" => Self::ContentFilter,
            "tool-calls" => Self::ToolCalls,
            "error" => Self::Error,
            "other" => Self::Other,
            _ => return None,
        })
    }

    /// The wire label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
            Self::ContentFilter => "content-filter",
            Self::ToolCalls => "tool-calls",
            Self::Error => "error",
            Self::Other => "other",
        }
    }
}

/// The token counts of `finish.usage` as the protocol reports them, each one optional;
/// [`TokenCounts::usage`] is the [`Usage`] they make.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenCounts {
    /// `inputTokens.total`.
    pub input_tokens: Option<u64>,
    /// `outputTokens.total`.
    pub output_tokens: Option<u64>,
    /// `inputTokens.cacheRead`.
    pub cache_read_tokens: Option<u64>,
    /// `inputTokens.cacheWrite`.
    pub cache_write_tokens: Option<u64>,
    /// `outputTokens.reasoning`.
    pub reasoning_tokens: Option<u64>,
}

impl TokenCounts {
    /// The usage these counts report (a missing total is 0), or `None` when they report no
    /// total at all.
    #[must_use]
    pub fn usage(&self) -> Option<Usage> {
        (self.input_tokens.is_some() || self.output_tokens.is_some()).then(|| Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
        })
    }
}

/// `providerMetadata.gateway` fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatewayMetadata {
    /// `cost`: a finite, non-negative decimal, as text.
    pub cost: Option<String>,
    /// `routing.canonicalSlug` (1–1024 printable ASCII).
    pub canonical_slug: Option<String>,
    /// `generationId`.
    pub generation_id: Option<String>,
}

/// The `finish` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    /// `finishReason.unified`. A `finish` without any reason counts as `other`.
    pub reason: FinishReason,
    /// `finishReason.raw`, when a string.
    pub raw_reason: Option<String>,
    /// Token usage.
    pub usage: TokenCounts,
    /// Gateway billing/routing metadata.
    pub gateway: GatewayMetadata,
}

/// Parses a `finish` event's fields. `Err` carries an unknown `unified` value.
pub(crate) fn parse_finish(
    finish_reason: Option<&RawValue>,
    usage: Option<&RawValue>,
    provider_metadata: Option<&RawValue>,
) -> Result<Finish, String> {
    let reason_value: Value = finish_reason
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null);
    let (unified, raw_reason) = match &reason_value {
        Value::String(text) => (Some(text.as_str()), None),
        Value::Object(map) => (
            map.get("unified").and_then(Value::as_str),
            map.get("raw").and_then(Value::as_str).map(str::to_owned),
        ),
        _ => (None, None),
    };
    let reason = match unified {
        None => FinishReason::Other,
        Some(text) => FinishReason::parse(text).ok_or_else(|| text.to_owned())?,
    };
    let usage_value: Value = usage
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null);
    let meta_value: Value = provider_metadata
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null);
    Ok(Finish {
        reason,
        raw_reason,
        usage: parse_usage(&usage_value),
        gateway: parse_gateway_metadata(&meta_value),
    })
}

fn token_count(parent: &Value, key: &str, inner: &str) -> Option<u64> {
    match parent.get(key)? {
        Value::Number(n) if inner == "total" => n.as_u64(),
        object @ Value::Object(_) => object.get(inner).and_then(Value::as_u64),
        _ => None,
    }
}

fn parse_usage(usage: &Value) -> TokenCounts {
    TokenCounts {
        input_tokens: token_count(usage, "inputTokens", "total"),
        output_tokens: token_count(usage, "outputTokens", "total"),
        cache_read_tokens: token_count(usage, "inputTokens", "cacheRead"),
        cache_write_tokens: token_count(usage, "inputTokens", "cacheWrite"),
        reasoning_tokens: token_count(usage, "outputTokens", "reasoning"),
    }
}

fn parse_gateway_metadata(meta: &Value) -> GatewayMetadata {
    let gateway = meta.get("gateway");
    let cost = gateway.and_then(|g| g.get("cost")).and_then(|c| {
        let text = match c {
            Value::String(s) => s.trim().to_owned(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        let number: f64 = text.parse().ok()?;
        (number.is_finite() && number >= 0.0).then_some(text)
    });
    let canonical_slug = gateway
        .and_then(|g| g.get("routing"))
        .and_then(|r| r.get("canonicalSlug"))
        .and_then(Value::as_str)
        .filter(|s| {
            !s.is_empty() && s.len() <= 1024 && s.bytes().all(|b| (0x20..0x7f).contains(&b))
        })
        .map(str::to_owned);
    let generation_id = gateway
        .and_then(|g| g.get("generationId"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    GatewayMetadata {
        cost,
        canonical_slug,
        generation_id,
    }
}

/// Builds a [`StreamError`] from a whole `error` event payload.
pub(crate) fn parse_stream_error(payload: &[u8]) -> StreamError {
    let value: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
    let mut code = value.get("code").and_then(Value::as_str).map(str::to_owned);
    let mut message = first_message(&value);
    for key in ["error", "providerError"] {
        match value.get(key) {
            Some(Value::String(text)) if message.is_none() => message = Some(text.clone()),
            Some(nested @ Value::Object(_)) => {
                if code.is_none() {
                    code = nested
                        .get("code")
                        .or_else(|| nested.get("type"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                if message.is_none() {
                    message = first_message(nested);
                }
            }
            _ => {}
        }
    }
    let message = message
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "the provider reported an error without details".to_owned());
    StreamError {
        code,
        message: super::error::clip_utf8(&message, MAX_STREAM_ERROR_BYTES).to_owned(),
    }
}

fn first_message(value: &Value) -> Option<String> {
    ["message", "detail", "details", "reason"]
        .iter()
        .find_map(|key| value.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
}
