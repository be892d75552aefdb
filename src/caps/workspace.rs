//! The workspace: where the `terminal` tool's commands run ([`Workspace`]).

#![allow(async_fn_in_trait)]

use super::cancel::Cancel;

/// How a workspace command ended, as the host reports it (before capping and formatting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecOutcome {
    Exited {
        exit_code: i32,
        stdout: String,
        stderr: String,
    },
    TimedOut,
    Cancelled,
    /// The adapter threw or returned something outside its contract.
    Failed(String),
}

/// The host's workspace adapter.
pub trait Workspace {
    /// Runs one command in `cwd` (only called when the host has a workspace); ends within
    /// `timeout_ms`, and at once when `cancel` is set (aborting the command).
    async fn exec(&self, command: &str, cwd: &str, timeout_ms: u32, cancel: &Cancel)
        -> ExecOutcome;
}
