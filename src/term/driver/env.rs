//! [`TermEnv`]: what the terminal needs from its host besides the agent's host (output, task
//! spawning, frames, the ticker, prompt history, downloads, the exit signal).

#![allow(async_fn_in_trait)]

use std::future::Future;
use std::pin::Pin;

use crate::term::ansi::Ansi;

/// A boxed local task.
pub type Task = Pin<Box<dyn Future<Output = ()>>>;

/// What the terminal needs besides the agent's host.
pub trait TermEnv {
    /// Writes to the terminal: only [`Ansi`] (the terminal's own sequences and sanitized text).
    fn write(&self, out: &Ansi);
    /// Runs a task on the event loop.
    fn spawn(&self, task: Task);
    /// Runs `task` at the next animation frame (where the host has none, a frame's time
    /// later): repaints for streamed updates wait for it, so however many network reads arrive
    /// within a frame cost one repaint.
    fn frame(&self, task: Task);
    /// Calls [`super::Shell::tick`] about every 50 ms until it returns false (idempotent).
    fn animate(&self);
    /// The stored prompt history, oldest first; `None` when the host keeps none.
    ///
    /// # Errors
    /// A message when the store failed.
    async fn history_load(&self) -> Option<Result<Vec<String>, String>>;
    /// Appends a submission; the store's outcome (`duplicate`, `record_too_large`, `appended`).
    ///
    /// # Errors
    /// A message when the store failed.
    async fn history_append(&self, text: &str) -> Result<String, String>;
    /// Offers files to the user.
    ///
    /// # Errors
    /// A message when the host refused.
    async fn download(&self, files: Vec<(String, Vec<u8>)>) -> Result<(), String>;
    /// The app left with `code`.
    fn exited(&self, code: i32);
}
