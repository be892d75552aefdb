//! The session on screen changing: the first session at start (fresh, or resumed and replayed
//! as it was drawn live), `/new`, `/resume`, a rename, and a fork when another tab wrote the
//! same session.

use crate::agent::modes::Mode;
use crate::agent::replay::Replayed;
use crate::caps::acp::Update;
use crate::log::turn::TerminalReason;

use super::effect::SessionEntry;
use super::overlay::resume::ResumePicker;
use super::overlay::Overlay;
use super::session::title_of;
use super::transcript::block::TextKind;
use super::App;

impl App {
    /// The stored session's title, kept for the window title (written with the next one).
    pub(crate) fn set_stored_title(&mut self, title: Option<&str>) {
        self.session.title = title.map(title_of);
    }

    /// Prints the welcome line (or the resume notice and the replayed session) and any notice.
    pub(crate) fn start(&mut self, resumed: Option<Vec<Replayed>>, notices: &[String]) {
        self.started = true;
        match resumed {
            Some(updates) => {
                self.push_text(TextKind::Notice, self.session.resumed_notice());
                self.replay(updates);
            }
            None => self.push_welcome(),
        }
        for notice in notices {
            self.notice(notice);
        }
    }

    /// Replays a stored session as it was drawn live (without the turn summaries).
    pub(crate) fn replay(&mut self, entries: Vec<Replayed>) {
        for entry in entries {
            match entry {
                Replayed::Update(Update::UserMessageChunk { content }) => {
                    if self.session.title.is_none() {
                        self.session.title = Some(title_of(&content.text));
                    }
                    self.push_text(TextKind::Prompt, content.text);
                }
                Replayed::Update(update) => self.apply_update(update),
                Replayed::Ended { reason, message } => match reason {
                    TerminalReason::Cancelled => self.show_stopped(None),
                    TerminalReason::Failed => {
                        self.show_stopped(Some(message.unwrap_or_else(|| {
                            "This turn failed; the reason was not kept with the session.".to_owned()
                        })))
                    }
                },
            }
        }
        self.close_open();
        self.set_title();
    }

    /// The resume picker's entries (newest first).
    pub(crate) fn on_sessions(&mut self, entries: Vec<SessionEntry>) {
        if entries.is_empty() {
            self.notice("Session: no saved sessions yet");
            return;
        }
        self.open_screen(Overlay::Resume(ResumePicker {
            entries,
            selected: 0,
        }));
    }

    /// A session was opened for `/resume`: the screen shows its transcript.
    pub(crate) fn on_session_opened(
        &mut self,
        session_id: &str,
        title: Option<&str>,
        model: &str,
        mode: &str,
        updates: Vec<Replayed>,
    ) {
        self.session.model = model.to_owned();
        self.session.mode = Mode::parse(mode).unwrap_or_default();
        self.session.id = session_id.to_owned();
        self.session.title = title.map(title_of);
        self.push_text(TextKind::Notice, self.session.resumed_notice());
        self.replay(updates);
        self.session.switching = false;
        self.start_queued();
    }

    /// A fresh session is ready (after `/new` or `/clear`).
    pub(crate) fn on_new_session(&mut self, session_id: &str) {
        self.session.id = session_id.to_owned();
        self.session.title = None;
        self.set_title();
        self.session.switching = false;
        self.start_queued();
    }

    /// A session switch failed: prompts go to the current session.
    pub(crate) fn on_switch_failed(&mut self, message: &str) {
        self.warning(message);
        self.session.switching = false;
        self.start_queued();
    }

    /// The agent carried on in session `id` (a turn's commit forked it).
    pub(crate) fn follow_session(&mut self, id: &str) {
        self.session.id = id.to_owned();
    }

    /// A commit met a newer stored log (another tab or window wrote this session): our history
    /// was saved as session `to`, which the screen follows when it still shows the old one.
    pub(crate) fn on_forked(&mut self, to: &str, on_screen: bool) {
        if on_screen {
            self.session.id = to.to_owned();
        }
        self.notice(&format!(
            "Session: another tab or window changed this session, so this conversation was saved as a new session {to}; nothing was lost"
        ));
    }

    /// The session was named (`/rename`): the window title follows.
    pub(crate) fn on_renamed(&mut self, title: &str) {
        self.session.title = Some(title_of(title));
        self.set_title();
        self.notice(&format!("Session: renamed to \"{}\"", title_of(title)));
    }
}
