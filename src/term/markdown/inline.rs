//! Inline markdown: code spans, strong/emphasis/strikethrough, links, autolinks, images and
//! backslash escapes, turned into styled spans. Unmatched delimiters stay literal text.

use crate::term::style::{Span, Style, Tone};

/// Parses one line (or table cell) of inline markdown into spans over `base`.
pub(crate) fn parse_inline(text: &str, base: Style) -> Vec<Span> {
    let mut out = Vec::new();
    parse_into(text, base, &mut out);
    out
}

fn push(out: &mut Vec<Span>, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.style == style => last.push_str(text),
        _ => out.push(Span::new(text, style)),
    }
}

fn parse_into(text: &str, base: Style, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut plain_start = 0usize;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        let found = match b {
            b'\\' => bytes
                .get(i + 1)
                .filter(|c| c.is_ascii_punctuation())
                .map(|_| Found::Escaped(i + 2)),
            b'`' => code_span(text, i),
            b'*' | b'_' | b'~' => delimited(text, i),
            b'[' => link(text, i, false),
            b'!' if bytes.get(i + 1) == Some(&b'[') => link(text, i, true),
            b'<' => autolink(text, i),
            _ => None,
        };
        let Some(found) = found else {
            i += text
                .get(i..)
                .and_then(|t| t.chars().next())
                .map_or(1, char::len_utf8);
            continue;
        };
        push(out, text.get(plain_start..i).unwrap_or(""), base);
        let end = match found {
            Found::Escaped(end) => {
                push(out, text.get(i + 1..end).unwrap_or(""), base);
                end
            }
            Found::Code { content, end } => {
                push(out, content, base.fg(Tone::Secondary));
                end
            }
            Found::Styled { inner, style, end } => {
                parse_into(inner, style(base), out);
                end
            }
            Found::Link {
                label,
                url,
                image,
                end,
            } => {
                if image {
                    push(out, "[image: ", base.fg(Tone::Secondary));
                    push(out, label, base.fg(Tone::Secondary));
                    push(out, "]", base.fg(Tone::Secondary));
                } else {
                    parse_into(label, base.underline(), out);
                }
                if !url.is_empty() && url != label {
                    push(out, " (", base.fg(Tone::Secondary));
                    push(out, url, base.fg(Tone::Secondary));
                    push(out, ")", base.fg(Tone::Secondary));
                }
                end
            }
            Found::Autolink { url, end } => {
                push(out, url, base.underline());
                end
            }
        };
        i = end;
        plain_start = end;
    }
    push(out, text.get(plain_start..).unwrap_or(""), base);
}

enum Found<'a> {
    Escaped(usize),
    Code {
        content: &'a str,
        end: usize,
    },
    Styled {
        inner: &'a str,
        style: fn(Style) -> Style,
        end: usize,
    },
    Link {
        label: &'a str,
        url: &'a str,
        image: bool,
        end: usize,
    },
    Autolink {
        url: &'a str,
        end: usize,
    },
}

fn run_len(bytes: &[u8], at: usize, b: u8) -> usize {
    bytes
        .get(at..)
        .map_or(0, |t| t.iter().take_while(|&&c| c == b).count())
}

fn code_span(text: &str, at: usize) -> Option<Found<'_>> {
    let bytes = text.as_bytes();
    let n = run_len(bytes, at, b'`');
    let start = at + n;
    let mut j = start;
    while j < bytes.len() {
        if bytes.get(j) == Some(&b'`') {
            let m = run_len(bytes, j, b'`');
            if m == n {
                let raw = text.get(start..j)?;
                let content = if raw.len() > 2 && raw.starts_with(' ') && raw.ends_with(' ') {
                    raw.get(1..raw.len() - 1)?
                } else {
                    raw
                };
                return Some(Found::Code {
                    content,
                    end: j + m,
                });
            }
            j += m;
        } else {
            j += 1;
        }
    }
    None
}

