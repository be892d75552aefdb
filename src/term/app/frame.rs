//! Diff-only repaints of the inline live region (the rows below the printed transcript).
//!
//! The screen holds, top to bottom: transcript rows already printed (never touched again; they
//! scroll into scrollback), then the live region this module owns. Each [`Frame::paint`] is
//! given the newly final transcript rows and the live rows under them, and treats both as the
//! rows that must now stand from the live region's top down: each is compared with what that
//! row of the screen shows, cell by cell ([`super::cells`]), and only the cells that changed
//! are written. So a row that the live region already showed in place is not printed again
//! when it becomes final, and a row that only changed a few cells (a table re-laid out, a
//! clock) costs those cells. When the rows grow, the rows under the growth are moved down on
//! screen (insert line) rather than written again; when the region already fills its room, its
//! oldest row gives way first (delete line).
//!
//! The cursor is tracked exactly (row and column), so a frame starts writing where the last one
//! left it: with the cursor hidden (`cursor` `None`, as while a reply streams), it waits at the
//! end of the last write, and a reply that only grows at its end costs its text and nothing
//! else. Frames that only fill blank cells or move rows down whole are written as they are;
//! the rest are one synchronized update. A frame where nothing changed writes nothing.
//!
//! The scrollback stays exact: rows leave the screen only by scrolling, and a frame scrolls
//! only once every row above the scrolling point holds its final text.

use crate::term::ansi::{Ansi, AnsiLine};

use super::cells::{Row, PLAIN};

/// Begin / end synchronized output.
pub const SYNC_BEGIN: &str = "\u{1b}[?2026h";
pub const SYNC_END: &str = "\u{1b}[?2026l";

/// What moving rows costs in bytes (an insert, perhaps a delete, and the cursor moves).
const SHIFT_COST: usize = 16;

/// The live region as drawn by the previous frame, and where the cursor is.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The rows drawn last time.
    prev: Vec<Row>,
    /// What the live region and the rows under it show is not known (the first frame, after
    /// the alternate screen or a resize): the next paint erases them first.
    stale: bool,
    /// The cursor's row, counted from the live region's top (negative: a printed row above).
    row: isize,
    /// The cursor's column, when known.
    col: Option<usize>,
    /// The cursor placement asked for last (`None`: hidden where the last write ended).
    cursor: Option<(usize, usize)>,
    /// Whether the terminal shows the cursor (`None`: not known).
    shown: Option<bool>,
    width: usize,
    height: usize,
}

/// Rows moved on screen before a diff: `count` blank rows inserted at `row` (the rows from
/// there down move down), after deleting the top row when `drop_top` (the live region already
/// fills its room, so its oldest row gives way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shift {
    row: usize,
    count: usize,
    drop_top: bool,
}

impl Shift {
    /// Which of the previous rows is at row `i` after the shift (`None`: a blank row).
    fn source(self, i: usize) -> Option<usize> {
        let before = if i < self.row {
            i
        } else if i < self.row + self.count {
            return None;
        } else {
            i - self.count
        };
        Some(before + usize::from(self.drop_top))
    }
}

/// The cursor and the pen while a frame is written.
struct Writer<'a> {
    out: &'a mut Ansi,
    /// The cursor's row, counted from the live region's top.
    row: isize,
    col: Option<usize>,
    /// Rows from the live region's top that are on screen (the rest are reached by scrolling).
    existing: isize,
    /// The SGR sequence in effect (empty: plain).
    pen: String,
    /// Something on screen was overwritten, erased or moved: the frame is one update.
    torn: bool,
    width: usize,
}

fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

