//! Neutralises text from the model or from command output before it is drawn, so no control
//! sequence of its own ever reaches the host terminal.
//!
//! Kept: printable text, `\n` and `\t` (tabs can be expanded with [`expand_tabs`]). Removed:
//! whole escape sequences (CSI, OSC, DCS, SOS, PM, APC and two-byte `ESC x` forms, with their
//! parameters and payloads), C1 controls (U+0080–U+009F, which some terminals also obey), every
//! other C0 control and DEL, and the Unicode bidirectional controls (the embeddings and
//! overrides U+202A–U+202E, the isolates U+2066–U+2069 and the marks U+200E, U+200F, U+061C)
//! that can make text read differently from what it is. `\r\n` and a lone `\r`
//! both become `\n` (a progress bar then reads as successive lines instead of overwriting).
//!
//! [`Sanitizer`] does this incrementally: a sequence split across two deltas is still removed
//! whole. Payloads are skipped without buffering, so memory stays constant whatever the input.
//!
//! This is the one gate between outside text and the terminal: a
//! [`Span`](crate::term::style::Span) runs its text through [`sanitize_fragment`] when it is
//! built, and the writer only takes [`crate::term::ansi::Ansi`], which only spans, titles (also
//! sanitized) and the terminal's own sequences can fill.

use std::borrow::Cow;

/// Where the streaming state machine is between two chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After `ESC [` or C1 CSI: parameters until a final byte 0x40–0x7E.
    Csi,
    /// Inside an OSC/DCS/SOS/PM/APC string, until BEL or ST.
    Str,
    /// Inside a string, after ESC (a `\` ends the string).
    StrEscape,
    /// After `ESC` + an intermediate byte (e.g. `ESC ( B`): one more byte ends it.
    EscIntermediate,
    /// After `\r`: a following `\n` replaces it, anything else drops it.
    CarriageReturn,
}

/// Incremental neutraliser. Feed chunks in order; each call returns the safe text so far.
#[derive(Debug, Clone, Default)]
pub struct Sanitizer {
    state: State,
}

impl Sanitizer {
    /// A sanitizer at the start of a stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Neutralises `chunk`, continuing any sequence left open by the previous chunk.
    pub fn feed(&mut self, chunk: &str) -> String {
        let mut out = String::with_capacity(chunk.len());
        for c in chunk.chars() {
            self.step(c, &mut out);
        }
        out
    }

    /// Ends the stream: an open sequence is dropped; a pending `\r` is returned as `\n`.
    pub fn finish(&mut self) -> String {
        let pending_cr = self.state == State::CarriageReturn;
        self.state = State::Ground;
        if pending_cr {
            "\n".to_owned()
        } else {
            String::new()
        }
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.state {
            State::Ground => self.ground(c, out),
            State::CarriageReturn => {
                self.state = State::Ground;
                out.push('\n');
                if c != '\n' {
                    self.ground(c, out);
                }
            }
            // A C0 control (line end, tab, …) cuts an escape sequence short: the sequence is
            // dropped and the control handled as text, so no line is lost to a stray ESC.
            State::Escape | State::EscIntermediate if c < '\u{20}' && c != '\u{1b}' => {
                self.state = State::Ground;
                self.ground(c, out);
            }
            State::Escape => {
                self.state = match c {
                    '[' => State::Csi,
                    ']' | 'P' | 'X' | '^' | '_' => State::Str,
                    '\u{20}'..='\u{2F}' => State::EscIntermediate,
                    '\u{1b}' => State::Escape,
                    _ => State::Ground,
                };
            }
            State::EscIntermediate => {
                self.state = if ('\u{20}'..='\u{2F}').contains(&c) {
                    State::EscIntermediate
                } else if c == '\u{1b}' {
                    State::Escape
                } else {
                    State::Ground
                };
            }
            State::Csi => {
                if ('\u{40}'..='\u{7E}').contains(&c) {
                    self.state = State::Ground;
                } else if c == '\u{1b}' {
                    self.state = State::Escape;
                } else if !('\u{20}'..='\u{3F}').contains(&c) {
                    // Not part of a CSI: abandon it and treat the char as text.
                    self.state = State::Ground;
                    self.ground(c, out);
                }
            }
            State::Str => match c {
                '\u{07}' | '\u{9C}' => self.state = State::Ground,
                '\u{1b}' => self.state = State::StrEscape,
                _ => {}
            },
            State::StrEscape => {
                self.state = if c == '\\' { State::Ground } else { State::Str };
            }
        }
    }

    fn ground(&mut self, c: char, out: &mut String) {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => self.state = State::CarriageReturn,
            '\u{1b}' => self.state = State::Escape,
            '\u{9B}' => self.state = State::Csi,
            '\u{90}' | '\u{98}' | '\u{9D}' | '\u{9E}' | '\u{9F}' => self.state = State::Str,
            c if !is_safe_char(c) => {}
            c => out.push(c),
        }
    }
}

/// A bidirectional control: embeddings and overrides, isolates, and the directional marks.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A character that may be drawn as it is: not a control (C0, DEL, C1; `\n` and `\t`
/// included) and not a bidirectional control.
#[must_use]
pub fn is_safe_char(c: char) -> bool {
    !c.is_control() && !is_bidi_control(c)
}

