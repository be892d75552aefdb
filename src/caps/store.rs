//! The host's stores: [`SessionStore`] (session logs), [`ConfigStore`] (config values),
//! [`OAuthStore`] (the stored login) and [`DocStore`] (the bots layer's documents), with one
//! record type and one error type.
//!
//! Records are opaque bytes under an optimistic revision: every write names the revision it
//! read, and a stale one is [`StoreError::RevisionConflict`], never a generic failure. Results
//! are shape-checked once, where the host adapts its stores (js/host.js for the JS host); a
//! store that throws, answers with the wrong shape, misses its deadline or is abandoned is
//! [`StoreError::Failed`] with the matching [`Failure`].

#![allow(async_fn_in_trait)]

use crate::Code;
use std::fmt;

/// Which store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Session,
    Config,
    OAuth,
    /// The bots layer's document store (`createFxbot({ store })`).
    Docs,
}

impl Store {
    /// The adapter's name in the JS contract.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Store::Session => "sessionStore",
            Store::Config => "configStore",
            Store::OAuth => "oauthSessionStore",
            Store::Docs => "store",
        }
    }
}

/// How a store call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The store threw (or rejected).
    Threw,
    /// It answered with a value outside its contract.
    Invalid,
    /// It did not answer within the host's deadline (`adapterTimeoutMs`).
    TimedOut,
    /// The agent stopped before it answered; the late answer is ignored.
    Abandoned,
}

/// A store failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The stored revision is not the one the write expected: another writer got in first.
    #[error("{}", conflict_text(*.store))]
    RevisionConflict { store: Store },
    /// Any other failure. `message` is the host's description: for a throw, the store's own
    /// message; otherwise it already names the adapter and method. It never holds the record.
    #[error("{}", failed_text(*.store, .method, *.failure, .message))]
    Failed {
        store: Store,
        method: &'static str,
        failure: Failure,
        message: String,
    },
}

fn conflict_text(store: Store) -> &'static str {
    match store {
        Store::Session => {
            "the stored session changed since it was read (FX_SESSION_REVISION_CONFLICT)"
        }
        Store::Docs => {
            "the stored document changed since it was read (FXBOT_STORE_REVISION_CONFLICT)"
        }
        Store::Config | Store::OAuth => "the stored revision moved on",
    }
}

fn failed_text(store: Store, method: &str, failure: Failure, message: &str) -> String {
    match failure {
        Failure::Threw => format!("{}.{method} failed: {message}", store.name()),
        Failure::Invalid | Failure::TimedOut | Failure::Abandoned => message.to_owned(),
    }
}

impl StoreError {
    /// A failure of `store.method` with the host's `message`.
    #[must_use]
    pub fn failed(store: Store, method: &'static str, failure: Failure, message: String) -> Self {
        StoreError::Failed {
            store,
            method,
            failure,
            message,
        }
    }

    /// The JS error code.
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            StoreError::RevisionConflict { store } => match store {
                Store::Session => Code::SessionRevisionConflict,
                Store::OAuth => Code::OAuthSessionRevisionConflict,
                Store::Docs => Code::StoreRevisionConflict,
                // Config values carry no revision: a conflict cannot happen there.
                Store::Config => Code::ConfigStoreFailed,
            },
            StoreError::Failed {
                failure: Failure::TimedOut,
                ..
            } => Code::AdapterTimeout,
            StoreError::Failed {
                failure: Failure::Abandoned,
                ..
            } => Code::AgentClosed,
            StoreError::Failed {
                store,
                failure: Failure::Threw | Failure::Invalid,
                ..
            } => match store {
                Store::Session => Code::SessionStoreFailed,
                Store::Config => Code::ConfigStoreFailed,
                Store::OAuth => Code::OAuthStoreFailed,
                Store::Docs => Code::StoreFailed,
            },
        }
    }

    /// The host's own words: the store's message for a throw, else the host's description (for
    /// events that name the store themselves).
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            StoreError::RevisionConflict { store } => conflict_text(*store),
            StoreError::Failed { message, .. } => message,
        }
    }
}

