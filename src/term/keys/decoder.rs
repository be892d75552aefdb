//! The incremental decoder: buffering, the ground/paste/skip modes, and the Escape timeout.

use super::sequences::{step, Step};
use super::{
    InputEvent, KeyCode, KeyEvent, PasteRejection, OSC_LIMIT, PASTE_END, PASTE_LIMIT_BYTES,
    SEQUENCE_LIMIT,
};

#[derive(Debug, Clone, Default)]
enum Mode {
    #[default]
    Ground,
    Paste {
        data: Vec<u8>,
        overflow: bool,
    },
    /// Discarding an overlong CSI until its final byte.
    SkipCsi,
    /// Discarding an overlong OSC until BEL or ST.
    SkipOsc {
        after_esc: bool,
    },
}

/// Incremental input decoder. See the module documentation for the Escape timeout contract.
#[derive(Debug, Clone, Default)]
pub struct KeyDecoder {
    pub(super) buf: Vec<u8>,
    mode: Mode,
}

impl KeyDecoder {
    /// A decoder with nothing buffered.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes `bytes` (continuing whatever the previous call left open) and returns the events
    /// completed so far.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<InputEvent> {
        let mut out = Vec::new();
        self.buf.extend_from_slice(bytes);
        let mut pos = 0usize;
        while pos < self.buf.len() {
            let rest = self.buf.get(pos..).unwrap_or_default();
            let consumed = match &mut self.mode {
                Mode::Ground => match step(rest) {
                    Step::Event(ev, n) => {
                        out.push(ev);
                        n
                    }
                    Step::Skip(n) => n,
                    Step::PasteStart(n) => {
                        self.mode = Mode::Paste {
                            data: Vec::new(),
                            overflow: false,
                        };
                        n
                    }
                    Step::Incomplete => {
                        if rest.len() > OSC_LIMIT && rest.get(1) == Some(&b']') {
                            self.mode = Mode::SkipOsc { after_esc: false };
                            rest.len()
                        } else if rest.len() > SEQUENCE_LIMIT && rest.get(1) != Some(&b']') {
                            self.mode = Mode::SkipCsi;
                            rest.len()
                        } else {
                            break;
                        }
                    }
                },
                Mode::Paste { data, overflow } => {
                    let (n, done) = paste_chunk(rest, data, overflow);
                    if done {
                        let ev = finish_paste(std::mem::take(data), *overflow);
                        out.push(ev);
                        self.mode = Mode::Ground;
                    }
                    if n == 0 {
                        break;
                    }
                    n
                }
                Mode::SkipCsi => match rest.iter().position(|b| (0x40..=0x7e).contains(b)) {
                    Some(i) => {
                        self.mode = Mode::Ground;
                        i.saturating_add(1)
                    }
                    None => rest.len(),
                },
                Mode::SkipOsc { after_esc } => {
                    let mut n = 0usize;
                    let mut done = false;
                    for &b in rest {
                        n = n.saturating_add(1);
                        if b == 0x07 || (*after_esc && b == b'\\') {
                            done = true;
                            break;
                        }
                        *after_esc = b == 0x1b;
                    }
                    if done {
                        self.mode = Mode::Ground;
                    }
                    n
                }
            };
            pos = pos.saturating_add(consumed);
        }
        self.buf.drain(..pos.min(self.buf.len()));
        out
    }

    /// True when an `ESC` (or an unfinished sequence starting with one) is waiting: the caller
    /// should call [`Self::flush_pending`] if no input arrives within [`ESCAPE_TIMEOUT_MS`](super::ESCAPE_TIMEOUT_MS).
    #[must_use]
    pub fn escape_pending(&self) -> bool {
        matches!(self.mode, Mode::Ground) && self.buf.first() == Some(&0x1b)
    }

    /// Resolves a pending escape after the timeout: a lone `ESC` becomes the Escape key,
    /// `ESC [`, `ESC O` and `ESC ]` become Alt+`[`/`O`/`]`, and a longer unfinished sequence is
    /// dropped. Does nothing when [`Self::escape_pending`] is false.
    pub fn flush_pending(&mut self) -> Vec<InputEvent> {
        if !self.escape_pending() {
            return Vec::new();
        }
        let ev = match self.buf.as_slice() {
            [0x1b] => Some(KeyEvent::plain(KeyCode::Escape)),
            [0x1b, b @ (b'[' | b'O' | b']')] => Some(KeyEvent::alt(char::from(*b))),
            _ => None,
        };
        self.buf.clear();
        ev.map(InputEvent::Key).into_iter().collect()
    }

    /// Drops everything buffered (an open paste included).
    pub fn reset(&mut self) {
        self.buf.clear();
        self.mode = Mode::Ground;
    }
}

/// Collects paste bytes from `rest` into `data`. Returns the bytes consumed and whether the
/// end marker was reached. A tail that could be the start of the end marker is left unconsumed.
fn paste_chunk(rest: &[u8], data: &mut Vec<u8>, overflow: &mut bool) -> (usize, bool) {
    let mut push = |bytes: &[u8]| {
        if data.len().saturating_add(bytes.len()) > PASTE_LIMIT_BYTES {
            *overflow = true;
        } else if !*overflow {
            data.extend_from_slice(bytes);
        }
    };
    if let Some(i) = rest.windows(PASTE_END.len()).position(|w| w == PASTE_END) {
        push(rest.get(..i).unwrap_or_default());
        return (i.saturating_add(PASTE_END.len()), true);
    }
    let keep = (1..PASTE_END.len())
        .rev()
        .find(|&k| {
            rest.len() >= k
                && rest
                    .get(rest.len() - k..)
                    .is_some_and(|t| PASTE_END.starts_with(t))
        })
        .unwrap_or(0);
    let take = rest.len().saturating_sub(keep);
    push(rest.get(..take).unwrap_or_default());
    (take, false)
}

fn finish_paste(data: Vec<u8>, overflow: bool) -> InputEvent {
    if overflow {
        return InputEvent::PasteRejected(PasteRejection::TooLarge);
    }
    let Ok(text) = String::from_utf8(data) else {
        return InputEvent::PasteRejected(PasteRejection::InvalidUtf8);
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    InputEvent::Paste(out)
}