impl Writer<'_> {
    /// Moves to row `target`, scrolling with newlines past the rows that exist.
    fn go_row(&mut self, target: usize) {
        let target = signed(target);
        if target < self.row {
            self.out.csi((self.row - target).unsigned_abs(), "A");
            self.row = target;
            return;
        }
        let by = target.min(self.existing - 1) - self.row;
        if by > 0 {
            self.out.csi(by.unsigned_abs(), "B");
            self.row += by;
        }
        while self.row < target {
            self.out.push_str("\r\n");
            self.row += 1;
            self.col = Some(0);
        }
        self.existing = self.existing.max(target + 1);
    }

    fn go_col(&mut self, col: usize) {
        if self.col == Some(col) {
            return;
        }
        if col == 0 {
            self.out.push_str("\r");
        } else {
            self.out.csi(col + 1, "G");
        }
        self.col = Some(col);
    }

    fn go(&mut self, row: usize, col: usize) {
        self.go_row(row);
        self.go_col(col);
    }

    /// Writes columns `[from, to)` of `row` at row `i`.
    fn run(&mut self, i: usize, row: &Row, from: usize, to: usize) {
        let mut from = from;
        if let Some(col) = self.col.filter(|&col| self.row == signed(i) && col < from) {
            // The cells between the cursor and the run are unchanged: writing them again
            // can cost less than the jump.
            let jump = if from + 1 < 10 {
                3
            } else {
                4 + usize::from(from + 1 >= 100)
            };
            if row.starts_character(col)
                && row.run_bytes(col, to, &self.pen) <= jump + row.run_bytes(from, to, &self.pen)
            {
                from = col;
            }
        }
        self.go(i, from);
        let mut col = from;
        for c in from..to {
            let width = row.width_at(c);
            if width == 0 {
                continue;
            }
            let (a, b) = row.sgr(c);
            if self.pen.as_str() != row.sgr_str(c) {
                if a == b {
                    self.out.push_str(PLAIN);
                } else {
                    self.out.push_line_part(row.line(), a, b);
                }
                row.sgr_str(c).clone_into(&mut self.pen);
            }
            let (a, b) = row.text(c);
            self.out.push_line_part(row.line(), a, b);
            col += width;
        }
        self.col = (col < self.width).then_some(col);
    }

    /// Makes row `i` of the screen show `row` where it showed `old`.
    fn row(&mut self, i: usize, row: &Row, old: &Row) {
        let change = row.change_from(Some(old));
        self.torn |= change.overwrites;
        for &(from, to) in &change.runs {
            self.run(i, row, from, to);
        }
        if let Some(from) = change.erase_from {
            self.go(i, from);
            self.erase("\u{1b}[K");
        }
    }

    /// Writes an erase (or a line insert or delete), with no attribute in effect: some
    /// terminals give the cells it blanks the attributes in effect.
    fn erase(&mut self, sequence: &'static str) {
        if !self.pen.is_empty() {
            self.out.push_str(PLAIN);
            self.pen.clear();
        }
        self.out.push_str(sequence);
        self.torn = true;
    }
}

impl Frame {
    /// A frame for a `width`×`height` screen.
    pub fn new(width: usize, height: usize) -> Self {
        Frame {
            prev: Vec::new(),
            stale: true,
            row: 0,
            col: None,
            cursor: None,
            shown: None,
            width,
            height,
        }
    }

    /// The screen's new size (with [`Frame::invalidate`] or [`Frame::reset`]).
    pub fn set_size(&mut self, width: usize, height: usize) {
        self.width = width;
        self.height = height;
    }

    /// Forgets what the live rows show (after the alternate screen or a resize): the next
    /// paint erases them and writes every row.
    pub fn invalidate(&mut self) {
        self.stale = true;
        self.col = None;
        self.cursor = None;
        self.shown = None;
    }

    /// Forgets the live region entirely (the screen was cleared and the cursor is at the top).
    pub fn reset(&mut self) {
        self.prev.clear();
        self.stale = false;
        self.row = 0;
        self.col = Some(0);
        self.cursor = None;
    }

