//! Display width of text in terminal cells, and the character clusters the editor moves over.
//!
//! Widths follow what a terminal does when it advances the cursor: each code point counts on its
//! own (`wcwidth` style, via the `unicode-width` tables), so a zero-width joiner or a variation
//! selector adds nothing and every emoji in a ZWJ sequence adds its own width. That is what
//! xterm.js (with its Unicode 11 addon) and `vt100` do, so boxes and tables measured here line up
//! on screen. Clusters, on the other hand, group a base character with the marks, joiners,
//! selectors and skin-tone modifiers that follow it, so the cursor never lands inside one and a
//! single Backspace removes a whole emoji.

use unicode_width::UnicodeWidthChar;

/// Columns one character takes. Control characters take none.
#[must_use]
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Columns a string takes (sum of [`char_width`]). Control characters count as zero, so pass
/// text through [`crate::term::sanitize`] first.
#[must_use]
pub fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

const ZWJ: char = '\u{200D}';

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

fn extends_cluster(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{E0020}'..='\u{E007F}')
        || (c != ZWJ && !c.is_control() && c.width() == Some(0))
}

/// Byte offset where the cluster starting at `start` ends. Returns `s.len()` at the end of the
/// string and `start` itself when `start` is past the end or not on a char boundary.
#[must_use]
pub fn next_cluster_end(s: &str, start: usize) -> usize {
    let Some(rest) = s.get(start..) else {
        return start;
    };
    let mut chars = rest.char_indices().peekable();
    let Some((_, first)) = chars.next() else {
        return start;
    };
    let mut end = first.len_utf8();
    let mut prev = first;
    while let Some(&(i, c)) = chars.peek() {
        let joins = prev == ZWJ
            || c == ZWJ
            || (is_regional_indicator(prev) && is_regional_indicator(c) && i == first.len_utf8())
            || extends_cluster(c);
        if !joins || (first == '\r' || first == '\n') {
            break;
        }
        end = i + c.len_utf8();
        prev = c;
        chars.next();
    }
    start.saturating_add(end)
}

/// Byte offset where the cluster that ends at `end` starts (the previous cursor stop).
/// Returns 0 at the start of the string.
#[must_use]
pub fn prev_cluster_start(s: &str, end: usize) -> usize {
    if end == 0 || s.get(..end).is_none() {
        return 0;
    }
    // Walk forward from a safe point: the start of the line (clusters never cross '\n').
    let line_start = s.get(..end).and_then(|h| h.rfind('\n')).map_or(0, |i| {
        let after = i.saturating_add(1);
        if after == end {
            i
        } else {
            after
        }
    });
    let mut pos = line_start;
    loop {
        let next = next_cluster_end(s, pos);
        if next >= end || next == pos {
            return pos;
        }
        pos = next;
    }
}

/// The clusters of `s` in order, as string slices.
pub fn clusters(s: &str) -> impl Iterator<Item = &str> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let end = next_cluster_end(s, pos);
        if end == pos {
            return None;
        }
        let piece = s.get(pos..end);
        pos = end;
        piece
    })
}

/// The units a line may be broken between: clusters, except that a cluster wider than two cells
/// (a long joiner chain, which terminals draw code point by code point) is yielded one code
/// point at a time, so every unit fits in two cells.
pub fn break_units(s: &str) -> impl Iterator<Item = &str> + '_ {
    clusters(s).flat_map(|cl| {
        let split = str_width(cl) > 2;
        let mut rest = if split { "" } else { cl };
        let mut chars = if split { cl } else { "" };
        std::iter::from_fn(move || {
            if !rest.is_empty() {
                return Some(std::mem::take(&mut rest));
            }
            let c = chars.chars().next()?;
            let (head, tail) = chars.split_at(c.len_utf8());
            chars = tail;
            Some(head)
        })
    })
}

