//! The Agent Client Protocol shapes a turn yields (`session/update` payloads) and the permission
//! request a host answers.
//!
//! Field names and enum values are ACP's (camelCase keys, snake_case values), the stop reasons
//! too ([`StopReason`]: `end_turn`, `max_tokens`, `max_turn_requests`, `refusal`, `cancelled`),
//! at every JS surface: the agent's `turn.result`, the terminal's handle and the bots' stream.
//! (fx's own names for them, `max_output_tokens`, `max_model_turns` and `refused`, belong to the
//! session log, which records how a turn ended in its own terms and never a stop reason.)

use serde::{Deserialize, Serialize};

/// One `session/update` payload (`params.update` in ACP).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum Update {
    AgentMessageChunk {
        content: TextContent,
    },
    UserMessageChunk {
        content: TextContent,
    },
    /// The model's reasoning as the gateway streams it (not stored with the session).
    AgentThoughtChunk {
        content: TextContent,
    },
    #[serde(rename_all = "camelCase")]
    ToolCall {
        tool_call_id: String,
        /// The tool the model called (ACP's `name`).
        #[serde(rename = "name")]
        tool_name: String,
        title: String,
        kind: ToolKind,
        status: ToolStatus,
        raw_input: serde_json::Value,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallUpdate {
        tool_call_id: String,
        status: ToolStatus,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        content: Vec<ToolCallContent>,
        #[serde(skip_serializing_if = "Option::is_none")]
        raw_output: Option<RawOutput>,
    },
}

/// A finished call's `rawOutput`: `{"exitCode": number | null, "cancelled": boolean}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RawOutput {
    /// A command's exit code (`null` for a call that ran no command or did not exit).
    pub exit_code: Option<i32>,
    /// The call was cancelled while it ran.
    pub cancelled: bool,
}

impl Update {
    pub fn agent_text(text: impl Into<String>) -> Self {
        Update::AgentMessageChunk {
            content: TextContent::new(text),
        }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        Update::UserMessageChunk {
            content: TextContent::new(text),
        }
    }

    /// The tool a `tool_call` update is about (`None` for the other updates).
    #[must_use]
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Update::ToolCall { tool_name, .. } => Some(tool_name),
            Update::AgentMessageChunk { .. }
            | Update::UserMessageChunk { .. }
            | Update::AgentThoughtChunk { .. }
            | Update::ToolCallUpdate { .. } => None,
        }
    }
}

/// `{"type":"text","text":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    pub text: String,
}

impl TextContent {
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            kind: "text",
            text: text.into(),
        }
    }
}

/// `{"type":"content","content":{"type":"text","text":…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCallContent {
    #[serde(rename = "type")]
    kind: &'static str,
    pub content: TextContent,
}

impl ToolCallContent {
    pub fn text(text: impl Into<String>) -> Self {
        ToolCallContent {
            kind: "content",
            content: TextContent::new(text),
        }
    }
}

/// ACP's `ToolKind` (serialized by name, as a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    Other,
}

impl ToolKind {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::Other => "other",
        }
    }
}

/// ACP's `ToolCallStatus` (serialized by name, as a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

impl ToolStatus {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::InProgress => "in_progress",
            ToolStatus::Completed => "completed",
            ToolStatus::Failed => "failed",
        }
    }
}

// A name as a plain string: smaller than the derived unit-variant code in every artifact.
impl Serialize for ToolKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Serialize for ToolStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Why a turn ended: ACP's `StopReason`, the one stop reason of the agent, the terminal and the
/// bots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model hit its output limit (fx: `max_output_tokens`).
    MaxTokens,
    /// The turn reached its step limit (fx: `max_model_turns`).
    MaxTurnRequests,
    /// The model refused (a content filter; fx: `refused`).
    Refusal,
    /// The turn was cancelled.
    Cancelled,
}

impl StopReason {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::MaxTurnRequests => "max_turn_requests",
            StopReason::Refusal => "refusal",
            StopReason::Cancelled => "cancelled",
        }
    }
}

/// The tokens a model reported: one step's (`turn.usage` events) or a turn's sum (the agent's
/// `turn.result.usage`, a bot turn's `usage`). The one usage type of every front end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    /// `self + other`, saturating.
    #[must_use]
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
        }
    }
}

/// What the host is asked before a command runs (`session/request_permission` params).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    pub session_id: String,
    pub tool_call: PermissionToolCall,
    pub options: Vec<PermissionOption>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionToolCall {
    pub tool_call_id: String,
    pub title: String,
    pub kind: ToolKind,
    pub status: ToolStatus,
    pub raw_input: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: &'static str,
    pub name: &'static str,
    pub kind: &'static str,
}

/// The three choices every command approval offers.
pub fn permission_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption {
            option_id: "allow_once",
            name: "Allow once",
            kind: "allow_once",
        },
        PermissionOption {
            option_id: "allow_always",
            name: "Allow this command for the session",
            kind: "allow_always",
        },
        PermissionOption {
            option_id: "reject_once",
            name: "Reject",
            kind: "reject_once",
        },
    ]
}

/// The host's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// Allowed this once, optionally with a note for the model ("Yes, and …").
    AllowOnce {
        note: Option<String>,
    },
    AllowAlways,
    /// Rejected, optionally with a note for the model.
    Reject {
        note: Option<String>,
    },
    /// No answer (no handler, a throw, an unknown option, or the turn was cancelled).
    Cancelled,
}

impl PermissionAnswer {
    /// Maps an ACP `optionId` (or its absence) to an answer.
    pub fn from_option_id(option_id: Option<&str>) -> Self {
        match option_id {
            Some("allow_once") => PermissionAnswer::AllowOnce { note: None },
            Some("allow_always") => PermissionAnswer::AllowAlways,
            Some("reject_once") => PermissionAnswer::Reject { note: None },
            _ => PermissionAnswer::Cancelled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_serialize_as_acp() {
        let text = serde_json::to_string(&Update::agent_text("hi")).unwrap();
        assert_eq!(
            text,
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}"#
        );
        let call = Update::ToolCall {
            tool_call_id: "c1".into(),
            tool_name: "terminal".into(),
            title: "ls".into(),
            kind: ToolKind::Execute,
            status: ToolStatus::Pending,
            raw_input: serde_json::json!({"action": "exec"}),
        };
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"sessionUpdate":"tool_call","toolCallId":"c1","name":"terminal","title":"ls","kind":"execute","status":"pending","rawInput":{"action":"exec"}}"#
        );
        let update = Update::ToolCallUpdate {
            tool_call_id: "c1".into(),
            status: ToolStatus::InProgress,
            content: vec![],
            raw_output: None,
        };
        assert_eq!(
            serde_json::to_string(&update).unwrap(),
            r#"{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"}"#
        );
    }

    #[test]
    fn option_ids_map() {
        assert_eq!(
            PermissionAnswer::from_option_id(Some("allow_always")),
            PermissionAnswer::AllowAlways
        );
        assert_eq!(
            PermissionAnswer::from_option_id(Some("bogus")),
            PermissionAnswer::Cancelled
        );
        assert_eq!(
            PermissionAnswer::from_option_id(None),
            PermissionAnswer::Cancelled
        );
    }
}