    /// Paints `commit` (final rows, printed once above the live region) and `live` (the live
    /// region under them), leaving the cursor at `cursor` (row, column of the live region),
    /// or hidden where the last write ended. Appends to `out`; nothing when nothing changed.
    pub fn paint(
        &mut self,
        out: &mut Ansi,
        commit: &[AnsiLine],
        live: &[AnsiLine],
        cursor: Option<(usize, usize)>,
    ) {
        let unchanged = !self.stale
            && commit.is_empty()
            && live.len() == self.prev.len()
            && live
                .iter()
                .zip(&self.prev)
                .all(|(row, prev)| prev.line() == row);
        if unchanged && cursor == self.cursor && self.shown == Some(cursor.is_some()) {
            return;
        }
        let rows: Vec<Row> = commit.iter().chain(live).map(Row::new).collect();
        let top = commit.len();
        let frame_start = out.len();
        out.push_str(SYNC_BEGIN);
        if cursor.is_none() && self.shown != Some(false) {
            out.push_str("\u{1b}[?25l");
            self.shown = Some(false);
        }
        let mut prev = std::mem::take(&mut self.prev);
        let mut w = Writer {
            out,
            row: self.row,
            col: self.col,
            existing: signed(prev.len()).max(self.row + 1).max(1),
            pen: String::new(),
            torn: false,
            width: self.width,
        };
        if std::mem::take(&mut self.stale) {
            // Erase the live region and everything under it: then they are known blank.
            w.go(0, 0);
            w.erase("\u{1b}[J");
            prev.fill(Row::blank());
        }
        let blank = Row::blank();
        let mut done = 0;
        if let Some(shift) = self.plan_shift(&prev, &rows, top) {
            if !shift.drop_top {
                // The rows above the insert stay where they are: write them first, from where
                // the cursor waits (the reply's end, usually).
                for (i, row) in rows.iter().enumerate().take(shift.row) {
                    w.row(i, row, prev.get(i).unwrap_or(&blank));
                }
                done = shift.row;
            }
            prev = shift_rows(&mut w, shift, &prev);
        }
        for (i, row) in rows.iter().enumerate().skip(done) {
            w.row(i, row, prev.get(i).unwrap_or(&blank));
        }
        if prev.iter().skip(rows.len()).any(|row| row.len() > 0) {
            // The rows under the new ones show nothing.
            w.go(rows.len(), 0);
            w.erase("\u{1b}[J");
        }
        if let Some(last) = rows.len().checked_sub(1) {
            // The last row is on screen, blank or not.
            if signed(last) >= w.existing {
                w.go_row(last);
            }
        }
        if let Some((row, col)) = cursor {
            w.go(top + row, col);
        }
        if !w.pen.is_empty() {
            w.out.push_str(PLAIN);
        }
        if w.torn {
            w.out.push_str(SYNC_END);
        } else {
            w.out.remove_at(frame_start, SYNC_BEGIN);
        }
        self.row = w.row - signed(top);
        self.col = w.col;
        if cursor.is_some() && self.shown != Some(true) {
            out.push_str("\u{1b}[?25h");
            self.shown = Some(true);
        }
        self.cursor = cursor;
        self.prev = rows.into_iter().skip(top).collect();
    }

    /// The cheapest way to move the rows on screen before the diff, when moving beats
    /// rewriting: `None` keeps them in place. Rows move only when every row fits the screen,
    /// so the rows a move scrolls away are final ones above the live region.
    fn plan_shift(&self, prev: &[Row], rows: &[Row], top: usize) -> Option<Shift> {
        let n = prev.len();
        let v = rows.len();
        if n == 0 || v > self.height {
            return None;
        }
        let (drop_top, count) = if v > n {
            (false, v - n)
        } else if v == n && n > 1 && top == 0 {
            (true, 1)
        } else {
            return None;
        };
        let blank = Row::blank();
        let old = |j: usize| Some(prev.get(j).unwrap_or(&blank));
        // Row i's cost kept in place, moved by the insert (from above it or from below it), or
        // over a blank row.
        let mut kept = 0;
        let (mut above, mut below, mut blanks) = (vec![0], vec![0], vec![0]);
        for (i, row) in rows.iter().enumerate() {
            kept += row.cost_from(old(i));
            let d = usize::from(drop_top);
            above.push(above[i] + row.cost_from(old(i + d)));
            // Only rows at or after the insert use this, and those come from `i + d - count`.
            let from_below = (i + d)
                .checked_sub(count)
                .map_or(0, |j| row.cost_from(old(j)));
            below.push(below[i] + from_below);
            blanks.push(blanks[i] + row.cost_from(Some(&blank)));
        }
        let mut best = (kept, None);
        for r in 0..=v - count {
            let cost = SHIFT_COST
                + above[r]
                + (blanks[r + count] - blanks[r])
                + (below[v] - below[r + count]);
            if cost < best.0 {
                best = (
                    cost,
                    Some(Shift {
                        row: r,
                        count,
                        drop_top,
                    }),
                );
            }
        }
        best.1
    }
}

