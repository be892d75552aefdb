//! A rendered row as the terminal cells it fills, and what changed between two rows: the runs
//! of cells to write and where the row must be erased to its end.
//!
//! A cell is a character with the zero-width ones after it (combining marks, joiners,
//! selectors) and the SGR sequence in effect; a wide character fills two cells, the second a
//! continuation. Columns follow [`crate::term::width::char_width`], as the terminal advances
//! its cursor. Runs never start or end inside a wide character, on screen or in the new row,
//! so writing a run never leaves half a character behind.

use crate::term::ansi::AnsiLine;
use crate::term::width::char_width;

/// The SGR sequence that resets every attribute (a plain cell's style).
pub const PLAIN: &str = "\u{1b}[0m";

/// One cell of a row: byte ranges into the row's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    /// The cell's text; empty for the second column of a wide character.
    text: (usize, usize),
    /// The SGR sequence in effect; empty for plain text.
    sgr: (usize, usize),
    /// Columns the text advances: 1, 2 (a wide character), or 0 (a continuation).
    width: u8,
}

/// A rendered row and its cells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    line: AnsiLine,
    cells: Vec<Cell>,
    /// Columns up to the last cell that is not a plain space (what a full write shows).
    len: usize,
    /// The text cannot be cut into cells exactly (a zero-width character after a style
    /// change): any change writes the whole row.
    whole: bool,
}

/// What turns one row on screen into another: runs of columns `[from, to)` to write, in
/// order, then (when the new row is shorter) an erase from a column to the row's end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub runs: Vec<(usize, usize)>,
    pub erase_from: Option<usize>,
    /// Some run writes over cells that showed something (the frame is not an append).
    pub overwrites: bool,
}

/// Bytes a cursor jump to a column costs (`CSI n G`): a gap of unchanged cells that costs
/// fewer bytes than this is written again instead.
const JUMP: usize = 5;

impl Row {
    /// The empty row (a blank line on screen).
    pub fn blank() -> Self {
        Self::default()
    }

