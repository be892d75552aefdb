//! The agent's [`Host`] over the one `host` object js/host.js builds.
//!
//! js/host.js already normalizes the application's adapters (sync or async, thrown errors keep
//! their `code`, results are shape-checked in its one table); this side awaits the promises,
//! races them against the turn's [`Cancel`] (aborting the JS side on cancel), and maps values
//! to typed results. js/host.js also ends every store call at its deadline (`adapterTimeoutMs`)
//! and abandons them when the agent stops; those come here as coded errors.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::caps::acp::{PermissionAnswer, PermissionRequest, Update};
use crate::caps::cancel::Cancel;
use crate::caps::{
    Clock, ConfigStore, ExecOutcome, Failure, FetchError, HostEvent, Http, HttpRequest,
    HttpResponse, ListedSession, OAuthStore, Random, RemoveOutcome, ResponseBody, SessionStore,
    Store, StoreError, StoredRecord, Ui, Workspace,
};
use crate::Code;

#[wasm_bindgen]
extern "C" {
    /// The object js/host.js builds.
    #[derive(Clone)]
    pub type JsHost;
    #[wasm_bindgen(method, structural)]
    fn now(this: &JsHost) -> f64;
    #[wasm_bindgen(method, structural)]
    fn random(this: &JsHost, buf: &mut [u8]);
    /// A Promise that resolves after `ms` milliseconds (`setTimeout`).
    #[wasm_bindgen(method, structural)]
    pub(crate) fn sleep(this: &JsHost, ms: u32) -> Promise;
    /// A timer as `{ promise, abort }`: `abort` clears it.
    #[wasm_bindgen(method, structural)]
    fn timer(this: &JsHost, ms: u32) -> JsOp;
    #[wasm_bindgen(method, structural, catch)]
    fn fetch(
        this: &JsHost,
        method: &str,
        url: &str,
        headers: Array,
        body: &[u8],
    ) -> Result<JsOp, JsValue>;
    #[wasm_bindgen(method, structural, js_name = sessionLoad)]
    fn session_load(this: &JsHost, id: &str) -> Promise;
    #[wasm_bindgen(method, structural, js_name = sessionCommit)]
    fn session_commit(this: &JsHost, id: &str, bytes: &[u8], expected: Option<String>) -> Promise;
    /// Whether the application's `sessionStore` has `append` (checked once, by js/host.js).
    #[wasm_bindgen(method, structural, js_name = sessionAppends)]
    fn session_appends(this: &JsHost) -> bool;
    #[wasm_bindgen(method, structural, js_name = sessionAppend)]
    fn session_append(this: &JsHost, id: &str, bytes: &[u8], expected: &str) -> Promise;
    #[wasm_bindgen(method, structural, js_name = sessionList)]
    fn session_list(this: &JsHost) -> Promise;
    #[wasm_bindgen(method, structural, js_name = sessionRemove)]
    fn session_remove(this: &JsHost, id: &str) -> Promise;
    #[wasm_bindgen(method, structural, js_name = configGet)]
    fn config_get(this: &JsHost, id: &str) -> Promise;
    #[wasm_bindgen(method, structural, js_name = configSet)]
    fn config_set(this: &JsHost, id: &str, value: &str) -> Promise;
    /// `{ bytes, revision }` or `null`; rejects with the store's error (its `code` kept).
    #[wasm_bindgen(method, structural, js_name = oauthLoad)]
    fn oauth_load(this: &JsHost) -> Promise;
    /// The new revision.
    #[wasm_bindgen(method, structural, js_name = oauthCommit)]
    fn oauth_commit(this: &JsHost, bytes: &[u8], expected: Option<String>) -> Promise;
    /// `"deleted"` or `"missing"`.
    #[wasm_bindgen(method, structural, js_name = oauthRemove)]
    fn oauth_remove(this: &JsHost, expected: Option<String>) -> Promise;
    /// `true` when the host's `openUrl` accepted the URL.
    #[wasm_bindgen(method, structural, js_name = openUrl)]
    fn open_url(this: &JsHost, url: &str) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn exec(this: &JsHost, command: &str, cwd: &str, timeout_ms: u32, output_limit: u32) -> JsOp;
    #[wasm_bindgen(method, structural)]
    fn permission(this: &JsHost, request: JsValue) -> JsOp;
    #[wasm_bindgen(method, structural)]
    fn update(this: &JsHost, turn: u32, update: JsValue);
    #[wasm_bindgen(method, structural)]
    fn text(this: &JsHost, turn: u32, text: &str);
    /// One event: `{ type, ...detail }`.
    #[wasm_bindgen(method, structural)]
    fn event(this: &JsHost, event: JsValue);

    /// `{ promise, abort }`.
    pub type JsOp;
    #[wasm_bindgen(method, getter, structural)]
    fn promise(this: &JsOp) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn abort(this: &JsOp);

    /// A response: `status`, `retryAfter`, `read()`, `abort()`.
    pub type JsHttp;
    #[wasm_bindgen(method, getter, structural)]
    fn status(this: &JsHttp) -> u16;
    #[wasm_bindgen(method, getter, structural, js_name = retryAfter)]
    fn retry_after(this: &JsHttp) -> Option<String>;
    #[wasm_bindgen(method, getter, structural, js_name = contentType)]
    fn content_type(this: &JsHttp) -> Option<String>;
    #[cfg(feature = "bot")]
    #[wasm_bindgen(method, getter, structural, js_name = mcpSessionId)]
    fn mcp_session_id(this: &JsHttp) -> Option<String>;
    #[cfg(feature = "bot")]
    #[wasm_bindgen(method, getter, structural, js_name = wwwAuthenticate)]
    fn www_authenticate(this: &JsHttp) -> Option<String>;
    #[wasm_bindgen(method, structural)]
    fn read(this: &JsHttp) -> JsOp;
    #[wasm_bindgen(method, structural, js_name = abort)]
    fn abort_request(this: &JsHttp);
}

