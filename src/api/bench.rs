//! Benchmark hooks (hidden): the same generated sessions the native benchmark uses, so
//! `npm run bench` measures identical work in Node and Chromium. Only with feature `bench`
//! (`node scripts/build.mjs --bench`): the published artifacts do not carry them.

use wasm_bindgen::prelude::*;

/// A deterministic session of `turns` sample turns.
#[doc(hidden)]
#[wasm_bindgen(js_name = benchGenerateSession)]
pub fn bench_generate_session(turns: u32) -> Vec<u8> {
    crate::log::bench::generate_session(turns as usize)
}

/// Loads `bytes` and appends `turns` sample turns; returns the new bytes.
#[doc(hidden)]
#[wasm_bindgen(js_name = benchAppendTurns)]
pub fn bench_append_turns(bytes: Vec<u8>, turns: u32) -> Vec<u8> {
    crate::log::bench::append_turns(bytes, turns as usize)
}
