//! The browser `terminal` tool: what the model sees and what the host runs.
//!
//! - [`workspace`]: the host's workspace adapter contract (`info` validation, limits, output
//!   capping at a UTF-8 boundary).
//! - [`terminal`]: the `terminal` tool's schema, strict argument decoding, and the result record
//!   the model reads back.
//!
//! Nothing here does I/O: the agent calls the host's `exec` and hands the outcome to
//! [`terminal::ToolOutcome`] to build the record.

pub mod terminal;
pub mod workspace;
