//! The agent loop: turns, steps, tool calls, permissions, retries, cancellation, persistence.
//!
//! - [`core`]: [`Agent`], the entry point: sessions, config, catalog, turns.
//! - [`config`]: [`AgentConfig`], read from `env` at creation.
//! - [`credential`]: the gateway credential (env key or device login), refreshed before use.
//! - [`turn`]: one turn (model steps, tool calls, the record it leaves in the log).
//! - [`model`]: one model step: request, streamed answer, retries.
//! - [`context`]: history → model messages, within a turn window and a token budget.
//! - [`session`]: a live session's log, revision, commits and forks on conflict.
//! - [`modes`]: the session modes (`code`, `ask`) and config options (`model`, `mode`).
//! - [`replay`]: a stored session as the ACP updates of `session.history`.
//! - [`system_prompt`]: the stable system prompt and the per-step runtime context.

pub mod config;
pub mod context;
pub mod core;
pub mod credential;
pub mod model;
pub mod modes;
mod preferences;
pub mod replay;
pub mod session;
pub mod system_prompt;
pub mod turn;

pub use self::core::{Agent, AgentConfig, AgentError, Listed, Opened, PromptEnd};
