//! The bytes to write: newly final transcript rows printed once above the live region, then a
//! diff of the live region ([`super::frame`]): the open block's provisional rows, the activity
//! row, the sign-in panel, queued prompts, the composer (or the approval panel) and the status
//! line. Or, while one is open, a screen on the alternate screen. Resizes and theme changes
//! draw the screen again.

use crate::term::ansi::{Ansi, AnsiLine};
use crate::term::style::{line_to_ansi, Style, StyledLine, Tone};
use crate::term::width::elide;

use super::overlay::view::View;
use super::theme::Theme;
use super::App;

impl App {
    /// The bytes to write now (empty when nothing changed).
    pub(crate) fn render(&mut self) -> Ansi {
        if self.silent {
            return Ansi::new();
        }
        let mut out = self.out.take();
        let palette = self.theme.palette();
        if self.screens.is_open() && self.exit_code.is_none() {
            let mut screens = std::mem::take(&mut self.screens);
            screens.paint(&mut out, &self.view(), &palette);
            self.screens = screens;
            return out;
        }
        if self.screens.leave(&mut out) {
            self.frame.invalidate();
        }
        if std::mem::take(&mut self.repaint_screen) && self.exit_code.is_none() {
            // After a resize: home, erase the screen (not the scrollback), and print the rows
            // that fit above the live region again at the new width.
            out.push_str("\u{1b}[H\u{1b}[2J");
            self.frame.reset();
            let (live, _) = self.live_rows();
            let room = self.height.saturating_sub(live.len());
            self.transcript.reprint_tail(self.width, room);
        }
        let commit: Vec<AnsiLine> = self
            .transcript
            .take_final()
            .iter()
            .map(|row| line_to_ansi(row, &palette))
            .collect();
        if self.exit_code.is_some() {
            // The cursor on a fresh row under the transcript, for the shell.
            self.frame.paint(&mut out, &commit, &[], Some((0, 0)));
            out.push_str("\u{1b}[?2004l\u{1b}[?2031l\u{1b}[?7h\u{1b}[0m\u{1b}]2;\u{7}\u{1b}[?25h");
            self.silent = true;
            return out;
        }
        let (live, cursor) = self.live_rows();
        let live: Vec<AnsiLine> = live.iter().map(|row| line_to_ansi(row, &palette)).collect();
        self.frame.paint(&mut out, &commit, &live, cursor);
        out
    }

    /// Applies a new size: the screen is drawn again at the new width (the transcript rows
    /// that fit above the live region, re-wrapped; the terminal's own reflow cuts words), while
    /// the rows already in scrollback stay as they are.
    pub(crate) fn resize(&mut self, width: u16, height: u16) {
        let width = usize::from(width.max(10));
        let height = usize::from(height.max(4));
        if width == self.width && height == self.height {
            return;
        }
        self.width = width;
        self.height = height;
        self.transcript.set_width(width);
        self.frame.set_size(width, height);
        self.frame.invalidate();
        self.screens.touch();
        self.repaint_screen = self.started;
    }

    /// Switches the palette; a change repaints everything (scrollback is cleared and the
    /// transcript printed again in the new colours).
    pub(super) fn set_theme(&mut self, theme: Theme) {
        if theme == self.theme {
            return;
        }
        self.theme = theme;
        if !self.started {
            return;
        }
        self.out.push_str("\u{1b}[2J\u{1b}[3J\u{1b}[H");
        self.frame.reset();
        self.transcript.reprint(self.width);
        self.screens.touch();
    }

    /// What the screens are drawn from.
    pub(super) fn view(&self) -> View<'_> {
        View {
            width: self.width,
            height: self.height,
            now: self.now,
            catalog: &self.catalog,
            model: &self.session.model,
            effort: &self.session.effort,
            transcript: &self.transcript,
        }
    }

    /// The live rows and the cursor (row, column) within them.
    fn live_rows(&self) -> (Vec<StyledLine>, Option<(usize, usize)>) {
        let mut footer = Vec::new();
        let running = self.transcript.running_command();
        if let Some(activity) = self.turn.activity_row(self.width, self.now, running) {
            footer.push(activity);
            footer.push(StyledLine::new());
        }
        footer.extend(self.signin.rows(self.width, self.now));
        if let Some(queued) = self.queue.row(self.width) {
            footer.push(queued);
            footer.push(StyledLine::new());
        }
        let cursor = match &self.approval {
            Some(approval) => approval.rows(self.width, &mut footer),
            // While a turn runs and nothing is typed, the cursor is hidden and waits where the
            // last write ended (the reply's end), so streamed text costs no cursor moves.
            None if self.turn.is_running() && self.composer.is_empty() => {
                self.composer.rows(self.width, self.height, &mut footer);
                None
            }
            None => Some(self.composer.rows(self.width, self.height, &mut footer)),
        };
        footer.push(StyledLine::new());
        footer.push(self.status_row());
        let mut open = self.transcript.open_rows(self.width);
        if !open.is_empty() {
            open.push(StyledLine::new());
        }
        // Keep the live region within the screen: the open block's oldest rows give way.
        let room = self.height.saturating_sub(footer.len());
        let skip = open.len().saturating_sub(room);
        let shown = open.len() - skip;
        let mut rows: Vec<StyledLine> = open.into_iter().skip(skip).collect();
        rows.extend(footer);
        let skip_footer = rows.len().saturating_sub(self.height);
        // Every live row fits the width: whatever was laid out too wide is elided, never left
        // to wrap or overwrite the last column.
        let rows: Vec<StyledLine> = rows
            .into_iter()
            .skip(skip_footer)
            .map(|row| row.elided(self.width))
            .collect();
        let cursor = cursor.map(|(r, c)| {
            (
                (r + shown).saturating_sub(skip_footer),
                c.min(self.width - 1),
            )
        });
        (rows, cursor)
    }

    /// The status line: what is missing, queued prompts, the permission mode, the model and a
    /// non-default effort; or what a pending gesture needs.
    fn status_row(&self) -> StyledLine {
        let dim = Style::plain().fg(Tone::Secondary);
        if self.ctrl_c_until.is_some() {
            return StyledLine::of("press ctrl+c again to exit", dim);
        }
        let mut parts: Vec<String> = Vec::new();
        if !self.caps.credential {
            parts.push(if self.caps.oauth {
                "run /login".to_owned()
            } else {
                "no credential: set AI_GATEWAY_API_KEY".to_owned()
            });
        }
        if !self.queue.is_empty() {
            parts.push(format!("queued {}", self.queue.len()));
        }
        parts.push(self.permission().permission_mode().to_owned());
        parts.push(model_label(&self.session.model));
        if let crate::gateway::Effort::Named(level) = &self.session.effort {
            parts.push(level.clone());
        }
        let mut text = parts.join(" · ");
        if self.composer.clear_armed() {
            text.push_str(" · esc again to clear");
        }
        StyledLine::of(&elide(&text, self.width), dim)
    }
}

/// The status-line model label: the part after the last `/`.
fn model_label(model: &str) -> String {
    model.rsplit('/').next().unwrap_or(model).to_owned()
}
