//! What the bots' turns talk to: their UI ([`BotUi`]: a turn's updates go to its bot's live
//! journal, permission requests are refused since nobody is there to answer, and the agent's
//! events go on to the host's `onEvent`), the in-process lock's guard, and the user's text as
//! the model sees it.

use std::cell::RefCell;
use std::rc::Rc;

use crate::caps::acp::{PermissionAnswer, PermissionRequest, Update};
use crate::caps::{Cancel, HostEvent, Ui};

use super::super::ids::BotId;
use super::super::journal::Journal;
use super::super::upload::CheckedFile;
use super::State;

/// The bots' side of the engine's agent: each turn's updates go to the journal of the bot it
/// runs for; events go to `events` (the host's `onEvent`).
pub struct BotUi<E: Ui> {
    pub(super) state: Rc<RefCell<State>>,
    pub(super) events: E,
}

impl<E: Ui> BotUi<E> {
    fn with_journal(&self, turn: u32, f: impl FnOnce(&mut Journal)) {
        let mut state = self.state.borrow_mut();
        let bot = state
            .turn_bots
            .iter()
            .find(|(t, _)| *t == turn)
            .map(|(_, bot)| bot.clone());
        if let Some(bot) = bot {
            state.with_journal(&bot, f);
        }
    }
}

impl<E: Ui> Ui for BotUi<E> {
    async fn request_permission(
        &self,
        _request: &PermissionRequest,
        _cancel: &Cancel,
    ) -> PermissionAnswer {
        PermissionAnswer::Reject {
            note: Some("Bots run unattended: nobody can allow this command.".to_owned()),
        }
    }
    fn update(&self, turn: u32, update: Update) {
        let name = update.tool_name().unwrap_or_default().to_owned();
        self.with_journal(turn, |j| {
            j.push_update(&update, &name);
        });
    }
    fn text(&self, turn: u32, text: &str) {
        self.with_journal(turn, |j| {
            j.push_text(text);
        });
    }
    /// The agent's events (a retry, a fork, a step's usage, an unsaved session) go to the
    /// host's `onEvent`; a fork is also remembered, so the turn's claim and bot follow it.
    fn event(&self, event: HostEvent) {
        if let HostEvent::SessionForked { from, to, .. } = &event {
            self.state
                .borrow_mut()
                .forks
                .push((from.clone(), to.clone()));
        }
        self.events.event(event);
    }
}

/// Removes the in-process lock unless the turn was handed on.
pub(super) struct LockGuard<'a> {
    pub(super) state: &'a RefCell<State>,
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

/// What the model sees as the user's text: the text, then each text file under its name, in a
/// `<file>` element whose tag no line of the file can close early (`<file-2>` and so on when
/// the text holds `</file>`).
pub(super) fn prompt_text(text: &str, files: &[CheckedFile]) -> String {
    let mut out = text.to_owned();
    for file in files {
        if let Some(body) = file.text() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            let tag = wrapper_tag(body);
            out.push_str(&format!(
                "<{tag} name=\"{}\" type=\"{}\">\n{}\n</{tag}>",
                file.name.replace('"', "'"),
                file.media_type,
                body
            ));
        }
    }
    out
}

/// `file`, or `file-N` for the first N from 2 whose closing tag `body` does not contain.
fn wrapper_tag(body: &str) -> String {
    if !body.contains("</file>") {
        return "file".to_owned();
    }
    (2u32..)
        .map(|n| format!("file-{n}"))
        .find(|tag| !body.contains(&format!("</{tag}>")))
        .unwrap_or_else(|| "file".to_owned())
}
