//! The lines of `chat.stream` (fxbot DESIGN §8.2): [`StreamLine`] and its parts, serialized as
//! the client's `StreamLine` (a `type` tag, camelCase fields).
//!
//! Every line carries its [`Cursor`]; a `turn_start` for turn *t* resets turn *t* in the client's
//! reducer, which is what makes a restarted replay exact (`resume`).

use serde::{Deserialize, Serialize};

use super::cursor::Cursor;

/// One line of a chat's stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamLine {
    TurnStart(TurnStart),
    /// Assistant text (one chunk of it live; one step's or the final text in a replay).
    Text(TextLine),
    Reasoning(TextLine),
    ToolCall(ToolCallLine),
    ToolResult(ToolResultLine),
    TurnEnd(TurnEnd),
    ChatEnd(ChatEnd),
}

impl StreamLine {
    /// Where to start again to get the lines after this one.
    pub fn cursor(&self) -> Cursor {
        match self {
            StreamLine::TurnStart(l) => l.cursor,
            StreamLine::Text(l) | StreamLine::Reasoning(l) => l.cursor,
            StreamLine::ToolCall(l) => l.cursor,
            StreamLine::ToolResult(l) => l.cursor,
            StreamLine::TurnEnd(l) => l.cursor,
            StreamLine::ChatEnd(l) => l.cursor,
        }
    }

    /// The `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            StreamLine::TurnStart(_) => "turn_start",
            StreamLine::Text(_) => "text",
            StreamLine::Reasoning(_) => "reasoning",
            StreamLine::ToolCall(_) => "tool_call",
            StreamLine::ToolResult(_) => "tool_result",
            StreamLine::TurnEnd(_) => "turn_end",
            StreamLine::ChatEnd(_) => "chat_end",
        }
    }
}

/// A file as fxbot saved it: the `Upload` of the seed in its url form (no `data`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedFile {
    pub name: String,
    #[serde(rename = "type")]
    pub media_type: String,
    pub url: String,
}

/// The start of turn `turn`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStart {
    pub cursor: Cursor,
    pub session_id: String,
    pub turn: u32,
    /// `""` for a turn no `send` claimed (a session written elsewhere).
    pub message_id: String,
    /// RFC 3339 UTC with milliseconds.
    pub at: String,
    /// What the model saw as the user's text (the text files and skills inlined).
    pub prompt: String,
    /// fxbot's saved input: present only for a message with files or skills (seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<SavedFile>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
}

/// A chunk of assistant text or reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextLine {
    pub cursor: Cursor,
    pub turn: u32,
    pub text: String,
}

/// A tool call's state while it is not finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Pending,
    InProgress,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallLine {
    pub cursor: Cursor,
    pub turn: u32,
    pub tool_call_id: String,
    pub name: String,
    pub title: String,
    /// The parsed arguments (their text when they are not JSON).
    pub arguments: serde_json::Value,
    pub status: CallStatus,
}

/// How a tool call finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    Completed,
    Failed,
}

/// A tool call's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultLine {
    pub cursor: Cursor,
    pub turn: u32,
    pub tool_call_id: String,
    pub status: ResultStatus,
    pub output: String,
    pub truncated: bool,
}

pub use crate::caps::acp::{StopReason, Usage};

/// How a turn ended (`turn_end.stopReason`): the agent's [`StopReason`] (ACP's names), or
/// `error` for a turn that failed (its `error` says why).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Ending {
    Stopped(StopReason),
    Error,
}

impl Ending {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Stopped(reason) => reason.as_str(),
            Ending::Error => "error",
        }
    }
}

impl From<StopReason> for Ending {
    fn from(reason: StopReason) -> Self {
        Ending::Stopped(reason)
    }
}

impl From<Ending> for &'static str {
    fn from(ending: Ending) -> Self {
        ending.as_str()
    }
}

impl TryFrom<String> for Ending {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        use StopReason::*;
        [EndTurn, MaxTokens, MaxTurnRequests, Refusal, Cancelled]
            .into_iter()
            .map(Ending::Stopped)
            .chain([Ending::Error])
            .find(|e| e.as_str() == text)
            .ok_or_else(|| format!("unknown stop reason {text:?}"))
    }
}

/// The error a failed turn ended with: its `FXBOT_*` code and status, and the `FX_*` code of
/// the agent's failure underneath (`cause`), when the turn failed in the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineError {
    pub status: u16,
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    pub message: String,
}

/// The end of turn `turn`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEnd {
    pub cursor: Cursor,
    pub turn: u32,
    pub stop_reason: Ending,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<LineError>,
}

/// Why a chat ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatEndReason {
    /// A provider switch moved the bot to a new chat (§10).
    Handoff,
}

