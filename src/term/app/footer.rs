//! The live region under the printed transcript: the open block's provisional rows, the
//! activity row, queued prompts, the composer (or the approval panel), the slash menu and the
//! status line.

use super::commands::matching_commands;
use super::transcript::{compact_count, tool_rows};
use super::{App, Block};
use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::{elide, str_width, tail_to_width};

fn row(text: &str, style: Style) -> StyledLine {
    let mut line = StyledLine::new();
    line.push(text, style);
    line
}

/// `text` in one row of `width` cells, ending in `…` when it had to be cut.
fn elided(text: &str, width: usize, style: Style) -> StyledLine {
    row(&elide(text, width), style)
}

impl App {
    fn open_rows(&self) -> Vec<StyledLine> {
        match &self.open {
            Some(Block::Assistant(stream)) => stream.tail(),
            Some(Block::Tools(calls)) => tool_rows(calls, self.width, false),
            Some(other) => other.rows(self.width),
            None => Vec::new(),
        }
    }

    fn activity_row(&self) -> Option<StyledLine> {
        let turn = self.turn.as_ref()?;
        let w = self.width;
        let elapsed = turn.elapsed_ms(self.now);
        let secs = elapsed / 1000;
        let tokens = format!(
            " (↑{} ↓{})",
            compact_count(turn.tokens_in),
            compact_count(turn.shown_out)
        );
        let mut line = StyledLine::new();
        if let Some(retry) = &turn.retry {
            line.push(&retry_line(retry, w), Style::plain().fg(Tone::Secondary));
            return Some(line);
        }
        let lit = elapsed % 1000 < 500 || turn.approval_since.is_some();
        line.push(if lit { "• " } else { "  " }, Style::plain().bold());
        let running = match &self.open {
            Some(Block::Tools(calls)) => calls
                .iter()
                .find(|c| !c.is_done())
                .map(|c| crate::term::sanitize::sanitize(&c.command).replace('\n', " ")),
            _ => None,
        };
        let verb = if turn.cancelling {
            "Cancelling".to_owned()
        } else if turn.approval_since.is_some() {
            "Waiting for approval".to_owned()
        } else if let Some(command) = running {
            format!("Running {command}")
        } else {
            "Thinking".to_owned()
        };
        // The clock and the token counts stay whole; a long command gives way (`…`), and on
        // a very narrow screen the token counts go first.
        let clock = format!(" ({secs}s)");
        let tokens = if 2 + 12 + str_width(&clock) + str_width(&tokens) <= w {
            tokens
        } else {
            String::new()
        };
        let room = w.saturating_sub(2 + str_width(&clock) + str_width(&tokens));
        line.push(&format!("{}{clock}", elide(&verb, room)), Style::plain());
        line.push(&tokens, Style::plain().fg(Tone::Secondary));
        Some(line.elided(w))
    }

