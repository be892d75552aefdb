//! The composer's line editor: a multi-line draft with a cursor, word motions, a kill ring,
//! undo/redo, collapsed large pastes and history recall.
//!
//! Key bindings ([`LineEditor::handle_key`]):
//!
//! | Keys | Action |
//! |---|---|
//! | printable | insert at the cursor |
//! | Enter | [`EditOutcome::Submit`], or, right after a `\`, replace it with a newline |
//! | Shift+Enter, Alt+Enter, Ctrl+J | insert a newline |
//! | ← → , Ctrl+B / Ctrl+F | one cluster (a paste placeholder is one unit) |
//! | Alt+B / Alt+F, Ctrl/Alt+← → | word left / right |
//! | Home / End, Ctrl+A / Ctrl+E, Cmd+← → | start / end of the line |
//! | Ctrl+Home / Ctrl+End, Cmd+↑ ↓ | start / end of the draft |
//! | ↑ / ↓ | previous / next line; on the first (last) line go to the draft start (end), and from there recall the previous (next) history entry |
//! | Ctrl+P / Ctrl+N | previous / next history entry |
//! | Backspace / Delete, Ctrl+D | delete a cluster (or placeholder) before / after the cursor |
//! | Alt+Backspace, Ctrl+Backspace | delete the word before the cursor (punctuation-aware) |
//! | Ctrl+W | kill the whitespace-delimited word before the cursor |
//! | Alt+D, Alt/Ctrl+Delete | kill the word after the cursor |
//! | Ctrl+K | kill to the end of the line (at the end: join with the next line) |
//! | Ctrl+U, Cmd+Backspace | kill to the start of the line |
//! | Ctrl+Y | yank the most recent kill |
//! | Ctrl+_ , Ctrl+Z, Cmd+Z | undo (typing is undone a word at a time) |
//! | Cmd+Shift+Z | redo |
//!
//! There is no selection yet: Shift+←/→/Home/End move like the unshifted keys.
//!
//! Everything else (Esc, Ctrl+C, Tab, Ctrl+D on an empty draft, …) comes back as
//! [`EditOutcome::Ignored`] for the app to handle. Consecutive kills join into one kill-ring
//! entry, as in Emacs.

use super::history::PromptHistory;
use super::keys::{KeyCode, KeyEvent, Modifiers};
use super::width::str_width;

mod layout;
mod motion;

pub use layout::ComposerLayout;

/// Largest draft (placeholders expanded), in bytes.
pub const DRAFT_LIMIT_BYTES: usize = 8 * 1024 * 1024;
/// A paste with more characters than this is collapsed to a placeholder.
pub const PASTE_COLLAPSE_CHARS: usize = 1000;
/// A paste with more lines than this is collapsed to a placeholder.
pub const PASTE_COLLAPSE_LINES: usize = 10;
const UNDO_DEPTH: usize = 200;
const KILL_RING_SIZE: usize = 16;

/// Editing refused by the editor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The draft would exceed [`DRAFT_LIMIT_BYTES`].
    #[error("the draft would exceed {limit} bytes; the edit was not applied")]
    DraftTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

impl EditError {
    /// Stable machine-readable code.
    #[must_use]
    pub fn code(&self) -> crate::Code {
        match self {
            Self::DraftTooLarge { .. } => crate::Code::TermDraftTooLarge,
        }
    }
}

/// What a key did to the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOutcome {
    /// The draft text changed.
    Changed,
    /// Only the cursor moved.
    Moved,
    /// A history entry (or the saved draft) replaced the draft.
    Recalled,
    /// Enter was pressed: the app decides, usually by calling [`LineEditor::submit`].
    Submit,
    /// The edit was refused.
    Rejected(EditError),
    /// The key is not an editing key (or had no effect); the app may handle it.
    Ignored,
}

/// A large paste shown as a placeholder in the draft.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PasteBlock {
    placeholder: String,
    text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    text: String,
    cursor: usize,
    pastes: Vec<PasteBlock>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EditKind {
    Insert,
    Delete,
    Other,
}

#[derive(Debug, Clone)]
struct Browse {
    index: usize,
    saved: Snapshot,
}

/// The draft being composed. Invariant: `cursor` is a byte offset on a cluster boundary of
/// `text` and never inside a paste placeholder.
#[derive(Debug, Clone, Default)]
pub struct LineEditor {
    text: String,
    cursor: usize,
    pastes: Vec<PasteBlock>,
    paste_counter: u32,
    kill_ring: Vec<String>,
    last_was_kill: bool,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    last_edit: Option<EditKind>,
    browse: Option<Browse>,
    goal_col: Option<usize>,
}