/// Cuts `s` to at most `max` columns without splitting a cluster, returning the kept prefix
/// and its width.
#[must_use]
pub fn truncate_to_width(s: &str, max: usize) -> (&str, usize) {
    let mut used = 0usize;
    let mut end = 0usize;
    for piece in clusters(s) {
        let w = str_width(piece);
        if used.saturating_add(w) > max {
            break;
        }
        used = used.saturating_add(w);
        end = end.saturating_add(piece.len());
    }
    (s.get(..end).unwrap_or(""), used)
}

/// `s` cut to at most `max` columns, ending in `…` when something was cut (never splits a
/// cluster).
#[must_use]
pub fn elide(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if str_width(s) <= max {
        return std::borrow::Cow::Borrowed(s);
    }
    if max == 0 {
        return std::borrow::Cow::Borrowed("");
    }
    let (kept, _) = truncate_to_width(s, max - 1);
    std::borrow::Cow::Owned(format!("{}…", kept.trim_end()))
}

/// The longest suffix of `s` that fits in `max` columns (never splits a cluster): the end of a
/// note being typed stays in view.
#[must_use]
pub fn tail_to_width(s: &str, max: usize) -> &str {
    let pieces: Vec<&str> = clusters(s).collect();
    let mut used = 0usize;
    let mut start = s.len();
    for piece in pieces.iter().rev() {
        let w = str_width(piece);
        if used.saturating_add(w) > max {
            break;
        }
        used = used.saturating_add(w);
        start = start.saturating_sub(piece.len());
    }
    s.get(start..).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_per_code_point() {
        let table: &[(&str, usize)] = &[
            ("abc", 3),
            ("中文", 4),
            ("👍", 2),
            ("e\u{301}", 1),
            ("👩\u{200d}👩\u{200d}👧", 6),
            ("\u{1b}[31m", 4),
            ("", 0),
        ];
        for (s, w) in table {
            assert_eq!(str_width(s), *w, "{s:?}");
        }
    }

    #[test]
    fn clusters_keep_sequences_whole() {
        let table: &[(&str, &[&str])] = &[
            ("ab", &["a", "b"]),
            ("e\u{301}x", &["e\u{301}", "x"]),
            ("👩\u{200d}👩\u{200d}👧!", &["👩\u{200d}👩\u{200d}👧", "!"]),
            ("👍🏽a", &["👍🏽", "a"]),
            ("🇫🇷🇩🇪", &["🇫🇷", "🇩🇪"]),
            ("❤\u{fe0f}x", &["❤\u{fe0f}", "x"]),
            ("a\nb", &["a", "\n", "b"]),
        ];
        for (s, want) in table {
            let got: Vec<&str> = clusters(s).collect();
            assert_eq!(&got, want, "{s:?}");
        }
    }

    #[test]
    fn prev_cluster_start_mirrors_next() {
        let s = "a👩\u{200d}👧e\u{301}\nb";
        let mut stops = vec![0];
        let mut p = 0;
        while p < s.len() {
            p = next_cluster_end(s, p);
            stops.push(p);
        }
        for w in stops.windows(2) {
            assert_eq!(prev_cluster_start(s, w[1]), w[0], "{stops:?}");
        }
    }

    #[test]
    fn break_units_split_only_wide_clusters() {
        let units: Vec<&str> = break_units("a👍🏽e\u{301}").collect();
        assert_eq!(units, ["a", "👍", "🏽", "e\u{301}"]);
        assert!(break_units("x\u{200d}y\u{200d}z").all(|u| str_width(u) <= 2));
    }

    #[test]
    fn truncation_respects_wide_chars() {
        assert_eq!(truncate_to_width("中文字", 5), ("中文", 4));
        assert_eq!(truncate_to_width("abc", 10), ("abc", 3));
        assert_eq!(truncate_to_width("👍🏽x", 1), ("", 0));
        assert_eq!(elide("abcdef", 6), "abcdef");
        assert_eq!(elide("abcdef", 4), "abc…");
        assert_eq!(elide("ab cdef", 4), "ab…");
        assert_eq!(elide("中文字", 4), "中…");
        assert_eq!(elide("abc", 0), "");
        assert_eq!(tail_to_width("hello world", 5), "world");
        assert_eq!(tail_to_width("中文字", 3), "字");
    }
}