/// Moves the rows on screen as `shift` says; returns what the rows then show.
fn shift_rows(w: &mut Writer<'_>, shift: Shift, prev: &[Row]) -> Vec<Row> {
    let n = prev.len();
    if shift.drop_top {
        // Delete the top row: the rows under it (to the screen's bottom) move up one.
        w.go(0, 0);
        w.erase("\u{1b}[M");
    }
    // Room for the inserted rows at the bottom (scrolling the screen when it is full).
    let rows = n - usize::from(shift.drop_top) + shift.count;
    w.go_row(rows - 1);
    w.go_row(shift.row);
    // Insert blank rows: the rows from here down move down. Some terminals move the cursor to
    // the first column, some leave it.
    if !w.pen.is_empty() {
        w.out.push_str(PLAIN);
        w.pen.clear();
    }
    // Rows moved down whole (their text unchanged, the new ones blank) do not tear: such a
    // frame is not bracketed as an update (16 bytes a new row).
    w.out.csi(shift.count, "L");
    if w.col != Some(0) {
        w.col = None;
        w.go_col(0);
    }
    (0..rows)
        .map(|i| match shift.source(i) {
            Some(j) => prev.get(j).cloned().unwrap_or_default(),
            None => Row::blank(),
        })
        .collect()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

    use super::*;
    use crate::term::markdown::{MarkdownOptions, MarkdownStream};
    use crate::term::style::{line_to_ansi, Palette, StyledLine};

    fn row(text: &str) -> AnsiLine {
        AnsiLine::from_rendered(text.to_owned())
    }

    fn nz(n: usize) -> std::num::NonZeroU16 {
        std::num::NonZeroU16::new(u16::try_from(n).unwrap()).unwrap()
    }

    fn parser(width: usize, height: usize) -> vt100::Parser {
        let mut parser = vt100::Parser::new(nz(height), nz(width), 5000);
        // As the app does: no autowrap.
        parser.process(b"\x1b[?7l");
        parser
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

    /// Every row of the scrollback and the screen, top to bottom: each cell's text and its
    /// attributes where they change, trailing blanks trimmed.
    fn every_row(parser: &mut vt100::Parser) -> Vec<String> {
        let (height, width) = parser.screen().size();
        let read = |screen: &vt100::Screen, r: u16| {
            let mut text = String::new();
            let mut attrs = (false, false, false, vt100::Color::Default);
            for c in 0..width.get() {
                let Some(cell) = screen.cell(r, c) else {
                    continue;
                };
                if cell.is_wide_continuation() {
                    continue;
                }
                let now = (cell.bold(), cell.italic(), cell.underline(), cell.fgcolor());
                if now != attrs {
                    text.push_str(&format!("{now:?}"));
                    attrs = now;
                }
                text.push_str(if cell.has_contents() {
                    cell.contents()
                } else {
                    " "
                });
            }
            text.trim_end().to_owned()
        };
        parser.screen_mut().set_scrollback(usize::MAX);
        let back = parser.screen().scrollback();
        let mut rows = Vec::new();
        for k in (1..=back).rev() {
            parser.screen_mut().set_scrollback(k);
            rows.push(read(parser.screen(), 0));
        }
        parser.screen_mut().set_scrollback(0);
        for r in 0..height.get() {
            rows.push(read(parser.screen(), r));
        }
        rows
    }

    fn reply_rows(reply: &str, width: usize) -> Vec<AnsiLine> {
        let chars: Vec<char> = reply.chars().collect();
        chars
            .chunks(width)
            .map(|c| row(&c.iter().collect::<String>()))
            .collect()
    }

    /// A reply streams token by token above a footer whose counter changes; its rows wrap,
    /// then the live region fills the screen and its oldest rows give way; sometimes the reply
    /// is committed. After every paint the screen shows exactly the live rows, and a paint
    /// costs its token and a few cursor moves, not a rewrite of the rows under it.
    #[test]
    fn diffed_frames_show_the_live_rows_and_move_rows_instead_of_rewriting_them() {
        for (width, height) in [(20usize, 8usize), (33, 12), (80, 24)] {
            let mut parser = parser(width, height);
            let mut frame = Frame::new(width, height);
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
            // The text itself is most of what was written: the cursor goes up to the reply
            // and back down to the composer, and a new row moves the rows under it.
            let overhead = (bytes - streamed) / 400;
            assert!(
                overhead < 32,
                "{width}×{height}: {bytes} bytes for {streamed}"
            );
        }
    }

    /// With the cursor hidden, a reply that grows at its end costs its text: the cursor waits
    /// where the last write ended, no row is written twice, nothing is bracketed.
    #[test]
    fn a_reply_growing_at_its_end_costs_its_text() {
        let (width, height) = (40, 12);
        let mut parser = parser(width, height);
        let mut frame = Frame::new(width, height);
        let footer = [
            row("• Thinking (1s)"),
            row(""),
            row("┃ "),
            row(""),
            row("ask"),
        ];
        let mut reply = String::from("  ");
        let mut out = Ansi::new();
        let live: Vec<AnsiLine> = std::iter::once(row(&reply)).chain(footer.clone()).collect();
        frame.paint(&mut out, &[], &live, Some((2, 2)));
        parser.process(out.as_bytes());
        let mut bytes = 0;
        for token in ["one ", "two ", "three ", "four ", "five "] {
            reply.push_str(token);
            let mut out = Ansi::new();
            let live: Vec<AnsiLine> = std::iter::once(row(&reply)).chain(footer.clone()).collect();
            frame.paint(&mut out, &[], &live, None);
            parser.process(out.as_bytes());
            bytes += out.len();
            if token != "one " {
                // The first one hides the cursor and goes up to the reply.
                // The space after the last word is written with the next one.
                assert_eq!(out.as_str(), format!(" {}", token.trim_end()));
            }
        }
        // The text (the last space is not written yet), hiding the cursor (6 bytes) and the
        // move up from the composer to the reply (4: the column is the composer's).
        assert_eq!(bytes, "one two three four five".len() + 6 + 4);
        assert!(parser.screen().hide_cursor());
        assert_eq!(
            live_on_screen(&parser, 0, 1)[0],
            "  one two three four five"
        );
    }

    /// A reply rendered by the markdown stream, streamed in `deltas` above a footer as the app
    /// composes it (the tail's oldest rows give way when it is taller than its room), with the
    /// cursor hidden while it streams: the scrollback and the screen end exactly as one paint
    /// of every final row and the footer leaves them.
    fn streamed_equals_one_paint(source: &str, deltas: usize, width: usize, height: usize) {
        let palette = Palette::dark();
        let ansi = |rows: &[StyledLine]| -> Vec<AnsiLine> {
            rows.iter().map(|r| line_to_ansi(r, &palette)).collect()
        };
        let footer = |tick: usize| {
            vec![
                row(&format!("• Thinking ({tick}s)")),
                row(""),
                row("┃ "),
                row(""),
                row("ask · model"),
            ]
        };
        let live_rows = |tail: Vec<AnsiLine>, footer: Vec<AnsiLine>| {
            let mut open = tail;
            if !open.is_empty() {
                open.push(row(""));
            }
            let room = height - footer.len();
            let skip = open.len().saturating_sub(room);
            open.into_iter()
                .skip(skip)
                .chain(footer)
                .collect::<Vec<_>>()
        };
        let mut parser = parser(width, height);
        let mut frame = Frame::new(width, height);
        let mut out = Ansi::new();
        let prompt = vec![row("┃ go"), row("")];
        frame.paint(&mut out, &prompt, &footer(0), Some((2, 2)));
        let mut stream = MarkdownStream::new(MarkdownOptions::new(width));
        let chars: Vec<char> = source.chars().collect();
        let size = chars.len().div_ceil(deltas).max(1);
        let mut taken = 0;
        let mut commits = prompt.clone();
        for (step, piece) in chars.chunks(size).enumerate() {
            stream.push(&piece.iter().collect::<String>());
            let commit = ansi(&stream.committed()[taken..]);
            taken = stream.committed().len();
            commits.extend(commit.iter().cloned());
            let live = live_rows(ansi(&stream.tail()), footer(step / 7));
            frame.paint(&mut out, &commit, &live, None);
        }
        stream.finish();
        let mut commit = ansi(&stream.committed()[taken..]);
        commit.push(row(""));
        commits.extend(commit.iter().cloned());
        frame.paint(&mut out, &commit, &footer(9), Some((2, 2)));
        parser.process(out.as_bytes());
        assert_eq!(
            crate::term::ansi::audit(out.as_str(), crate::term::ansi::Allowed::Screen),
            Ok(())
        );
        let mut once = self::parser(width, height);
        let mut out = Ansi::new();
        Frame::new(width, height).paint(&mut out, &commits, &footer(9), Some((2, 2)));
        once.process(out.as_bytes());
        let (streamed, painted) = (every_row(&mut parser), every_row(&mut once));
        if let Some(at) =
            (0..streamed.len().max(painted.len())).find(|&i| streamed.get(i) != painted.get(i))
        {
            let around =
                |rows: &[String]| rows[at.saturating_sub(3)..(at + 3).min(rows.len())].join("\n");
            panic!(
                "{width}×{height}, {deltas} deltas: row {at} of {} / {} differs\n--- streamed\n{}\n--- one paint\n{}",
                streamed.len(),
                painted.len(),
                around(&streamed),
                around(&painted)
            );
        }
        assert_eq!(
            parser.screen().cursor_position(),
            once.screen().cursor_position()
        );
    }

    const PLAIN_TEXT: &str = "Streaming text wraps at the width of the screen, word by word, \
        and a paragraph ends at a blank line.\n\nThe next one **starts bold** and goes on \
        with `code` and _italics_ until it is long enough to wrap twice or more.\n";

    const CODE: &str = "Some code:\n\n```rust\nfn main() {\n    let x = \"text\"; // note\n    \
        println!(\"{x} {}\", 42);\n}\n```\n\nAfter the box.\n";

    const TABLE: &str =
        "A table that reflows as it grows:\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\
        | a longer cell | 3 |\n| x | a much longer cell than the others |\n\nAfter the table.\n";

    const WIDE: &str = "漢字とかなの文章は一文字が二列を使い、折り返しも二列ごとに行われます。\
        もう少し長く書いて、何行かに折り返されるようにします。\n\n| 列 | 値 |\n| --- | --- |\n\
        | 名前 | 山田 |\n| 住所 | 東京都千代田区 |\n\nemoji 👍🏽 and 🇯🇵 flags\n";

    #[test]
    fn streamed_replies_leave_the_scrollback_one_paint_leaves() {
        for source in [PLAIN_TEXT, CODE, TABLE, WIDE] {
            for (width, height) in [(40, 16), (23, 12), (80, 24)] {
                for deltas in [1, 7, 60, 400] {
                    streamed_equals_one_paint(source, deltas, width, height);
                }
            }
        }
    }

    #[test]
    fn a_reply_longer_than_the_screen_leaves_the_scrollback_one_paint_leaves() {
        let mut long = String::new();
        for i in 0..30 {
            long.push_str(&format!("Line {i} of a paragraph that has no blank line, "));
            long.push_str("so it stays open and grows past the screen. ");
        }
        long.push_str("\n\n");
        for i in 0..40 {
            long.push_str(&format!("- item {i}\n"));
        }
        long.push_str(TABLE);
        long.push_str("\n| n | square |\n| --- | --- |\n");
        for i in 0..30 {
            long.push_str(&format!("| {i} | {} |\n", i * i));
        }
        for (width, height) in [(40, 12), (80, 24)] {
            for deltas in [3, 50, 900] {
                streamed_equals_one_paint(&long, deltas, width, height);
            }
        }
    }
}
