//! The bots engine's [`DocStore`] over the `host` object js/host.js builds: the application's
//! `store` (an FxbotStore) goes through the same adapter table as the session store (every call
//! a Promise, bounded by its deadline, its result shape-checked, a commit's bytes copied at
//! once), so its records and errors are the session store's: [`StoredRecord`] and
//! [`StoreError`] of [`Store::Docs`].

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use crate::caps::{DocStore, ListedDoc, RemoveOutcome, Store, StoreError, StoredRecord};

use super::js_host::{
    get, settle, store_error, stored_record, unconvertible, JsHost, JsHostAdapter,
};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(method, structural, js_name = docLoad)]
    fn doc_load(this: &JsHost, key: &str) -> Promise;
    #[wasm_bindgen(method, structural, js_name = docCommit)]
    fn doc_commit(this: &JsHost, key: &str, bytes: &[u8], expected: Option<String>) -> Promise;
    #[wasm_bindgen(method, structural, js_name = docList)]
    fn doc_list(this: &JsHost, prefix: &str) -> Promise;
    /// `"deleted"` or `"missing"`.
    #[wasm_bindgen(method, structural, js_name = docRemove)]
    fn doc_remove(this: &JsHost, key: &str, expected: Option<String>) -> Promise;
}

impl DocStore for JsHostAdapter {
    async fn doc_load(&self, key: &str) -> Result<Option<StoredRecord>, StoreError> {
        let value = settle(self.js.doc_load(key))
            .await
            .map_err(|e| store_error(Store::Docs, "load", &e))?;
        stored_record(Store::Docs, "load", &value)
    }

    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let value = settle(self.js.doc_commit(key, bytes, expected.map(str::to_owned)))
            .await
            .map_err(|e| store_error(Store::Docs, "commit", &e))?;
        value
            .as_string()
            .ok_or_else(|| unconvertible(Store::Docs, "commit"))
    }

    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, StoreError> {
        let value = settle(self.js.doc_list(prefix))
            .await
            .map_err(|e| store_error(Store::Docs, "list", &e))?;
        let array = value
            .dyn_into::<Array>()
            .map_err(|_| unconvertible(Store::Docs, "list"))?;
        let mut out = Vec::new();
        for entry in array.iter() {
            let key = get(&entry, "key").as_string();
            let revision = get(&entry, "revision").as_string();
            match (key, revision) {
                // A key outside the prefix is outside the contract too.
                (Some(key), Some(revision)) if key.starts_with(prefix) => {
                    out.push(ListedDoc { key, revision });
                }
                _ => return Err(unconvertible(Store::Docs, "list")),
            }
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    async fn doc_remove(
        &self,
        key: &str,
        expected: Option<&str>,
    ) -> Result<RemoveOutcome, StoreError> {
        let value = settle(self.js.doc_remove(key, expected.map(str::to_owned)))
            .await
            .map_err(|e| store_error(Store::Docs, "remove", &e))?;
        Ok(match value.as_string().as_deref() {
            Some("missing") => RemoveOutcome::Missing,
            _ => RemoveOutcome::Deleted,
        })
    }
}
