//! Typed bindings to the JavaScript side (wasm32 only): the host's capabilities
//! ([`crate::caps`]) over the object js/host.js builds ([`js_host`]), the terminal's output,
//! history and downloads over the `io` object js/terminal.js builds ([`term_io`]), and Rust
//! errors as JS `Error` objects that carry a `code`.

mod error;
pub mod js_host;
#[cfg(feature = "term")]
pub mod term_io;

pub(crate) use error::{to_js_error, type_error};
