//! Block structure, one complete source line at a time: paragraphs, headings, lists, quotes,
//! rules, fenced code and tables. Each line either produces finished rows right away or is held
//! (a possible table header, table rows) until the block it belongs to is known.
//!
//! Soft line breaks are kept as line breaks (as chat renderers do), so a paragraph line is
//! final as soon as its newline arrives. Code boxes take a fixed width (the available width, at
//! most [`MAX_BOX_WIDTH`]) so their rows can be printed before the fence closes.

use super::highlight::Highlighter;
use super::inline::parse_inline;
use super::table::{looks_like_row, parse_delimiter, split_row, Table};
use super::wrap::{wrap, wrap_preformatted};
use crate::term::sanitize::expand_tabs;
use crate::term::style::{Span, Style, StyledLine, Tone};
use crate::term::width::{str_width, truncate_to_width};

/// Widest code box, in cells.
pub(crate) const MAX_BOX_WIDTH: usize = 100;
/// Narrowest code box; below this code is printed without a box.
const MIN_BOX_WIDTH: usize = 16;

#[derive(Debug, Clone)]
struct Fence {
    marker: char,
    len: usize,
    indent: usize,
    highlighter: Highlighter,
    /// Inner width of the box, or `None` when unboxed.
    inner: Option<usize>,
}

#[derive(Debug, Clone)]
enum State {
    Normal,
    Fence(Fence),
    /// A line that may be a table header, waiting for the delimiter row.
    MaybeTable(String),
    Table(Table),
}

#[derive(Debug, Clone, Copy)]
struct ListLevel {
    indent: usize,
    /// Width of the first-line prefix (margin, nesting, marker): continuation lines hang there.
    hang: usize,
}

/// The block-level renderer state. Cheap to clone (used to preview the unfinished tail).
#[derive(Debug, Clone)]
pub(crate) struct Blocks {
    width: usize,
    margin: usize,
    state: State,
    lists: Vec<ListLevel>,
    blank_pending: bool,
    emitted: bool,
    after_list_text: bool,
}

fn leading_spaces(line: &str) -> usize {
    line.chars().take_while(|c| *c == ' ').count()
}

fn border(s: &str) -> Span {
    Span::new(s, Style::plain().fg(Tone::Border))
}

fn fence_open(line: &str) -> Option<(char, usize, String)> {
    let t = line.trim_start();
    let marker = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == marker).count();
    if len < 3 {
        return None;
    }
    let info = t.get(len..).unwrap_or("").trim();
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some((
        marker,
        len,
        info.split_whitespace().next().unwrap_or("").to_owned(),
    ))
}

fn is_rule(t: &str) -> bool {
    let mut chars = t.chars().filter(|c| !c.is_whitespace());
    let Some(first) = chars.next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let rest: Vec<char> = chars.collect();
    rest.len() >= 2 && rest.iter().all(|c| *c == first)
}

fn heading(t: &str) -> Option<(usize, &str)> {
    let level = t.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = t.get(level..)?;
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((level, text))
}

/// `(marker, content)` when `rest` (the line without its indent) starts a list item.
fn list_marker(rest: &str) -> Option<(&str, &str)> {
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let mlen = if digits > 0 {
        match rest.as_bytes().get(digits) {
            Some(b'.' | b')') if digits <= 9 => digits + 1,
            _ => return None,
        }
    } else if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        return None;
    };
    let after = rest.get(mlen..)?;
    if !after.is_empty() && !after.starts_with(' ') {
        return None;
    }
    Some((rest.get(..mlen)?, after.trim_start()))
}

impl Blocks {
    /// Blocks laid out for `width` cells (at least 4). Content keeps 4 cells: a narrower
    /// width shrinks the margin rather than overflow.
    pub(crate) fn new(width: usize, margin: usize) -> Self {
        let width = width.max(4);
        Self {
            width,
            margin: margin.min(width - 4),
            state: State::Normal,
            lists: Vec::new(),
            blank_pending: false,
            emitted: false,
            after_list_text: false,
        }
    }

    fn pad(&self) -> Vec<Span> {
        if self.margin == 0 {
            Vec::new()
        } else {
            vec![Span::plain(" ".repeat(self.margin))]
        }
    }

    /// Emits the blank row that separates blocks, when one is due (or `force`d).
    fn gap(&mut self, out: &mut Vec<StyledLine>, force: bool) {
        if self.emitted && (self.blank_pending || force) {
            out.push(StyledLine::new());
        }
        self.blank_pending = false;
    }

    fn emit(&mut self, out: &mut Vec<StyledLine>, lines: Vec<StyledLine>) {
        self.emitted |= !lines.is_empty();
        out.extend(lines);
    }

