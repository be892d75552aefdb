//! Input: bytes → decoded events → the keymap's actions, applied to the open screen, the
//! approval panel, the sign-in panel or the composer; pastes and the terminal's colour replies.

use crate::term::keys::{InputEvent, KeyCode, KeyEvent, ESCAPE_TIMEOUT_MS};
use crate::term::line_editor::EditOutcome;

use super::keymap::{self, ComposerKey};
use super::overlay::review::Review;
use super::overlay::view::Outcome;
use super::overlay::Overlay;
use super::signin::{LoginKey, LoginStep};
use super::theme::ProbeStep;
use super::{App, Effect};

/// How long the Ctrl+C exit gesture stays armed.
const CTRL_C_WINDOW_MS: u64 = 3000;

impl App {
    /// Feeds input bytes received at `now_ms`.
    pub(crate) fn handle_input(&mut self, bytes: &[u8], now_ms: u64) {
        self.now = now_ms.max(self.now);
        if self.exit_code.is_some() {
            return;
        }
        let events = self.decoder.feed(bytes);
        for event in events {
            self.handle_event(event);
        }
        self.esc_deadline = self
            .decoder
            .escape_pending()
            .then(|| self.now + u64::from(ESCAPE_TIMEOUT_MS));
    }

    /// Advances the clock: resolves a lone Esc, expires armed gestures.
    pub(crate) fn tick(&mut self, now_ms: u64) {
        self.now = now_ms.max(self.now);
        if self.esc_deadline.is_some_and(|d| self.now >= d) {
            self.esc_deadline = None;
            for event in self.decoder.flush_pending() {
                self.handle_event(event);
            }
        }
        self.turn.tick(self.now);
        if self.ctrl_c_until.is_some_and(|d| self.now >= d) {
            self.ctrl_c_until = None;
        }
        self.composer.tick(self.now);
    }

    fn handle_event(&mut self, event: InputEvent) {
        match event {
            InputEvent::Key(key) => self.handle_key(key),
            InputEvent::Paste(text) => self.paste(&text),
            InputEvent::PasteRejected(_) => {
                self.notice("Input: the pasted text was too large or not UTF-8 and was not added")
            }
            InputEvent::ColorScheme(scheme) => {
                let step = self.theme_probe.on_scheme(scheme);
                self.probe_step(step);
            }
            InputEvent::DeviceAttributes => {
                let step = self.theme_probe.on_fence();
                self.probe_step(step);
            }
            InputEvent::BackgroundColor(rgb) => {
                let step = self.theme_probe.on_background(rgb);
                self.probe_step(step);
            }
            InputEvent::Focus(_) | InputEvent::CursorPosition { .. } => {}
        }
    }

    fn probe_step(&mut self, step: ProbeStep) {
        match step {
            ProbeStep::Send(query) => self.out.push_str(query),
            ProbeStep::Decided(theme) => self.set_theme(theme),
            ProbeStep::Nothing => {}
        }
    }

    /// A paste goes to the approval note, an open screen's search field, or the draft.
    fn paste(&mut self, text: &str) {
        if let Some(approval) = &mut self.approval {
            approval.paste(text);
        } else if self.screens.is_open() {
            self.screens.paste(text);
        } else if let Err(error) = self.composer.paste(text) {
            self.notice(&format!("Input: {error}"));
        }
    }

    /// A key: through the keymap of the first layer that is up, then applied.
    fn handle_key(&mut self, key: KeyEvent) {
        if key != KeyEvent::ctrl('c') {
            self.ctrl_c_until = None;
        }
        if self.screens.is_open() {
            match keymap::screen(key) {
                Some(action) => {
                    let mut screens = std::mem::take(&mut self.screens);
                    let outcome = screens.key(action, &self.view());
                    self.screens = screens;
                    self.screen_outcome(outcome);
                }
                None => self.screens.touch(),
            }
            return;
        }
        if let Some(approval) = &mut self.approval {
            let answer = keymap::approval(key, approval.is_amending())
                .and_then(|action| approval.key(action));
            if let Some(answer) = answer {
                self.close_approval();
                self.effects.push(Effect::Permission(answer));
            }
            return;
        }
        if self.signin.flow.is_some() {
            if let Some(action) = keymap::login(key) {
                if self.login_key(action) {
                    return;
                }
            }
        }
        for &action in keymap::composer(key) {
            if self.composer_key(action, key) {
                return;
            }
        }
    }

