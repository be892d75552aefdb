//! Typed bindings to the JavaScript side (wasm32 only): the host's capabilities
//! ([`crate::caps`]) over the object js/host.js builds ([`js_host`]), the terminal's output,
//! history and downloads over the `io` object js/terminal.js builds ([`term_io`]), and Rust
//! errors as JS `Error` objects that carry a `code`.

#[cfg(feature = "bot")]
pub mod bot_docs;
#[cfg(feature = "bot")]
pub mod bot_embedder;
mod error;
pub mod js_host;
#[cfg(feature = "term")]
pub mod term_io;

#[cfg(feature = "bot")]
pub(crate) use error::fxbot_error;
#[cfg(any(feature = "core-api", feature = "term"))]
pub(crate) use error::to_js_error;
pub(crate) use error::type_error;
