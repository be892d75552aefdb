//! [`TermHost`]: the agent's host as the terminal runs it. Updates go straight to the app
//! (and repaint), permission requests wait for the approval panel on a one-shot channel the
//! user's answer fills (input, ticks and repaints go on meanwhile), retries, usage and forks
//! show on screen; everything else passes through to the inner host.

#![allow(async_fn_in_trait)]

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;

use crate::agent::acp::{PermissionAnswer, PermissionRequest, Update};
use crate::agent::cancel::Cancel;
use crate::agent::host::{
    ExecResult, FetchError, Host, HostEvent, HttpRequest, HttpResponse, ListedSession, StoreError,
    StoredSession,
};
use crate::auth::{RemoveOutcome, StoreError as OAuthStoreError};

use crate::term::app::App;

/// The agent's host as the terminal runs it. See the module docs.
pub struct TermHost<H: Host> {
    pub(super) inner: H,
    pub(super) app: Rc<RefCell<App>>,
    /// The id of the session on screen, shared with the [`super::Shell`].
    pub(super) session: Rc<RefCell<String>>,
    pub(super) repaint: Rc<dyn Fn()>,
    /// Repaints at once (rare events that must show even if the turn moves on quickly).
    pub(super) repaint_now: Rc<dyn Fn()>,
    pub(super) pending: RefCell<Option<oneshot::Sender<PermissionAnswer>>>,
}

impl<H: Host> TermHost<H> {
    /// The inner host.
    pub fn inner(&self) -> &H {
        &self.inner
    }

    /// Delivers the user's answer to the waiting request.
    pub fn answer(&self, answer: PermissionAnswer) {
        if let Some(sender) = self.pending.borrow_mut().take() {
            let _ = sender.send(answer);
        }
    }
}

impl<H: Host> Host for TermHost<H> {
    type Body = H::Body;

    fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        self.inner.fill_random(buf);
    }
    async fn sleep(&self, ms: u32) {
        self.inner.sleep(ms).await;
    }
    async fn deadline(&self, ms: u32) {
        self.inner.deadline(ms).await;
    }
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<Self::Body>, FetchError> {
        self.inner.fetch(request, cancel).await
    }
    async fn load_session(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        self.inner.load_session(id).await
    }
    async fn commit_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        self.inner.commit_session(id, bytes, expected).await
    }
    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError> {
        self.inner.list_sessions().await
    }
    async fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        self.inner.remove_session(id).await
    }
    async fn exec(&self, command: &str, cwd: &str, timeout_ms: u32, cancel: &Cancel) -> ExecResult {
        self.inner.exec(command, cwd, timeout_ms, cancel).await
    }
    async fn config_get(&self, id: &str) -> Result<Option<String>, String> {
        self.inner.config_get(id).await
    }
    async fn config_set(&self, id: &str, value: &str) -> Result<bool, String> {
        self.inner.config_set(id, value).await
    }
    async fn oauth_load(&self) -> Result<Option<(Vec<u8>, String)>, OAuthStoreError> {
        self.inner.oauth_load().await
    }
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, OAuthStoreError> {
        self.inner.oauth_commit(bytes, expected).await
    }
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, OAuthStoreError> {
        self.inner.oauth_remove(expected).await
    }
    async fn open_url(&self, url: &str) -> bool {
        self.inner.open_url(url).await
    }

    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer {
        let (sender, receiver) = oneshot::channel();
        *self.pending.borrow_mut() = Some(sender);
        self.app
            .borrow_mut()
            .on_permission_request(&request.tool_call.title);
        (self.repaint)();
        let answer = match cancel.run(receiver).await {
            Ok(Ok(answer)) => answer,
            _ => PermissionAnswer::Cancelled,
        };
        self.pending.borrow_mut().take();
        self.app.borrow_mut().close_approval();
        (self.repaint)();
        answer
    }

    fn update(&self, turn: u32, update: Update) {
        self.app.borrow_mut().on_update(turn, update);
        (self.repaint)();
    }

    fn text(&self, turn: u32, text: &str) {
        self.app.borrow_mut().on_text(turn, text);
        (self.repaint)();
    }

    fn event(&self, event: HostEvent) {
        if let HostEvent::RequestRetry {
            attempt,
            limit,
            delay_ms,
            reason,
        } = &event
        {
            self.app
                .borrow_mut()
                .on_retry(*attempt, *limit, *delay_ms, reason);
            (self.repaint_now)();
        }
        if let HostEvent::Usage {
            turn,
            input_tokens,
            output_tokens,
        } = &event
        {
            self.app
                .borrow_mut()
                .on_usage(*turn, *input_tokens, *output_tokens);
            (self.repaint)();
        }
        if let HostEvent::SessionForked { from, to, .. } = &event {
            // The session on screen follows its fork (unless the user moved on meanwhile).
            let on_screen = *self.session.borrow() == *from;
            if on_screen {
                *self.session.borrow_mut() = to.clone();
            }
            self.app.borrow_mut().on_forked(to, on_screen);
            (self.repaint_now)();
        }
        self.inner.event(event);
    }
}
