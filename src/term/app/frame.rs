//! Diff-only repaints of the inline live region (the rows below the printed transcript).
//!
//! The screen holds, top to bottom: transcript rows already printed (never touched again; they
//! scroll into scrollback), then the live region this module owns. Each [`Frame::paint`] prints
//! newly final transcript rows once over the top of the live region, then rewrites only the live
//! rows that changed since the previous frame, inside one synchronized-output update. A frame
//! where nothing changed writes nothing.

use std::fmt::Write as _;

/// Begin / end synchronized output.
pub const SYNC_BEGIN: &str = "\u{1b}[?2026h";
pub const SYNC_END: &str = "\u{1b}[?2026l";

/// The live region as drawn by the previous frame.
#[derive(Debug, Default, Clone)]
pub struct Frame {
    /// The rows drawn last time; `None` marks a row whose screen content is unknown.
    prev: Vec<Option<String>>,
    /// Where the cursor was left, as a row of the live region.
    cursor_row: usize,
    /// The last cursor placement (row, column), `None` when hidden.
    cursor: Option<(usize, usize)>,
}

fn move_up(out: &mut String, n: usize) {
    if n > 0 {
        let _ = write!(out, "\u{1b}[{n}A");
    }
}

fn move_down(out: &mut String, n: usize) {
    if n > 0 {
        let _ = write!(out, "\u{1b}[{n}B");
    }
}

impl Frame {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets what the live rows show (after the alternate screen or a resize): the next
    /// paint rewrites every row.
    pub fn invalidate(&mut self) {
        for row in &mut self.prev {
            *row = None;
        }
        self.cursor = None;
    }

    /// Forgets the live region entirely (the screen was cleared and the cursor is at the top).
    pub fn reset(&mut self) {
        self.prev.clear();
        self.cursor_row = 0;
        self.cursor = None;
    }

    /// Height of the live region drawn last.
    pub fn height(&self) -> usize {
        self.prev.len()
    }

    /// Moves the cursor to the first row of the live region, column 1.
    fn to_top(&self, out: &mut String) {
        move_up(out, self.cursor_row);
        out.push('\r');
    }

    /// Paints `commit` (printed once, above) and `live` (diffed), leaving the cursor at
    /// `cursor` (row, column of the live region) or hidden. Appends to `out`; nothing when
    /// nothing changed.
    pub fn paint(
        &mut self,
        out: &mut String,
        commit: &[String],
        live: &[String],
        cursor: Option<(usize, usize)>,
    ) {
        let unchanged = commit.is_empty()
            && live.len() == self.prev.len()
            && live
                .iter()
                .zip(&self.prev)
                .all(|(row, prev)| prev.as_deref() == Some(row.as_str()));
        if unchanged && cursor == self.cursor {
            return;
        }
        out.push_str(SYNC_BEGIN);
        out.push_str("\u{1b}[?25l");
        self.to_top(out);
        // Rows from the top of the live region that exist on screen (reachable without scrolling).
        let mut existing = self.prev.len().max(1);
        if !commit.is_empty() {
            for row in commit {
                out.push_str("\u{1b}[2K");
                out.push_str(row);
                out.push_str("\r\n");
            }
            existing = existing.saturating_sub(commit.len()).max(1);
            self.prev = vec![None; existing];
        }
        let mut at = 0usize;
        for (i, row) in live.iter().enumerate() {
            let same = self.prev.get(i).and_then(Option::as_deref) == Some(row.as_str());
            if same {
                continue;
            }
            self.go_down(out, &mut at, i, &mut existing);
            out.push_str("\r\u{1b}[2K");
            out.push_str(row);
        }
        if live.len() < existing {
            let target = live.len();
            if target > at {
                self.go_down(out, &mut at, target, &mut existing);
            } else {
                move_up(out, at - target);
                at = target;
            }
            out.push_str("\r\u{1b}[J");
            existing = live.len().max(1);
        }
        let _ = existing;
        let (row, col) = cursor.unwrap_or((live.len().saturating_sub(1), 0));
        if row >= at {
            move_down(out, row - at);
        } else {
            move_up(out, at - row);
        }
        let _ = write!(out, "\u{1b}[{}G", col + 1);
        self.cursor_row = row;
        self.cursor = cursor;
        self.prev = live.iter().cloned().map(Some).collect();
        out.push_str(SYNC_END);
        if cursor.is_some() {
            out.push_str("\u{1b}[?25h");
        }
    }

    /// Moves from live row `*at` down to row `target`, scrolling with newlines past the rows
    /// that exist.
    fn go_down(&self, out: &mut String, at: &mut usize, target: usize, existing: &mut usize) {
        if target <= *at {
            move_up(out, *at - target);
            *at = target;
            return;
        }
        let last_existing = existing.saturating_sub(1);
        let by_cursor = target.min(last_existing).saturating_sub(*at);
        move_down(out, by_cursor);
        *at += by_cursor;
        while *at < target {
            out.push_str("\r\n");
            *at += 1;
        }
        *existing = (*existing).max(target + 1);
    }
}
