//! wasm-bindgen-test smoke tests of the JS boundary (src/api, src/host), run under Node:
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!  cargo test --target wasm32-unknown-unknown --test wasm`.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![cfg(target_arch = "wasm32")]

use fx_wasm::api::log::{export_native_session, import_native_session, read_session};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const SIMPLE: &[u8] = include_bytes!(
    "fixtures/fx-sessions/simple/session/1796004787807-1796004787807100283-5a7c3606642b8401/events.jsonl"
);
const SIMPLE_ID: &str = "1796004787807-1796004787807100283-5a7c3606642b8401";

fn prop(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

/// Asserts that `err` is a JS `Error` named `FxError` with code `FX_SESSION_INVALID`.
fn assert_session_invalid(err: &JsValue) -> String {
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "not an Error: {err:?}"
    );
    assert_eq!(prop(err, "name").as_string().as_deref(), Some("FxError"));
    assert_eq!(
        prop(err, "code").as_string().as_deref(),
        Some("FX_SESSION_INVALID")
    );
    prop(err, "message").as_string().unwrap()
}

#[wasm_bindgen_test]
fn read_session_gives_a_plain_object() {
    let view = read_session(SIMPLE).expect("simple fixture loads");
    assert_eq!(prop(&view, "id").as_string().as_deref(), Some(SIMPLE_ID));
    let turns: js_sys::Array = prop(&view, "turns").dyn_into().unwrap();
    let turn = turns.get(0);
    assert_eq!(
        prop(&turn, "kind").as_string().as_deref(),
        Some("assistant")
    );
    assert_eq!(
        prop(&prop(&turn, "user"), "text").as_string().as_deref(),
        Some("say hello")
    );
    assert_eq!(
        prop(&turn, "assistant").as_string().as_deref(),
        Some("Hello world.")
    );
    // Option::None crosses as null (not undefined), as in JSON.
    assert!(prop(&view, "recovery").is_null());
}

#[wasm_bindgen_test]
fn invalid_bytes_become_a_coded_js_error_naming_the_seq() {
    let mut bytes = SIMPLE.to_vec();
    bytes.truncate(bytes.len() - 10);
    let err = read_session(&bytes).unwrap_err();
    let message = assert_session_invalid(&err);
    assert!(
        message.contains("seq 7"),
        "message names the seq: {message}"
    );

    let err = export_native_session(b"\xff\xfe not a log").unwrap_err();
    assert_session_invalid(&err);
}

#[wasm_bindgen_test]
fn export_then_import_gives_the_bytes_back() {
    let pairs = export_native_session(SIMPLE).expect("export");
    let mut paths = Vec::new();
    let mut contents = Vec::new();
    for pair in pairs.iter() {
        let pair: js_sys::Array = pair.dyn_into().unwrap();
        paths.push(pair.get(0).as_string().unwrap());
        contents.push(pair.get(1).dyn_into::<js_sys::Uint8Array>().unwrap());
    }
    assert!(
        paths.iter().any(|p| p == "events.jsonl"),
        "paths: {paths:?}"
    );
    let bytes = import_native_session(paths, contents).expect("import");
    assert_eq!(bytes, SIMPLE);
}

#[wasm_bindgen_test]
fn mismatched_import_arrays_are_a_type_error() {
    let err = import_native_session(vec!["events.jsonl".into()], Vec::new()).unwrap_err();
    assert!(err.is_instance_of::<js_sys::TypeError>());
}
