//! Word wrapping of styled spans to a width, with a prefix for the first line and another for
//! the rest (list markers, quote bars, hanging indents). Words longer than a line are broken
//! between clusters; runs of spaces collapse to one at line breaks.

use crate::term::style::{Span, Style, StyledLine};
use crate::term::width::{break_units, str_width, truncate_to_width};

struct Word {
    parts: Vec<(String, Style)>,
    width: usize,
}

/// Splits spans into alternating words and single-space separators (`None`).
fn words(spans: &[Span]) -> Vec<Option<Word>> {
    let mut out: Vec<Option<Word>> = Vec::new();
    for span in spans {
        for piece in split_keep_spaces(span.text()) {
            if piece.chars().all(char::is_whitespace) {
                if !matches!(out.last(), Some(None)) {
                    out.push(None);
                }
                continue;
            }
            let w = str_width(piece);
            match out.last_mut() {
                Some(Some(word)) => {
                    word.parts.push((piece.to_owned(), span.style));
                    word.width += w;
                }
                _ => out.push(Some(Word {
                    parts: vec![(piece.to_owned(), span.style)],
                    width: w,
                })),
            }
        }
    }
    out
}

fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut prev_space: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let sp = c.is_whitespace();
        if prev_space.is_some_and(|p| p != sp) {
            out.extend(s.get(start..i));
            start = i;
        }
        prev_space = Some(sp);
    }
    out.extend(s.get(start..).filter(|t| !t.is_empty()));
    out
}

/// Wraps `spans` to `width` cells. `first` starts the first line and `rest` every other one;
/// both count toward the width. Always returns at least one line.
pub(crate) fn wrap(spans: &[Span], width: usize, first: &[Span], rest: &[Span]) -> Vec<StyledLine> {
    let mut lines = Vec::new();
    // A prefix (deep nesting on a narrow screen) never takes the room of a wide character.
    let room = width.saturating_sub(2);
    let new_line = |prefix: &[Span]| {
        let mut l = StyledLine::new();
        for span in prefix {
            let (kept, _) = truncate_to_width(span.text(), room.saturating_sub(l.width()));
            l.push(kept, span.style);
        }
        let w = l.width();
        (l, w)
    };
    let (mut line, mut used) = new_line(first);
    let mut has_content = false;
    let mut pending_space: Option<Style> = None;
    for item in words(spans) {
        let Some(word) = item else {
            if has_content {
                pending_space = Some(Style::plain());
            }
            continue;
        };
        let space = usize::from(pending_space.is_some());
        if has_content && used + space + word.width > width {
            lines.push(std::mem::take(&mut line));
            (line, used) = new_line(rest);
            has_content = false;
        } else if let Some(style) = pending_space {
            line.push(" ", style);
            used += 1;
        }
        pending_space = None;
        if used + word.width <= width || has_content {
            for (t, s) in &word.parts {
                line.push(t, *s);
            }
            used += word.width;
            has_content = true;
            continue;
        }
        // The word alone is wider than a line: break it between clusters.
        for (t, s) in &word.parts {
            for cl in break_units(t) {
                let w = str_width(cl);
                if has_content && used + w > width {
                    lines.push(std::mem::take(&mut line));
                    (line, used) = new_line(rest);
                }
                line.push(cl, *s);
                used += w;
                has_content = true;
            }
        }
    }
    lines.push(line);
    lines
}

/// Wraps preformatted text (code) to `width` cells by clusters, keeping every space. A
/// continuation line is indented like the original line's leading whitespace.
pub(crate) fn wrap_preformatted(spans: &[Span], width: usize) -> Vec<StyledLine> {
    let width = width.max(1);
    let text: String = spans.iter().map(Span::text).collect();
    let indent = text.chars().take_while(|c| *c == ' ').count();
    let indent = if indent * 2 > width { 0 } else { indent };
    let mut lines = Vec::new();
    let mut line = StyledLine::new();
    let mut used = 0usize;
    for span in spans {
        for cl in break_units(span.text()) {
            let w = str_width(cl);
            if used + w > width && used > indent {
                lines.push(std::mem::take(&mut line));
                line.push(&" ".repeat(indent), Style::plain());
                used = indent;
            }
            line.push(cl, span.style);
            used += w;
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[StyledLine]) -> Vec<String> {
        lines.iter().map(StyledLine::plain_text).collect()
    }

    #[test]
    fn wraps_words() {
        let spans = [Span::plain("the quick brown fox jumps")];
        assert_eq!(
            texts(&wrap(&spans, 10, &[], &[])),
            ["the quick", "brown fox", "jumps"]
        );
        let bullet = [Span::plain("• ")];
        let hang = [Span::plain("  ")];
        assert_eq!(
            texts(&wrap(&spans, 12, &bullet, &hang)),
            ["• the quick", "  brown fox", "  jumps"]
        );
        assert_eq!(
            texts(&wrap(&[Span::plain("abcdefghij")], 4, &[], &[])),
            ["abcd", "efgh", "ij"]
        );
        assert_eq!(
            texts(&wrap(&[Span::plain("中文中文中")], 4, &[], &[])),
            ["中文", "中文", "中"]
        );
        assert_eq!(texts(&wrap(&[], 4, &[Span::plain("> ")], &[])), ["> "]);
        let styled = [
            Span::plain("a "),
            Span::new("bo", Style::plain().bold()),
            Span::plain("ld c"),
        ];
        assert_eq!(texts(&wrap(&styled, 6, &[], &[])), ["a bold", "c"]);
    }

    #[test]
    fn wraps_code_keeping_indent() {
        let spans = [Span::plain("    let x = 1234567890;")];
        assert_eq!(
            texts(&wrap_preformatted(&spans, 12)),
            ["    let x = ", "    12345678", "    90;"]
        );
    }
}
