//! The `#[wasm_bindgen]` surface that js/ drives (wasm32 only). Each export is a thin adapter:
//! convert arguments, call the pure-Rust module, convert the result or error.

pub mod agent;
#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bot")]
pub mod bot;
mod config;
pub mod log;
#[cfg(feature = "term")]
pub mod term;
