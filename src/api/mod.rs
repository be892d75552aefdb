//! The `#[wasm_bindgen]` surface that js/ drives (wasm32 only). Each export is a thin adapter:
//! convert arguments, call the pure-Rust module, convert the result or error.

#[cfg(feature = "core-api")]
pub mod agent;
#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bot")]
pub mod bot;
#[cfg(any(feature = "core-api", feature = "term", feature = "bot"))]
mod config;
#[cfg(feature = "core-api")]
pub mod log;
#[cfg(feature = "term")]
pub mod term;
