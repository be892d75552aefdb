//! The draft laid out as composer rows for a width: each line word-wrapped (broken between
//! clusters when a word is longer than a row), and the cursor's row and column.

use super::LineEditor;
use crate::term::width::{break_units, str_width};

/// The draft as screen rows. Invariant: every row is at most `width` cells wide and the cursor
/// column is below `width` (a cursor after a full row starts a new empty row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposerLayout {
    /// Row texts, in order (placeholders shown as they are in the draft).
    pub rows: Vec<String>,
    /// The row holding the cursor.
    pub cursor_row: usize,
    /// The cursor's column in cells within that row.
    pub cursor_col: usize,
}

/// One cluster placed on a row: its byte offset in the draft, its text and width.
type Cell<'a> = (usize, &'a str, usize);

impl LineEditor {
    /// Lays the draft out in rows of at most `width` cells (at least 1).
    #[must_use]
    pub fn layout(&self, width: usize) -> ComposerLayout {
        let width = width.max(1);
        let text = self.text();
        let mut rows: Vec<Vec<Cell<'_>>> = Vec::new();
        // For each row: the byte offset just past its last cluster (where a cursor may sit).
        let mut ends: Vec<usize> = Vec::new();
        let mut offset = 0usize;
        for line in text.split('\n') {
            let mut row: Vec<Cell<'_>> = Vec::new();
            let mut used = 0usize;
            let mut pos = offset;
            for cl in break_units(line) {
                let w = str_width(cl);
                if used + w > width && !row.is_empty() {
                    // Break after the last space when there is one, else here.
                    let cut = row
                        .iter()
                        .rposition(|(_, c, _)| *c == " ")
                        .filter(|i| *i + 1 < row.len())
                        .map_or(row.len(), |i| i + 1);
                    let carried = row.split_off(cut);
                    ends.push(carried.first().map_or(pos, |c| c.0));
                    rows.push(row);
                    row = carried;
                    used = row.iter().map(|c| c.2).sum();
                }
                row.push((pos, cl, w));
                used += w;
                pos += cl.len();
            }
            ends.push(pos);
            rows.push(row);
            offset = pos + 1;
        }
        let cursor = self.cursor();
        let mut cursor_row = rows.len().saturating_sub(1);
        let mut cursor_col = 0usize;
        for (r, row) in rows.iter().enumerate() {
            if let Some(i) = row.iter().position(|c| c.0 == cursor) {
                cursor_row = r;
                cursor_col = row.iter().take(i).map(|c| c.2).sum();
                break;
            }
            let is_line_end = ends.get(r) == Some(&cursor)
                && rows
                    .get(r + 1)
                    .is_none_or(|next| next.first().is_none_or(|c| c.0 != cursor));
            if is_line_end {
                cursor_row = r;
                cursor_col = row.iter().map(|c| c.2).sum();
                break;
            }
        }
        let mut out: Vec<String> = rows
            .iter()
            .map(|r| r.iter().map(|c| c.1).collect())
            .collect();
        if cursor_col >= width {
            cursor_row += 1;
            cursor_col = 0;
            out.insert(cursor_row, String::new());
        }
        ComposerLayout {
            rows: out,
            cursor_row,
            cursor_col,
        }
    }
}
