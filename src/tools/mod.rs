//! The browser `terminal` tool: what the model sees and what the host runs.
//!
//! - [`workspace`]: the host's workspace adapter contract (`info` validation, limits, output
//!   capping at a UTF-8 boundary).
//! - [`set`]: the tool-set seam a turn runs its calls through ([`set::ToolSet`]): a call
//!   ([`set::PreparedCall`]: name, decoded arguments, permission key) and its outcome
//!   ([`set::ToolOutcome`]).
//! - [`terminal`]: the coding agent's set ([`terminal::TerminalTools`]): the `terminal` tool's
//!   schema, strict argument decoding, and the outcomes the model reads back.
//!
//! The only I/O is the workspace's `exec` ([`crate::caps::Workspace`]), which
//! [`terminal::TerminalTools`] calls and turns into a [`set::ToolOutcome`].

pub mod set;
pub mod terminal;
pub mod workspace;