enum Dir {
    Left,
    Right,
}

impl LineEditor {
    /// An empty editor.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The draft as displayed (large pastes as placeholders).
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Cursor byte offset into [`Self::text`].
    #[must_use]
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// True when the draft is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The cursor as (line index, display column within that line).
    #[must_use]
    pub fn cursor_line_col(&self) -> (usize, usize) {
        let before = self.text.get(..self.cursor).unwrap_or("");
        let line = before.matches('\n').count();
        let start = self.line_start(self.cursor);
        (
            line,
            str_width(self.text.get(start..self.cursor).unwrap_or("")),
        )
    }

    /// The draft with every placeholder replaced by its pasted text.
    #[must_use]
    pub fn expanded_text(&self) -> String {
        let mut out = self.text.clone();
        for p in &self.pastes {
            if let Some(i) = out.find(&p.placeholder) {
                out.replace_range(i..i.saturating_add(p.placeholder.len()), &p.text);
            }
        }
        out
    }

    /// Takes the draft for sending: returns the expanded text trimmed of surrounding
    /// whitespace (`None` when blank) and leaves the editor empty with fresh undo state.
    /// Recording it in the history is the caller's job (it also goes to the host store).
    pub fn submit(&mut self) -> Option<String> {
        let text = self.expanded_text();
        *self = Self {
            kill_ring: std::mem::take(&mut self.kill_ring),
            ..Self::default()
        };
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }

    /// Replaces the draft (e.g. a completed slash command), cursor at the end. Undoable.
    pub fn set_text(&mut self, text: &str) {
        self.checkpoint(EditKind::Other);
        self.text = text.to_owned();
        self.pastes.clear();
        self.cursor = self.text.len();
        self.browse = None;
    }

    /// Empties the draft. Undoable.
    pub fn clear(&mut self) {
        self.set_text("");
    }

    /// Inserts pasted text at the cursor. Text over [`PASTE_COLLAPSE_CHARS`] characters or
    /// [`PASTE_COLLAPSE_LINES`] lines is shown as `[Pasted text #N +M lines]` (or `+C chars`)
    /// and expanded by [`Self::submit`]; Backspace removes it as one unit.
    ///
    /// # Errors
    /// [`EditError::DraftTooLarge`] when the draft would exceed [`DRAFT_LIMIT_BYTES`].
    pub fn insert_paste(&mut self, text: &str) -> Result<(), EditError> {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.check_room(text.len())?;
        self.checkpoint(EditKind::Other);
        let chars = text.chars().count();
        let lines = text.trim_end_matches('\n').split('\n').count();
        if chars > PASTE_COLLAPSE_CHARS || lines > PASTE_COLLAPSE_LINES {
            self.paste_counter = self.paste_counter.saturating_add(1);
            let placeholder = if lines > 1 {
                format!("[Pasted text #{} +{lines} lines]", self.paste_counter)
            } else {
                format!("[Pasted text #{} +{chars} chars]", self.paste_counter)
            };
            self.insert_raw(&placeholder);
            self.pastes.push(PasteBlock { placeholder, text });
        } else {
            self.insert_raw(&text);
        }
        Ok(())
    }

    /// Applies one key. See the module docs for the bindings.
    pub fn handle_key(&mut self, key: KeyEvent, history: &PromptHistory) -> EditOutcome {
        let outcome = self.dispatch(key, history);
        if !matches!(outcome, EditOutcome::Ignored) {
            let is_kill = matches!(
                (key.code, key.mods),
                (KeyCode::Char('k' | 'u' | 'w'), Modifiers::CTRL)
                    | (KeyCode::Char('d'), Modifiers::ALT)
                    | (KeyCode::Backspace, Modifiers::SUPER)
            );
            self.last_was_kill = is_kill;
        }
        if matches!(outcome, EditOutcome::Changed) {
            self.browse = None;
        }
        outcome
    }

