//! Error-code mapping: every Rust error that reaches JavaScript becomes a real `Error` whose
//! `name` is `FxError`, whose `message` is the error's `Display` text, and whose `code` is the
//! error's stable code (`FX_SESSION_INVALID`, ...).

use std::fmt::Display;

use wasm_bindgen::JsValue;

use crate::log::LogError;

/// An error with a stable, machine-readable code that JavaScript callers can branch on.
pub(crate) trait CodedError: Display {
    /// The `code` property of the JS error, e.g. `FX_SESSION_INVALID`.
    fn code(&self) -> &'static str;
}

impl CodedError for LogError {
    fn code(&self) -> &'static str {
        LogError::code(self)
    }
}

/// Builds the JS `Error` for `err`: `name` `FxError`, `message` from `Display`, and `code`.
pub(crate) fn to_js_error<E: CodedError>(err: &E) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("FxError");
    // Setting a property on a fresh Error object cannot fail; if it somehow did, the error
    // would still carry its name and message, which is the best we can do.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code()),
    );
    js.into()
}

impl CodedError for crate::agent::AgentError {
    fn code(&self) -> &'static str {
        crate::agent::AgentError::code(self)
    }
}