    fn status_row(&self) -> StyledLine {
        if self.ctrl_c_until.is_some() {
            return row(
                "press ctrl+c again to exit",
                Style::plain().fg(Tone::Secondary),
            );
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
        parts.push(self.permission_label().to_owned());
        parts.push(model_label(&self.model));
        if self.effort != "auto" {
            parts.push(self.effort.clone());
        }
        let mut text = parts.join(" · ");
        if self.esc_clear_until.is_some() {
            text.push_str(" · esc again to clear");
        }
        elided(&text, self.width, Style::plain().fg(Tone::Secondary))
    }

    fn composer_rows(&self, rows: &mut Vec<StyledLine>) -> (usize, usize) {
        let layout = self.editor.layout(self.width.saturating_sub(2).max(1));
        let max_rows = self.height / 2 + 1;
        let start = layout.cursor_row.saturating_add(1).saturating_sub(max_rows);
        let top = rows.len();
        for text in layout.rows.iter().skip(start).take(max_rows) {
            let mut line = StyledLine::new();
            line.push("┃ ", Style::plain().bold());
            line.push(text, Style::plain());
            rows.push(line);
        }
        (
            top + layout.cursor_row.saturating_sub(start),
            2 + layout.cursor_col,
        )
    }

    /// The approval panel, when one is open, and its cursor: only while a note is being typed
    /// (otherwise the cursor is hidden, not parked on a row of the panel).
    fn approval_rows(&self, rows: &mut Vec<StyledLine>) -> Option<Option<(usize, usize)>> {
        let approval = self.approval.as_ref()?;
        let w = self.width;
        let divider = "─".repeat(w);
        rows.push(row(&divider, Style::plain().fg(Tone::Border)));
        rows.push(elided(
            "Permission needed · run this command?",
            w,
            Style::plain().bold(),
        ));
        let command = crate::term::sanitize::sanitize(&approval.command).replace('\n', " ");
        rows.push(elided(&format!("$ {command}"), w, Style::plain()));
        let note = crate::term::sanitize::sanitize(&approval.note);
        let options = [
            ("1. Yes", "1. Yes, and tell fx what to do next: "),
            ("2. Yes, and don't ask again for this exact command", ""),
            ("3. No", "3. No, and tell fx what to do differently: "),
        ];
        let mut cursor = None;
        for (i, (plain, amended)) in options.iter().enumerate() {
            let selected = i == approval.selected;
            let marker = if selected { "❯ " } else { "  " };
            let style = if selected {
                Style::plain().bold()
            } else {
                Style::plain()
            };
            if selected && approval.amending {
                // The note's end stays in view: a long note scrolls left behind the label.
                let label = format!("{marker}{amended}");
                let room = w.saturating_sub(str_width(&label) + 1);
                let shown = tail_to_width(&note, room);
                let mut line = StyledLine::new();
                line.push(&label, style);
                line.push(shown, Style::plain());
                cursor = Some((
                    rows.len(),
                    (str_width(&label) + str_width(shown)).min(w - 1),
                ));
                rows.push(line);
            } else {
                rows.push(elided(&format!("{marker}{plain}"), w, style));
            }
        }
        let hints: &[&str] = if approval.amending {
            &[
                "Type a note for fx    Enter Confirm    Esc Back",
                "Enter Confirm    Esc Back",
            ]
        } else if approval.can_amend() {
            &[
                "1–3 Choose now    ↑↓ Options    Tab Amend    Enter Confirm    Esc Deny",
                "1–3 Choose now    Tab Amend    Enter Confirm    Esc Deny",
                "1–3 Choose    Tab Amend    Enter OK",
            ]
        } else {
            &[
                "1–3 Choose now    ↑↓ Options    Enter Confirm    Esc Deny",
                "1–3 Choose now    Enter Confirm    Esc Deny",
                "1–3 Choose    Enter OK",
            ]
        };
        let hint = hints
            .iter()
            .find(|h| str_width(h) <= w)
            .or(hints.last())
            .copied()
            .unwrap_or_default();
        rows.push(elided(hint, w, Style::plain().fg(Tone::Secondary)));
        Some(cursor)
    }

    fn menu_rows(&self, rows: &mut Vec<StyledLine>) {
        let matches = matching_commands(self);
        if matches.is_empty() {
            return;
        }
        let w = self.width;
        rows.push(row(&"─".repeat(w), Style::plain().fg(Tone::Border)));
        let selected = self.menu_selected.min(matches.len().saturating_sub(1));
        let start = selected.saturating_sub(5);
        for (i, command) in matches.iter().enumerate().skip(start).take(6) {
            let name = format!("/{}{}", command.name, command.args);
            let text = format!("{name:<18} {}", command.description);
            let style = if i == selected {
                Style::plain().bold()
            } else {
                Style::plain().fg(Tone::Secondary)
            };
            rows.push(elided(
                &format!("{}{text}", if i == selected { "❯ " } else { "  " }),
                w,
                style,
            ));
        }
        rows.push(row(&"─".repeat(w), Style::plain().fg(Tone::Border)));
    }

    /// The live rows and the cursor (row, column) within them.
    pub(crate) fn live_rows(&self) -> (Vec<StyledLine>, Option<(usize, usize)>) {
        let mut footer = Vec::new();
        if let Some(activity) = self.activity_row() {
            footer.push(activity);
            footer.push(StyledLine::new());
        }
        footer.extend(self.login_rows());
        if !self.queue.is_empty() {
            let n = self.queue.len();
            let text = format!(
                "{n} queued message{}{}",
                if n == 1 { "" } else { "s" },
                if self.queue_paused {
                    " · paused · enter to send · ↑ to edit"
                } else {
                    " · ↑ to edit"
                }
            );
            footer.push(elided(
                &text,
                self.width,
                Style::plain().fg(Tone::Secondary),
            ));
            footer.push(StyledLine::new());
        }
        let cursor = match self.approval_rows(&mut footer) {
            Some(cursor) => cursor,
            None => {
                let cursor = self.composer_rows(&mut footer);
                self.menu_rows(&mut footer);
                Some(cursor)
            }
        };
        footer.push(StyledLine::new());
        footer.push(self.status_row());
        let mut open = self.open_rows();
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
}

/// The status-line model label: the part after the last `/`.
pub fn model_label(model: &str) -> String {
    model.rsplit('/').next().unwrap_or(model).to_owned()
}

/// The retry row, `⚠ <problem> · retrying in Ns · attempt k/n`, in `width` cells: the problem
/// gives way first (`…`), then the whole row is elided.
fn retry_line(retry: &str, width: usize) -> String {
    let full = format!("⚠ {retry}");
    if str_width(&full) <= width {
        return full;
    }
    let when = retry
        .find(" · retrying")
        .and_then(|at| retry.get(at..))
        .unwrap_or("");
    let problem = retry.get(..retry.len() - when.len()).unwrap_or(retry);
    let room = width.saturating_sub(2 + str_width(when));
    if room >= 4 {
        return format!("⚠ {}{when}", elide(problem, room));
    }
    let when = format!("⚠ {}", when.trim_start_matches(" · "));
    elide(&when, width).into_owned()
}