/// Plain data to a JS object (maps become objects; numbers stay numbers; bytes a field
/// serializes as bytes, like `session.unsaved`'s, become a `Uint8Array`).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value
        .serialize(
            &serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false),
        )
        .unwrap_or(JsValue::NULL)
}

/// A JS error's `message` (or its text).
pub fn error_message(error: &JsValue) -> String {
    Reflect::get(error, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .filter(|m| !m.is_empty())
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "unknown error".to_owned())
}

fn error_code(error: &JsValue) -> Option<String> {
    Reflect::get(error, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
}

fn error_name(error: &JsValue) -> Option<String> {
    Reflect::get(error, &JsValue::from_str("name"))
        .ok()
        .and_then(|c| c.as_string())
}

pub(super) async fn settle(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

/// Awaits an abortable JS operation; on cancel, aborts it and returns `None`.
async fn settle_op(op: &JsOp, cancel: &Cancel) -> Option<Result<JsValue, JsValue>> {
    match cancel.run(settle(op.promise())).await {
        Ok(result) => Some(result),
        Err(_) => {
            op.abort();
            None
        }
    }
}

// The codes js/host.js raises for a store call it refused for its shape, that missed its
// deadline, or that the agent's stop abandoned.
const ADAPTER_INVALID: &str = Code::AdapterInvalid.as_str();
const ADAPTER_TIMEOUT: &str = Code::AdapterTimeout.as_str();
const AGENT_CLOSED: &str = Code::AgentClosed.as_str();

/// A store call's failure: the conflict code becomes [`StoreError::RevisionConflict`]; js/host.js
/// marks a refused shape (`FX_ADAPTER_INVALID`), a missed deadline (`FX_ADAPTER_TIMEOUT`) and
/// an abandoned call (`FX_AGENT_CLOSED`); anything else is the store's own throw. The message is
/// the store's (never the record's bytes).
pub(super) fn store_error(store: Store, method: &'static str, error: &JsValue) -> StoreError {
    let code = error_code(error);
    let conflict = match store {
        Store::Session => Some(Code::SessionRevisionConflict),
        Store::OAuth => Some(Code::OAuthSessionRevisionConflict),
        Store::Docs => Some(Code::BotStoreRevisionConflict),
        Store::Config => None,
    };
    let failure = match code.as_deref() {
        Some(code) if conflict.is_some_and(|c| c.as_str() == code) => {
            return StoreError::RevisionConflict { store }
        }
        Some(ADAPTER_INVALID) => Failure::Invalid,
        Some(ADAPTER_TIMEOUT) => Failure::TimedOut,
        Some(AGENT_CLOSED) => Failure::Abandoned,
        _ => Failure::Threw,
    };
    StoreError::failed(store, method, failure, error_message(error))
}

/// A value js/host.js checked that still does not convert (a bug on our side, not the host's).
pub(super) fn unconvertible(store: Store, method: &'static str) -> StoreError {
    StoreError::failed(
        store,
        method,
        Failure::Invalid,
        format!(
            "{}.{method}() gave a result the core could not read",
            store.name()
        ),
    )
}

/// `{ bytes, revision }` (checked by js/host.js) or `null`.
pub(super) fn stored_record(
    store: Store,
    method: &'static str,
    value: &JsValue,
) -> Result<Option<StoredRecord>, StoreError> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    let bytes = get(value, "bytes")
        .dyn_into::<Uint8Array>()
        .map_err(|_| unconvertible(store, method))?;
    let revision = get(value, "revision")
        .as_string()
        .ok_or_else(|| unconvertible(store, method))?;
    Ok(Some(StoredRecord {
        bytes: bytes.to_vec(),
        revision,
    }))
}

pub(super) fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The agent's host in the browser or Node (a handle: clones share the JS object).
#[derive(Clone)]
pub struct JsHostAdapter {
    pub(super) js: JsHost,
}

impl JsHostAdapter {
    pub fn new(js: JsHost) -> Self {
        JsHostAdapter { js }
    }
}

/// A streamed response body.
pub struct JsBody {
    handle: JsHttp,
    finished: bool,
}

impl ResponseBody for JsBody {
    async fn next_chunk(&mut self, cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError> {
        let op = self.handle.read();
        match settle_op(&op, cancel).await {
            None => Err(FetchError::Cancelled),
            Some(Ok(value)) if value.is_null() || value.is_undefined() => {
                self.finished = true;
                Ok(None)
            }
            Some(Ok(value)) => match value.dyn_into::<Uint8Array>() {
                Ok(bytes) => Ok(Some(bytes.to_vec())),
                Err(_) => Err(FetchError::Network(
                    "the response body produced a non-byte chunk".into(),
                )),
            },
            Some(Err(error)) if cancel.is_cancelled() => {
                let _ = error;
                Err(FetchError::Cancelled)
            }
            Some(Err(error)) => Err(FetchError::Network(error_message(&error))),
        }
    }
}

impl Drop for JsBody {
    fn drop(&mut self) {
        if !self.finished {
            // Stop a response we no longer read (a `[DONE]` before the end, a cancel, an error).
            self.handle.abort_request();
        }
    }
}

impl Clock for JsHostAdapter {
    fn now_ms(&self) -> i64 {
        self.js.now() as i64
    }

    async fn sleep(&self, ms: u32) {
        let _ = settle(self.js.sleep(ms)).await;
    }

    async fn deadline(&self, ms: u32) {
        /// Clears the JS timer when the deadline is abandoned.
        struct Clear(JsOp);
        impl Drop for Clear {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let timer = Clear(self.js.timer(ms));
        let _ = settle(timer.0.promise()).await;
    }
}

impl Random for JsHostAdapter {
    fn fill_random(&self, buf: &mut [u8]) {
        self.js.random(buf);
    }
}

impl Http for JsHostAdapter {
    type Body = JsBody;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<JsBody>, FetchError> {
        let headers: Array = request
            .headers
            .iter()
            .map(|(name, value)| {
                JsValue::from(Array::of2(
                    &JsValue::from_str(name),
                    &JsValue::from_str(value),
                ))
            })
            .collect();
        let op = self
            .js
            .fetch(
                request.method.as_str(),
                &request.url,
                headers,
                &request.body,
            )
            .map_err(|error| FetchError::Network(error_message(&error)))?;
        match settle_op(&op, cancel).await {
            None => Err(FetchError::Cancelled),
            Some(Ok(value)) => {
                let handle: JsHttp = value.unchecked_into();
                // Only the bots talk to MCP servers: the agent's artifacts read neither header.
                #[cfg(feature = "bot")]
                let (mcp_session_id, www_authenticate) =
                    (handle.mcp_session_id(), handle.www_authenticate());
                #[cfg(not(feature = "bot"))]
                let (mcp_session_id, www_authenticate) = (None, None);
                Ok(HttpResponse {
                    status: handle.status(),
                    retry_after: handle.retry_after(),
                    content_type: handle.content_type(),
                    mcp_session_id,
                    www_authenticate,
                    body: JsBody {
                        handle,
                        finished: false,
                    },
                })
            }
            Some(Err(error))
                if cancel.is_cancelled() || error_name(&error).as_deref() == Some("AbortError") =>
            {
                Err(FetchError::Cancelled)
            }
            Some(Err(error)) => Err(FetchError::Network(error_message(&error))),
        }
    }
}

impl SessionStore for JsHostAdapter {
    async fn load_session(&self, id: &str) -> Result<Option<StoredRecord>, StoreError> {
        let value = settle(self.js.session_load(id))
            .await
            .map_err(|e| store_error(Store::Session, "load", &e))?;
        stored_record(Store::Session, "load", &value)
    }

    async fn commit_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let value = settle(
            self.js
                .session_commit(id, bytes, expected.map(str::to_owned)),
        )
        .await
        .map_err(|e| store_error(Store::Session, "commit", &e))?;
        value
            .as_string()
            .ok_or_else(|| unconvertible(Store::Session, "commit"))
    }

    fn appends_sessions(&self) -> bool {
        self.js.session_appends()
    }

    async fn append_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: &str,
    ) -> Result<String, StoreError> {
        let value = settle(self.js.session_append(id, bytes, expected))
            .await
            .map_err(|e| store_error(Store::Session, "append", &e))?;
        value
            .as_string()
            .ok_or_else(|| unconvertible(Store::Session, "append"))
    }

    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError> {
        let value = settle(self.js.session_list())
            .await
            .map_err(|e| store_error(Store::Session, "list", &e))?;
        let entries: Array = value
            .dyn_into()
            .map_err(|_| unconvertible(Store::Session, "list"))?;
        entries
            .iter()
            .map(|entry| {
                let id = get(&entry, "id").as_string();
                let updated_at_ms = get(&entry, "updatedAtMs").as_f64();
                match (id, updated_at_ms) {
                    (Some(id), Some(ms)) => Ok(ListedSession {
                        id,
                        updated_at_ms: ms as i64,
                    }),
                    _ => Err(unconvertible(Store::Session, "list")),
                }
            })
            .collect()
    }

    async fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        settle(self.js.session_remove(id))
            .await
            .map(|_| ())
            .map_err(|e| store_error(Store::Session, "remove", &e))
    }
}

