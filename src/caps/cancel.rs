//! Cooperative cancellation: of a turn, a login, a request.
//!
//! A [`Cancel`] is shared (cheaply cloned) between the turn and whoever may stop it. Setting it
//! wakes every task parked in [`Cancel::cancelled`], and [`Cancel::run`] races any future against
//! it, so a request, a stream read, a command, a permission wait or a backoff all stop at once.
//! The host aborts its own effects (fetch, exec) through its `AbortSignal`; this token is what
//! the Rust side observes.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// The error a cancelled operation returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

#[derive(Default)]
struct State {
    cancelled: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

/// A shared, single-threaded cancellation flag.
#[derive(Clone, Default)]
pub struct Cancel {
    state: Rc<State>,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the flag and wakes every waiter. Idempotent.
    pub fn cancel(&self) {
        if self.state.cancelled.replace(true) {
            return;
        }
        let wakers = std::mem::take(&mut *self.state.wakers.borrow_mut());
        for waker in wakers {
            waker.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.state.cancelled.get()
    }

    /// `Err(Cancelled)` once cancelled.
    ///
    /// # Errors
    /// [`Cancelled`] when the flag is set.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// Resolves when the flag is set.
    pub fn cancelled(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            if self.is_cancelled() {
                return Poll::Ready(());
            }
            let mut wakers = self.state.wakers.borrow_mut();
            if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                wakers.push(cx.waker().clone());
            }
            Poll::Pending
        })
    }

    /// Runs `future` until it finishes or the flag is set, whichever comes first.
    ///
    /// # Errors
    /// [`Cancelled`] when the flag was set first (or already set).
    pub async fn run<T>(&self, future: impl Future<Output = T>) -> Result<T, Cancelled> {
        self.check()?;
        let mut future = pin!(future);
        let mut stop = pin!(self.cancelled());
        std::future::poll_fn(move |cx| {
            if let Poll::Ready(value) = future.as_mut().poll(cx) {
                return Poll::Ready(Ok(value));
            }
            if stop.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(Cancelled));
            }
            Poll::Pending
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn run_finishes_when_not_cancelled() {
        let cancel = Cancel::new();
        assert_eq!(block_on(cancel.run(async { 7 })), Ok(7));
    }

    #[test]
    fn run_stops_a_pending_future() {
        let cancel = Cancel::new();
        let other = cancel.clone();
        let result = block_on(async {
            let never = std::future::pending::<()>();
            let stopper = async {
                other.cancel();
            };
            futures::join!(cancel.run(never), stopper).0
        });
        assert_eq!(result, Err(Cancelled));
        assert!(cancel.check().is_err());
    }

    #[test]
    fn already_cancelled_never_polls() {
        let cancel = Cancel::new();
        cancel.cancel();
        cancel.cancel();
        let polled = Cell::new(false);
        let result = block_on(cancel.run(async { polled.set(true) }));
        assert_eq!(result, Err(Cancelled));
        assert!(!polled.get());
    }
}
