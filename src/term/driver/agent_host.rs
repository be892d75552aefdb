//! [`TermHost`]: the agent's [`Ui`] as the terminal runs it (the agent's host is
//! [`WithUi`](crate::caps::WithUi)`<H, TermHost<H>>`: every other capability is the page's). Updates go straight to
//! the app (and repaint), permission requests wait for the approval panel on a one-shot channel
//! the user's answer fills (input, ticks and repaints go on meanwhile), retries, usage and forks
//! show on screen; events also reach the inner host's `onEvent`.

#![allow(async_fn_in_trait)]

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;

use crate::caps::acp::{PermissionAnswer, PermissionRequest, Update};
use crate::caps::cancel::Cancel;
use crate::caps::{HostEvent, Ui};

use crate::term::app::App;

/// The agent's UI as the terminal runs it. See the module docs.
pub struct TermHost<U: Ui> {
    /// The page's UI: its `onEvent` and `openUrl`.
    pub(super) inner: U,
    pub(super) app: Rc<RefCell<App>>,
    /// The id of the session on screen, shared with the [`super::Shell`].
    pub(super) session: Rc<RefCell<String>>,
    pub(super) repaint: Rc<dyn Fn()>,
    /// Repaints at once (rare events that must show even if the turn moves on quickly).
    pub(super) repaint_now: Rc<dyn Fn()>,
    pub(super) pending: RefCell<Option<oneshot::Sender<PermissionAnswer>>>,
}

impl<U: Ui> TermHost<U> {
    /// Delivers the user's answer to the waiting request.
    pub fn answer(&self, answer: PermissionAnswer) {
        if let Some(sender) = self.pending.borrow_mut().take() {
            let _ = sender.send(answer);
        }
    }
}

impl<U: Ui> Ui for TermHost<U> {
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

    async fn open_url(&self, url: &str) -> bool {
        self.inner.open_url(url).await
    }
}