    fn dispatch(&mut self, key: KeyEvent, history: &PromptHistory) -> EditOutcome {
        use KeyCode as K;
        const N: Modifiers = Modifiers::NONE;
        const S: Modifiers = Modifiers::SHIFT;
        const A: Modifiers = Modifiers::ALT;
        const C: Modifiers = Modifiers::CTRL;
        const M: Modifiers = Modifiers::SUPER;
        if !matches!(key.code, K::Up | K::Down) {
            self.goal_col = None;
        }
        match (key.code, key.mods) {
            (K::Char(c), N | S) => self.insert_typed(c),
            (K::Enter, N) => {
                if self
                    .text
                    .get(..self.cursor)
                    .is_some_and(|b| b.ends_with('\\'))
                {
                    self.checkpoint(EditKind::Other);
                    let at = self.cursor.saturating_sub(1);
                    self.text.replace_range(at..self.cursor, "\n");
                    EditOutcome::Changed
                } else {
                    EditOutcome::Submit
                }
            }
            (K::Enter, S | A) | (K::Char('j'), C) => self.insert_edit("\n", EditKind::Other),
            (K::Left, N | S) | (K::Char('b'), C) => self.move_to(self.prev_stop(self.cursor)),
            (K::Right, N | S) | (K::Char('f'), C) => self.move_to(self.next_stop(self.cursor)),
            (K::Left, A | C) | (K::Char('b'), A) => {
                self.move_to(self.word_left(self.cursor, false))
            }
            (K::Right, A | C) | (K::Char('f'), A) => self.move_to(self.word_right(self.cursor)),
            (K::Home, N | S) | (K::Char('a'), C) | (K::Left, M) => {
                self.move_to(self.line_start(self.cursor))
            }
            (K::End, N | S) | (K::Char('e'), C) | (K::Right, M) => {
                self.move_to(self.line_end(self.cursor))
            }
            (K::Home, C) | (K::Up, M) => self.move_to(0),
            (K::End, C) | (K::Down, M) => self.move_to(self.text.len()),
            (K::Up, N) => self.vertical(Dir::Left, history),
            (K::Down, N) => self.vertical(Dir::Right, history),
            (K::Char('p'), C) => self.history_prev(history),
            (K::Char('n'), C) => self.history_next(history),
            (K::Backspace, N) => self.delete_to(self.prev_stop(self.cursor), EditKind::Delete),
            (K::Delete, N) => self.delete_to(self.next_stop(self.cursor), EditKind::Delete),
            (K::Char('d'), C) if !self.text.is_empty() => {
                self.delete_to(self.next_stop(self.cursor), EditKind::Delete)
            }
            (K::Backspace, A | C) => {
                self.delete_to(self.word_left(self.cursor, false), EditKind::Other)
            }
            (K::Char('w'), C) => self.kill_to(self.word_left(self.cursor, true)),
            (K::Char('d'), A) | (K::Delete, A | C) => self.kill_to(self.word_right(self.cursor)),
            (K::Char('k'), C) => {
                let end = self.line_end(self.cursor);
                let end = if end == self.cursor {
                    self.next_stop(end)
                } else {
                    end
                };
                self.kill_to(end)
            }
            (K::Char('u'), C) | (K::Backspace, M) => self.kill_to(self.line_start(self.cursor)),
            (K::Char('y'), C) => match self.kill_ring.last().cloned() {
                Some(t) => self.insert_edit(&t, EditKind::Other),
                None => EditOutcome::Ignored,
            },
            (K::Char('_' | 'z'), C) | (K::Char('z'), M) => self.undo(),
            (K::Char('z' | 'Z'), m) if m == M | S => self.redo(),
            _ => EditOutcome::Ignored,
        }
    }

    // ----- edits -----

    fn check_room(&self, extra: usize) -> Result<(), EditError> {
        let pasted: usize = self.pastes.iter().map(|p| p.text.len()).sum();
        if self.text.len().saturating_add(pasted).saturating_add(extra) > DRAFT_LIMIT_BYTES {
            return Err(EditError::DraftTooLarge {
                limit: DRAFT_LIMIT_BYTES,
            });
        }
        Ok(())
    }

    fn insert_typed(&mut self, c: char) -> EditOutcome {
        if c.is_control() {
            return EditOutcome::Ignored;
        }
        // A word boundary starts a new undo step, so undo removes typing a word at a time.
        if c.is_whitespace() {
            self.last_edit = None;
        }
        let mut buf = [0u8; 4];
        self.insert_edit(c.encode_utf8(&mut buf), EditKind::Insert)
    }

    fn insert_edit(&mut self, s: &str, kind: EditKind) -> EditOutcome {
        if let Err(e) = self.check_room(s.len()) {
            return EditOutcome::Rejected(e);
        }
        self.checkpoint(kind);
        self.insert_raw(s);
        EditOutcome::Changed
    }

