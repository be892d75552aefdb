//! Server-sent events as lines: bytes in, split anywhere (even inside a UTF-8 character), whole
//! lines out.
//!
//! Lines end at `\n`; a trailing `\r` is dropped. A line longer than the limit is an error the
//! caller names. What a line means (`data:`, `event:`, comments, end markers) is the protocol's
//! business: each decoder reads the lines it is handed.

/// Longest line any decoder accepts (32 MiB).
pub const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// What the line handler wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Hand over the next line.
    Continue,
    /// The stream has ended: the rest of the input is dropped.
    Stop,
}

/// The part of a line that has not ended yet, kept between chunks.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    pending: Vec<u8>,
    max_line_bytes: usize,
}

impl LineSplitter {
    /// A splitter refusing lines longer than `max_line_bytes` (at most [`MAX_LINE_BYTES`]).
    #[must_use]
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            pending: Vec::new(),
            max_line_bytes: max_line_bytes.min(MAX_LINE_BYTES),
        }
    }

    /// The line limit in bytes.
    #[must_use]
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Hands each line that `bytes` completes to `line` (without its `\n` and trailing `\r`),
    /// until it answers [`Flow::Stop`]; keeps the unfinished rest for the next call.
    ///
    /// # Errors
    /// `too_long()` when a line passes the limit; whatever `line` returns.
    pub fn feed<E>(
        &mut self,
        mut bytes: &[u8],
        mut line: impl FnMut(&[u8]) -> Result<Flow, E>,
        too_long: impl Fn() -> E,
    ) -> Result<Flow, E> {
        if !self.pending.is_empty() {
            let Some(newline) = find_newline(bytes) else {
                if self.pending.len().saturating_add(bytes.len()) > self.max_line_bytes {
                    return Err(too_long());
                }
                self.pending.extend_from_slice(bytes);
                return Ok(Flow::Continue);
            };
            let (head, rest) = bytes.split_at_checked(newline).unwrap_or((bytes, &[]));
            if self.pending.len().saturating_add(head.len()) > self.max_line_bytes {
                return Err(too_long());
            }
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(head);
            let flow = line(strip_cr(&joined));
            joined.clear();
            self.pending = joined;
            if flow? == Flow::Stop {
                return Ok(Flow::Stop);
            }
            bytes = rest.get(1..).unwrap_or_default();
        }
        loop {
            match find_newline(bytes) {
                Some(newline) => {
                    if newline > self.max_line_bytes {
                        return Err(too_long());
                    }
                    let (head, rest) = bytes.split_at_checked(newline).unwrap_or((bytes, &[]));
                    if line(strip_cr(head))? == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                    bytes = rest.get(1..).unwrap_or_default();
                }
                None => {
                    if bytes.len() > self.max_line_bytes {
                        return Err(too_long());
                    }
                    self.pending.extend_from_slice(bytes);
                    return Ok(Flow::Continue);
                }
            }
        }
    }

    /// The last line, when the input ended without a `\n` after it (trailing `\r` dropped).
    pub fn take_rest(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            return None;
        }
        let mut rest = std::mem::take(&mut self.pending);
        if rest.last() == Some(&b'\r') {
            rest.pop();
        }
        Some(rest)
    }

    /// Forgets the unfinished line (after an error, or once the stream ended).
    pub fn clear(&mut self) {
        self.pending = Vec::new();
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn find_newline(bytes: &[u8]) -> Option<usize> {
    super::bytes::find_byte(bytes, b'\n')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn split(
        chunks: &[&[u8]],
        limit: usize,
    ) -> Result<(Vec<String>, Option<Vec<u8>>), &'static str> {
        let mut splitter = LineSplitter::new(limit);
        let mut lines = Vec::new();
        for chunk in chunks {
            let flow = splitter.feed(
                chunk,
                |line| {
                    lines.push(String::from_utf8_lossy(line).into_owned());
                    Ok(if line == b"stop" {
                        Flow::Stop
                    } else {
                        Flow::Continue
                    })
                },
                || "too long",
            )?;
            if flow == Flow::Stop {
                break;
            }
        }
        Ok((lines, splitter.take_rest()))
    }

    #[test]
    fn lines_across_every_cut() {
        let text = b"data: a\r\n\nid: \xc3\xa9\nlast\r";
        for cut in 0..=text.len() {
            let (head, tail) = text.split_at(cut);
            let (lines, rest) = split(&[head, tail], 64).unwrap();
            assert_eq!(lines, ["data: a", "", "id: é"], "cut at {cut}");
            assert_eq!(rest.as_deref(), Some(&b"last"[..]));
        }
    }

    #[test]
    fn stop_drops_the_rest_and_long_lines_fail() {
        let (lines, _) = split(&[b"a\nstop\nb\n"], 64).unwrap();
        assert_eq!(lines, ["a", "stop"]);
        assert_eq!(split(&[b"0123", b"45678\n"], 8), Err("too long"));
        assert_eq!(split(&[b"012345678"], 8), Err("too long"));
        assert!(split(&[b"01234567\n"], 8).is_ok());
    }
}
