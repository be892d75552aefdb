//! The wire message model of the language-model `prompt`: system, user, assistant and tool
//! messages, their JSON shape, and the pre-send check that tool calls and tool results pair up.
//!
//! The JSON written here matches what fx sends (see the fixtures' `requests.jsonl`):
//!
//! ```json
//! {"role":"system","content":"..."}
//! {"role":"user","content":[{"type":"text","text":"..."},{"type":"file","mediaType":"image/png","data":"<base64>"}]}
//! {"role":"assistant","content":[{"type":"text","text":"..."},{"type":"tool-call","toolCallId":"c1","toolName":"terminal","input":{...}}]}
//! {"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"terminal","output":{"type":"text","value":"..."}}]}
//! ```
//!
//! Empty text parts are left out. A tool result carries no status field: a failure is expressed
//! in its text (fx writes a JSON `{"error":{...}}` document there).

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use thiserror::Error;

use crate::Code;

/// A problem with the message history that stops a request from being sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PromptError {
    /// Tool-call arguments that are not valid JSON.
    #[error("tool call {id:?} has arguments that are not valid JSON")]
    InvalidToolArguments {
        /// The tool call id.
        id: String,
    },
    /// A tool call with an empty id or name.
    #[error("message {index}: a tool call has an empty {field}")]
    EmptyToolCallField {
        /// Index of the assistant message.
        index: usize,
        /// `"toolCallId"` or `"toolName"`.
        field: &'static str,
    },
    /// Two tool calls of one assistant message share an id.
    #[error("message {index}: tool call id {id:?} appears twice")]
    DuplicateToolCallId {
        /// Index of the assistant message.
        index: usize,
        /// The repeated id.
        id: String,
    },
    /// A tool message that does not answer a preceding assistant tool call.
    #[error("message {index}: a tool result for {id:?} does not follow a matching tool call")]
    UnexpectedToolResult {
        /// Index of the tool message.
        index: usize,
        /// The result's tool call id.
        id: String,
    },
    /// A tool call answered twice.
    #[error("message {index}: tool call {id:?} already has a result")]
    DuplicateToolResult {
        /// Index of the tool message.
        index: usize,
        /// The tool call id.
        id: String,
    },
    /// A tool result whose tool name differs from its call's.
    #[error(
        "message {index}: the result for {id:?} names tool {found:?}, the call named {expected:?}"
    )]
    ToolNameMismatch {
        /// Index of the tool message.
        index: usize,
        /// The tool call id.
        id: String,
        /// Name in the call.
        expected: String,
        /// Name in the result.
        found: String,
    },
    /// An assistant message whose tool calls are not all answered before the next message.
    #[error("message {index}: tool call {id:?} has no result")]
    MissingToolResult {
        /// Index of the assistant message.
        index: usize,
        /// The unanswered tool call id.
        id: String,
    },
}

impl PromptError {
    /// Stable error code (the reference calls this `InvalidGatewayHistory`).
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::InvalidToolArguments { .. }
            | Self::EmptyToolCallField { .. }
            | Self::DuplicateToolCallId { .. }
            | Self::UnexpectedToolResult { .. }
            | Self::DuplicateToolResult { .. }
            | Self::ToolNameMismatch { .. }
            | Self::MissingToolResult { .. } => Code::GatewayInvalidHistory,
        }
    }
}

/// One message of the `prompt` array.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `{"role":"system","content":"..."}`.
    System {
        /// The instruction text.
        content: String,
        /// Marks the per-step overlay: never gets a cache marker, and no later message does.
        no_cache: bool,
    },
    /// A user message: text and image parts.
    User {
        /// The parts, in order.
        parts: Vec<UserPart>,
    },
    /// An assistant message: text and tool calls.
    Assistant {
        /// The parts, in order (fx writes the text first, then the calls).
        parts: Vec<AssistantPart>,
    },
    /// Tool results. fx sends one result per tool message; several results in one message are
    /// written as several parts of that message.
    Tool {
        /// The results.
        results: Vec<ToolResult>,
    },
}

impl Message {
    /// A cacheable system message.
    #[must_use]
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
            no_cache: false,
        }
    }

    /// A user message holding one text part.
    #[must_use]
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::User {
            parts: vec![UserPart::Text(text.into())],
        }
    }

    /// An assistant message holding one text part.
    #[must_use]
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::Assistant {
            parts: vec![AssistantPart::Text(text.into())],
        }
    }

    /// A tool message holding one result.
    #[must_use]
    pub fn tool_result(result: ToolResult) -> Self {
        Self::Tool {
            results: vec![result],
        }
    }

    /// The `role` string.
    #[must_use]
    pub fn role(&self) -> &'static str {
        match self {
            Self::System { .. } => "system",
            Self::User { .. } => "user",
            Self::Assistant { .. } => "assistant",
            Self::Tool { .. } => "tool",
        }
    }

    /// The tool calls of an assistant message (empty for other roles).
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallPart> {
        let parts: &[AssistantPart] = match self {
            Self::Assistant { parts } => parts,
            _ => &[],
        };
        parts.iter().filter_map(|part| match part {
            AssistantPart::ToolCall(call) => Some(call),
            AssistantPart::Text(_) => None,
        })
    }
}