    fn insert_raw(&mut self, s: &str) {
        let at = self.cursor.min(self.text.len());
        self.text.insert_str(at, s);
        self.cursor = at.saturating_add(s.len());
    }

    fn delete_to(&mut self, other: usize, kind: EditKind) -> EditOutcome {
        let (a, b) = (self.cursor.min(other), self.cursor.max(other));
        if a == b || self.text.get(a..b).is_none() {
            return EditOutcome::Ignored;
        }
        self.checkpoint(kind);
        self.text.replace_range(a..b, "");
        self.cursor = a;
        self.drop_orphan_pastes();
        EditOutcome::Changed
    }

    fn kill_to(&mut self, other: usize) -> EditOutcome {
        let (a, b) = (self.cursor.min(other), self.cursor.max(other));
        let Some(killed) = self.text.get(a..b).map(str::to_owned) else {
            return EditOutcome::Ignored;
        };
        if killed.is_empty() {
            return EditOutcome::Ignored;
        }
        match self.kill_ring.last_mut() {
            Some(top) if self.last_was_kill => {
                if other < self.cursor {
                    top.insert_str(0, &killed);
                } else {
                    top.push_str(&killed);
                }
            }
            _ => {
                self.kill_ring.push(killed);
                if self.kill_ring.len() > KILL_RING_SIZE {
                    self.kill_ring.remove(0);
                }
            }
        }
        self.delete_to(other, EditKind::Other)
    }

    fn drop_orphan_pastes(&mut self) {
        let text = &self.text;
        self.pastes.retain(|p| text.contains(&p.placeholder));
    }

    // ----- undo -----

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            text: self.text.clone(),
            cursor: self.cursor,
            pastes: self.pastes.clone(),
        }
    }

    fn restore(&mut self, s: Snapshot) {
        self.text = s.text;
        self.cursor = s.cursor.min(self.text.len());
        self.pastes = s.pastes;
    }

    /// Records the state before an edit, unless it continues the same kind of edit.
    fn checkpoint(&mut self, kind: EditKind) {
        if kind == EditKind::Other || self.last_edit != Some(kind) {
            self.undo.push(self.snapshot());
            if self.undo.len() > UNDO_DEPTH {
                self.undo.remove(0);
            }
        }
        self.redo.clear();
        self.last_edit = Some(kind);
    }

    fn undo(&mut self) -> EditOutcome {
        let Some(prev) = self.undo.pop() else {
            return EditOutcome::Ignored;
        };
        self.redo.push(self.snapshot());
        self.restore(prev);
        self.last_edit = None;
        EditOutcome::Changed
    }

    fn redo(&mut self) -> EditOutcome {
        let Some(next) = self.redo.pop() else {
            return EditOutcome::Ignored;
        };
        self.undo.push(self.snapshot());
        self.restore(next);
        self.last_edit = None;
        EditOutcome::Changed
    }

    // ----- history -----

    fn history_prev(&mut self, history: &PromptHistory) -> EditOutcome {
        let index = match &self.browse {
            Some(b) if b.index == 0 => return EditOutcome::Ignored,
            Some(b) => b.index.saturating_sub(1),
            None if history.is_empty() => return EditOutcome::Ignored,
            None => history.len().saturating_sub(1),
        };
        let Some(entry) = history.get(index).map(str::to_owned) else {
            return EditOutcome::Ignored;
        };
        let saved = match self.browse.take() {
            Some(b) => b.saved,
            None => {
                self.checkpoint(EditKind::Other);
                self.snapshot()
            }
        };
        self.browse = Some(Browse { index, saved });
        self.show_recalled(entry);
        EditOutcome::Recalled
    }

    fn history_next(&mut self, history: &PromptHistory) -> EditOutcome {
        let Some(b) = self.browse.take() else {
            return EditOutcome::Ignored;
        };
        let index = b.index.saturating_add(1);
        match history.get(index) {
            Some(entry) => {
                let entry = entry.to_owned();
                self.browse = Some(Browse {
                    index,
                    saved: b.saved,
                });
                self.show_recalled(entry);
            }
            None => self.restore(b.saved),
        }
        self.last_edit = None;
        EditOutcome::Recalled
    }

    fn show_recalled(&mut self, entry: String) {
        self.text = entry;
        self.pastes.clear();
        self.cursor = self.text.len();
        self.last_edit = None;
    }
}

#[cfg(test)]
mod tests;
