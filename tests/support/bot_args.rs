//! Arguments of the bots engine from JSON, as the boundary (src/api/bot.rs) decodes them from
//! JavaScript: the same serde types, fed by serde_json; an engine's test configuration; and a
//! document store that counts its reads and may yield before each call.
#![allow(dead_code, clippy::expect_used)]

use fx_wasm::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use fx_wasm::auth::AuthConfig;
use fx_wasm::bot::args::Arg;
use fx_wasm::bot::cursor::{Cursor, CursorError};
use fx_wasm::bot::engine::{default_library_url, EngineConfig};
use fx_wasm::bot::ids::{BotId, IdError, LibraryId, ProviderId};
use fx_wasm::caps::{DocStore, ListedDoc, MemoryDocStore, RemoveOutcome, StoreError, StoredRecord};
use fx_wasm::gateway::ChatEndpoint;
use serde::de::DeserializeOwned;
use std::cell::Cell;
use std::rc::Rc;

use super::fake_host::yield_now;
use serde_json::Value;

/// `chat.send` with the message as a caller passes it (`{ text?, messageId, files? }`).
pub async fn send_json<H: fx_wasm::caps::Host + Clone + 'static, D: DocStore>(
    engine: &fx_wasm::bot::engine::Fxbot<H, D>,
    bot: &str,
    message: &Value,
) -> Result<
    (
        fx_wasm::bot::docs::chat::Sent,
        Option<fx_wasm::bot::engine::chat::PendingTurn>,
    ),
    fx_wasm::bot::FxbotError,
> {
    let message = fx_wasm::bot::engine::chat::Outgoing::from_json(message)?;
    engine.send(bot, message).await
}

/// Any argument type (`Object<FieldsArg>`, `Arg<…>`, …) from JSON.
pub fn arg<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("every JSON value decodes")
}

pub fn bid(text: impl AsRef<str>) -> BotId {
    BotId::parse(text.as_ref()).expect("a bot id")
}

pub fn pid(text: impl AsRef<str>) -> ProviderId {
    ProviderId::parse(text.as_ref()).expect("a provider id")
}

pub fn lid(text: impl AsRef<str>) -> LibraryId {
    LibraryId::parse(text.as_ref()).expect("a library id")
}

/// A cursor from JSON, as the boundary checks it.
pub fn cursor(value: Value) -> Result<Cursor, CursorError> {
    Cursor::from_arg(arg::<Arg<f64>>(value))
}

pub fn at(value: Value) -> Cursor {
    cursor(value).expect("a cursor")
}

/// A bot id from JSON, as the boundary checks it.
pub fn bot_arg(value: Value) -> Result<BotId, IdError> {
    BotId::from_arg(arg(value))
}

/// An engine's configuration in tests: process `owner`, the canonical endpoint, the seed's
/// library URLs, the production issuer, the default idle deadline.
pub fn engine_config(owner: &str) -> EngineConfig {
    EngineConfig {
        owner: owner.into(),
        endpoint: ChatEndpoint::canonical(),
        library_url: Box::new(default_library_url),
        auth: AuthConfig::production(),
        model_idle_timeout_ms: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
        embedder: None,
    }
}

/// A [`MemoryDocStore`] (clones share it) that counts its reads (`load` and `list`) and, with
/// `yields`, yields to the executor before every call, so two engines' calls interleave under
/// `join`.
#[derive(Clone, Default)]
pub struct SpyDocs {
    pub inner: MemoryDocStore,
    pub reads: Rc<Cell<usize>>,
    pub yields: bool,
}

impl SpyDocs {
    async fn before(&self, read: bool) {
        if read {
            self.reads.set(self.reads.get() + 1);
        }
        if self.yields {
            yield_now().await;
        }
    }
}

impl DocStore for SpyDocs {
    async fn doc_load(&self, key: &str) -> Result<Option<StoredRecord>, StoreError> {
        self.before(true).await;
        self.inner.doc_load(key).await
    }
    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        self.before(false).await;
        self.inner.doc_commit(key, bytes, expected).await
    }
    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, StoreError> {
        self.before(true).await;
        self.inner.doc_list(prefix).await
    }
    async fn doc_remove(
        &self,
        key: &str,
        expected: Option<&str>,
    ) -> Result<RemoveOutcome, StoreError> {
        self.before(false).await;
        self.inner.doc_remove(key, expected).await
    }
}