/// A part of a user message.
#[derive(Debug, Clone, PartialEq)]
pub enum UserPart {
    /// `{"type":"text","text":...}` (left out when empty).
    Text(String),
    /// `{"type":"file","mediaType":...,"data":<base64>}`.
    Image(ImagePart),
}

/// An inline image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagePart {
    /// e.g. `image/png`.
    pub media_type: String,
    /// The image bytes, standard base64 with padding.
    pub data_base64: String,
}

/// A part of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantPart {
    /// `{"type":"text","text":...}` (left out when empty).
    Text(String),
    /// `{"type":"tool-call",...}`.
    ToolCall(ToolCallPart),
}

/// A tool call the model made. Invariant: `input` is valid JSON (guaranteed by `RawValue`).
#[derive(Debug, Clone)]
pub struct ToolCallPart {
    /// `toolCallId`.
    pub id: String,
    /// `toolName`.
    pub name: String,
    /// The raw argument JSON, inlined as `input` byte for byte (key order kept).
    pub input: Box<RawValue>,
}

impl PartialEq for ToolCallPart {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.name == other.name && self.input.get() == other.input.get()
    }
}

impl ToolCallPart {
    /// Builds a tool call from its raw argument JSON.
    ///
    /// # Errors
    /// [`PromptError::InvalidToolArguments`] when `arguments_json` is not valid JSON.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments_json: &str,
    ) -> Result<Self, PromptError> {
        let id = id.into();
        match RawValue::from_string(arguments_json.trim().to_owned()) {
            Ok(input) => Ok(Self {
                id,
                name: name.into(),
                input,
            }),
            Err(_) => Err(PromptError::InvalidToolArguments { id }),
        }
    }
}

/// The result of one tool call, sent as `output: {"type":"text","value":...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// `toolCallId` of the call this answers.
    pub tool_call_id: String,
    /// `toolName` of that call.
    pub tool_name: String,
    /// What the model reads (for failures, fx's `{"error":{...}}` text).
    pub output: String,
}

/// Checks the pairing rules before a request is built: every assistant message with N tool calls
/// (non-empty, unique ids and names) is followed by tool messages holding exactly N results that
/// answer those calls (any order, matching names, no duplicates), and no tool message appears
/// anywhere else.
///
/// # Errors
/// The first [`PromptError`] found, naming the message index.
pub fn validate_history(messages: &[Message]) -> Result<(), PromptError> {
    let mut index = 0;
    while let Some(message) = messages.get(index) {
        match message {
            Message::Tool { results } => {
                let id = results
                    .first()
                    .map(|r| r.tool_call_id.clone())
                    .unwrap_or_default();
                return Err(PromptError::UnexpectedToolResult { index, id });
            }
            Message::Assistant { .. } => {
                let calls: Vec<&ToolCallPart> = message.tool_calls().collect();
                index = index.saturating_add(1);
                if !calls.is_empty() {
                    index = check_results(messages, index, &calls)?;
                }
            }
            Message::System { .. } | Message::User { .. } => index = index.saturating_add(1),
        }
    }
    Ok(())
}

/// Checks the results answering `calls` (made by message `start - 1`); returns the index of the
/// first message after them.
fn check_results(
    messages: &[Message],
    start: usize,
    calls: &[&ToolCallPart],
) -> Result<usize, PromptError> {
    let call_index = start.saturating_sub(1);
    for (i, call) in calls.iter().enumerate() {
        if call.id.is_empty() {
            return Err(PromptError::EmptyToolCallField {
                index: call_index,
                field: "toolCallId",
            });
        }
        if call.name.is_empty() {
            return Err(PromptError::EmptyToolCallField {
                index: call_index,
                field: "toolName",
            });
        }
        if calls
            .iter()
            .skip(i.saturating_add(1))
            .any(|c| c.id == call.id)
        {
            return Err(PromptError::DuplicateToolCallId {
                index: call_index,
                id: call.id.clone(),
            });
        }
    }
    let mut answered = vec![false; calls.len()];
    let mut remaining = calls.len();
    let mut index = start;
    while remaining > 0 {
        let Some(Message::Tool { results }) = messages.get(index) else {
            let missing = calls
                .iter()
                .zip(answered.iter())
                .find(|(_, done)| !**done)
                .map(|(call, _)| call.id.clone())
                .unwrap_or_default();
            return Err(PromptError::MissingToolResult {
                index: call_index,
                id: missing,
            });
        };
        for result in results {
            let id = result.tool_call_id.clone();
            if remaining == 0 {
                return Err(PromptError::UnexpectedToolResult { index, id });
            }
            let Some(position) = calls.iter().position(|c| c.id == result.tool_call_id) else {
                return Err(PromptError::UnexpectedToolResult { index, id });
            };
            let (Some(call), Some(done)) = (calls.get(position), answered.get_mut(position)) else {
                return Err(PromptError::UnexpectedToolResult { index, id });
            };
            if *done {
                return Err(PromptError::DuplicateToolResult { index, id });
            }
            if call.name != result.tool_name {
                return Err(PromptError::ToolNameMismatch {
                    index,
                    id,
                    expected: call.name.clone(),
                    found: result.tool_name.clone(),
                });
            }
            *done = true;
            remaining = remaining.saturating_sub(1);
        }
        index = index.saturating_add(1);
    }
    Ok(index)
}

