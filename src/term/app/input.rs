//! Input: bytes → decoded events → the overlay, the approval panel, the slash menu, the app's
//! own keys (Ctrl+C, Esc, Ctrl+D, Ctrl+O) or the line editor.

use super::commands::matching_commands;
use super::screens::Overlay;
use super::{App, Approval, Effect, Theme, ThemeProbe};
use crate::caps::acp::PermissionAnswer;
use crate::term::keys::{ColorScheme, InputEvent, KeyCode, KeyEvent, Modifiers, ESCAPE_TIMEOUT_MS};
use crate::term::line_editor::EditOutcome;

/// How long the Ctrl+C exit gesture stays armed.
const CTRL_C_WINDOW_MS: u64 = 3000;
/// How long a first Esc on a draft waits for the second.
const ESC_CLEAR_WINDOW_MS: u64 = 500;

impl App {
    /// Feeds input bytes received at `now_ms`.
    pub fn handle_input(&mut self, bytes: &[u8], now_ms: u64) {
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
    pub fn tick(&mut self, now_ms: u64) {
        self.now = now_ms.max(self.now);
        if self.esc_deadline.is_some_and(|d| self.now >= d) {
            self.esc_deadline = None;
            for event in self.decoder.flush_pending() {
                self.handle_event(event);
            }
        }
        if let Some(turn) = &mut self.turn {
            turn.shown_out = turn.tokens_out();
        }
        if self.ctrl_c_until.is_some_and(|d| self.now >= d) {
            self.ctrl_c_until = None;
        }
        if self.esc_clear_until.is_some_and(|d| self.now > d) {
            self.esc_clear_until = None;
        }
    }

    fn handle_event(&mut self, event: InputEvent) {
        match event {
            InputEvent::Key(key) => self.handle_key(key),
            InputEvent::Paste(text) => {
                if let Some(approval) = &mut self.approval {
                    // A paste is a note: for the highlighted choice when it takes one, else "No".
                    if !approval.amending {
                        if !approval.can_amend() {
                            approval.selected = 2;
                        }
                        approval.amending = true;
                        approval.note.clear();
                    }
                    let text = text.replace(['\n', '\t', '\r'], " ");
                    push_note(&mut approval.note, &text);
                } else if let Some(overlay) = &mut self.overlay {
                    overlay.paste(&text);
                    self.alt_dirty = true;
                } else if let Err(error) = self.editor.insert_paste(&text) {
                    self.notice(&format!("Input: {error}"));
                }
            }
            InputEvent::PasteRejected(_) => {
                self.notice("Input: the pasted text was too large or not UTF-8 and was not added")
            }
            // Theme detection: a scheme report is fenced with a device-attributes query; after
            // its reply the exact background is asked (OSC 11) behind a second fence. The
            // background decides when it answered before the fence, else the report does.
            InputEvent::ColorScheme(scheme) => {
                self.theme_probe = ThemeProbe::First(scheme);
                self.out.push_str("\u{1b}[c");
            }
            InputEvent::DeviceAttributes => match self.theme_probe {
                ThemeProbe::First(scheme) => {
                    self.theme_probe = ThemeProbe::Second(scheme, None);
                    self.out.push_str("\u{1b}]11;?\u{1b}\\\u{1b}[c");
                }
                ThemeProbe::Second(scheme, background) => {
                    self.theme_probe = ThemeProbe::Idle;
                    let light =
                        background.map_or(scheme == ColorScheme::Light, |rgb| rgb.is_light());
                    self.set_theme(if light { Theme::Light } else { Theme::Dark });
                }
                ThemeProbe::Idle => {}
            },
            InputEvent::BackgroundColor(rgb) => match self.theme_probe {
                ThemeProbe::Second(scheme, _) => {
                    self.theme_probe = ThemeProbe::Second(scheme, Some(rgb))
                }
                _ => self.set_theme(if rgb.is_light() {
                    Theme::Light
                } else {
                    Theme::Dark
                }),
            },
            InputEvent::Focus(_) | InputEvent::CursorPosition { .. } => {}
        }
    }

    fn handle_key(&mut self, key: KeyEvent) {
        let is_ctrl_c = key == KeyEvent::ctrl('c');
        if !is_ctrl_c {
            self.ctrl_c_until = None;
        }
        if self.overlay.is_some() {
            self.overlay_key(key);
            return;
        }
        if self.approval.is_some() {
            self.approval_key(key);
            return;
        }
        if self.login_key(key) {
            return;
        }
        if is_ctrl_c {
            self.ctrl_c();
            return;
        }
        let is_esc = key.code == KeyCode::Escape && key.mods.is_empty();
        if !is_esc {
            self.esc_clear_until = None;
        }
        if is_esc {
            self.escape();
            return;
        }
        if key == KeyEvent::ctrl('d') && self.editor.is_empty() {
            if self.turn.is_none() {
                self.exit(0);
            }
            return;
        }
        if key == KeyEvent::ctrl('o') {
            self.open_overlay(Overlay::review());
            return;
        }
        if self.menu_key(key) {
            return;
        }
        if key.code == KeyCode::Tab && key.mods == Modifiers::SHIFT {
            self.toggle_mode();
            return;
        }
        if key == KeyEvent::plain(KeyCode::Up) && self.editor.is_empty() {
            // The newest queued prompt comes back into the draft for editing.
            if let Some(text) = self.queue.pop_back() {
                self.editor.set_text(&text);
                if self.queue.is_empty() {
                    self.queue_paused = false;
                }
                return;
            }
        }
        let before = self.editor.text().to_owned();
        match self.editor.handle_key(key, &self.history) {
            EditOutcome::Submit => self.submit(),
            EditOutcome::Rejected(error) => self.notice(&format!("Input: {error}")),
            EditOutcome::Ignored
                if key.code == KeyCode::Enter && self.queue_paused && !self.queue.is_empty() =>
            {
                self.queue_paused = false;
                if self.turn.is_none() {
                    if let Some(next) = self.queue.pop_front() {
                        self.start_turn(next);
                    }
                }
            }
            _ => {}
        }
        if self.editor.text() != before {
            self.menu_selected = 0;
        }
    }

    fn ctrl_c(&mut self) {
        if self.ctrl_c_until.is_some_and(|d| self.now < d) {
            self.exit(0);
            return;
        }
        self.ctrl_c_until = Some(self.now + CTRL_C_WINDOW_MS);
        if self.turn.is_some() {
            self.cancel_turn();
        } else if !self.editor.is_empty() {
            self.editor.clear();
        }
    }

    fn escape(&mut self) {
        if self.turn.is_some() {
            self.cancel_turn();
            return;
        }
        if self.editor.text().starts_with('/') && !matching_commands(self).is_empty() {
            self.editor.clear();
            return;
        }
        if self.editor.is_empty() {
            return;
        }
        if self.esc_clear_until.is_some_and(|d| self.now <= d) {
            self.esc_clear_until = None;
            self.editor.clear();
        } else {
            self.esc_clear_until = Some(self.now + ESC_CLEAR_WINDOW_MS);
        }
    }

    /// Cancels the running turn; queued prompts wait until Enter.
    pub(crate) fn cancel_turn(&mut self) {
        if let Some(turn) = &mut self.turn {
            if !turn.cancelling {
                turn.cancelling = true;
                self.effects.push(Effect::Cancel { turn: turn.id });
            }
            if !self.queue.is_empty() {
                self.queue_paused = true;
            }
        }
    }

    /// Handles the slash menu's keys; true when consumed.
    fn menu_key(&mut self, key: KeyEvent) -> bool {
        let matches = matching_commands(self);
        if matches.is_empty() || !key.mods.without(Modifiers::SHIFT).is_empty() {
            return false;
        }
        let n = matches.len();
        match key.code {
            KeyCode::Up => {
                self.menu_selected = (self.menu_selected + n - 1) % n;
                true
            }
            KeyCode::Down => {
                self.menu_selected = (self.menu_selected + 1) % n;
                true
            }
            KeyCode::Tab => {
                if let Some(command) = matches.get(self.menu_selected.min(n - 1)) {
                    let text = format!("/{} ", command.name);
                    self.editor.set_text(&text);
                }
                true
            }
            KeyCode::Enter => {
                let typed = self.editor.text().trim().trim_start_matches('/').to_owned();
                let name = matches
                    .iter()
                    .find(|c| c.name == typed)
                    .or_else(|| matches.get(self.menu_selected.min(n - 1)))
                    .map(|c| c.name);
                if let Some(name) = name {
                    self.editor.set_text(&format!("/{name}"));
                }
                self.submit();
                true
            }
            _ => false,
        }
    }

    fn approval_key(&mut self, key: KeyEvent) {
        let Some(approval) = &mut self.approval else {
            return;
        };
        let answer = if approval.amending {
            amend_key(approval, key)
        } else {
            choose_key(approval, key)
        };
        if let Some(answer) = answer {
            self.close_approval();
            self.effects.push(Effect::Permission(answer));
        }
    }

    /// Takes the draft: a slash command runs, a prompt starts a turn (or is queued).
    pub(crate) fn submit(&mut self) {
        let Some(text) = self.editor.submit() else {
            // Enter on an empty draft sends prompts a cancel left paused.
            if self.queue_paused {
                self.queue_paused = false;
                self.start_queued();
            }
            return;
        };
        self.menu_selected = 0;
        self.history.push(&text);
        self.effects.push(Effect::AppendHistory(text.clone()));
        if text.starts_with('/') && self.run_command(&text) {
            return;
        }
        if self.turn.is_some() || self.switching || (self.queue_paused && !self.queue.is_empty()) {
            self.queue.push_back(text);
            return;
        }
        self.start_turn(text);
    }
}

/// The longest note an approval takes (as fx's approval text limit).
const MAX_NOTE_BYTES: usize = 4096;

fn push_note(note: &mut String, text: &str) {
    for c in text.chars() {
        if note.len() + c.len_utf8() > MAX_NOTE_BYTES {
            break;
        }
        note.push(c);
    }
}

/// The answer a choice confirms, with the note typed for it.
fn confirm(approval: &Approval) -> PermissionAnswer {
    let note = Some(approval.note.trim().to_owned()).filter(|n| approval.amending && !n.is_empty());
    match approval.selected {
        0 => PermissionAnswer::AllowOnce { note },
        1 => PermissionAnswer::AllowAlways,
        _ => PermissionAnswer::Reject { note },
    }
}

/// Keys while choosing: `1`–`3` decide at once, arrows move, Tab opens a note on Yes or No,
/// Enter confirms, Esc and Ctrl+C deny.
fn choose_key(approval: &mut Approval, key: KeyEvent) -> Option<PermissionAnswer> {
    if key.mods.contains(Modifiers::CTRL) {
        return (key.code == KeyCode::Char('c')).then_some(PermissionAnswer::Reject { note: None });
    }
    match key.code {
        KeyCode::Char('1') => Some(PermissionAnswer::AllowOnce { note: None }),
        KeyCode::Char('2') => Some(PermissionAnswer::AllowAlways),
        KeyCode::Char('3') => Some(PermissionAnswer::Reject { note: None }),
        KeyCode::Up | KeyCode::Left => {
            approval.selected = (approval.selected + 2) % 3;
            None
        }
        KeyCode::Down | KeyCode::Right => {
            approval.selected = (approval.selected + 1) % 3;
            None
        }
        KeyCode::Tab if approval.can_amend() => {
            approval.amending = true;
            approval.note.clear();
            None
        }
        KeyCode::Tab => {
            approval.selected = 2;
            None
        }
        KeyCode::Enter => Some(confirm(approval)),
        KeyCode::Escape => Some(PermissionAnswer::Reject { note: None }),
        _ => None,
    }
}

/// Keys while a note is typed: text goes into it, Enter confirms with it, Esc or Tab go back to
/// the choices (dropping it), Ctrl+C denies.
fn amend_key(approval: &mut Approval, key: KeyEvent) -> Option<PermissionAnswer> {
    match key.code {
        KeyCode::Char('c') if key.mods.contains(Modifiers::CTRL) => {
            Some(PermissionAnswer::Reject { note: None })
        }
        KeyCode::Enter if key.mods.is_empty() => Some(confirm(approval)),
        KeyCode::Escape | KeyCode::Tab => {
            approval.amending = false;
            approval.note.clear();
            None
        }
        KeyCode::Backspace => {
            approval.note.pop();
            None
        }
        KeyCode::Char(c) if key.mods.without(Modifiers::SHIFT).is_empty() => {
            push_note(&mut approval.note, c.encode_utf8(&mut [0; 4]));
            None
        }
        _ => None,
    }
}
