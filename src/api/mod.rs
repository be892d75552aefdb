//! The `#[wasm_bindgen]` surface that js/ drives (wasm32 only). Each export is a thin adapter:
//! convert arguments, call the pure-Rust module, convert the result or error.

// fx-bot.wasm carries the bots engine, not the headless agent's class.
#[cfg(any(not(feature = "bot"), feature = "term"))]
pub mod agent;
#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bot")]
pub mod bot;
#[cfg(any(not(feature = "bot"), feature = "term"))]
mod config;
pub mod log;
#[cfg(feature = "term")]
pub mod term;