    /// Cuts `line` into cells.
    pub fn new(line: &AnsiLine) -> Self {
        let text = line.as_str();
        let mut cells: Vec<Cell> = Vec::with_capacity(text.len());
        let mut sgr = (0, 0);
        let mut whole = false;
        let mut i = 0;
        while let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) {
            if c == '\u{1b}' {
                // Rows hold SGR sequences only: `ESC [ params m`.
                let end = text
                    .get(i..)
                    .and_then(|rest| rest.find('m'))
                    .map_or(text.len(), |m| i + m + 1);
                sgr = if text.get(i..end) == Some(PLAIN) {
                    (0, 0)
                } else {
                    (i, end)
                };
                i = end;
                continue;
            }
            let end = i + c.len_utf8();
            match char_width(c) {
                0 => match cells.iter_mut().rev().find(|cell| cell.width > 0) {
                    Some(last) if last.text.1 == i && last.sgr == sgr => last.text.1 = end,
                    _ => whole = true,
                },
                w => {
                    let wide = w > 1;
                    cells.push(Cell {
                        text: (i, end),
                        sgr,
                        width: if wide { 2 } else { 1 },
                    });
                    if wide {
                        cells.push(Cell {
                            text: (end, end),
                            sgr,
                            width: 0,
                        });
                    }
                }
            }
            i = end;
        }
        let mut row = Row {
            line: line.clone(),
            cells,
            len: 0,
            whole,
        };
        row.len = (0..row.cells.len())
            .rev()
            .find(|&c| !row.is_blank(c))
            .map_or(0, |c| c + 1);
        row
    }

    /// The rendered row.
    pub fn line(&self) -> &AnsiLine {
        &self.line
    }

    /// Columns a full write of the row shows (trailing plain spaces left out).
    pub fn len(&self) -> usize {
        self.len
    }

    fn slice(&self, range: (usize, usize)) -> &str {
        self.line.as_str().get(range.0..range.1).unwrap_or("")
    }

    /// Column `c` shows nothing: past the end, or a plain space.
    fn is_blank(&self, c: usize) -> bool {
        self.cells.get(c).is_none_or(|cell| {
            cell.width == 1 && cell.sgr == (0, 0) && self.slice(cell.text) == " "
        })
    }

    /// Column `c` is the second half of a wide character.
    fn is_continuation(&self, c: usize) -> bool {
        self.cells.get(c).is_some_and(|cell| cell.width == 0)
    }

    /// Column `c` shows the same here and in `other`.
    fn same_cell(&self, other: &Row, c: usize) -> bool {
        match (self.cells.get(c), other.cells.get(c)) {
            (Some(a), Some(b)) => {
                a.width == b.width
                    && self.slice(a.text) == other.slice(b.text)
                    && self.slice(a.sgr) == other.slice(b.sgr)
            }
            _ => self.is_blank(c) && other.is_blank(c),
        }
    }

    /// The SGR sequence of column `c` (empty: plain).
    pub fn sgr(&self, c: usize) -> (usize, usize) {
        self.cells.get(c).map_or((0, 0), |cell| cell.sgr)
    }

    /// The bytes of column `c`'s SGR sequence (empty: plain).
    pub fn sgr_str(&self, c: usize) -> &str {
        self.slice(self.sgr(c))
    }

    /// The byte range of column `c`'s text (empty for a continuation or past the end).
    pub fn text(&self, c: usize) -> (usize, usize) {
        self.cells.get(c).map_or((0, 0), |cell| cell.text)
    }

    /// Columns cell `c` advances the cursor by (0 for a continuation or past the end).
    pub fn width_at(&self, c: usize) -> usize {
        self.cells.get(c).map_or(0, |cell| usize::from(cell.width))
    }

    /// Bytes written for columns `[from, to)` with `pen` in effect (an SGR sequence, empty
    /// for plain), counting a style change as its sequence.
    pub fn run_bytes(&self, from: usize, to: usize, pen: &str) -> usize {
        let mut bytes = 0;
        let mut pen = pen;
        for c in from..to {
            let Some(cell) = self.cells.get(c) else {
                bytes += 1;
                continue;
            };
            let sgr = self.slice(cell.sgr);
            if sgr != pen {
                bytes += if sgr.is_empty() {
                    PLAIN.len()
                } else {
                    sgr.len()
                };
                pen = sgr;
            }
            bytes += cell.text.1 - cell.text.0;
        }
        bytes
    }

    /// Writing the unchanged columns `[gap, from)` before the run `[from, to)` costs no more
    /// than jumping over them (the style in effect is the one of the column before `gap`).
    pub fn bridges(&self, gap: usize, from: usize, to: usize) -> bool {
        let pen = gap.checked_sub(1).map_or("", |c| self.sgr_str(c));
        self.run_bytes(gap, to, pen) <= JUMP + self.run_bytes(from, to, pen)
    }

    /// Column `c` starts a character (not the second half of a wide one).
    pub fn starts_character(&self, c: usize) -> bool {
        !self.is_continuation(c)
    }

    /// What turns `old` (on screen; `None`: unknown) into this row.
    pub fn change_from(&self, old: Option<&Row>) -> Change {
        let Some(old) = old.filter(|old| !old.whole && !self.whole) else {
            // Unknown or not cut into cells: the whole row, then an erase.
            return Change {
                runs: if self.len > 0 {
                    vec![(0, self.len)]
                } else {
                    Vec::new()
                },
                erase_from: Some(self.len),
                overwrites: true,
            };
        };
        if old.line == self.line {
            return Change::default();
        }
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let end = self.len.max(old.len);
        let mut c = 0;
        while c < end {
            if self.same_cell(old, c) {
                c += 1;
                continue;
            }
            let mut from = c;
            let mut to = c + 1;
            while to < end && !self.same_cell(old, to) {
                to += 1;
            }
            // Never start or end inside a wide character, here or on screen.
            while from > 0 && (self.is_continuation(from) || old.is_continuation(from)) {
                from -= 1;
            }
            while self.is_continuation(to) || old.is_continuation(to) {
                to += 1;
            }
            match runs.last_mut() {
                // A short gap of unchanged cells is cheaper written again than jumped over.
                Some(last) if from <= last.1 || self.bridges(last.1, from, to) => {
                    last.1 = last.1.max(to);
                }
                _ => runs.push((from, to)),
            }
            c = to;
        }
        let mut change = Change {
            overwrites: runs.iter().any(|&(a, b)| (a..b).any(|c| !old.is_blank(c))),
            runs,
            erase_from: None,
        };
        // What the new row writes stops at its end; the cells after it are erased.
        if old.len > self.len {
            for run in &mut change.runs {
                run.1 = run.1.min(self.len);
            }
            change.runs.retain(|&(a, b)| a < b);
            change.erase_from = Some(self.len);
        }
        change
    }

    /// About how many bytes turning `old` into this row writes (cursor moves included).
    pub fn cost_from(&self, old: Option<&Row>) -> usize {
        if old.is_some_and(|old| old.line == self.line) {
            return 0;
        }
        let change = self.change_from(old);
        let runs: usize = change
            .runs
            .iter()
            .map(|&(a, b)| JUMP + self.run_bytes(a, b, ""))
            .sum();
        runs + change.erase_from.map_or(0, |_| JUMP + 3)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]

    use super::*;

    fn row(text: &str) -> Row {
        Row::new(&AnsiLine::from_rendered(text.to_owned()))
    }

    #[test]
    fn cells_follow_the_columns_a_terminal_advances() {
        let r = row("a\u{1b}[0;1m世\u{1b}[0me\u{301}  ");
        assert_eq!(r.cells.len(), 6);
        assert_eq!(r.len(), 4);
        assert_eq!(r.width_at(1), 2);
        assert_eq!(r.width_at(2), 0);
        assert_eq!(r.sgr_str(1), "\u{1b}[0;1m");
        assert_eq!(r.sgr_str(3), "");
        assert_eq!(r.slice(r.text(3)), "e\u{301}");
        assert!(!r.whole);
        assert!(row("\u{301}a").whole);
        assert!(row("a\u{1b}[0;1m\u{301}").whole);
    }

    #[test]
    fn an_appended_word_is_one_run_at_the_old_end() {
        let old = row("  stream render");
        let new = row("  stream render token ");
        let change = new.change_from(Some(&old));
        // The space is blank on screen already: the frame writes it only to save a jump.
        assert_eq!(change.runs, vec![(16, 21)]);
        assert_eq!(change.erase_from, None);
        assert!(!change.overwrites);
        assert_eq!(new.change_from(Some(&new.clone())), Change::default());
    }

    #[test]
    fn only_changed_cells_are_written_and_a_shorter_row_is_erased() {
        let old = row("• Thinking (3s) (↑12 ↓340)");
        let new = row("• Thinking (4s) (↑12 ↓348)");
        let change = new.change_from(Some(&old));
        assert_eq!(change.runs, vec![(12, 13), (24, 25)]);
        assert!(change.overwrites);
        // A gap cheaper than a jump is written again.
        let change = row("abXdeYgh").change_from(Some(&row("abcdefgh")));
        assert_eq!(change.runs, vec![(2, 6)]);
        let change = row("ab").change_from(Some(&row("abcdef")));
        assert_eq!(change.runs, Vec::<(usize, usize)>::new());
        assert_eq!(change.erase_from, Some(2));
        // A style change alone is a change.
        let change = row("a\u{1b}[0;1mb\u{1b}[0m").change_from(Some(&row("ab")));
        assert_eq!(change.runs, vec![(1, 2)]);
        // Unknown rows are written whole.
        let change = row("xy").change_from(None);
        assert_eq!((change.runs, change.erase_from), (vec![(0, 2)], Some(2)));
    }

    #[test]
    fn runs_never_split_a_wide_character() {
        // The new row's wide character starts where the old row had two narrow ones.
        let change = row("a世b").change_from(Some(&row("axyb")));
        assert_eq!(change.runs, vec![(1, 3)]);
        // A narrow character over the second half of a wide one rewrites the whole one.
        let change = row("a世z").change_from(Some(&row("a世b")));
        assert_eq!(change.runs, vec![(3, 4)]);
        let change = row("a世x").change_from(Some(&row("a界x")));
        assert_eq!(change.runs, vec![(1, 3)]);
        let change = row("ax界").change_from(Some(&row("a世b")));
        assert_eq!(change.runs, vec![(1, 4)]);
    }
}
