//! The agent loop: turns, steps, tool calls, permissions, retries, cancellation, persistence.
//!
//! - [`core`]: [`Agent`], the entry point: sessions, config, catalog, turns.
//! - [`config`]: [`AgentConfig`], read from `env` at creation.
//! - [`credential`]: the gateway credential (env key or device login), refreshed before use.
//! - [`turn`]: one turn of a [`turn::TurnPlan`] (model steps, tool calls, the record it leaves in
//!   the log).
//! - [`front`]: turns from a front end's own plan ([`Agent::run_plan`]) and the sessions such a
//!   front end keeps (the bots').
//! - [`model`]: one model step: request, streamed answer, retries.
//! - [`protocol`]: the model-protocol seam ([`protocol::ModelProtocol`]) and the AI Gateway's.
//! - [`prompt`]: what a turn is asked ([`prompt::Prompt`]: text and images).
//! - [`context`]: history → model messages, within a turn window and a token budget.
//! - [`session`]: a live session's log, revision, commits and forks on conflict.
//! - [`modes`]: the session modes (`code`, `ask`) and config options (`model`, `mode`).
//! - [`replay`]: a stored session as the ACP updates of `session.history`.
//! - [`secrets`]: a request's credentials, kept out of every error text.
//! - [`system_prompt`]: the stable system prompt and the per-step runtime context.
//! - [`time`]: UTC dates and RFC 3339 timestamps.

pub mod config;
pub mod context;
pub mod core;
pub mod credential;
pub mod front;
pub mod model;
pub mod modes;
mod preferences;
pub mod prompt;
pub mod protocol;
pub mod replay;
pub mod secrets;
pub mod session;
pub mod system_prompt;
pub mod time;
pub mod turn;

pub use self::core::{Agent, AgentConfig, AgentError, Listed, Opened, PromptEnd};
