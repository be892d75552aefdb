//! Diff-only repaints of the inline live region (the rows below the printed transcript).
//!
//! The screen holds, top to bottom: transcript rows already printed (never touched again; they
//! scroll into scrollback), then the live region this module owns. Each [`Frame::paint`] prints
//! newly final transcript rows once over the top of the live region, then rewrites only the live
//! rows that changed since the previous frame, inside one synchronized-output update. When the
//! open block grows by a row, the rows under it are moved down on screen (insert line) rather
//! than written again; committed rows already shown in place are not printed twice. A frame
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

/// What moving rows costs in bytes (an insert, perhaps a delete, and the cursor moves).
const SHIFT_COST: usize = 16;

/// Rows moved on screen before a diff: a blank row inserted at `row` (the open block grew and
/// the rows under it moved down), after deleting the top row when `drop_top` (the live region
/// already fills its room, so its oldest row gives way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shift {
    row: usize,
    drop_top: bool,
}

impl Shift {
    /// Which of the `n` previous rows is at row `i` after the shift (`None`: a blank row).
    fn source(self, i: usize, n: usize) -> Option<usize> {
        let before = match i.cmp(&self.row) {
            std::cmp::Ordering::Less => i,
            std::cmp::Ordering::Equal => return None,
            std::cmp::Ordering::Greater => i - 1,
        };
        let j = before + usize::from(self.drop_top);
        (j < n).then_some(j)
    }
}

