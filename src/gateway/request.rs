//! Builds the language-model request: URL, headers in fx's order, and the JSON body
//! (`prompt`, `tools`, `toolChoice`, `maxOutputTokens`, `reasoning`, `providerOptions`,
//! `headers`), applying the effort, Fast, output-limit and prompt-caching rules.

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use thiserror::Error;

use crate::caps::{HttpRequest, Method};
use crate::Code;

use super::catalog::{fallback_context_window, Effort, ModelInfo};
use super::endpoint::ChatEndpoint;
use super::prompt::{
    cache_marks, uses_prompt_caching, validate_history, Message, PromptError, WireMessage,
};

/// `HTTP-Referer` sent with every request.
pub const REFERER: &str = "https://github.com/vercel-labs/fx";
/// `X-Title` sent with every request.
pub const TITLE: &str = "fx";
/// `ai-gateway-protocol-version`.
pub const PROTOCOL_VERSION: &str = "0.0.1";
/// `ai-language-model-specification-version`.
pub const SPECIFICATION_VERSION: &str = "4";
/// Longest tool description sent, in bytes.
pub const MAX_TOOL_DESCRIPTION_BYTES: usize = 1024;
const TRUNCATION_MARKER: &str = "... [truncated]";

/// Why a request could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// The history breaks the tool-call/tool-result pairing rules.
    #[error("the conversation history cannot be sent: {0}")]
    History(#[from] PromptError),
    /// A header value would contain a line break or NUL (e.g. a model id or token from input).
    #[error("the {header} header value contains a control character")]
    InvalidHeaderValue {
        /// The header name.
        header: &'static str,
    },
    /// Body serialization failed (not expected in practice).
    #[error("the request body could not be encoded: {0}")]
    Encode(String),
}

impl RequestError {
    /// Stable error code.
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::History(inner) => inner.code(),
            Self::InvalidHeaderValue { .. } => Code::GatewayInvalidHeader,
            Self::Encode(_) => Code::GatewayEncode,
        }
    }
}

/// `toolChoice.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// No tool calls (used by `reconcile_tool` recovery).
    None,
    /// A tool call is required.
    Required,
}

impl ToolChoice {
    /// The wire label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::None => "none",
            Self::Required => "required",
        }
    }
}

/// A function tool offered to the model.
#[derive(Debug, Clone)]
pub struct ToolDefinition {
    /// Tool name.
    pub name: String,
    /// Description (cut to 1024 bytes when sent, see [`clip_tool_description`]).
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Box<RawValue>,
}

impl Serialize for ToolDefinition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("description", &clip_tool_description(&self.description))?;
        map.serialize_entry("inputSchema", &self.input_schema)?;
        map.end()
    }
}

/// Cuts a description longer than 1024 bytes to its first 1009 bytes (backing off to a character
/// boundary) followed by `... [truncated]`.
#[must_use]
pub fn clip_tool_description(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_TOOL_DESCRIPTION_BYTES {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut cut = MAX_TOOL_DESCRIPTION_BYTES.saturating_sub(TRUNCATION_MARKER.len());
    while cut > 0 && !text.is_char_boundary(cut) {
        cut = cut.saturating_sub(1);
    }
    let mut out = text.get(..cut).unwrap_or_default().to_owned();
    out.push_str(TRUNCATION_MARKER);
    std::borrow::Cow::Owned(out)
}

/// Everything about one model request other than the messages and tools.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions<'a> {
    /// Model id (`ai-language-model-id`).
    pub model_id: &'a str,
    /// Bearer token; `None` sends no `authorization` (loopback development gateways).
    pub token: Option<&'a str>,
    /// Team id (or slug) carried by the credential.
    pub team: Option<&'a str>,
    /// Session id for `x-session-id` / `x-session-affinity`.
    pub session_id: Option<&'a str>,
    /// `toolChoice`.
    pub tool_choice: ToolChoice,
    /// Configured effort.
    pub effort: Effort,
    /// Whether Fast is wanted for this attempt (already dropped by recovery when needed).
    pub fast: bool,
    /// The model's catalog entry, when the catalog is loaded.
    pub model: Option<&'a ModelInfo>,
    /// `fx/<version>`, forwarded as the body's `headers.user-agent` for `zai/glm-5.2` only.
    pub user_agent: Option<&'a str>,
}

/// What the request will ask for, after applying the catalog rules.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResolvedOptions {
    /// `maxOutputTokens`, sent only when the catalog gives `max_tokens` and it is below the
    /// context window (or the window is unknown).
    pub max_output_tokens: Option<u64>,
    /// `reasoning`, sent only for a named effort the catalog lists.
    pub reasoning: Option<String>,
    /// Fast is requested and the catalog says the model supports it.
    pub fast: bool,
    /// `xai/*` models get `parallelToolCalls: true`.
    pub xai_parallel_tool_calls: bool,
    /// Anthropic cache markers.
    pub prompt_caching: bool,
}

/// Applies the catalog rules of reference §2.3/§3.3 to the options.
#[must_use]
pub fn resolve_options(options: &RequestOptions<'_>) -> ResolvedOptions {
    let model = options.model;
    let window = model
        .and_then(|m| m.context_window)
        .or_else(|| fallback_context_window(options.model_id));
    let max_output_tokens = model
        .and_then(|m| m.max_tokens)
        .filter(|max| window.is_none_or(|w| *max < w));
    let reasoning = match &options.effort {
        Effort::Named(name) if model.is_some_and(|m| m.lists_effort(name)) => Some(name.clone()),
        Effort::Named(_) | Effort::Auto => None,
    };
    ResolvedOptions {
        max_output_tokens,
        reasoning,
        fast: options.fast && model.is_some_and(|m| m.fast),
        xai_parallel_tool_calls: options.model_id.starts_with("xai/"),
        prompt_caching: uses_prompt_caching(options.model_id),
    }
}

