//! Typed bindings to the JavaScript side (wasm32 only): the agent's host over the object
//! js/host.js builds, and Rust errors as JS `Error` objects that carry a `code`.

mod error;
pub mod js_host;
#[cfg(feature = "term")]
pub mod term_host;

pub(crate) use error::{to_js_error, type_error};
