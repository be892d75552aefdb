//! The agent loop: turns, steps, tool calls, permissions, retries, cancellation, persistence.
//!
//! - [`cancel`]: the per-turn cancellation token every wait observes.
//! - [`acp`]: the ACP `session/update` shapes a turn yields, stop reasons, permission requests.
//! - [`host`]: the [`host::Host`] trait the wasm bindings and the test fakes implement.
//! - [`modes`]: the session modes (`code`, `ask`) and config options (`model`, `mode`).
//! - [`system_prompt`]: the stable system prompt and the per-step runtime context.

pub mod acp;
pub mod cancel;
pub mod host;
pub mod modes;
pub mod system_prompt;