/// The bytes a diff writes for `live` when row `i` of the screen shows `prev(i)`.
fn diff_cost<'a>(live: &[AnsiLine], prev: impl Fn(usize) -> Option<&'a Option<AnsiLine>>) -> usize {
    live.iter()
        .enumerate()
        .map(|(i, row)| match prev(i).and_then(Option::as_ref) {
            Some(old) if old == row => 0,
            Some(old) => match appended(old, row) {
                Some((_, from)) => row.as_str().len() - from + 6,
                None => row.as_str().len() + 8,
            },
            None => row.as_str().len() + 8,
        })
        .sum()
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
            // Committed rows the live region already shows in place stay as they are.
            let shown = commit
                .iter()
                .zip(&self.prev)
                .take_while(|(row, prev)| prev.as_ref() == Some(*row))
                .count();
            self.go_to(out, &mut at, shown, &mut existing);
            out.push_str("\r");
            for row in &commit[shown..] {
                out.push_str("\u{1b}[2K");
                out.push_line(row);
                out.push_str("\r\n");
            }
            if commit.len() < self.prev.len() {
                // Printed over rows that exist: the live rows below them did not move.
                self.prev.drain(..commit.len());
                existing = self.prev.len();
            } else {
                existing = 1;
                self.prev = vec![None];
            }
            at = 0;
        } else if let Some(shift) = self.plan_shift(live) {
            self.shift(out, shift, &mut at, &mut existing);
            erased = true;
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
        // Erasing and moving rows leave the cursor as it was: shown again only if it was hidden.
        if cursor.is_some() && !was_shown {
            out.push_str("\u{1b}[?25h");
        }
    }

    /// Moves from live row `*at` to row `target`, up or down (see [`Frame::go_down`]).
    fn go_to(&self, out: &mut Ansi, at: &mut usize, target: usize, existing: &mut usize) {
        if target < *at {
            move_up(out, *at - target);
            *at = target;
        } else {
            self.go_down(out, at, target, existing);
        }
    }

    /// The cheapest way to move the rows on screen before the diff, when moving beats
    /// rewriting: `None` keeps them in place.
    fn plan_shift(&self, live: &[AnsiLine]) -> Option<Shift> {
        let n = self.prev.len();
        if n == 0 || self.prev.iter().any(Option::is_none) {
            return None;
        }
        let drop_top = match live.len() {
            len if len == n + 1 => false,
            len if len == n && n > 1 => true,
            _ => return None,
        };
        let mut best = (diff_cost(live, |i| self.prev.get(i)), None);
        for row in 0..live.len() {
            let shift = Shift { row, drop_top };
            let cost =
                SHIFT_COST + diff_cost(live, |i| shift.source(i, n).and_then(|j| self.prev.get(j)));
            if cost < best.0 {
                best = (cost, Some(shift));
            }
        }
        best.1
    }

    /// Moves the rows on screen as `shift` says; `self.prev` then describes them.
    fn shift(&mut self, out: &mut Ansi, shift: Shift, at: &mut usize, existing: &mut usize) {
        let n = self.prev.len();
        if shift.drop_top {
            // Delete the top row: the rows under it (to the screen's bottom) move up one.
            self.go_to(out, at, 0, existing);
            out.push_str("\r");
            out.csi(1, "M");
        } else {
            // One more row at the bottom (scrolling the screen when it is full).
            self.go_down(out, at, n, existing);
        }
        self.go_to(out, at, shift.row, existing);
        // Insert a blank row: the rows from here down move down one.
        out.csi(1, "L");
        let rows = usize::from(!shift.drop_top) + n;
        let prev: Vec<Option<AnsiLine>> = (0..rows)
            .map(|i| {
                shift
                    .source(i, n)
                    .and_then(|j| self.prev.get(j).cloned())
                    .flatten()
            })
            .collect();
        *existing = prev.len();
        self.prev = prev;
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn row(text: &str) -> AnsiLine {
        AnsiLine::from_rendered(text.to_owned())
    }

    /// The screen rows where the live region is, found from the cursor.
    fn live_on_screen(parser: &vt100::Parser, cursor_row: usize, len: usize) -> Vec<String> {
        let (row, _) = parser.screen().cursor_position();
        let top = usize::from(row) - cursor_row;
        let rows: Vec<String> = parser.screen().rows(0, 200).collect();
        rows[top..top + len]
            .iter()
            .map(|r| r.trim_end().to_owned())
            .collect()
    }

    /// A reply streams token by token above a footer whose counter changes; its rows wrap,
    /// then the live region fills the screen and its oldest rows give way; sometimes the reply
    /// is committed. After every paint the screen shows exactly the live rows, and a paint
    /// costs its token and a few cursor moves, not a rewrite of the rows under it.
    #[test]
    fn diffed_frames_show_the_live_rows_and_move_rows_instead_of_rewriting_them() {
        for (width, height) in [(20usize, 8usize), (33, 12), (80, 24)] {
            let nz = |n: usize| std::num::NonZeroU16::new(u16::try_from(n).unwrap()).unwrap();
            let mut parser = vt100::Parser::new(nz(height), nz(width), 500);
            let mut frame = Frame::new();
            let mut reply = String::new();
            let mut seed = 7u32;
            let mut streamed = 0;
            let mut bytes = 0;
            for step in 0..400 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let mut out = Ansi::new();
                let mut commit = Vec::new();
                if step % 150 == 149 {
                    commit = reply_rows(&reply, width);
                    reply.clear();
                } else {
                    let token = ["ab ", "cde ", "f ", "ghij "][(seed >> 16) as usize % 4];
                    reply.push_str(token);
                    streamed += token.len();
                }
                let open = reply_rows(&reply, width);
                let footer = [
                    row(&format!("• working {}", step / 40)),
                    row(""),
                    row("┃ "),
                    row(""),
                    row("ask · model"),
                ];
                let room = height - footer.len();
                let skip = open.len().saturating_sub(room);
                let live: Vec<AnsiLine> = open.into_iter().skip(skip).chain(footer).collect();
                let cursor = Some((live.len() - 3, 2));
                frame.paint(&mut out, &commit, &live, cursor);
                bytes += out.len();
                parser.process(out.as_bytes());
                let want: Vec<String> = live
                    .iter()
                    .map(|r| r.as_str().trim_end().to_owned())
                    .collect();
                assert_eq!(
                    live_on_screen(&parser, live.len() - 3, live.len()),
                    want,
                    "{width}×{height}, step {step}"
                );
            }
            // The text itself is most of what was written.
            // Without moving rows, the rows under a new row are rewritten: 35 to 41 bytes a
            // paint here; with it, 20 to 29.
            let overhead = (bytes - streamed) / 400;
            assert!(
                overhead < 32,
                "{width}×{height}: {bytes} bytes for {streamed}"
            );
        }
    }

    fn reply_rows(reply: &str, width: usize) -> Vec<AnsiLine> {
        let chars: Vec<char> = reply.chars().collect();
        chars
            .chunks(width)
            .map(|c| row(&c.iter().collect::<String>()))
            .collect()
    }
}
