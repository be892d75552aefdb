//! What a running bot turn talks to: its UI ([`BotUi`]: updates go to the bot's live journal,
//! permission requests are refused, nobody is there to answer), the in-process lock's guard,
//! and the user's text as the model sees it.

use crate::caps::acp::{PermissionAnswer, PermissionRequest, Update};
use crate::caps::{Cancel, HostEvent, Ui};

use super::super::ids::BotId;
use super::super::journal::Journal;
use super::super::upload::CheckedFile;
use super::State;

/// The bot's side of a running turn: updates go to its journal.
pub struct BotUi<'a> {
    pub(super) state: &'a std::cell::RefCell<State>,
    pub(super) bot: BotId,
}

impl BotUi<'_> {
    fn with_journal(&self, f: impl FnOnce(&mut Journal)) {
        self.state.borrow_mut().with_journal(&self.bot, f);
    }
}

impl Ui for BotUi<'_> {
    async fn request_permission(
        &self,
        _request: &PermissionRequest,
        _cancel: &Cancel,
    ) -> PermissionAnswer {
        PermissionAnswer::Reject {
            note: Some("Bots run unattended: nobody can allow this command.".to_owned()),
        }
    }
    fn update(&self, _turn: u32, update: Update) {
        let name = update.tool_name().unwrap_or_default().to_owned();
        self.with_journal(|j| {
            j.push_update(&update, &name);
        });
    }
    fn text(&self, _turn: u32, text: &str) {
        self.with_journal(|j| {
            j.push_text(text);
        });
    }
    fn event(&self, _event: HostEvent) {}
}

/// Removes the in-process lock unless the turn was handed on.
pub(super) struct LockGuard<'a> {
    pub(super) state: &'a std::cell::RefCell<State>,
    pub(super) bot: BotId,
    pub(super) armed: bool,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.state.borrow_mut().running.remove(&self.bot);
        }
    }
}

/// What the model sees as the user's text: the text, then each text file under its name.
pub(super) fn prompt_text(text: &str, files: &[CheckedFile]) -> String {
    let mut out = text.to_owned();
    for file in files {
        if let Some(body) = file.text() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&format!(
                "<file name=\"{}\" type=\"{}\">\n{}\n</file>",
                file.name.replace('"', "'"),
                file.media_type,
                body
            ));
        }
    }
    out
}
