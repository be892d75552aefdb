//! The one builder of the JS errors the core raises. A coded Rust error becomes a real `Error`
//! named `FxError` (or, for an argument error, a `TypeError`) whose `message` is the error's
//! `Display` text and whose `code` is its [`Code`] (`FX_SESSION_INVALID`, ...). An argument
//! of the wrong shape that serde could not read becomes a plain `TypeError`.

// fx-bot (feature `bot` alone) raises only FxbotError (`fxbot_error`) and TypeErrors.
#![cfg_attr(not(any(feature = "core-api", feature = "term")), allow(dead_code))]

use std::fmt::Display;

use wasm_bindgen::JsValue;

use crate::agent::AgentError;
use crate::log::LogError;
use crate::Code;

/// An error with a stable, machine-readable code that JavaScript callers can branch on.
pub(crate) trait CodedError: Display {
    /// The `code` property of the JS error.
    fn code(&self) -> Code;
    /// True for argument errors a JS caller should see as a `TypeError` (still with a `code`).
    fn is_type_error(&self) -> bool {
        false
    }
}

impl CodedError for LogError {
    fn code(&self) -> Code {
        LogError::code(self)
    }
}

impl CodedError for AgentError {
    fn code(&self) -> Code {
        AgentError::code(self)
    }
    fn is_type_error(&self) -> bool {
        AgentError::is_type_error(self)
    }
}

/// The JS error for `err`: a `TypeError` or an `Error` named `FxError`, with its `code`.
pub(crate) fn to_js_error<E: CodedError>(err: &E) -> JsValue {
    let kind = if err.is_type_error() {
        Kind::TypeError
    } else {
        Kind::FxError
    };
    js_error(kind, &err.to_string(), Some(err.code().as_str()))
}

/// A `TypeError` without a code, for arguments of the wrong shape.
pub(crate) fn type_error(message: &str) -> JsValue {
    js_error(Kind::TypeError, message, None)
}

enum Kind {
    FxError,
    TypeError,
}

fn js_error(kind: Kind, message: &str, code: Option<&'static str>) -> JsValue {
    let js = match kind {
        Kind::TypeError => js_sys::Error::from(js_sys::TypeError::new(message)),
        Kind::FxError => {
            let js = js_sys::Error::new(message);
            js.set_name("FxError");
            js
        }
    };
    if let Some(code) = code {
        // Setting a property on a fresh Error object cannot fail; if it somehow did, the error
        // would still carry its name and message, which is the best we can do.
        let _ = js_sys::Reflect::set(&js, &JsValue::from_str("code"), &JsValue::from_str(code));
    }
    js.into()
}

/// The JS error of a bots call: an `Error` named `FxbotError` with its `status` and `code`.
#[cfg(feature = "bot")]
pub(crate) fn fxbot_error(err: &crate::bot::FxbotError) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("FxbotError");
    // Setting properties on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("status"),
        &JsValue::from_f64(f64::from(err.status())),
    );
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code().as_str()),
    );
    js.into()
}
