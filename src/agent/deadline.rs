//! Bounded adapter calls: every call the agent makes to a host store (`sessionStore`,
//! `configStore`, `oauthSessionStore`, `promptHistoryStore`) or to `openUrl` ends by its
//! deadline (`adapterTimeoutMs`), or soon after the agent stops, whichever comes first. A call
//! that ends this way is abandoned: its late answer is dropped unseen.
//!
//! After [`Deadlines::stop`] a call still gets a grace of one host timer tick (`deadline(0)`),
//! so a store that answers at once (an in-memory or synchronous store) still saves the turn an
//! abort cancelled, while one that hangs no longer holds anything up.

use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use super::cancel::Cancel;
use super::host::Host;

/// The deadline of one adapter call when the host sets none.
pub const DEFAULT_ADAPTER_TIMEOUT_MS: u32 = 10_000;

/// Why an adapter call gave no answer. `call` names the adapter and method
/// (`sessionStore.commit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unanswered {
    #[error("{call}() did not answer within {ms} ms")]
    TimedOut { call: &'static str, ms: u32 },
    #[error("{call}() was abandoned: the agent stopped before it answered")]
    Abandoned { call: &'static str },
}

impl Unanswered {
    /// The JS error code: `FX_ADAPTER_TIMEOUT`, or `FX_AGENT_CLOSED` for an abandoned call.
    pub fn code(&self) -> &'static str {
        match self {
            Unanswered::TimedOut { .. } => "FX_ADAPTER_TIMEOUT",
            Unanswered::Abandoned { .. } => "FX_AGENT_CLOSED",
        }
    }
}

/// The agent's deadline for adapter calls and its stop token. Cheap to clone; clones share the
/// stop token.
#[derive(Clone, Debug)]
pub struct Deadlines {
    timeout_ms: u32,
    stop: Cancel,
}

impl Deadlines {
    /// `timeout_ms` per call (at least 1).
    pub fn new(timeout_ms: u32) -> Self {
        Deadlines {
            timeout_ms: timeout_ms.max(1),
            stop: Cancel::new(),
        }
    }

    pub fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }

    /// Stops the agent: pending and later calls are abandoned after the grace tick.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Set once the agent stops (for waits with no deadline of their own, such as a fetch).
    pub fn stop_token(&self) -> &Cancel {
        &self.stop
    }

    /// Runs one adapter call until it answers, its deadline passes, or the agent stops.
    ///
    /// # Errors
    /// [`Unanswered`] when the call did not answer in time.
    pub async fn call<H: Host + ?Sized, T>(
        &self,
        host: &H,
        call: &'static str,
        future: impl Future<Output = T>,
    ) -> Result<T, Unanswered> {
        self.call_until(host, call, None, future).await
    }

    /// [`Self::call`] that also gives up (as abandoned) once `cancel` is set: for calls a
    /// cancelled turn no longer needs, such as a mid-turn checkpoint.
    ///
    /// # Errors
    /// [`Unanswered`] when the call did not answer in time, or `cancel` was set first.
    pub async fn call_until<H: Host + ?Sized, T>(
        &self,
        host: &H,
        call: &'static str,
        cancel: Option<&Cancel>,
        future: impl Future<Output = T>,
    ) -> Result<T, Unanswered> {
        if cancel.is_some_and(Cancel::is_cancelled) {
            return Err(Unanswered::Abandoned { call });
        }
        let never = Cancel::new();
        let cancel = cancel.unwrap_or(&never);
        let mut future = pin!(future);
        let mut deadline = pin!(host.deadline(self.timeout_ms));
        let mut cancelled = pin!(cancel.cancelled());
        let mut grace = pin!(async {
            self.stop.cancelled().await;
            host.deadline(0).await;
        });
        std::future::poll_fn(|cx| {
            if let Poll::Ready(value) = future.as_mut().poll(cx) {
                return Poll::Ready(Ok(value));
            }
            if cancelled.as_mut().poll(cx).is_ready() || grace.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(Unanswered::Abandoned { call }));
            }
            if deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(Unanswered::TimedOut {
                    call,
                    ms: self.timeout_ms,
                }));
            }
            Poll::Pending
        })
        .await
    }

    /// Waits for `future` (a wait with no deadline: a user's download dialog) until the agent
    /// stops.
    ///
    /// # Errors
    /// [`Unanswered::Abandoned`] once the agent stopped.
    pub async fn until_stopped<T>(
        &self,
        call: &'static str,
        future: impl Future<Output = T>,
    ) -> Result<T, Unanswered> {
        self.stop
            .run(future)
            .await
            .map_err(|_| Unanswered::Abandoned { call })
    }
}