/// Text for one cell run (a span): [`sanitize`]d, with line ends and tabs turned into spaces.
/// Text that is already safe is borrowed as it is.
#[must_use]
pub fn sanitize_fragment(text: &str) -> Cow<'_, str> {
    // Printable ASCII is the common case: a byte scan, then characters only when needed.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) || text.chars().all(is_safe_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(sanitize(text).replace(['\n', '\t'], " "))
}

/// Neutralises a complete text (see the module docs).
#[must_use]
pub fn sanitize(text: &str) -> String {
    let mut s = Sanitizer::new();
    let mut out = s.feed(text);
    out.push_str(&s.finish());
    out
}

/// Replaces each tab with spaces up to the next multiple of `tab_width` display columns,
/// counting columns from each line start. A `tab_width` of 0 removes tabs.
#[must_use]
pub fn expand_tabs(text: &str, tab_width: usize) -> String {
    if !text.contains('\t') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut col = 0usize;
    for c in text.chars() {
        match c {
            '\t' => {
                if tab_width > 0 {
                    let n = tab_width - col % tab_width;
                    out.extend(std::iter::repeat_n(' ', n));
                    col = col.saturating_add(n);
                }
            }
            '\n' => {
                out.push('\n');
                col = 0;
            }
            c => {
                out.push(c);
                col = col.saturating_add(super::width::char_width(c));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_sequences_and_controls() {
        let table: &[(&str, &str)] = &[
            ("plain text", "plain text"),
            ("a\u{1b}[31mred\u{1b}[0m", "ared"),
            ("\u{1b}]0;evil title\u{7}ok", "ok"),
            ("\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\", "link"),
            ("\u{1b}P1$qm\u{1b}\\after", "after"),
            ("\u{1b}[?1049h\u{1b}[2J\u{1b}[H", ""),
            ("\u{1b}(Bx", "x"),
            ("\u{1b}cx", "x"),
            ("bell\u{7} bs\u{8} del\u{7f}", "bell bs del"),
            ("\u{9b}31mc1", "c1"),
            ("\u{9d}title\u{9c}z", "z"),
            ("crlf\r\nline", "crlf\nline"),
            ("10%\r50%\r100%", "10%\n50%\n100%"),
            ("tab\tkept\n", "tab\tkept\n"),
            ("rtl\u{202E}txt", "rtltxt"),
            (
                "i\u{2066}s\u{2067}o\u{2068}l\u{2069}\u{200e}\u{200f}\u{61c}",
                "isol",
            ),
            (
                "\u{1b}_apc\u{1b}\\\u{1b}^pm\u{1b}\\\u{1b}Xsos\u{1b}\\k",
                "k",
            ),
            (
                "\u{9f}apc\u{9c}\u{9e}pm\u{9c}\u{98}sos\u{9c}\u{90}dcs\u{9c}\u{85}k",
                "k",
            ),
            (
                "\u{1b}]52;c;RVZJTA==\u{7}\u{1b}]8;;javascript:alert(1)\u{7}x",
                "x",
            ),
            ("wide 中 👍", "wide 中 👍"),
            ("\u{1b}[", ""),
            (
                "bare\u{1b}\nline\u{1b}\r\nnext\u{1b}\tx\u{1b}",
                "bare\nline\nnext\tx",
            ),
            ("esc sp\u{1b} Fx\u{1b}(\u{1b}[1my", "esc spxy"),
        ];
        for (input, want) in table {
            assert_eq!(sanitize(input), *want, "{input:?}");
        }
    }

    #[test]
    fn sequences_split_across_chunks_are_removed_whole() {
        let input = "x\u{1b}]11;rgb:0/0/0\u{1b}\\y\u{1b}[38;5;1mz\r\nw";
        let chars: Vec<char> = input.chars().collect();
        for cut in 0..=chars.len() {
            let (a, b) = chars.split_at(cut);
            let mut s = Sanitizer::new();
            let mut out = s.feed(&a.iter().collect::<String>());
            out.push_str(&s.feed(&b.iter().collect::<String>()));
            assert_eq!(out, "xyz\nw", "cut at {cut}");
        }
    }

    #[test]
    fn fragments_are_single_row_and_borrowed_when_safe() {
        assert!(matches!(
            sanitize_fragment("plain 中"),
            Cow::Borrowed("plain 中")
        ));
        assert_eq!(sanitize_fragment("a\tb\nc\u{1b}[2Jd\u{7}"), "a b cd");
        assert_eq!(sanitize_fragment("\u{1b}]0;t\u{7}\u{202e}x"), "x");
    }

    #[test]
    fn tabs_expand_to_stops() {
        assert_eq!(expand_tabs("a\tb", 4), "a   b");
        assert_eq!(expand_tabs("\tx\nab\ty", 4), "    x\nab  y");
        assert_eq!(expand_tabs("中\tx", 4), "中  x");
        assert_eq!(expand_tabs("a\tb", 0), "ab");
    }
}