/// A stored record and its revision. The bytes may hold tokens (the OAuth record): `Debug`
/// shows their length only.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredRecord {
    pub bytes: Vec<u8>,
    pub revision: String,
}

impl fmt::Debug for StoredRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredRecord")
            .field("bytes_len", &self.bytes.len())
            .field("revision", &self.revision)
            .finish()
    }
}

/// One entry of the session store's `list()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    pub id: String,
    pub updated_at_ms: i64,
}

/// One entry of the document store's `list(prefix)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDoc {
    pub key: String,
    pub revision: String,
}

/// What a `remove` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoveOutcome {
    /// A record was stored and is gone now.
    Deleted,
    /// Nothing was stored.
    Missing,
}

/// The `sessionStore`: session logs by id.
pub trait SessionStore {
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn load_session(&self, id: &str) -> Result<Option<StoredRecord>, StoreError>;
    /// Writes `bytes` if the stored revision is `expected` (`None` = no record yet); returns the
    /// new revision.
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when the stored revision differs.
    async fn commit_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError>;
    /// Whether the store takes [`SessionStore::append_session`] (`sessionStore.append`, our
    /// extension of the contract). A store without it gets every commit whole.
    fn appends_sessions(&self) -> bool {
        false
    }
    /// Adds `bytes` at the end of the stored record if its revision is `expected`; returns the
    /// new revision. Only called when [`SessionStore::appends_sessions`] says so, and only with
    /// bytes that extend exactly what the record at `expected` holds.
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when the stored revision differs.
    async fn append_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: &str,
    ) -> Result<String, StoreError> {
        let _ = (id, bytes, expected);
        Err(StoreError::failed(
            Store::Session,
            "append",
            Failure::Invalid,
            "the sessionStore has no append()".to_owned(),
        ))
    }
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError>;
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn remove_session(&self, id: &str) -> Result<(), StoreError>;
}

/// The `configStore`: config values (`model`, `mode`) by id.
pub trait ConfigStore {
    /// The stored value, if any.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails or returns something other than a string.
    async fn config_get(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// Persists an accepted value; `Ok(false)` when the store cannot save.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn config_set(&self, id: &str, value: &str) -> Result<bool, StoreError>;
}

fn no_oauth_store(method: &'static str) -> StoreError {
    StoreError::failed(
        Store::OAuth,
        method,
        Failure::Threw,
        "the host has no oauthSessionStore".to_owned(),
    )
}

/// The `oauthSessionStore`: the one stored login record. The bytes hold tokens: never log them.
/// A host without one keeps the defaults (every call fails).
pub trait OAuthStore {
    /// The stored record, or `None` when nothing is stored.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails (or the host has none).
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        Err(no_oauth_store("load"))
    }
    /// Stores `bytes` if the stored revision is `expected` (`None`: nothing stored); returns the
    /// new revision.
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when the revision moved on.
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let _ = (bytes, expected);
        Err(no_oauth_store("commit"))
    }
    /// Removes the record if the stored revision is `expected`.
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when the revision moved on.
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        let _ = expected;
        Err(no_oauth_store("remove"))
    }
}

/// The bots layer's document store (`FxbotStore`, fxbot DESIGN §5.1): byte records by key under
/// the same revision rules as the session store, listed by key prefix. `commit(key, bytes,
/// None)` means "must not exist yet"; `list` is sorted by key. Not part of the agent's
/// [`crate::caps::Host`]: only the bots engine asks for it.
pub trait DocStore {
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn doc_load(&self, key: &str) -> Result<Option<StoredRecord>, StoreError>;
    /// Writes `bytes` if the stored revision is `expected` (`None`: nothing stored); returns
    /// the new revision.
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when the stored revision differs.
    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError>;
    /// The keys under `prefix`, sorted.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, StoreError>;
    /// Removes `key` (if the stored revision is `expected`, when given).
    ///
    /// # Errors
    /// [`StoreError::RevisionConflict`] when `expected` is given and differs (or nothing is
    /// stored).
    async fn doc_remove(
        &self,
        key: &str,
        expected: Option<&str>,
    ) -> Result<RemoveOutcome, StoreError>;
}
