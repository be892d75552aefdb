//! The user's side of a turn ([`Ui`]): its updates, the permission it is asked, the host's
//! events, and a page opened in a browser.

#![allow(async_fn_in_trait)]

use super::acp::{PermissionAnswer, PermissionRequest, Update};
use super::cancel::Cancel;
use super::events::HostEvent;

/// Where a turn's output goes and who answers its questions. Nothing here may call back into
/// the agent: events are delivered, not handled in place.
pub trait Ui {
    /// Asks the user (or the host's policy) whether a command may run.
    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer;

    /// Delivers one update of turn `turn`.
    fn update(&self, turn: u32, update: Update);

    /// Delivers a chunk of streamed answer text of turn `turn` (the hot path).
    fn text(&self, turn: u32, text: &str) {
        self.update(turn, Update::agent_text(text));
    }

    /// Delivers a diagnostic event.
    fn event(&self, event: HostEvent);

    /// Opens `url` in a browser; false when the host has no opener, or it refused or failed.
    async fn open_url(&self, url: &str) -> bool {
        let _ = url;
        false
    }
}
