//! The tool-set seam: the tools a turn offers the model and how one call runs ([`ToolSet`]),
//! a call as the set reads it ([`PreparedCall`]: name, decoded arguments, permission key), and
//! what a call gives back ([`ToolOutcome`]).
//!
//! A turn asks the set for its definitions once, then for each call: [`ToolSet::prepare`] (its
//! title, and a call to run or the outcome of one that cannot), the user's permission when the
//! call has a permission key, and [`ToolSet::run`]. The session's mode and "always allow" list
//! stay the agent's: the set only says which calls its policy would put to the user, under
//! which key.

#![allow(async_fn_in_trait)]

use serde::Serialize;

use crate::caps::acp::ToolKind;
use crate::caps::Cancel;
use crate::gateway::ToolDefinition;

/// A call of the model as the set reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared<A> {
    /// The title of the call's updates and permission request.
    pub title: String,
    /// The call to run, or the outcome the model reads back for one that cannot run (a tool
    /// this set does not have, arguments it refuses).
    pub call: Result<PreparedCall<A>, ToolOutcome>,
}

/// A call the set accepted, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedCall<A> {
    /// The tool's name.
    pub name: String,
    /// The arguments, decoded and checked ([`ToolSet::Arguments`]).
    pub arguments: A,
    /// Set when the set's policy puts the call to the user before it runs: what the user
    /// allows, so that an "always allow" answer covers later calls with the same key (the
    /// terminal's: the command line).
    pub permission_key: Option<String>,
}

/// What a turn offers the model.
pub trait ToolSet {
    /// A call's arguments as [`ToolSet::prepare`] decodes them.
    type Arguments;

    /// The tools, in the order the request lists them (stable within a turn).
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// The ACP kind of a call's updates.
    fn kind(&self, name: &str) -> ToolKind;

    /// Reads a call of the model: its title, and the call to run or why it cannot.
    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared<Self::Arguments>;

    /// Runs `call`; stops promptly once `cancel` is set.
    async fn run(&self, call: &PreparedCall<Self::Arguments>, cancel: &Cancel) -> ToolOutcome;

    /// The outcome of `call` when its turn was cancelled while it ran.
    fn cancelled(&self, call: &PreparedCall<Self::Arguments>) -> ToolOutcome;

    /// The outcome of `call` when the user refused it (with the note they gave, if any).
    fn denied(&self, call: &PreparedCall<Self::Arguments>, note: Option<&str>) -> ToolOutcome {
        let message = match note {
            Some(note) if !note.trim().is_empty() => {
                format!("The user declined this call: {note}")
            }
            _ => "The user declined this call.".to_owned(),
        };
        ToolOutcome::failure(
            ToolError {
                kind: "tool_permission_denied",
                tool_name: &call.name,
                message: &message,
                details: None,
                reason: Some("user_denied"),
                denied: Some(true),
                suggestion: "Do not retry the same call; change the approach or ask the user.",
            }
            .to_json(),
        )
    }
}

/// `success` or `failure`, as stored in the session log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Success,
    Failure,
}

/// What one call gave back: what the model reads and what the session log keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    pub status: Status,
    pub output: String,
    /// A command's exit code (the terminal's).
    pub exit_code: Option<i32>,
    /// The call was cancelled while it ran.
    pub cancelled: bool,
}

impl ToolOutcome {
    /// A call that did what it was asked.
    #[must_use]
    pub fn success(output: String) -> Self {
        ToolOutcome {
            status: Status::Success,
            output,
            exit_code: None,
            cancelled: false,
        }
    }

    /// A call that failed; `output` tells the model why.
    #[must_use]
    pub fn failure(output: String) -> Self {
        ToolOutcome {
            status: Status::Failure,
            output,
            exit_code: None,
            cancelled: false,
        }
    }

    /// The outcome for a tool the model called that this set does not offer.
    #[must_use]
    pub fn unavailable(tool_name: &str) -> Self {
        Self::failure(
            ToolError {
                kind: "tool_unavailable",
                tool_name,
                message: "This tool is not available in this browser session.",
                details: None,
                reason: None,
                denied: None,
                suggestion: "Answer without tools, or use a tool from the request's tool list.",
            }
            .to_json(),
        )
    }
}

/// fx's record of a tool failure the model reads back: `{"error":{"type":…,"tool_name":…,
/// "message":…,"details"?,"reason"?,"denied"?,"suggestion":…}}`.
#[derive(Serialize)]
pub struct ToolError<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub tool_name: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<CommandDetails<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied: Option<bool>,
    pub suggestion: &'a str,
}

/// What a failed command did (fx's `details` of a tool failure).
#[derive(Serialize)]
pub struct CommandDetails<'a> {
    pub command: &'a str,
    pub cwd: &'a str,
    pub exit_code: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<&'a str>,
}

impl ToolError<'_> {
    /// The record as the model reads it.
    #[must_use]
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Envelope<'a, T> {
            error: &'a T,
        }
        // Serializing plain strings and integers cannot fail; fall back to the message alone if
        // it did.
        serde_json::to_string(&Envelope { error: self }).unwrap_or_else(|_| self.message.to_owned())
    }
}
