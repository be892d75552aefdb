//! The browser `terminal` tool: what the model sees and what the host runs.
//!
//! - [`workspace`]: the host's workspace adapter contract (`info` validation, limits, output
//!   capping at a UTF-8 boundary).
//! - [`terminal`]: the `terminal` tool's schema, strict argument decoding, and the result record
//!   the model reads back.
//! - [`set`]: the tool-set seam a turn runs its calls through ([`set::ToolSet`]), and the coding
//!   agent's set ([`set::TerminalTools`]).
//!
//! The only I/O is the workspace's `exec` ([`crate::caps::Workspace`]), which
//! [`set::TerminalTools`] calls and turns into a [`terminal::ToolRecord`].

pub mod set;
pub mod terminal;
pub mod workspace;
