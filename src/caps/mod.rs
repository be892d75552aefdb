//! What the core asks of its host, each capability a small trait defined once; a layer asks for
//! the ones it needs (the login engine: [`Http`], [`Clock`], [`OAuthStore`]) and [`Host`] is
//! their sum (the agent). Pure: the wasm build implements them over the JS adapters
//! (`src/host/`), tests with fakes.
//!
//! - [`clock`]: [`Clock`] (wall clock, timers) and [`Random`].
//! - [`http`]: [`Http`] (`fetch`), [`HttpRequest`], [`HttpResponse`], streamed and whole bodies.
//! - [`store`]: [`SessionStore`], [`ConfigStore`], [`OAuthStore`] and the bots layer's
//!   [`DocStore`] (not part of [`Host`]: only the bots engine asks for it), one record type, one
//!   [`StoreError`].
//! - [`workspace`]: [`Workspace`] and its [`ExecOutcome`].
//! - [`ui`]: [`Ui`], the user's side of a turn: [`acp`] updates and permission requests out,
//!   answers back, [`events`] ([`HostEvent`]) for the host.
//! - [`cancel`]: [`Cancel`], which every wait observes.
//! - [`docs`]: [`MemoryDocStore`], the document store in memory.
//!
//! Futures are not `Send`: wasm is single-threaded and everything runs on the page's event loop.
//! Every method that waits returns promptly once its [`Cancel`] is set, aborting the host-side
//! effect (the fetch's or the command's `AbortSignal`).

#![allow(async_fn_in_trait)]

pub mod acp;
pub mod cancel;
pub mod clock;
pub mod docs;
pub mod events;
pub mod http;
pub mod store;
pub mod ui;
pub mod workspace;

pub use acp::{PermissionAnswer, PermissionRequest, Update};
pub use cancel::{Cancel, Cancelled};
pub use clock::{Clock, Random};
pub use docs::MemoryDocStore;
pub use events::HostEvent;
pub use http::{FetchError, Http, HttpRequest, HttpResponse, Method, ResponseBody};
pub use store::{
    ConfigStore, DocStore, Failure, ListedDoc, ListedSession, OAuthStore, RemoveOutcome,
    SessionStore, Store, StoreError, StoredRecord,
};
pub use ui::Ui;
pub use workspace::{ExecOutcome, Workspace};

/// Everything the agent asks of its environment: the sum of the capabilities. Implemented for
/// every type that has them all.
pub trait Host:
    Clock + Random + Http + SessionStore + ConfigStore + OAuthStore + Workspace + Ui
{
}

impl<T> Host for T where
    T: Clock + Random + Http + SessionStore + ConfigStore + OAuthStore + Workspace + Ui
{
}

/// A host made of another host's capabilities and a [`Ui`] of its own: the terminal (and the
/// bots) run the agent over the page's host with their own screen. Every capability but the UI
/// is `host`'s; this is the one place that passes them through.
pub struct WithUi<H, U> {
    pub host: H,
    pub ui: U,
}

impl<H: Clock, U> Clock for WithUi<H, U> {
    fn now_ms(&self) -> i64 {
        self.host.now_ms()
    }
    async fn sleep(&self, ms: u32) {
        self.host.sleep(ms).await;
    }
    async fn deadline(&self, ms: u32) {
        self.host.deadline(ms).await;
    }
}

impl<H: Random, U> Random for WithUi<H, U> {
    fn fill_random(&self, buf: &mut [u8]) {
        self.host.fill_random(buf);
    }
}

impl<H: Http, U> Http for WithUi<H, U> {
    type Body = H::Body;
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<Self::Body>, FetchError> {
        self.host.fetch(request, cancel).await
    }
}

impl<H: SessionStore, U> SessionStore for WithUi<H, U> {
    async fn load_session(&self, id: &str) -> Result<Option<StoredRecord>, StoreError> {
        self.host.load_session(id).await
    }
    async fn commit_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        self.host.commit_session(id, bytes, expected).await
    }
    fn appends_sessions(&self) -> bool {
        self.host.appends_sessions()
    }
    async fn append_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: &str,
    ) -> Result<String, StoreError> {
        self.host.append_session(id, bytes, expected).await
    }
    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError> {
        self.host.list_sessions().await
    }
    async fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        self.host.remove_session(id).await
    }
}

impl<H: ConfigStore, U> ConfigStore for WithUi<H, U> {
    async fn config_get(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.host.config_get(id).await
    }
    async fn config_set(&self, id: &str, value: &str) -> Result<bool, StoreError> {
        self.host.config_set(id, value).await
    }
}

impl<H: OAuthStore, U> OAuthStore for WithUi<H, U> {
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        self.host.oauth_load().await
    }
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        self.host.oauth_commit(bytes, expected).await
    }
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        self.host.oauth_remove(expected).await
    }
}

impl<H: Workspace, U> Workspace for WithUi<H, U> {
    async fn exec(
        &self,
        command: &str,
        cwd: &str,
        timeout_ms: u32,
        cancel: &Cancel,
    ) -> ExecOutcome {
        self.host.exec(command, cwd, timeout_ms, cancel).await
    }
}

impl<H, U: Ui> Ui for WithUi<H, U> {
    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer {
        self.ui.request_permission(request, cancel).await
    }
    fn update(&self, turn: u32, update: Update) {
        self.ui.update(turn, update);
    }
    fn text(&self, turn: u32, text: &str) {
        self.ui.text(turn, text);
    }
    fn event(&self, event: HostEvent) {
        self.ui.event(event);
    }
    async fn open_url(&self, url: &str) -> bool {
        self.ui.open_url(url).await
    }
}
