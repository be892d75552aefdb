//! Markdown tables: row parsing, and layout as a box drawn with box-drawing characters. Columns
//! share the width by need; cells wrap. When even narrow columns do not fit, each row is shown
//! as `Header: value` lines instead.

use super::inline::parse_inline;
use super::wrap::wrap;
use crate::term::style::{Span, Style, StyledLine, Tone};
use crate::term::width::str_width;

const MIN_COL: usize = 3;

/// Column alignment from the delimiter row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Center,
    Right,
}

/// A table being collected, row by row.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub(crate) header: Vec<String>,
    pub(crate) aligns: Vec<Align>,
    pub(crate) rows: Vec<Vec<String>>,
}

/// Splits a table row into trimmed cells, honouring `\|` and pipes inside code spans.
pub(crate) fn split_row(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") {
        t.get(..t.len() - 1).unwrap_or(t)
    } else {
        t
    };
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut in_code = false;
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '`' => {
                in_code = !in_code;
                cur.push(c);
            }
            '|' if !in_code => cells.push(std::mem::take(&mut cur).trim().to_owned()),
            _ => cur.push(c),
        }
    }
    cells.push(cur.trim().to_owned());
    cells
}

/// True when `line` could be a table row (an unescaped pipe outside code).
pub(crate) fn looks_like_row(line: &str) -> bool {
    let t = line.trim();
    t.contains('|') && (t.starts_with('|') || split_row(t).len() > 1)
}

