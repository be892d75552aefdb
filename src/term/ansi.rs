//! The bytes the terminal is sent, as types that only the terminal's own sequences and
//! sanitized text can build.
//!
//! [`Ansi`] is the one thing [`crate::term::driver::TermEnv::write`] accepts. It grows only
//! by escape sequences written in this crate's source (`&'static str`), numbers (cursor
//! positions), a window title that is sanitized on the way in, and [`AnsiLine`]s, which only
//! [`crate::term::style::line_to_ansi`] makes from spans whose text passed
//! [`crate::term::sanitize`] when the span was built. Text from outside (model replies, command
//! output, titles, error messages) has a run-time lifetime, so it cannot pass itself off as a
//! sequence of ours: the compiler keeps it out of the writer unless it went through the gate.
//!
//! [`audit`] checks the other direction, for tests and fuzzers: every escape sequence in a byte
//! stream is one this module can write, and no other control character is there.

use std::fmt::Write as _;

use super::sanitize::{is_safe_char, sanitize};

/// One rendered row: span text (sanitized) and the SGR codes between spans. No line end.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnsiLine(String);

impl AnsiLine {
    /// Only the styled-line renderer builds rows (its spans hold sanitized text).
    pub(crate) fn from_rendered(text: String) -> Self {
        Self(text)
    }

    /// The row's bytes as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Bytes on their way to the terminal. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ansi(String);

impl Ansi {
    /// Nothing to write.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a sequence (or plain text) written in our own source.
    pub fn push_str(&mut self, own: &'static str) {
        self.0.push_str(own);
    }

    /// Appends a rendered row.
    pub fn push_line(&mut self, line: &AnsiLine) {
        self.0.push_str(&line.0);
    }

    /// Appends bytes `from..to` of a rendered row (a cell's text or its SGR sequence, as
    /// [`crate::term::app`] cut the row; a range off the character boundaries appends nothing).
    pub fn push_line_part(&mut self, line: &AnsiLine, from: usize, to: usize) {
        self.0.push_str(line.0.get(from..to).unwrap_or(""));
    }

    /// Appends `CSI n <final>` for the sequences whose count defaults to 1 (cursor moves `A`,
    /// `B`, `G`; insert and delete line `L`, `M`): a count of 1 is left out.
    pub fn csi(&mut self, n: usize, final_byte: &'static str) {
        if n == 1 {
            let _ = write!(self.0, "\u{1b}[{final_byte}");
        } else {
            let _ = write!(self.0, "\u{1b}[{n}{final_byte}");
        }
    }

    /// Appends `CSI row ; col H`.
    pub fn move_to(&mut self, row: usize, col: usize) {
        let _ = write!(self.0, "\u{1b}[{row};{col}H");
    }

    /// Sets the window title (OSC 2) to `text`, sanitized and cut to 128 characters.
    pub fn title(&mut self, text: &str) {
        let clean: String = sanitize(text)
            .chars()
            .map(|c| if is_safe_char(c) { c } else { ' ' })
            .take(128)
            .collect();
        let _ = write!(self.0, "\u{1b}]2;{clean}\u{7}");
    }

    /// The bytes to write.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The bytes as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes `own` at byte `at` when it is there (an unneeded synchronized-update start).
    pub fn remove_at(&mut self, at: usize, own: &'static str) {
        if self.0.get(at..).is_some_and(|rest| rest.starts_with(own)) {
            self.0.replace_range(at..at + own.len(), "");
        }
    }

    /// Takes the bytes, leaving nothing.
    pub fn take(&mut self) -> Ansi {
        std::mem::take(self)
    }
}

/// Which of our sequences a stream may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// One rendered row: SGR codes only, no line end.
    Row,
    /// Everything the app writes.
    Screen,
}

/// A byte stream held something the terminal never writes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// Byte offset of the offending sequence or character.
    pub offset: usize,
    /// What was found there (at most 40 characters, escapes spelled out).
    pub found: String,
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "foreign output at byte {}: {}", self.offset, self.found)
    }
}

