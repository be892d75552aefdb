//! The approval panel: the command the agent asks to run, the highlighted [`Choice`] and,
//! while one is typed, the note for the model ("Yes, and …" / "No, and …"). Keys arrive as
//! [`ApprovalKey`]s (see the keymap); an answer ends the panel.

use crate::caps::acp::PermissionAnswer;
use crate::term::sanitize::sanitize;
use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::{elide, str_width, tail_to_width};

/// The longest note an approval takes (as fx's approval text limit).
const MAX_NOTE_BYTES: usize = 4096;

/// One of the panel's three answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Run it this once.
    Yes,
    /// Run it, and this exact command from now on without asking.
    Always,
    /// Do not run it.
    No,
}

impl Choice {
    const ALL: [Choice; 3] = [Choice::Yes, Choice::Always, Choice::No];

    fn next(self) -> Choice {
        match self {
            Choice::Yes => Choice::Always,
            Choice::Always => Choice::No,
            Choice::No => Choice::Yes,
        }
    }

    fn previous(self) -> Choice {
        match self {
            Choice::Yes => Choice::No,
            Choice::Always => Choice::Yes,
            Choice::No => Choice::Always,
        }
    }

    /// Whether it takes a note (Yes and No do; "don't ask again" does not).
    pub fn takes_note(self) -> bool {
        self != Choice::Always
    }

    /// The answer it gives, with the note typed for it.
    pub fn answer(self, note: Option<String>) -> PermissionAnswer {
        match self {
            Choice::Yes => PermissionAnswer::AllowOnce { note },
            Choice::Always => PermissionAnswer::AllowAlways,
            Choice::No => PermissionAnswer::Reject { note },
        }
    }

    /// Its row, and its row while a note is typed for it.
    fn labels(self) -> (&'static str, &'static str) {
        match self {
            Choice::Yes => ("1. Yes", "1. Yes, and tell fx what to do next: "),
            Choice::Always => ("2. Yes, and don't ask again for this exact command", ""),
            Choice::No => ("3. No", "3. No, and tell fx what to do differently: "),
        }
    }
}

/// What a key does in the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalKey {
    /// Answer with this choice at once (no note).
    Decide(Choice),
    Previous,
    Next,
    /// Open a note for the highlighted choice (on "don't ask again": highlight No).
    Amend,
    /// Answer with the highlighted choice (and the note, when one is typed).
    Confirm,
    /// Back from the note to the choices (dropping it).
    Back,
    /// Delete the note's last character.
    Erase,
    /// Type into the note.
    Type(char),
}

/// The panel's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    command: String,
    choice: Choice,
    /// The note, while one is typed.
    note: Option<String>,
}

impl Approval {
    pub fn new(command: &str) -> Self {
        Approval {
            command: command.to_owned(),
            choice: Choice::Yes,
            note: None,
        }
    }

    pub fn is_amending(&self) -> bool {
        self.note.is_some()
    }

    /// Applies a key; the answer once one is given.
    pub fn key(&mut self, key: ApprovalKey) -> Option<PermissionAnswer> {
        match key {
            ApprovalKey::Decide(choice) => return Some(choice.answer(None)),
            ApprovalKey::Previous => self.choice = self.choice.previous(),
            ApprovalKey::Next => self.choice = self.choice.next(),
            ApprovalKey::Amend if self.choice.takes_note() => self.note = Some(String::new()),
            ApprovalKey::Amend => self.choice = Choice::No,
            ApprovalKey::Confirm => {
                let note = self
                    .note
                    .as_deref()
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned);
                return Some(self.choice.answer(note));
            }
            ApprovalKey::Back => self.note = None,
            ApprovalKey::Erase => {
                if let Some(note) = &mut self.note {
                    note.pop();
                }
            }
            ApprovalKey::Type(c) => {
                if let Some(note) = &mut self.note {
                    push_note(note, c.encode_utf8(&mut [0; 4]));
                }
            }
        }
        None
    }

    /// A paste is a note: for the highlighted choice when it takes one, else for "No".
    pub fn paste(&mut self, text: &str) {
        if !self.choice.takes_note() && self.note.is_none() {
            self.choice = Choice::No;
        }
        let note = self.note.get_or_insert_with(String::new);
        push_note(note, &text.replace(['\n', '\t', '\r'], " "));
    }

    /// Appends the panel's rows; the cursor (row, column) only while a note is typed
    /// (otherwise it is hidden, not parked on a row of the panel).
    pub fn rows(&self, width: usize, rows: &mut Vec<StyledLine>) -> Option<(usize, usize)> {
        let w = width;
        rows.push(StyledLine::of(
            &"─".repeat(w),
            Style::plain().fg(Tone::Border),
        ));
        rows.push(elided(
            "Permission needed · run this command?",
            w,
            Style::plain().bold(),
        ));
        let command = sanitize(&self.command).replace('\n', " ");
        rows.push(elided(&format!("$ {command}"), w, Style::plain()));
        let mut cursor = None;
        for choice in Choice::ALL {
            let (plain, amended) = choice.labels();
            let selected = choice == self.choice;
            let marker = if selected { "❯ " } else { "  " };
            let style = if selected {
                Style::plain().bold()
            } else {
                Style::plain()
            };
            match self.note.as_deref().filter(|_| selected) {
                Some(note) => {
                    // The note's end stays in view: a long note scrolls left behind the label.
                    let note = sanitize(note);
                    let label = format!("{marker}{amended}");
                    let room = w.saturating_sub(str_width(&label) + 1);
                    let shown = tail_to_width(&note, room);
                    let mut row = StyledLine::new();
                    row.push(&label, style);
                    row.push(shown, Style::plain());
                    cursor = Some((
                        rows.len(),
                        (str_width(&label) + str_width(shown)).min(w - 1),
                    ));
                    rows.push(row);
                }
                None => rows.push(elided(&format!("{marker}{plain}"), w, style)),
            }
        }
        let hints: &[&str] = if self.is_amending() {
            &[
                "Type a note for fx    Enter Confirm    Esc Back",
                "Enter Confirm    Esc Back",
            ]
        } else if self.choice.takes_note() {
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
        cursor
    }
}

