//! Typed bindings to the JavaScript side (wasm32 only): for now, turning Rust errors into JS
//! `Error` objects that carry a `code`.

mod error;

pub(crate) use error::to_js_error;
