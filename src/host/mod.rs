//! Typed bindings to the JavaScript adapters (wasm32 only).
