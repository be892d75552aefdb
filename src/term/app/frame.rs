//! Diff-only repaints of the inline live region (the rows below the printed transcript).
//!
//! The screen holds, top to bottom: transcript rows already printed (never touched again; they
//! scroll into scrollback), then the live region this module owns. Each [`Frame::paint`] prints
//! newly final transcript rows once over the top of the live region, then rewrites only the live
//! rows that changed since the previous frame, inside one synchronized-output update. A frame
//! where nothing changed writes nothing.

use crate::term::ansi::{Ansi, AnsiLine};

/// Begin / end synchronized output.
pub const SYNC_BEGIN: &str = "\u{1b}[?2026h";
pub const SYNC_END: &str = "\u{1b}[?2026l";

/// The live region as drawn by the previous frame.
#[derive(Debug, Default, Clone)]
pub struct Frame {
    /// The rows drawn last time; `None` marks a row whose screen content is unknown.
    prev: Vec<Option<AnsiLine>>,
    /// Where the cursor was left, as a row of the live region.
    cursor_row: usize,
    /// The last cursor placement (row, column), `None` when hidden.
    cursor: Option<(usize, usize)>,
}

fn move_up(out: &mut Ansi, n: usize) {
    if n > 0 {
        out.csi(n, "A");
    }
}

fn move_down(out: &mut Ansi, n: usize) {
    if n > 0 {
        out.csi(n, "B");
    }
}

/// Display width of a row's text, skipping the SGR sequences rows are made of.
fn visible_width(ansi: &str) -> usize {
    let mut text = String::with_capacity(ansi.len());
    let mut in_escape = false;
    for c in ansi.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (false, c) => text.push(c),
            (true, 'm') => in_escape = false,
            (true, _) => {}
        }
    }
    crate::term::width::str_width(&text)
}

/// When `new` is `old` with more text appended: the column where `old` ends and the byte
/// offset of the suffix in `new`.
fn appended(old: &AnsiLine, new: &AnsiLine) -> Option<(usize, usize)> {
    let (old, new) = (old.as_str(), new.as_str());
    let base = old.strip_suffix("\u{1b}[0m").unwrap_or(old);
    let suffix = new.strip_prefix(base)?;
    if suffix.is_empty() || suffix == "\u{1b}[0m" {
        return None;
    }
    Some((visible_width(base), base.len()))
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

    /// Moves the cursor to the first row of the live region, column 1.
    fn to_top(&self, out: &mut Ansi) {
        move_up(out, self.cursor_row);
        out.push_str("\r");
    }

    /// Paints `commit` (printed once, above) and `live` (diffed), leaving the cursor at
    /// `cursor` (row, column of the live region) or hidden. Appends to `out`; nothing when
    /// nothing changed.
    pub fn paint(
        &mut self,
        out: &mut Ansi,
        commit: &[AnsiLine],
        live: &[AnsiLine],
        cursor: Option<(usize, usize)>,
    ) {
        let unchanged = commit.is_empty()
            && live.len() == self.prev.len()
            && live
                .iter()
                .zip(&self.prev)
                .all(|(row, prev)| prev.as_ref() == Some(row));
        if unchanged && cursor == self.cursor {
            return;
        }
        // Frames that only append cells cannot tear; the rest are one synchronized update.
        let frame_start = out.len();
        let mut erased = !commit.is_empty();
        out.push_str(SYNC_BEGIN);
        // Inside a synchronized update the cursor never shows mid-frame; hide it only when it
        // will be hidden afterwards anyway.
        if cursor.is_none() {
            out.push_str("\u{1b}[?25l");
        }
        // Rows from the top of the live region that exist on screen (reachable without scrolling).
        let mut existing = self.prev.len().max(1);
        let mut at = self.cursor_row;
        if !commit.is_empty() {
            self.to_top(out);
            for row in commit {
                out.push_str("\u{1b}[2K");
                out.push_line(row);
                out.push_str("\r\n");
            }
            existing = existing.saturating_sub(commit.len()).max(1);
            self.prev = vec![None; existing];
            at = 0;
        }
        for (i, row) in live.iter().enumerate() {
            let same = self.prev.get(i).and_then(Option::as_ref) == Some(row);
            if same {
                continue;
            }
            self.go_down(out, &mut at, i, &mut existing);
            match self
                .prev
                .get(i)
                .and_then(Option::as_ref)
                .and_then(|old| appended(old, row))
            {
                // The row only grew (streamed text): write just the new cells.
                Some((column, from)) => {
                    out.csi(column + 1, "G");
                    out.push_line_from(row, from);
                }
                None => {
                    erased = true;
                    out.push_str("\r\u{1b}[2K");
                    out.push_line(row);
                }
            }
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
            erased = true;
            existing = live.len().max(1);
        }
        let _ = existing;
        let (row, col) = cursor.unwrap_or((live.len().saturating_sub(1), 0));
        if row >= at {
            move_down(out, row - at);
        } else {
            move_up(out, at - row);
        }
        out.csi(col + 1, "G");
        let was_shown = self.cursor.is_some();
        self.cursor_row = row;
        self.cursor = cursor;
        self.prev = live.iter().cloned().map(Some).collect();
        if erased || cursor.is_none() {
            out.push_str(SYNC_END);
        } else {
            out.remove_at(frame_start, SYNC_BEGIN);
        }
        if cursor.is_some() && (!was_shown || erased) {
            out.push_str("\u{1b}[?25h");
        }
    }

    /// Moves from live row `*at` down to row `target`, scrolling with newlines past the rows
    /// that exist.
    fn go_down(&self, out: &mut Ansi, at: &mut usize, target: usize, existing: &mut usize) {
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