/// Which messages get Anthropic's `cacheControl` marker: system messages and one breakpoint (the
/// last user/assistant message before the final message, searched from the second-to-last down
/// to index 1, only with 3 or more messages), stopping at the first `no_cache` message (which is
/// itself never marked, nor anything after it).
#[must_use]
pub fn cache_marks(messages: &[Message], prompt_caching: bool) -> Vec<bool> {
    let mut marks = vec![false; messages.len()];
    if !prompt_caching {
        return marks;
    }
    let breakpoint = if messages.len() >= 3 {
        (1..=messages.len().saturating_sub(2)).rev().find(|&i| {
            matches!(
                messages.get(i),
                Some(Message::User { .. } | Message::Assistant { .. })
            )
        })
    } else {
        None
    };
    for (i, (message, mark)) in messages.iter().zip(marks.iter_mut()).enumerate() {
        if let Message::System { no_cache: true, .. } = message {
            break;
        }
        *mark = matches!(message, Message::System { .. }) || Some(i) == breakpoint;
    }
    marks
}

/// Whether a model gets Anthropic prompt-cache markers (`anthropic/*` models).
#[must_use]
pub fn uses_prompt_caching(model_id: &str) -> bool {
    model_id.starts_with("anthropic/")
}

/// A message paired with its cache marker, serialized in fx's key order.
#[derive(Debug, Clone, Copy)]
pub struct WireMessage<'a> {
    /// The message.
    pub message: &'a Message,
    /// Append `"providerOptions":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}`.
    pub cache_control: bool,
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WireMessage {
            message: self,
            cache_control: false,
        }
        .serialize(serializer)
    }
}

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", self.message.role())?;
        match self.message {
            Message::System { content, .. } => map.serialize_entry("content", content)?,
            Message::User { parts } => map.serialize_entry("content", &UserParts(parts))?,
            Message::Assistant { parts } => {
                map.serialize_entry("content", &AssistantParts(parts))?;
            }
            Message::Tool { results } => map.serialize_entry("content", &ToolResults(results))?,
        }
        if self.cache_control {
            map.serialize_entry("providerOptions", &AnthropicCache)?;
        }
        map.end()
    }
}

struct AnthropicCache;

impl Serialize for AnthropicCache {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_json::json!({"anthropic": {"cacheControl": {"type": "ephemeral"}}})
            .serialize(serializer)
    }
}

struct TextPart<'a>(&'a str);

impl Serialize for TextPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.0)?;
        map.end()
    }
}

struct UserParts<'a>(&'a [UserPart]);

impl Serialize for UserParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for part in self.0 {
            match part {
                UserPart::Text(text) if text.is_empty() => {}
                UserPart::Text(text) => seq.serialize_element(&TextPart(text))?,
                UserPart::Image(image) => seq.serialize_element(&ImageJson(image))?,
            }
        }
        seq.end()
    }
}

struct ImageJson<'a>(&'a ImagePart);

impl Serialize for ImageJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "file")?;
        map.serialize_entry("mediaType", &self.0.media_type)?;
        map.serialize_entry("data", &self.0.data_base64)?;
        map.end()
    }
}

struct AssistantParts<'a>(&'a [AssistantPart]);

impl Serialize for AssistantParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for part in self.0 {
            match part {
                AssistantPart::Text(text) if text.is_empty() => {}
                AssistantPart::Text(text) => seq.serialize_element(&TextPart(text))?,
                AssistantPart::ToolCall(call) => seq.serialize_element(&ToolCallJson(call))?,
            }
        }
        seq.end()
    }
}

struct ToolCallJson<'a>(&'a ToolCallPart);

impl Serialize for ToolCallJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("type", "tool-call")?;
        map.serialize_entry("toolCallId", &self.0.id)?;
        map.serialize_entry("toolName", &self.0.name)?;
        map.serialize_entry("input", &self.0.input)?;
        map.end()
    }
}

struct ToolResults<'a>(&'a [ToolResult]);

impl Serialize for ToolResults<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for result in self.0 {
            seq.serialize_element(&ToolResultJson(result))?;
        }
        seq.end()
    }
}

struct ToolResultJson<'a>(&'a ToolResult);

impl Serialize for ToolResultJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("type", "tool-result")?;
        map.serialize_entry("toolCallId", &self.0.tool_call_id)?;
        map.serialize_entry("toolName", &self.0.tool_name)?;
        map.serialize_entry("output", &TextOutput(&self.0.output))?;
        map.end()
    }
}

struct TextOutput<'a>(&'a str);

impl Serialize for TextOutput<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("value", self.0)?;
        map.end()
    }
}