    /// What a screen's key led to beyond the screen.
    fn screen_outcome(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Stay | Outcome::Close | Outcome::ChooseEffort { .. } => {}
            Outcome::SetModel { model, effort } => self.set_model(&model, effort),
            Outcome::Resume(id) => {
                if let Some(turn) = self.turn.abandon() {
                    self.effects.push(Effect::Cancel { turn });
                }
                self.queue.clear();
                self.session.switching = true;
                self.effects.push(Effect::OpenSession(id));
            }
        }
    }

    /// A key of the sign-in panel; false when it falls through to the composer.
    fn login_key(&mut self, key: LoginKey) -> bool {
        match self.signin.key(key, self.composer.is_empty()) {
            LoginStep::Ignored => false,
            LoginStep::Done => true,
            LoginStep::Cancel => {
                self.cancel_login();
                true
            }
            LoginStep::Effect(effect) => {
                self.effects.push(effect);
                true
            }
        }
    }

    /// Applies a composer action; false when it does not apply (the next one is tried).
    fn composer_key(&mut self, action: ComposerKey, key: KeyEvent) -> bool {
        if !matches!(action, ComposerKey::Interrupt | ComposerKey::Escape) {
            self.composer.disarm_clear();
        }
        match action {
            ComposerKey::Interrupt => self.interrupt(),
            ComposerKey::Escape => self.escape(),
            ComposerKey::ExitOnEmpty => {
                if !self.composer.is_empty() {
                    return false;
                }
                if !self.turn.is_running() {
                    self.exit(0);
                }
            }
            ComposerKey::Review => self.open_screen(Overlay::Review(Review::default())),
            ComposerKey::ToggleMode => self.toggle_mode(),
            ComposerKey::MenuUp => return self.composer.menu_move(false),
            ComposerKey::MenuDown => return self.composer.menu_move(true),
            ComposerKey::MenuComplete => return self.composer.menu_choose(false),
            ComposerKey::MenuRun => {
                if !self.composer.menu_choose(true) {
                    return false;
                }
                self.submit();
            }
            ComposerKey::RecallQueued => {
                if !self.composer.is_empty() {
                    return false;
                }
                // The newest queued prompt comes back into the draft for editing.
                let Some(text) = self.queue.recall() else {
                    return false;
                };
                self.composer.set_text(&text);
            }
            ComposerKey::Edit => self.edit(key),
        }
        true
    }

    fn edit(&mut self, key: KeyEvent) {
        match self.composer.edit(key) {
            EditOutcome::Submit => self.submit(),
            EditOutcome::Rejected(error) => self.notice(&format!("Input: {error}")),
            EditOutcome::Ignored if key.code == KeyCode::Enter && self.queue.is_waiting() => {
                self.queue.release();
                if !self.turn.is_running() {
                    if let Some(next) = self.queue.next_prompt() {
                        self.start_turn(next);
                    }
                }
            }
            _ => {}
        }
    }

    /// Ctrl+C: cancels the turn, else clears the draft; a second one within the window exits.
    fn interrupt(&mut self) {
        if self.ctrl_c_until.is_some_and(|d| self.now < d) {
            self.exit(0);
            return;
        }
        self.ctrl_c_until = Some(self.now + CTRL_C_WINDOW_MS);
        if self.turn.is_running() {
            self.cancel_turn();
        } else if !self.composer.is_empty() {
            self.composer.clear();
        }
    }

    /// Esc: cancels the turn, else closes the slash menu, else clears the draft when pressed
    /// twice.
    fn escape(&mut self) {
        if self.turn.is_running() {
            self.cancel_turn();
            return;
        }
        if self.composer.text().starts_with('/') && !self.composer.menu().is_empty() {
            self.composer.clear();
            return;
        }
        if self.composer.is_empty() {
            return;
        }
        if self.composer.second_escape(self.now) {
            self.composer.clear();
        }
    }

    /// Cancels the running turn; queued prompts wait until Enter.
    pub(crate) fn cancel_turn(&mut self) {
        if !self.turn.is_running() {
            return;
        }
        if let Some(turn) = self.turn.cancel() {
            self.effects.push(Effect::Cancel { turn });
        }
        self.queue.hold();
    }

    /// Takes the draft: a slash command runs, a prompt starts a turn (or is queued).
    pub(super) fn submit(&mut self) {
        let Some(text) = self.composer.submit() else {
            // Enter on an empty draft sends prompts a cancel left paused.
            if self.queue.is_held() {
                self.queue.release();
                self.start_queued();
            }
            return;
        };
        self.effects.push(Effect::AppendHistory(text.clone()));
        if text.starts_with('/') && self.run_command(&text) {
            return;
        }
        if self.turn.is_running() || self.session.switching || self.queue.is_waiting() {
            self.queue.push(text);
            return;
        }
        self.start_turn(text);
    }

    /// Opens a screen (a model screen needs the catalog).
    pub(super) fn open_screen(&mut self, overlay: Overlay) {
        if matches!(overlay, Overlay::Models(_)) {
            self.want_catalog();
        }
        self.screens.open(overlay);
    }
}
