//! What the agent needs from its host: time, randomness, HTTP, the session store, the workspace,
//! the user's permission, and a place to send updates.
//!
//! The wasm build implements [`Host`] over the JS adapters (`src/host/`); tests implement it with
//! fakes. Every method that waits takes the turn's [`Cancel`] and must return promptly once it is
//! set, aborting the host-side effect (the fetch's or the command's `AbortSignal`).
//!
//! Futures are not `Send`: wasm is single-threaded and the agent runs on the page's event loop.

#![allow(async_fn_in_trait)]

use super::acp::{PermissionAnswer, PermissionRequest, Update};
use super::cancel::Cancel;
use crate::auth::{RemoveOutcome, StoreError as OAuthStoreError};
use crate::Code;

fn no_oauth_store() -> OAuthStoreError {
    OAuthStoreError::Failed("the host has no oauthSessionStore".to_owned())
}

/// An HTTP request the agent sends (gateway chat, model catalog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    /// In the order they are sent; names as fx writes them.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Why a request produced no response (or its body stopped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("cancelled")]
    Cancelled,
    /// The connection failed or dropped (the host's `fetch` rejected, or the body errored).
    #[error("network error: {0}")]
    Network(String),
}

/// A response whose body is read chunk by chunk.
pub struct HttpResponse<B> {
    pub status: u16,
    /// The raw `Retry-After` header, when the host could read it.
    pub retry_after: Option<String>,
    /// The raw `Content-Type` header, when the host could read it (`None`: unknown).
    pub content_type: Option<String>,
    pub body: B,
}

/// A streamed response body.
pub trait ResponseBody {
    /// The next chunk, or `None` at the end of the body.
    ///
    /// # Errors
    /// [`FetchError::Cancelled`] once the turn is cancelled, [`FetchError::Network`] when the
    /// stream fails.
    async fn next_chunk(&mut self, cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError>;
}

/// A session record as the host's store holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    pub bytes: Vec<u8>,
    pub revision: String,
}

/// One entry of the store's `list()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    pub id: String,
    pub updated_at_ms: i64,
}

/// A session-store failure. A stale `expectedRevision` is its own variant, never a generic failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("the stored session changed since it was read (FX_SESSION_REVISION_CONFLICT)")]
    RevisionConflict,
    /// The store threw.
    #[error("sessionStore.{method} failed: {message}")]
    Failed {
        method: &'static str,
        message: String,
    },
    /// The store answered with the wrong shape; `message` names the method and what was wrong.
    #[error("{message}")]
    Invalid { message: String },
    /// The store did not answer within the host's deadline (`adapterTimeoutMs`); the message
    /// names the method.
    #[error("{message}")]
    TimedOut { message: String },
    /// The agent stopped before the store answered; the late answer is ignored.
    #[error("{message}")]
    Abandoned { message: String },
}

impl StoreError {
    /// The JS error code.
    pub fn code(&self) -> Code {
        match self {
            StoreError::RevisionConflict => Code::SessionRevisionConflict,
            StoreError::Failed { .. } | StoreError::Invalid { .. } => Code::SessionStoreFailed,
            StoreError::TimedOut { .. } => Code::AdapterTimeout,
            StoreError::Abandoned { .. } => Code::AgentClosed,
        }
    }
}

/// How a workspace command ended, before capping and formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecResult {
    Exited {
        exit_code: i32,
        stdout: String,
        stderr: String,
    },
    TimedOut,
    Cancelled,
    Failed(String),
}

