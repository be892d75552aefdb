//! The #[wasm_bindgen] surface that js/ drives (wasm32 only).