fn push_note(note: &mut String, text: &str) {
    for c in text.chars() {
        if note.len() + c.len_utf8() > MAX_NOTE_BYTES {
            break;
        }
        note.push(c);
    }
}

/// `text` in one row of `width` cells, ending in `…` when it had to be cut.
fn elided(text: &str, width: usize, style: Style) -> StyledLine {
    StyledLine::of(&elide(text, width), style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_after(keys: &[ApprovalKey]) -> Option<PermissionAnswer> {
        let mut approval = Approval::new("rm -rf build");
        keys.iter().find_map(|&key| approval.key(key))
    }

    #[test]
    fn choices_cycle_and_decide() {
        use ApprovalKey::*;
        assert_eq!(
            answer_after(&[Confirm]),
            Some(PermissionAnswer::AllowOnce { note: None })
        );
        assert_eq!(
            answer_after(&[Next, Confirm]),
            Some(PermissionAnswer::AllowAlways)
        );
        assert_eq!(
            answer_after(&[Previous, Confirm]),
            Some(PermissionAnswer::Reject { note: None })
        );
        assert_eq!(
            answer_after(&[Next, Next, Next, Confirm]),
            Some(PermissionAnswer::AllowOnce { note: None })
        );
        assert_eq!(
            answer_after(&[Next, Decide(Choice::Yes)]),
            Some(PermissionAnswer::AllowOnce { note: None })
        );
    }

    #[test]
    fn a_note_goes_with_yes_or_no_only() {
        use ApprovalKey::*;
        assert_eq!(
            answer_after(&[Amend, Type(' '), Type('o'), Type('k'), Type(' '), Confirm]),
            Some(PermissionAnswer::AllowOnce {
                note: Some("ok".into())
            })
        );
        // A blank note is no note; Back drops it; Erase takes a character off.
        assert_eq!(
            answer_after(&[Amend, Type(' '), Confirm]),
            Some(PermissionAnswer::AllowOnce { note: None })
        );
        assert_eq!(
            answer_after(&[Amend, Type('x'), Back, Confirm]),
            Some(PermissionAnswer::AllowOnce { note: None })
        );
        assert_eq!(
            answer_after(&[Previous, Amend, Type('a'), Type('b'), Erase, Confirm]),
            Some(PermissionAnswer::Reject {
                note: Some("a".into())
            })
        );
        // "Don't ask again" takes none: Tab moves to No instead.
        let mut approval = Approval::new("ls");
        approval.key(Next);
        approval.key(Amend);
        assert!(!approval.is_amending());
        assert_eq!(
            approval.key(Confirm),
            Some(PermissionAnswer::Reject { note: None })
        );
    }

    #[test]
    fn a_paste_is_a_note_on_one_line_within_the_limit() {
        let mut approval = Approval::new("ls");
        approval.key(ApprovalKey::Next);
        approval.paste("use\nthe\ttests");
        assert!(approval.is_amending());
        assert_eq!(
            approval.key(ApprovalKey::Confirm),
            Some(PermissionAnswer::Reject {
                note: Some("use the tests".into())
            })
        );
        let mut approval = Approval::new("ls");
        approval.paste(&"é".repeat(MAX_NOTE_BYTES));
        let Some(PermissionAnswer::AllowOnce { note: Some(note) }) =
            approval.key(ApprovalKey::Confirm)
        else {
            unreachable!("a note was pasted");
        };
        assert_eq!(note.len(), MAX_NOTE_BYTES);
    }
}
