//! The help screen: every command and key, filtered by what is typed.

use crate::term::style::{Style, StyledLine, Tone};

use super::view::{row, Outcome, ScreenKey, View};
use crate::term::app::commands::COMMANDS;

const HELP_KEYS: &[(&str, &str)] = &[
    ("Enter", "send the prompt (queued while a turn runs)"),
    ("Shift+Enter, \\ Enter", "new line"),
    ("Esc", "cancel the running turn; twice clears the draft"),
    ("Ctrl+C", "cancel the turn or clear the draft; twice exits"),
    ("Ctrl+D", "exit on an empty draft"),
    ("Up/Down, Ctrl+P/N", "prompt history"),
    ("Ctrl+O", "review the transcript with full command output"),
    ("Shift+Tab", "permissions: ask before each command ⇄ auto"),
    ("Ctrl+A/E/K/U/W/Y", "line editing"),
    ("Ctrl+Z", "undo"),
];

/// The row for hosts whose terminal lets the focus out ([`Help::new`]).
const LEAVE_KEYS: (&str, &str) = ("Esc, then Tab", "leave the terminal (Shift+Tab: backwards)");

/// The help screen and its search field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Help {
    pub filter: String,
    /// Esc then Tab moves the focus out of the terminal (the host said so): listed with the keys.
    pub leave_keys: bool,
}

impl Help {
    pub fn new(leave_keys: bool) -> Self {
        Help {
            filter: String::new(),
            leave_keys,
        }
    }

    pub fn key(&mut self, key: ScreenKey) -> Outcome {
        match key {
            ScreenKey::Erase => {
                self.filter.pop();
            }
            ScreenKey::Type(c) => self.filter.push(c),
            ScreenKey::Accept | ScreenKey::Quit => return Outcome::Close,
            _ => {}
        }
        Outcome::Stay
    }

    pub fn rows(&self, view: &View, rows: &mut Vec<StyledLine>) -> &'static str {
        let w = view.width;
        rows.push(row("fx help", Style::plain().bold(), w));
        rows.push(row(
            &format!("Search: {}", self.filter),
            Style::plain().fg(Tone::Secondary),
            w,
        ));
        rows.push(StyledLine::new());
        // Commands and key names are ASCII: ASCII case folding spares the Unicode case tables.
        let f = self.filter.to_ascii_lowercase();
        for c in COMMANDS {
            let text = format!("/{}{}", c.name, c.args);
            if f.is_empty() || text.to_ascii_lowercase().contains(&f) || c.description.contains(&f)
            {
                rows.push(row(
                    &format!("  {text:<24} {}", c.description),
                    Style::plain(),
                    w,
                ));
            }
        }
        rows.push(StyledLine::new());
        let leave = self.leave_keys.then_some(&LEAVE_KEYS);
        for (keys, what) in HELP_KEYS.iter().chain(leave) {
            if f.is_empty() || keys.to_ascii_lowercase().contains(&f) || what.contains(&f) {
                rows.push(row(&format!("  {keys:<24} {what}"), Style::plain(), w));
            }
        }
        "Type to search    Esc Close"
    }
}
