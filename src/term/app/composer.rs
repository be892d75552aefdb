//! The composer: the draft being typed ([`LineEditor`]), the prompt history it recalls, the
//! slash menu over the draft, and the "Esc twice clears" gesture; and their rows.

use crate::term::history::PromptHistory;
use crate::term::keys::KeyEvent;
use crate::term::line_editor::{EditError, EditOutcome, LineEditor};
use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::elide;

use super::commands::{self, CommandInfo};

/// How long a first Esc on a draft waits for the second.
const ESC_CLEAR_WINDOW_MS: u64 = 500;

/// The draft, its history and its menu.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    editor: LineEditor,
    history: PromptHistory,
    /// The highlighted entry of the slash menu.
    menu: usize,
    /// A first Esc on the draft armed "Esc again clears" until then (inclusive).
    clear_until: Option<u64>,
}

impl Composer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn load_history(&mut self, entries: Vec<String>) {
        self.history = PromptHistory::from_entries(entries);
    }

    pub fn is_empty(&self) -> bool {
        self.editor.is_empty()
    }

    pub fn text(&self) -> &str {
        self.editor.text()
    }

    pub fn set_text(&mut self, text: &str) {
        self.editor.set_text(text);
    }

    pub fn clear(&mut self) {
        self.editor.clear();
    }

    /// # Errors
    /// The draft would grow too large.
    pub fn paste(&mut self, text: &str) -> Result<(), EditError> {
        self.editor.insert_paste(text)
    }

    /// An editing key; a change of the draft resets the menu's highlight.
    pub fn edit(&mut self, key: KeyEvent) -> EditOutcome {
        let before = self.editor.text().to_owned();
        let outcome = self.editor.handle_key(key, &self.history);
        if self.editor.text() != before {
            self.menu = 0;
        }
        outcome
    }

    /// Takes the draft for sending (remembered in the history); `None` when it is empty.
    pub fn submit(&mut self) -> Option<String> {
        let text = self.editor.submit()?;
        self.menu = 0;
        self.history.push(&text);
        Some(text)
    }

    /// The commands the slash menu offers for the draft.
    pub fn menu(&self) -> Vec<CommandInfo> {
        commands::matching(self.editor.text())
    }

    /// Moves the menu's highlight; false when no menu shows.
    pub fn menu_move(&mut self, down: bool) -> bool {
        let n = self.menu().len();
        if n == 0 {
            return false;
        }
        self.menu = if down {
            (self.menu + 1) % n
        } else {
            (self.menu + n - 1) % n
        };
        true
    }

    /// Takes the menu's choice into the draft; false when no menu shows. On Tab (`submit`
    /// false) the highlighted command, followed by a space for its arguments; on Enter the one
    /// typed out in full when it is offered, else the highlighted one, ready to submit.
    pub fn menu_choose(&mut self, submit: bool) -> bool {
        let matches = self.menu();
        let typed = self.editor.text().trim().trim_start_matches('/');
        let exact = matches.iter().find(|c| submit && c.name == typed);
        let highlighted = matches.get(self.menu.min(matches.len().saturating_sub(1)));
        let Some(name) = exact.or(highlighted).map(|c| c.name) else {
            return false;
        };
        let space = if submit { "" } else { " " };
        self.editor.set_text(&format!("/{name}{space}"));
        true
    }

    /// Esc on a draft: true when it is the second within the window (clear now), else the
    /// window opens.
    pub fn second_escape(&mut self, now: u64) -> bool {
        if self.clear_until.is_some_and(|d| now <= d) {
            self.clear_until = None;
            true
        } else {
            self.clear_until = Some(now + ESC_CLEAR_WINDOW_MS);
            false
        }
    }

    /// Whether "Esc again clears" is armed.
    pub fn clear_armed(&self) -> bool {
        self.clear_until.is_some()
    }

    pub fn disarm_clear(&mut self) {
        self.clear_until = None;
    }

    /// The clock: the Esc window closes.
    pub fn tick(&mut self, now: u64) {
        if self.clear_until.is_some_and(|d| now > d) {
            self.clear_until = None;
        }
    }

    /// Appends the draft's rows (at most half the screen, the cursor's row in view) and the
    /// menu's; the cursor (row, column).
    pub fn rows(&self, width: usize, height: usize, rows: &mut Vec<StyledLine>) -> (usize, usize) {
        let layout = self.editor.layout(width.saturating_sub(2).max(1));
        let max_rows = height / 2 + 1;
        let start = layout.cursor_row.saturating_add(1).saturating_sub(max_rows);
        let top = rows.len();
        for text in layout.rows.iter().skip(start).take(max_rows) {
            let mut line = StyledLine::new();
            line.push("┃ ", Style::plain().bold());
            line.push(text, Style::plain());
            rows.push(line);
        }
        self.menu_rows(width, rows);
        (
            top + layout.cursor_row.saturating_sub(start),
            2 + layout.cursor_col,
        )
    }

    fn menu_rows(&self, width: usize, rows: &mut Vec<StyledLine>) {
        let matches = self.menu();
        if matches.is_empty() {
            return;
        }
        let w = width;
        rows.push(StyledLine::of(
            &"─".repeat(w),
            Style::plain().fg(Tone::Border),
        ));
        let selected = self.menu.min(matches.len().saturating_sub(1));
        let start = selected.saturating_sub(5);
        for (i, command) in matches.iter().enumerate().skip(start).take(6) {
            let name = format!("/{}{}", command.name, command.args);
            let text = format!("{name:<18} {}", command.description);
            let style = if i == selected {
                Style::plain().bold()
            } else {
                Style::plain().fg(Tone::Secondary)
            };
            let mark = if i == selected { "❯ " } else { "  " };
            rows.push(StyledLine::of(&elide(&format!("{mark}{text}"), w), style));
        }
        rows.push(StyledLine::of(
            &"─".repeat(w),
            Style::plain().fg(Tone::Border),
        ));
    }
}