/// Diagnostics for the host's `onEvent`.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent {
    /// A commit met a newer stored log; our events were saved as a new session.
    SessionForked {
        from: String,
        to: String,
        reason: &'static str,
    },
    /// The model request will be retried after `delay_ms`.
    RequestRetry {
        attempt: u32,
        limit: u32,
        delay_ms: u32,
        reason: String,
    },
    /// The model catalog could not be loaded; the current model keeps working.
    CatalogError { message: String },
    /// A model step of turn `turn` finished and the gateway reported its token usage.
    Usage {
        turn: u32,
        input_tokens: u64,
        output_tokens: u64,
    },
    /// A stored config value was applied (`source` is `restore`) or changed (`sdk`, `terminal`).
    ConfigChanged {
        id: String,
        previous: Option<String>,
        value: String,
        source: &'static str,
    },
    /// A stored config value could not be read or was refused.
    ConfigRestoreError { id: String, message: String },
    /// An accepted config value could not be saved.
    ConfigPersistError { id: String, message: String },
    /// The agent stopped (or closed a session) while part of a session was not in the store:
    /// `turns` turns it holds are missing there; `bytes` is the whole log as it stands.
    SessionUnsaved {
        session_id: String,
        turns: usize,
        code: &'static str,
        message: String,
        bytes: Vec<u8>,
    },
    /// The gateway credential changed: `source` is `none`, `AI_GATEWAY_API_KEY` or `fx login`.
    AuthChanged {
        source: &'static str,
        team: Option<String>,
    },
    /// The login's access token was renewed before a request (`refreshed`), or another writer's
    /// newer one was taken (`adopted`).
    AuthRefreshed { outcome: &'static str },
    /// Renewing the login failed; with `signed_out` the login was dropped.
    AuthRefreshFailed {
        code: &'static str,
        message: String,
        signed_out: bool,
    },
}

/// Everything the agent asks of its environment.
pub trait Host {
    type Body: ResponseBody;

    /// Wall-clock milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Fills `buf` with cryptographically strong random bytes.
    fn fill_random(&self, buf: &mut [u8]);
    /// Waits `ms` milliseconds (callers race it against their [`Cancel`]).
    async fn sleep(&self, ms: u32);

    /// Waits `ms` like [`Host::sleep`], for a deadline that is usually abandoned: dropping the
    /// future before it fires releases the host's timer (so a Node process is not kept alive).
    async fn deadline(&self, ms: u32) {
        self.sleep(ms).await;
    }

    /// Sends a request and resolves once the response headers arrive.
    ///
    /// # Errors
    /// [`FetchError`] when there is no response.
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<Self::Body>, FetchError>;

    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn load_session(&self, id: &str) -> Result<Option<StoredSession>, StoreError>;
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
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError>;
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn remove_session(&self, id: &str) -> Result<(), StoreError>;

    /// Runs one command in the workspace (only called when the host has one).
    async fn exec(&self, command: &str, cwd: &str, timeout_ms: u32, cancel: &Cancel) -> ExecResult;

    /// The stored value of a config option (`model`, `mode`), if any.
    ///
    /// # Errors
    /// A message when the store threw or returned something other than a string.
    async fn config_get(&self, id: &str) -> Result<Option<String>, String>;
    /// Persists an accepted config value; `Ok(false)` when the store cannot save.
    ///
    /// # Errors
    /// A message when the store threw.
    async fn config_set(&self, id: &str, value: &str) -> Result<bool, String>;

    /// The host's `oauthSessionStore`: the stored login record and its revision. The bytes hold
    /// tokens: never log them.
    ///
    /// # Errors
    /// [`OAuthStoreError::Failed`] when the store fails (or the host has none).
    async fn oauth_load(&self) -> Result<Option<(Vec<u8>, String)>, OAuthStoreError> {
        Err(no_oauth_store())
    }
    /// Stores the login record if the stored revision is `expected` (`None`: nothing stored).
    ///
    /// # Errors
    /// [`OAuthStoreError::RevisionConflict`] when the revision moved on.
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, OAuthStoreError> {
        let _ = (bytes, expected);
        Err(no_oauth_store())
    }
    /// Removes the login record if the stored revision is `expected`.
    ///
    /// # Errors
    /// [`OAuthStoreError::RevisionConflict`] when the revision moved on.
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, OAuthStoreError> {
        let _ = expected;
        Err(no_oauth_store())
    }
    /// Opens `url` in a browser; false when the host has no opener, or it refused or failed.
    async fn open_url(&self, url: &str) -> bool {
        let _ = url;
        false
    }

    /// Asks the user (or the host's policy) whether a command may run.
    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer;

    /// Delivers one update of turn `turn`. Must not call back into the agent.
    fn update(&self, turn: u32, update: Update);
    /// Delivers a chunk of streamed answer text of turn `turn` (the hot path).
    fn text(&self, turn: u32, text: &str) {
        self.update(turn, Update::agent_text(text));
    }
    /// Delivers a diagnostic event. Must not call back into the agent.
    fn event(&self, event: HostEvent);
}