/// Builds the request after validating the history.
///
/// # Errors
/// [`RequestError::History`] when tool calls and results do not pair up;
/// [`RequestError::InvalidHeaderValue`] when a header value holds CR, LF or NUL.
pub fn build_request(
    endpoint: &ChatEndpoint,
    messages: &[Message],
    tools: &[ToolDefinition],
    options: &RequestOptions<'_>,
) -> Result<HttpRequest, RequestError> {
    validate_history(messages)?;
    let headers = request_headers(options)?;
    let resolved = resolve_options(options);
    let body = build_body(messages, tools, options, &resolved)?;
    Ok(HttpRequest {
        method: Method::Post,
        url: endpoint.chat_url().to_owned(),
        headers: headers
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect(),
        body: body.into_bytes(),
    })
}

/// The request headers in fx's order.
///
/// # Errors
/// [`RequestError::InvalidHeaderValue`] when a value holds CR, LF or NUL.
pub fn request_headers(
    options: &RequestOptions<'_>,
) -> Result<Vec<(&'static str, String)>, RequestError> {
    let mut headers: Vec<(&'static str, String)> = Vec::with_capacity(11);
    headers.push(("content-type", "application/json".to_owned()));
    if let Some(token) = options.token {
        headers.push(("authorization", format!("Bearer {token}")));
    }
    headers.push(("HTTP-Referer", REFERER.to_owned()));
    headers.push(("X-Title", TITLE.to_owned()));
    headers.push(("ai-gateway-protocol-version", PROTOCOL_VERSION.to_owned()));
    headers.push((
        "ai-language-model-specification-version",
        SPECIFICATION_VERSION.to_owned(),
    ));
    headers.push(("ai-language-model-id", options.model_id.to_owned()));
    headers.push(("ai-language-model-streaming", "true".to_owned()));
    if let Some(team) = options.team.filter(|t| !t.is_empty()) {
        headers.push(("x-vercel-ai-gateway-team", team.to_owned()));
    }
    if let Some(session) = options.session_id.filter(|s| !s.is_empty()) {
        headers.push(("x-session-id", session.to_owned()));
        headers.push(("x-session-affinity", session.to_owned()));
    }
    for (name, value) in &headers {
        if value.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0)) {
            return Err(RequestError::InvalidHeaderValue { header: name });
        }
    }
    Ok(headers)
}

#[derive(Serialize)]
struct Body<'a> {
    prompt: Prompt<'a>,
    tools: &'a [ToolDefinition],
    #[serde(rename = "toolChoice")]
    tool_choice: ToolChoiceJson,
    #[serde(rename = "maxOutputTokens", skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    #[serde(rename = "providerOptions", skip_serializing_if = "Option::is_none")]
    provider_options: Option<ProviderOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    headers: Option<BodyHeaders<'a>>,
}

#[derive(Serialize)]
struct ToolChoiceJson {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct ProviderOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    gateway: Option<GatewayOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    xai: Option<XaiOptions>,
}

#[derive(Serialize)]
struct GatewayOptions {
    speed: &'static str,
}

#[derive(Serialize)]
struct XaiOptions {
    #[serde(rename = "parallelToolCalls")]
    parallel_tool_calls: bool,
}

#[derive(Serialize)]
struct BodyHeaders<'a> {
    #[serde(rename = "user-agent")]
    user_agent: &'a str,
}

struct Prompt<'a> {
    messages: &'a [Message],
    marks: Vec<bool>,
}

impl Serialize for Prompt<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for (i, message) in self.messages.iter().enumerate() {
            let cache_control = self.marks.get(i).copied().unwrap_or(false);
            seq.serialize_element(&WireMessage {
                message,
                cache_control,
            })?;
        }
        seq.end()
    }
}

/// Serializes the body (no validation; [`build_request`] validates first).
///
/// # Errors
/// [`RequestError::Encode`] if serialization fails.
pub fn build_body(
    messages: &[Message],
    tools: &[ToolDefinition],
    options: &RequestOptions<'_>,
    resolved: &ResolvedOptions,
) -> Result<String, RequestError> {
    let provider_options =
        (resolved.fast || resolved.xai_parallel_tool_calls).then(|| ProviderOptions {
            gateway: resolved.fast.then_some(GatewayOptions { speed: "fast" }),
            xai: resolved.xai_parallel_tool_calls.then_some(XaiOptions {
                parallel_tool_calls: true,
            }),
        });
    let headers = options
        .user_agent
        .filter(|_| options.model_id == "zai/glm-5.2")
        .map(|user_agent| BodyHeaders { user_agent });
    let body = Body {
        prompt: Prompt {
            messages,
            marks: cache_marks(messages, resolved.prompt_caching),
        },
        tools,
        tool_choice: ToolChoiceJson {
            kind: options.tool_choice.label(),
        },
        max_output_tokens: resolved.max_output_tokens,
        reasoning: resolved.reasoning.as_deref(),
        provider_options,
        headers,
    };
    serde_json::to_string(&body).map_err(|e| RequestError::Encode(e.to_string()))
}
