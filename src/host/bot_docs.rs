//! The bots engine's [`DocStore`] over the `docs` object js/fxbot/index.js builds from the
//! application's store: js/fxbot/ already makes every call async, bounded by its deadline and
//! shape-checked; a stale revision rejects with `FXBOT_STORE_REVISION_CONFLICT`.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::caps::{DocStore, DocStoreError, ListedDoc, StoredDoc};
use crate::Code;

use super::js_host::error_message;

#[wasm_bindgen]
extern "C" {
    /// The object js/fxbot/index.js builds.
    #[derive(Clone)]
    pub type JsDocs;
    #[wasm_bindgen(method, structural)]
    fn load(this: &JsDocs, key: &str) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn commit(this: &JsDocs, key: &str, bytes: &[u8], expected: Option<String>) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn list(this: &JsDocs, prefix: &str) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn remove(this: &JsDocs, key: &str, expected: Option<String>) -> Promise;
}

/// [`DocStore`] over [`JsDocs`] (a handle: clones share the JS object).
#[derive(Clone)]
pub struct JsDocStore {
    js: JsDocs,
}

impl JsDocStore {
    pub fn new(js: JsDocs) -> Self {
        JsDocStore { js }
    }
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn failure(key: &str, method: &'static str, error: &JsValue) -> DocStoreError {
    let code = get(error, "code").as_string();
    if code.as_deref() == Some(Code::BotStoreRevisionConflict.as_str()) {
        return DocStoreError::Conflict {
            key: key.to_owned(),
        };
    }
    DocStoreError::Failed {
        key: key.to_owned(),
        method,
        message: error_message(error),
    }
}

fn invalid(key: &str, method: &'static str) -> DocStoreError {
    DocStoreError::Failed {
        key: key.to_owned(),
        method,
        message: format!("store.{method}() gave a result the core could not read"),
    }
}

async fn settle(
    promise: Promise,
    key: &str,
    method: &'static str,
) -> Result<JsValue, DocStoreError> {
    JsFuture::from(promise)
        .await
        .map_err(|e| failure(key, method, &e))
}

impl DocStore for JsDocStore {
    async fn doc_load(&self, key: &str) -> Result<Option<StoredDoc>, DocStoreError> {
        let value = settle(self.js.load(key), key, "load").await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        let bytes = get(&value, "bytes")
            .dyn_into::<Uint8Array>()
            .map_err(|_| invalid(key, "load"))?;
        let revision = get(&value, "revision")
            .as_string()
            .ok_or_else(|| invalid(key, "load"))?;
        Ok(Some(StoredDoc {
            bytes: bytes.to_vec(),
            revision,
        }))
    }

    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, DocStoreError> {
        let value = settle(
            self.js.commit(key, bytes, expected.map(str::to_owned)),
            key,
            "commit",
        )
        .await?;
        value
            .as_string()
            .or_else(|| get(&value, "revision").as_string())
            .ok_or_else(|| invalid(key, "commit"))
    }

    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, DocStoreError> {
        let value = settle(self.js.list(prefix), prefix, "list").await?;
        let array = value
            .dyn_into::<Array>()
            .map_err(|_| invalid(prefix, "list"))?;
        let mut out = Vec::new();
        for entry in array.iter() {
            let key = get(&entry, "key").as_string();
            let revision = get(&entry, "revision").as_string();
            match (key, revision) {
                (Some(key), Some(revision)) if key.starts_with(prefix) => {
                    out.push(ListedDoc { key, revision });
                }
                _ => return Err(invalid(prefix, "list")),
            }
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    async fn doc_remove(&self, key: &str, expected: Option<&str>) -> Result<bool, DocStoreError> {
        let value = settle(
            self.js.remove(key, expected.map(str::to_owned)),
            key,
            "remove",
        )
        .await?;
        Ok(value.as_bool().unwrap_or(false))
    }
}
