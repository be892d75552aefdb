//! fx-wasm: the fx coding agent as a WebAssembly SDK.
//!
//! The logic lives in plain Rust modules that compile and are tested natively:
//!
//! - [`Code`]: the one list of error codes every area's error maps to.
//! - [`log`]: the session event log (`event_log_v1`): frames, events, canonical writer, strict
//!   loader, reducer, appender, native session directory export/import.
//! - [`gateway`]: the AI Gateway language-model protocol: request builder, SSE decoder, catalog.
//! - [`caps`]: what the core asks of its host, one small trait per capability; [`caps::Host`]
//!   is their sum.
//! - [`net`]: URLs and SSE lines, shared by the gateway and the login.
//! - [`agent`]: the agent loop, generic over a host.
//! - [`tools`]: the browser `terminal` tool.
//! - [`auth`]: Vercel device login.
//! - `term` (feature `term`): the interactive terminal.
//! - `bot` (feature `bot`): the bots layer of `createFxbot` (ids, fields, uploads, stream lines,
//!   cursors, the live journal, the bot and chat documents).
//! - `mcp` (feature `bot`): a client of remote MCP servers over Streamable HTTP.
//!
//! Only `host` and `api` (wasm32 only) touch JavaScript; they stay thin.

pub mod agent;
pub mod auth;
pub mod caps;
pub mod code;
pub mod gateway;
pub mod log;
pub mod net;
#[cfg(feature = "bot")]
pub mod providers;
pub mod tools;

pub use code::Code;

#[cfg(feature = "bot")]
pub mod bot;
#[cfg(feature = "bot")]
pub mod mcp;
#[cfg(feature = "term")]
pub mod term;

// Public so that tests/wasm.rs can call the exports the way the JS glue does.
#[cfg(target_arch = "wasm32")]
pub mod api;
#[cfg(target_arch = "wasm32")]
mod host;