/// SGR parameters we write: reset and attributes, each optional, then a 256-colour foreground.
fn own_sgr(params: &str) -> bool {
    let mut parts = params.split(';').peekable();
    if parts.peek().is_none() || params.is_empty() {
        return true;
    }
    while let Some(p) = parts.next() {
        match p {
            "0" | "1" | "2" | "3" | "4" | "9" => {}
            "38" => {
                let five = parts.next() == Some("5");
                let index = parts.next().is_some_and(|n| n.parse::<u8>().is_ok());
                if !(five && index) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

fn own_csi(params: &str, final_byte: char, allowed: Allowed) -> bool {
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match (allowed, final_byte) {
        (_, 'm') => own_sgr(params),
        (Allowed::Row, _) => false,
        // Cursor moves, insert and delete line; a count of 1 is written as none.
        (Allowed::Screen, 'A' | 'B' | 'G' | 'L' | 'M') => params.is_empty() || number(params),
        (Allowed::Screen, 'H') => {
            params.is_empty()
                || params
                    .split_once(';')
                    .is_some_and(|(r, c)| number(r) && c == "1")
        }
        (Allowed::Screen, 'J') => matches!(params, "" | "2" | "3"),
        (Allowed::Screen, 'K') => matches!(params, "" | "2"),
        (Allowed::Screen, 'h' | 'l') => {
            matches!(params, "?2004" | "?7" | "?2031" | "?2026" | "?25" | "?1049")
        }
        (Allowed::Screen, 'n') => params == "?996",
        (Allowed::Screen, 'c') => params.is_empty(),
        (Allowed::Screen, _) => false,
    }
}

fn spell(s: &str) -> String {
    s.chars()
        .take(40)
        .map(|c| match c {
            '\u{1b}' => "ESC".to_owned(),
            c if !is_safe_char(c) => format!("<U+{:04X}>", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

/// Checks that `stream` holds only printable text, `\r`/`\n` (on [`Allowed::Screen`]) and
/// sequences this module writes: SGR codes, cursor moves, erases, our modes and queries, the
/// OSC 2 title with safe text, and the OSC 11 background query.
///
/// # Errors
/// The first [`Foreign`] sequence or character.
pub fn audit(stream: &str, allowed: Allowed) -> Result<(), Foreign> {
    let mut rest = stream;
    let mut offset = 0usize;
    while let Some(c) = rest.chars().next() {
        let len = if c == '\u{1b}' {
            own_sequence(rest, allowed)
        } else if is_safe_char(c) || (allowed == Allowed::Screen && matches!(c, '\r' | '\n')) {
            Some(c.len_utf8())
        } else {
            None
        };
        let Some(len) = len else {
            return Err(Foreign {
                offset,
                found: spell(rest),
            });
        };
        offset += len;
        rest = rest.get(len..).unwrap_or("");
    }
    Ok(())
}

/// The length of our own sequence at the start of `s` (which starts with ESC), if it is one.
fn own_sequence(s: &str, allowed: Allowed) -> Option<usize> {
    let body = s.get(1..)?;
    if let Some(csi) = body.strip_prefix('[') {
        let end = csi.find(|c: char| !matches!(c, '0'..='9' | ';' | '?'))?;
        let final_byte = csi.get(end..)?.chars().next()?;
        let params = csi.get(..end)?;
        return own_csi(params, final_byte, allowed).then_some(2 + end + 1);
    }
    if allowed == Allowed::Row {
        return None;
    }
    if body.starts_with("]11;?\u{1b}\\") {
        return Some(1 + "]11;?\u{1b}\\".len());
    }
    let title = body.strip_prefix("]2;")?;
    let end = title.find(|c: char| !is_safe_char(c))?;
    (title.get(end..)?.starts_with('\u{7}')).then_some(1 + 3 + end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_accepts_our_sequences_and_refuses_others() {
        let ours = "\u{1b}[?2004h\u{1b}[?7l\u{1b}[?2031h\u{1b}[?996n\u{1b}]2;fx · a\u{7}\
                    \u{1b}[?2026h\u{1b}[3A\r\u{1b}[2Ka \u{1b}[0;1;38;5;245mb\u{1b}[0m\r\n\
                    \u{1b}[12;1H\u{1b}[J\u{1b}[H\u{1b}[2J\u{1b}[c\u{1b}]11;?\u{1b}\\\u{1b}[5G";
        assert_eq!(audit(ours, Allowed::Screen), Ok(()));
        for bad in [
            "\u{1b}]52;c;RVZJTA==\u{7}",
            "\u{1b}]0;t\u{7}",
            "\u{1b}]8;;javascript:x\u{1b}\\",
            "\u{1b}]2;a\u{1b}[31mb\u{7}",
            "\u{1b}P1$qm\u{1b}\\",
            "\u{1b}_apc\u{1b}\\",
            "\u{1b}[38;2;1;2;3m",
            "\u{1b}[5m",
            "\u{1b}[3;4H",
            "\u{1b}c",
            "\u{9b}2J",
            "\u{7}",
            "\u{202e}",
            "\u{2066}",
            "\u{8}",
        ] {
            assert!(audit(bad, Allowed::Screen).is_err(), "{bad:?}");
        }
        assert!(audit("a\r\n", Allowed::Row).is_err());
        assert!(audit("\u{1b}[2K", Allowed::Row).is_err());
        assert_eq!(audit("\u{1b}[0;3mx\u{1b}[0m", Allowed::Row), Ok(()));
    }

    #[test]
    fn titles_are_sanitized_and_bounded() {
        let mut out = Ansi::new();
        out.title("fx · \u{1b}]52;c;QQ==\u{7}evil\u{202e}\n · m");
        assert_eq!(out.as_str(), "\u{1b}]2;fx · evil  · m\u{7}");
        assert_eq!(audit(out.as_str(), Allowed::Screen), Ok(()));
        let mut long = Ansi::new();
        long.title(&"x".repeat(500));
        assert_eq!(long.len(), 4 + 128 + 1);
    }
}