impl Workspace for JsHostAdapter {
    async fn exec(
        &self,
        command: &str,
        cwd: &str,
        timeout_ms: u32,
        cancel: &Cancel,
    ) -> ExecOutcome {
        let limit = u32::try_from(crate::tools::workspace::MAX_OUTPUT_BYTES).unwrap_or(u32::MAX);
        let op = self.js.exec(command, cwd, timeout_ms, limit);
        let value = match settle_op(&op, cancel).await {
            None => return ExecOutcome::Cancelled,
            Some(Err(error)) => return ExecOutcome::Failed(error_message(&error)),
            Some(Ok(value)) => value,
        };
        match get(&value, "kind").as_string().as_deref() {
            Some("exited") => ExecOutcome::Exited {
                exit_code: get(&value, "exitCode").as_f64().map_or(-1, |c| c as i32),
                stdout: get(&value, "stdout").as_string().unwrap_or_default(),
                stderr: get(&value, "stderr").as_string().unwrap_or_default(),
            },
            Some("timeout") => ExecOutcome::TimedOut,
            Some("cancelled") => ExecOutcome::Cancelled,
            _ => ExecOutcome::Failed(
                get(&value, "message")
                    .as_string()
                    .unwrap_or_else(|| "workspace.exec failed".into()),
            ),
        }
    }
}