/// The end of a chat: the caller streams `next_session_id` from 0. Its cursor is
/// `(last turn + 1) · 2^21`, after every line of the chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatEnd {
    pub cursor: Cursor,
    pub reason: ChatEndReason,
    pub next_session_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn at(turn: u32, k: u32) -> Cursor {
        Cursor::new(turn, k).unwrap()
    }

    #[test]
    fn lines_serialize_as_the_clients_stream_line() {
        let lines = vec![
            StreamLine::TurnStart(TurnStart {
                cursor: at(1, 1),
                session_id: "s".into(),
                turn: 1,
                message_id: "m1".into(),
                at: "2026-12-01T00:00:00.000Z".into(),
                prompt: "hi <file name=\"a.txt\" type=\"text/plain\">x</file>".into(),
                input: Some("hi".into()),
                files: Some(vec![SavedFile {
                    name: "a.txt".into(),
                    media_type: "text/plain".into(),
                    url: "/api/library/0123456789ab/file".into(),
                }]),
                skills: None,
            }),
            StreamLine::Text(TextLine {
                cursor: at(1, 2),
                turn: 1,
                text: "Hel".into(),
            }),
            StreamLine::Reasoning(TextLine {
                cursor: at(1, 3),
                turn: 1,
                text: "hmm".into(),
            }),
            StreamLine::ToolCall(ToolCallLine {
                cursor: at(1, 4),
                turn: 1,
                tool_call_id: "c1".into(),
                name: "library_read".into(),
                title: "library_read".into(),
                arguments: json!({"id": "0123456789ab"}),
                status: CallStatus::InProgress,
            }),
            StreamLine::ToolResult(ToolResultLine {
                cursor: at(1, 5),
                turn: 1,
                tool_call_id: "c1".into(),
                status: ResultStatus::Completed,
                output: "x".into(),
                truncated: false,
            }),
            StreamLine::TurnEnd(TurnEnd {
                cursor: at(1, 6),
                turn: 1,
                stop_reason: Ending::Error,
                usage: Usage {
                    input_tokens: 10,
                    output_tokens: 2,
                },
                error: Some(LineError {
                    status: 502,
                    code: "FXBOT_PROVIDER_FAILED".into(),
                    cause: Some("FX_GATEWAY_HTTP_ERROR".into()),
                    message: "boom".into(),
                }),
            }),
            StreamLine::ChatEnd(ChatEnd {
                cursor: Cursor::before_turn(2),
                reason: ChatEndReason::Handoff,
                next_session_id: "s2".into(),
            }),
        ];
        let value = serde_json::to_value(&lines).unwrap();
        assert_eq!(
            value,
            json!([
                {"type":"turn_start","cursor":2097153,"sessionId":"s","turn":1,"messageId":"m1","at":"2026-12-01T00:00:00.000Z","prompt":"hi <file name=\"a.txt\" type=\"text/plain\">x</file>","input":"hi","files":[{"name":"a.txt","type":"text/plain","url":"/api/library/0123456789ab/file"}]},
                {"type":"text","cursor":2097154,"turn":1,"text":"Hel"},
                {"type":"reasoning","cursor":2097155,"turn":1,"text":"hmm"},
                {"type":"tool_call","cursor":2097156,"turn":1,"toolCallId":"c1","name":"library_read","title":"library_read","arguments":{"id":"0123456789ab"},"status":"in_progress"},
                {"type":"tool_result","cursor":2097157,"turn":1,"toolCallId":"c1","status":"completed","output":"x","truncated":false},
                {"type":"turn_end","cursor":2097158,"turn":1,"stopReason":"error","usage":{"inputTokens":10,"outputTokens":2},"error":{"status":502,"code":"FXBOT_PROVIDER_FAILED","cause":"FX_GATEWAY_HTTP_ERROR","message":"boom"}},
                {"type":"chat_end","cursor":4194304,"reason":"handoff","nextSessionId":"s2"}
            ])
        );
        let back: Vec<StreamLine> = serde_json::from_value(value).unwrap();
        assert_eq!(back, lines);
        let kinds: Vec<&str> = lines.iter().map(StreamLine::kind).collect();
        assert_eq!(
            kinds,
            [
                "turn_start",
                "text",
                "reasoning",
                "tool_call",
                "tool_result",
                "turn_end",
                "chat_end"
            ]
        );
        assert_eq!(lines[4].cursor(), at(1, 5));
    }

    #[test]
    fn endings_are_the_agents_stop_reasons_and_error() {
        let names: Vec<Value> = [
            Ending::Stopped(StopReason::EndTurn),
            Ending::Stopped(StopReason::MaxTokens),
            Ending::Stopped(StopReason::MaxTurnRequests),
            Ending::Stopped(StopReason::Refusal),
            Ending::Stopped(StopReason::Cancelled),
            Ending::Error,
        ]
        .into_iter()
        .map(|e| {
            let value = serde_json::to_value(e).unwrap();
            assert_eq!(serde_json::from_value::<Ending>(value.clone()).unwrap(), e);
            value
        })
        .collect();
        assert_eq!(
            names,
            [
                "end_turn",
                "max_tokens",
                "max_turn_requests",
                "refusal",
                "cancelled",
                "error"
            ]
        );
        assert!(serde_json::from_value::<Ending>(json!("max_output_tokens")).is_err());
    }
}