    /// Renders one complete source line (without its newline).
    pub(crate) fn line(&mut self, raw: &str, out: &mut Vec<StyledLine>) {
        let line = expand_tabs(raw, 4);
        match std::mem::replace(&mut self.state, State::Normal) {
            State::Normal => self.normal(&line, true, out),
            State::Fence(f) => self.fence_line(f, &line, out),
            State::MaybeTable(held) => match parse_delimiter(&line) {
                Some(aligns) if aligns.len() == split_row(&held).len() => {
                    self.state = State::Table(Table {
                        header: split_row(&held),
                        aligns,
                        rows: Vec::new(),
                    });
                }
                _ => {
                    self.normal(&held, false, out);
                    self.line(&line, out);
                }
            },
            State::Table(mut t) => {
                if line.contains('|') && !line.trim().is_empty() {
                    t.rows.push(split_row(&line));
                    self.state = State::Table(t);
                } else {
                    self.table_end(&t, out);
                    self.normal(&line, true, out);
                }
            }
        }
    }

    /// Flushes whatever is held at the end of the stream (an open fence is closed).
    pub(crate) fn finish(&mut self, out: &mut Vec<StyledLine>) {
        match std::mem::replace(&mut self.state, State::Normal) {
            State::Normal => {}
            State::Fence(f) => self.fence_close(&f, out),
            State::MaybeTable(held) => self.normal(&held, false, out),
            State::Table(t) => self.table_end(&t, out),
        }
    }

    /// Like [`Self::finish`] for a preview of the tail: a possible table header that is still
    /// waiting for its delimiter row is not shown.
    pub(crate) fn finish_preview(&mut self, out: &mut Vec<StyledLine>) {
        if !matches!(self.state, State::MaybeTable(_)) {
            self.finish(out);
        }
    }

    /// True when an unfinished last line should not be previewed: it may turn out to be table
    /// or fence syntax, which must never appear raw.
    pub(crate) fn hides_partial(&self, partial: &str) -> bool {
        let t = partial.trim();
        match &self.state {
            _ if t.is_empty() => true,
            State::Table(_) | State::MaybeTable(_) => true,
            State::Fence(f) => t.starts_with(f.marker),
            State::Normal => t.contains('|') || t.starts_with('`') || t.starts_with("~~~"),
        }
    }

    fn normal(&mut self, line: &str, allow_table: bool, out: &mut Vec<StyledLine>) {
        let t = line.trim();
        if t.is_empty() {
            self.blank_pending = true;
            self.after_list_text = false;
            return;
        }
        // Checked first so that a table inside a list item is held too, never shown raw.
        if allow_table && looks_like_row(t) && fence_open(line).is_none() {
            self.state = State::MaybeTable(line.to_owned());
            return;
        }
        let indent = leading_spaces(line);
        let list_text = self.after_list_text;
        self.after_list_text = false;
        if let Some((marker, len, lang)) = fence_open(line) {
            return self.fence_open(marker, len, indent, &lang, out);
        }
        if indent < 4 && is_rule(t) {
            self.lists.clear();
            self.gap(out, false);
            let mut l = StyledLine::from_span(Span::plain(" ".repeat(self.margin)));
            l.spans
                .push(border(&"─".repeat(self.width.saturating_sub(self.margin))));
            return self.emit(out, vec![l]);
        }
        if let Some((level, text)) = heading(t).filter(|_| indent < 4) {
            self.lists.clear();
            self.gap(out, true);
            let style = match level {
                1 => Style::plain().bold().underline(),
                2 => Style::plain().bold(),
                3 => Style::plain().bold().italic(),
                _ => Style::plain().bold().dim(),
            };
            let pad = self.pad();
            let lines = wrap(&parse_inline(text, style), self.width, &pad, &pad);
            return self.emit(out, lines);
        }
        if t.starts_with('>') {
            return self.quote(t, out);
        }
        if let Some((marker, content)) = line.get(indent..).and_then(list_marker) {
            return self.list_item(indent, marker, content, out);
        }
        if let Some(top) = self.lists.last().copied() {
            if indent > top.indent || (list_text && !self.blank_pending) {
                self.gap(out, false);
                let hang = [Span::plain(" ".repeat(top.hang))];
                let lines = wrap(&parse_inline(t, Style::plain()), self.width, &hang, &hang);
                self.after_list_text = true;
                return self.emit(out, lines);
            }
            self.lists.clear();
        }
        self.gap(out, false);
        let pad = self.pad();
        let lines = wrap(&parse_inline(t, Style::plain()), self.width, &pad, &pad);
        self.emit(out, lines);
    }

    fn quote(&mut self, t: &str, out: &mut Vec<StyledLine>) {
        self.lists.clear();
        let mut depth = 0usize;
        let mut rest = t;
        while let Some(r) = rest.strip_prefix('>') {
            depth += 1;
            rest = r.strip_prefix(' ').unwrap_or(r).trim_start();
        }
        self.gap(out, false);
        let mut prefix = self.pad();
        prefix.push(border(&"│ ".repeat(depth)));
        let lines = wrap(
            &parse_inline(rest, Style::plain()),
            self.width,
            &prefix,
            &prefix,
        );
        self.emit(out, lines);
    }