impl ConfigStore for JsHostAdapter {
    async fn config_get(&self, id: &str) -> Result<Option<String>, StoreError> {
        let value = settle(self.js.config_get(id))
            .await
            .map_err(|e| store_error(Store::Config, "get", &e))?;
        Ok(value.as_string())
    }

    async fn config_set(&self, id: &str, value: &str) -> Result<bool, StoreError> {
        let saved = settle(self.js.config_set(id, value))
            .await
            .map_err(|e| store_error(Store::Config, "set", &e))?;
        Ok(saved.as_bool().unwrap_or(true))
    }
}

impl OAuthStore for JsHostAdapter {
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        let value = settle(self.js.oauth_load())
            .await
            .map_err(|e| store_error(Store::OAuth, "load", &e))?;
        stored_record(Store::OAuth, "load", &value)
    }

    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let promise = self.js.oauth_commit(&bytes, expected.map(str::to_owned));
        crate::caps::http::wipe(bytes);
        let value = settle(promise)
            .await
            .map_err(|e| store_error(Store::OAuth, "commit", &e))?;
        value
            .as_string()
            .ok_or_else(|| unconvertible(Store::OAuth, "commit"))
    }

    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        let value = settle(self.js.oauth_remove(expected.map(str::to_owned)))
            .await
            .map_err(|e| store_error(Store::OAuth, "remove", &e))?;
        Ok(if value.as_string().as_deref() == Some("missing") {
            RemoveOutcome::Missing
        } else {
            RemoveOutcome::Deleted
        })
    }
}

impl Ui for JsHostAdapter {
    async fn open_url(&self, url: &str) -> bool {
        settle(self.js.open_url(url))
            .await
            .is_ok_and(|value| value.as_bool() == Some(true))
    }

    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer {
        let op = self.js.permission(to_js(request));
        match settle_op(&op, cancel).await {
            Some(Ok(value)) => PermissionAnswer::from_option_id(value.as_string().as_deref()),
            Some(Err(_)) | None => PermissionAnswer::Cancelled,
        }
    }

    fn update(&self, turn: u32, update: Update) {
        self.js.update(turn, to_js(&update));
    }

    fn text(&self, turn: u32, text: &str) {
        self.js.text(turn, text);
    }

    fn event(&self, event: HostEvent) {
        self.js.event(to_js(&event));
    }
}