fn delimited(text: &str, at: usize) -> Option<Found<'_>> {
    let bytes = text.as_bytes();
    let b = *bytes.get(at)?;
    let run = run_len(bytes, at, b);
    let (n, style): (usize, fn(Style) -> Style) = match (b, run) {
        (b'~', 2..) => (2, Style::strike),
        (b'~', _) => return None,
        (_, 3..) => (3, |s: Style| s.bold().italic()),
        (_, 2) => (2, Style::bold),
        _ => (1, Style::italic),
    };
    let after = bytes.get(at + n)?;
    if after.is_ascii_whitespace() {
        return None;
    }
    // `_` does not open inside a word (snake_case stays literal).
    if b == b'_' && at > 0 && bytes.get(at - 1).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let mut j = at + n;
    while j < bytes.len() {
        let c = *bytes.get(j)?;
        if c == b'`' {
            // Skip code spans: delimiters inside them do not count.
            if let Some(Found::Code { end, .. }) = code_span(text, j) {
                j = end;
                continue;
            }
        }
        if c == b && run_len(bytes, j, b) >= n {
            let before_ok = !bytes.get(j - 1).is_some_and(u8::is_ascii_whitespace);
            let after_ok = b != b'_' || !bytes.get(j + n).is_some_and(u8::is_ascii_alphanumeric);
            if before_ok && after_ok && j > at + n {
                return Some(Found::Styled {
                    inner: text.get(at + n..j)?,
                    style,
                    end: j + n,
                });
            }
            j += run_len(bytes, j, b);
            continue;
        }
        j += 1;
    }
    None
}

fn link(text: &str, at: usize, image: bool) -> Option<Found<'_>> {
    let bytes = text.as_bytes();
    let open = if image { at + 1 } else { at };
    let mut depth = 0usize;
    let mut j = open;
    let close = loop {
        match bytes.get(j)? {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break j;
                }
            }
            b'\\' => j += 1,
            _ => {}
        }
        j += 1;
    };
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    let url_start = close + 2;
    let url_end = url_start + text.get(url_start..)?.find(')')?;
    let url_field = text.get(url_start..url_end)?.trim();
    // Drop an optional title: [t](url "title")
    let url = url_field.split_whitespace().next().unwrap_or("");
    let url = url.trim_start_matches('<').trim_end_matches('>');
    Some(Found::Link {
        label: text.get(open + 1..close)?,
        url,
        image,
        end: url_end + 1,
    })
}

fn autolink(text: &str, at: usize) -> Option<Found<'_>> {
    let rest = text.get(at + 1..)?;
    let end = rest.find('>')?;
    let url = rest.get(..end)?;
    let is_url =
        (url.starts_with("http://") || url.starts_with("https://") || url.starts_with("mailto:"))
            && !url.contains(char::is_whitespace);
    is_url.then_some(Found::Autolink {
        url,
        end: at + 1 + end + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(spans: &[Span]) -> String {
        spans
            .iter()
            .map(|s| {
                let mut tag = String::new();
                if s.style.bold {
                    tag.push('B');
                }
                if s.style.italic {
                    tag.push('I');
                }
                if s.style.underline {
                    tag.push('U');
                }
                if s.style.strike {
                    tag.push('S');
                }
                if s.style.fg.is_some() {
                    tag.push('C');
                }
                if tag.is_empty() {
                    s.text().to_owned()
                } else {
                    format!("<{tag}:{}>", s.text())
                }
            })
            .collect()
    }

    #[test]
    fn inline_table() {
        let table: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("a **bold** b", "a <B:bold> b"),
            ("*it* and _it_", "<I:it> and <I:it>"),
            ("***both***", "<BI:both>"),
            ("~~gone~~", "<S:gone>"),
            ("use `x * y` here", "use <C:x * y> here"),
            ("``a ` b``", "<C:a ` b>"),
            ("snake_case_name", "snake_case_name"),
            ("2 * 3 * 4", "2 * 3 * 4"),
            ("**unclosed", "**unclosed"),
            ("`unclosed", "`unclosed"),
            ("\\*not\\*", "*not*"),
            ("[fx](https://fx.sh)", "<U:fx><C: (https://fx.sh)>"),
            ("[**b**](u)", "<BU:b><C: (u)>"),
            ("<https://x.y>", "<U:https://x.y>"),
            ("a < b > c", "a < b > c"),
            ("![logo](l.png)", "<C:[image: logo] (l.png)>"),
            ("**a `*` b**", "<B:a ><BC:*><B: b>"),
            ("中**文**", "中<B:文>"),
        ];
        for (input, want) in table {
            assert_eq!(
                show(&parse_inline(input, Style::plain())),
                *want,
                "{input:?}"
            );
        }
    }
}