    fn list_item(&mut self, indent: usize, marker: &str, content: &str, out: &mut Vec<StyledLine>) {
        while self.lists.last().is_some_and(|l| l.indent > indent) {
            self.lists.pop();
        }
        if self.lists.last().is_some_and(|l| l.indent == indent) {
            self.lists.pop();
        }
        // A nested item starts where its parent's text starts.
        let lead_w = self.lists.last().map_or(self.margin, |p| p.hang);
        let ordered = marker.starts_with(|c: char| c.is_ascii_digit());
        let (shown, content) = match (ordered, content.get(..3), content.get(3..)) {
            (false, Some("[ ]"), Some(rest)) => ("☐".to_owned(), rest.trim_start()),
            (false, Some("[x]" | "[X]"), Some(rest)) => ("✓".to_owned(), rest.trim_start()),
            (false, _, _) => ("•".to_owned(), content),
            (true, _, _) => (marker.to_owned(), content),
        };
        let lead = " ".repeat(lead_w);
        let first = vec![
            Span::plain(lead.clone()),
            Span::new(shown.clone(), Style::plain().fg(Tone::Secondary)),
            Span::plain(" "),
        ];
        let hang_w = str_width(&lead) + str_width(&shown) + 1;
        self.lists.push(ListLevel {
            indent,
            hang: hang_w,
        });
        self.gap(out, false);
        let hang = [Span::plain(" ".repeat(hang_w))];
        let lines = wrap(
            &parse_inline(content, Style::plain()),
            self.width,
            &first,
            &hang,
        );
        self.after_list_text = true;
        self.emit(out, lines);
    }

    fn box_width(&self) -> usize {
        self.width.saturating_sub(self.margin).min(MAX_BOX_WIDTH)
    }

    fn fence_open(
        &mut self,
        marker: char,
        len: usize,
        indent: usize,
        lang: &str,
        out: &mut Vec<StyledLine>,
    ) {
        self.gap(out, true);
        let total = self.box_width();
        let boxed = total >= MIN_BOX_WIDTH;
        let mut top = StyledLine::from_span(Span::plain(" ".repeat(self.margin)));
        if boxed {
            let label = if lang.is_empty() || str_width(lang) + 4 > total {
                String::new()
            } else {
                format!(" {lang} ")
            };
            top.spans.push(border("┌"));
            top.spans
                .push(Span::new(label.clone(), Style::plain().fg(Tone::Secondary)));
            top.spans.push(border(
                &"─".repeat(total.saturating_sub(2 + str_width(&label))),
            ));
            top.spans.push(border("┐"));
            self.emit(out, vec![top]);
        } else if !lang.is_empty() {
            let (label, _) = truncate_to_width(lang, self.width.saturating_sub(self.margin));
            top.spans
                .push(Span::new(label, Style::plain().fg(Tone::Secondary)));
            self.emit(out, vec![top]);
        }
        self.state = State::Fence(Fence {
            marker,
            len,
            indent,
            highlighter: Highlighter::new(lang),
            inner: boxed.then(|| total.saturating_sub(4)),
        });
    }

    fn fence_line(&mut self, mut f: Fence, line: &str, out: &mut Vec<StyledLine>) {
        let t = line.trim();
        if t.starts_with(f.marker) && t.chars().all(|c| c == f.marker) && t.chars().count() >= f.len
        {
            return self.fence_close(&f, out);
        }
        let strip = leading_spaces(line).min(f.indent);
        let code = line.get(strip..).unwrap_or(line);
        let spans = f.highlighter.line(code);
        let pad = " ".repeat(self.margin);
        let mut rows = Vec::new();
        match f.inner {
            Some(inner) => {
                for content in wrap_preformatted(&spans, inner) {
                    let mut l = StyledLine::from_span(Span::plain(pad.clone()));
                    l.spans.push(border("│ "));
                    let fill = inner.saturating_sub(content.width());
                    l.extend(&content.spans);
                    l.push(&" ".repeat(fill), Style::plain());
                    l.spans.push(border(" │"));
                    rows.push(l);
                }
            }
            None => {
                for content in wrap_preformatted(&spans, self.width.saturating_sub(self.margin)) {
                    let mut l = StyledLine::from_span(Span::plain(pad.clone()));
                    l.extend(&content.spans);
                    rows.push(l);
                }
            }
        }
        self.emit(out, rows);
        self.state = State::Fence(f);
    }

    fn fence_close(&mut self, f: &Fence, out: &mut Vec<StyledLine>) {
        if f.inner.is_some() {
            let mut l = StyledLine::from_span(Span::plain(" ".repeat(self.margin)));
            l.spans.push(border(&format!(
                "└{}┘",
                "─".repeat(self.box_width().saturating_sub(2))
            )));
            self.emit(out, vec![l]);
        }
        self.blank_pending = true;
    }

    fn table_end(&mut self, t: &Table, out: &mut Vec<StyledLine>) {
        self.lists.clear();
        self.gap(out, true);
        let lines = t.render(self.width, self.margin);
        self.emit(out, lines);
        self.blank_pending = true;
    }
}
