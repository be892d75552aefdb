//! The host's local embedder (`createFxbot({ embedder })`) as the bots engine's
//! [`LocalEmbedder`]: js/fxbot/index.js wraps the application's object so that `embed` always
//! settles (within its deadline) to an array of vectors; the shape of each is checked here.

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::bot::embed::{EmbedFuture, LocalEmbedder, MAX_DIMS};

use super::js_host::get;

/// `{ model, embed(texts) }` from js/fxbot/index.js.
pub struct JsEmbedder {
    object: JsValue,
}

impl JsEmbedder {
    /// The embedder in `config.embedder`, when there is one.
    pub fn from_config(config: &JsValue) -> Option<Self> {
        let object = get(config, "embedder");
        get(&object, "embed")
            .is_function()
            .then_some(JsEmbedder { object })
    }
}

fn vector_of(value: &JsValue) -> Option<Vec<f32>> {
    if let Some(typed) = value.dyn_ref::<js_sys::Float32Array>() {
        let length = usize::try_from(typed.length()).ok()?;
        return (length <= MAX_DIMS).then(|| typed.to_vec());
    }
    let array = value.dyn_ref::<Array>()?;
    let length = usize::try_from(array.length()).ok()?;
    if length > MAX_DIMS {
        return None;
    }
    #[allow(clippy::cast_possible_truncation)]
    array.iter().map(|x| x.as_f64().map(|f| f as f32)).collect()
}

impl LocalEmbedder for JsEmbedder {
    fn model(&self) -> String {
        get(&self.object, "model")
            .as_string()
            .unwrap_or_else(|| "local".to_owned())
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture {
        let object = self.object.clone();
        Box::pin(async move {
            let input: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
            let embed: Function = get(&object, "embed").unchecked_into();
            let promise = embed
                .call1(&object, &input)
                .map_err(|_| "the embedder threw".to_owned())?;
            let value = JsFuture::from(Promise::resolve(&promise))
                .await
                .map_err(|e| {
                    get(&e, "message")
                        .as_string()
                        .map(|m| {
                            format!(
                                "the embedder failed: {}",
                                m.chars().take(200).collect::<String>()
                            )
                        })
                        .unwrap_or_else(|| "the embedder failed".to_owned())
                })?;
            let array = value
                .dyn_into::<Array>()
                .map_err(|_| "the embedder did not answer with an array of vectors".to_owned())?;
            array
                .iter()
                .map(|v| {
                    vector_of(&v).ok_or_else(|| {
                        "the embedder gave something that is not a vector of numbers".to_owned()
                    })
                })
                .collect()
        })
    }
}
