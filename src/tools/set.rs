//! The tool-set seam: the tools a turn offers the model and how one call runs ([`ToolSet`]),
//! and the coding agent's set, the `terminal` tool over the host's workspace
//! ([`TerminalTools`]).
//!
//! A turn asks the set for its definitions once, then for each call: [`ToolSet::prepare`] (its
//! title, and a call to run or the record of one that cannot), whether it needs the user's
//! permission, and [`ToolSet::run`]. The session's mode and "always allow"
//! list stay the agent's: the set only says which calls its policy would put to the user.

#![allow(async_fn_in_trait)]

use crate::caps::acp::ToolKind;
use crate::caps::{Cancel, ExecOutcome, Workspace};
use crate::gateway::ToolDefinition;

use super::terminal::{self, ToolRecord};
use super::workspace::{Permission, WorkspaceInfo, COMMAND_TIMEOUT_MS};

/// A call of the model as the set reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The title of the call's updates and permission request.
    pub title: String,
    /// The call to run, or the record the model reads back for one that cannot run (a tool
    /// this set does not have, arguments it refuses).
    pub call: Result<PreparedCall, ToolRecord>,
}

/// A call the set accepted, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedCall {
    /// The tool's name.
    pub name: String,
    /// What the user allows: an "always allow" answer covers later calls with the same key
    /// (the terminal's command line).
    pub key: String,
}

/// What a turn offers the model.
pub trait ToolSet {
    /// The tools, in the order the request lists them (stable within a turn).
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// The ACP kind of a call's updates.
    fn kind(&self, name: &str) -> ToolKind;

    /// Reads a call of the model: its title, and the call to run or why it cannot.
    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared;

    /// Whether the set's policy puts `call` to the user before it runs.
    fn needs_permission(&self, call: &PreparedCall) -> bool;

    /// Runs `call`; stops promptly once `cancel` is set.
    async fn run(&self, call: &PreparedCall, cancel: &Cancel) -> ToolRecord;

    /// The record of `call` when its turn was cancelled while it ran.
    fn cancelled(&self, call: &PreparedCall) -> ToolRecord;
}

/// The coding agent's tools: `terminal` over the host's workspace when it has one, nothing
/// otherwise.
pub struct TerminalTools<'a, W: Workspace + ?Sized> {
    pub workspace: &'a W,
    pub info: Option<&'a WorkspaceInfo>,
}

impl<W: Workspace + ?Sized> ToolSet for TerminalTools<'_, W> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        let Some(_) = self.info else {
            return Vec::new();
        };
        match serde_json::value::to_raw_value(&terminal::input_schema()) {
            Ok(input_schema) => vec![ToolDefinition {
                name: terminal::NAME.to_owned(),
                description: terminal::DESCRIPTION.to_owned(),
                input_schema,
            }],
            Err(_) => Vec::new(),
        }
    }

    fn kind(&self, _name: &str) -> ToolKind {
        ToolKind::Execute
    }

    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared {
        let command = terminal::decode_arguments(arguments_json);
        // The command is the title even of a call this set refuses (the screen shows it).
        let title = match &command {
            Ok(command) => command.clone(),
            Err(_) => name.to_owned(),
        };
        let call = if self.info.is_none() || name != terminal::NAME {
            Err(ToolRecord::unavailable(name))
        } else {
            command
                .map(|key| PreparedCall {
                    name: name.to_owned(),
                    key,
                })
                .map_err(|error| ToolRecord::invalid_arguments(&error))
        };
        Prepared { title, call }
    }

    fn needs_permission(&self, _call: &PreparedCall) -> bool {
        self.info
            .is_some_and(|info| info.permission == Permission::Prompt)
    }

    async fn run(&self, call: &PreparedCall, cancel: &Cancel) -> ToolRecord {
        let cwd = self.info.map_or("/", |info| info.cwd.as_str());
        let outcome = self
            .workspace
            .exec(&call.key, cwd, COMMAND_TIMEOUT_MS, cancel)
            .await;
        ToolRecord::from_outcome(&call.key, cwd, &outcome)
    }

    fn cancelled(&self, call: &PreparedCall) -> ToolRecord {
        let cwd = self.info.map_or("/", |info| info.cwd.as_str());
        ToolRecord::from_outcome(&call.key, cwd, &ExecOutcome::Cancelled)
    }
}