/// Parses a delimiter row (`|---|:--:|`) into alignments, or `None` when it is not one.
pub(crate) fn parse_delimiter(line: &str) -> Option<Vec<Align>> {
    if !line.contains('-') {
        return None;
    }
    split_row(line)
        .iter()
        .map(|c| {
            let core = c.trim_start_matches(':').trim_end_matches(':');
            if core.is_empty() || !core.chars().all(|ch| ch == '-') {
                return None;
            }
            Some(match (c.starts_with(':'), c.ends_with(':')) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

fn border(s: &str) -> Span {
    Span::new(s, Style::plain().fg(Tone::Border))
}

impl Table {
    fn columns(&self) -> usize {
        self.header.len().max(1)
    }

    /// Lays the table out for `width` cells (margin included).
    pub(crate) fn render(&self, width: usize, margin: usize) -> Vec<StyledLine> {
        let n = self.columns();
        let cell = |row: &[String], i: usize, bold: bool| {
            let text = row.get(i).map_or("", String::as_str);
            let base = if bold {
                Style::plain().bold()
            } else {
                Style::plain()
            };
            parse_inline(text, base)
        };
        let header: Vec<Vec<Span>> = (0..n).map(|i| cell(&self.header, i, true)).collect();
        let body: Vec<Vec<Vec<Span>>> = self
            .rows
            .iter()
            .map(|r| (0..n).map(|i| cell(r, i, false)).collect())
            .collect();
        let natural: Vec<usize> = (0..n)
            .map(|i| {
                std::iter::once(&header)
                    .chain(body.iter())
                    .map(|r| {
                        r.get(i)
                            .map_or(0, |s| s.iter().map(|sp| str_width(sp.text())).sum())
                    })
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let chrome = margin + 3 * n + 1;
        let avail = width.saturating_sub(chrome);
        match fit_columns(&natural, avail) {
            Some(cols) => self.boxed(&header, &body, &cols, margin),
            None => self.vertical(&header, &body, width, margin),
        }
    }

    fn boxed(
        &self,
        header: &[Vec<Span>],
        body: &[Vec<Vec<Span>>],
        cols: &[usize],
        margin: usize,
    ) -> Vec<StyledLine> {
        let pad = " ".repeat(margin);
        let rule = |l: &str, m: &str, r: &str| {
            let mut line = StyledLine::from_span(Span::plain(pad.clone()));
            let mut s = String::from(l);
            for (i, w) in cols.iter().enumerate() {
                if i > 0 {
                    s.push_str(m);
                }
                s.push_str(&"─".repeat(w + 2));
            }
            s.push_str(r);
            line.spans.push(border(&s));
            line
        };
        let mut out = vec![rule("┌", "┬", "┐")];
        self.row_lines(header, cols, &pad, true, &mut out);
        out.push(rule("├", "┼", "┤"));
        for row in body {
            self.row_lines(row, cols, &pad, false, &mut out);
        }
        out.push(rule("└", "┴", "┘"));
        out
    }

    fn row_lines(
        &self,
        row: &[Vec<Span>],
        cols: &[usize],
        pad: &str,
        header: bool,
        out: &mut Vec<StyledLine>,
    ) {
        let wrapped: Vec<Vec<StyledLine>> = cols
            .iter()
            .enumerate()
            .map(|(i, w)| wrap(row.get(i).map_or(&[], Vec::as_slice), *w, &[], &[]))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for r in 0..height {
            let mut line = StyledLine::from_span(Span::plain(pad.to_owned()));
            for (i, w) in cols.iter().enumerate() {
                line.spans.push(border(if i == 0 { "│ " } else { " │ " }));
                let content = wrapped
                    .get(i)
                    .and_then(|c| c.get(r))
                    .cloned()
                    .unwrap_or_default();
                let gap = w.saturating_sub(content.width());
                let align = if header {
                    Align::Left
                } else {
                    self.aligns.get(i).copied().unwrap_or(Align::Left)
                };
                let (left, right) = match align {
                    Align::Left => (0, gap),
                    Align::Right => (gap, 0),
                    Align::Center => (gap / 2, gap - gap / 2),
                };
                line.push(&" ".repeat(left), Style::plain());
                line.extend(&content.spans);
                line.push(&" ".repeat(right), Style::plain());
            }
            line.spans.push(border(" │"));
            out.push(line);
        }
    }

    fn vertical(
        &self,
        header: &[Vec<Span>],
        body: &[Vec<Vec<Span>>],
        width: usize,
        margin: usize,
    ) -> Vec<StyledLine> {
        let pad = [Span::plain(" ".repeat(margin))];
        let hang = [Span::plain(" ".repeat(margin + 2))];
        let sep_w = width.saturating_sub(margin).clamp(1, 24);
        let mut out = Vec::new();
        for (r, row) in body.iter().enumerate() {
            if r > 0 {
                let mut l = StyledLine::from_span(pad[0].clone());
                l.spans.push(border(&"─".repeat(sep_w)));
                out.push(l);
            }
            for (i, cell) in row.iter().enumerate() {
                let mut spans: Vec<Span> = header.get(i).cloned().unwrap_or_default();
                spans.push(Span::new(": ", Style::plain().bold()));
                spans.extend(cell.iter().cloned());
                out.extend(wrap(&spans, width, &pad, &hang));
            }
        }
        out
    }
}

/// Column widths that fit `avail` cells: natural widths when they fit, else narrow the widest
/// columns first. `None` when even [`MIN_COL`] per column does not fit.
fn fit_columns(natural: &[usize], avail: usize) -> Option<Vec<usize>> {
    let n = natural.len();
    if n == 0 {
        return None;
    }
    if natural.iter().sum::<usize>() <= avail {
        return Some(natural.to_vec());
    }
    if avail < n * MIN_COL {
        return None;
    }
    // Water-filling: columns narrower than the fair share keep their width.
    let mut cols = vec![0usize; n];
    let mut left = avail;
    let mut open: Vec<usize> = (0..n).collect();
    loop {
        let share = left / open.len().max(1);
        let (small, big): (Vec<usize>, Vec<usize>) = open
            .iter()
            .partition(|&&i| natural.get(i).copied().unwrap_or(0) <= share);
        if small.is_empty() {
            let extra = left - share * big.len();
            for (k, &i) in big.iter().enumerate() {
                if let Some(c) = cols.get_mut(i) {
                    *c = share + usize::from(k < extra);
                }
            }
            return Some(cols);
        }
        for &i in &small {
            let w = natural.get(i).copied().unwrap_or(0);
            if let Some(c) = cols.get_mut(i) {
                *c = w;
            }
            left -= w;
        }
        open = big;
        if open.is_empty() {
            return Some(cols);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_delimiters() {
        assert_eq!(split_row("| a | b |"), ["a", "b"]);
        assert_eq!(split_row("a|b"), ["a", "b"]);
        assert_eq!(split_row("| `x|y` | a\\|b |"), ["`x|y`", "a|b"]);
        assert_eq!(
            parse_delimiter("|---|:--:|--:|"),
            Some(vec![Align::Left, Align::Center, Align::Right])
        );
        assert_eq!(parse_delimiter("| a | b |"), None);
        assert_eq!(parse_delimiter("|--x|"), None);
        assert!(looks_like_row("| name | age |"));
        assert!(!looks_like_row("no pipes"));
    }

    #[test]
    fn columns_fit() {
        assert_eq!(fit_columns(&[3, 4], 20), Some(vec![3, 4]));
        assert_eq!(fit_columns(&[3, 40], 20), Some(vec![3, 17]));
        assert_eq!(fit_columns(&[30, 40], 20), Some(vec![10, 10]));
        assert_eq!(fit_columns(&[30, 40, 50], 8), None);
    }
}
