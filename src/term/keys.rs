//! Decodes the bytes a terminal (xterm.js in particular) sends as input into key presses,
//! pastes, focus changes and the replies to our own queries (colour scheme, background colour,
//! device attributes, cursor position).
//!
//! The decoder never blocks and never waits on its own. A lone `ESC` may be the Escape key or
//! the start of a sequence whose remaining bytes are still in flight, so [`KeyDecoder::feed`]
//! keeps it and [`KeyDecoder::escape_pending`] turns true; the caller arms a timer for
//! [`ESCAPE_TIMEOUT_MS`] and, if no more input came by then, calls
//! [`KeyDecoder::flush_pending`], which resolves it (usually to [`KeyCode::Escape`]). Feeding
//! more bytes first simply continues the sequence. Because the caller's own timer drives this, it
//! works the same while a turn is running.
//!
//! Memory is bounded: an unfinished sequence is kept only up to a small limit (longer ones are
//! skipped to their end), and a bracketed paste is collected up to [`PASTE_LIMIT_BYTES`].
//! Unknown or malformed sequences are swallowed and never reach the draft as text.

use std::ops::BitOr;

/// How long a lone `ESC` waits for a follow-up byte before it counts as the Escape key.
pub const ESCAPE_TIMEOUT_MS: u32 = 30;
/// Largest bracketed paste accepted; a larger one is reported as [`PasteRejection::TooLarge`].
pub const PASTE_LIMIT_BYTES: usize = 8 * 1024 * 1024;
/// Longest CSI/SS3 sequence kept while incomplete; longer ones are skipped to their final byte.
const SEQUENCE_LIMIT: usize = 64;
/// Longest OSC reply kept while incomplete; longer ones are skipped to their terminator.
const OSC_LIMIT: usize = 512;
const PASTE_END: &[u8] = b"\x1b[201~";

/// Modifier keys held with a key (a small bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Modifiers(u8);

impl Modifiers {
    /// No modifier.
    pub const NONE: Self = Self(0);
    /// Shift.
    pub const SHIFT: Self = Self(1);
    /// Alt / Option (also reported for an `ESC` prefix).
    pub const ALT: Self = Self(2);
    /// Control.
    pub const CTRL: Self = Self(4);
    /// Cmd on macOS, Super/Windows elsewhere.
    pub const SUPER: Self = Self(8);

    /// True when every modifier in `other` is held.
    #[must_use]
    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// True when no modifier is held.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// These modifiers without the ones in `other`.
    #[must_use]
    pub fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// Decodes the xterm/kitty modifier parameter (`1 + bitmask`). Caps Lock and Num Lock are
    /// ignored; kitty's Meta counts as Alt.
    #[must_use]
    pub fn from_param(param: u32) -> Self {
        let bits = param.saturating_sub(1);
        let mut m = bits & 0x0f;
        if bits & 0x20 != 0 {
            m |= Self::ALT.0 as u32;
        }
        Self(u8::try_from(m).unwrap_or(0))
    }
}

impl BitOr for Modifiers {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// Which key was pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCode {
    /// A character. Ctrl+letter arrives as the lowercase letter with [`Modifiers::CTRL`];
    /// Ctrl+J (a bare line feed) as `'j'` with Ctrl.
    Char(char),
    /// Enter / Return (`\r`).
    Enter,
    /// Tab; Shift+Tab is Tab with [`Modifiers::SHIFT`].
    Tab,
    /// Backspace (DEL `0x7f` or BS `0x08`).
    Backspace,
    /// Escape (a lone `ESC`, resolved by the caller's timeout).
    Escape,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Insert.
    Insert,
    /// Delete (forward).
    Delete,
    /// Function key F1–F12.
    F(u8),
}

/// A key press with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyEvent {
    /// The key.
    pub code: KeyCode,
    /// Modifiers held.
    pub mods: Modifiers,
}

impl KeyEvent {
    /// A key with modifiers.
    #[must_use]
    pub fn new(code: KeyCode, mods: Modifiers) -> Self {
        Self { code, mods }
    }

    /// A key with no modifier.
    #[must_use]
    pub fn plain(code: KeyCode) -> Self {
        Self::new(code, Modifiers::NONE)
    }

    /// Ctrl + `c`.
    #[must_use]
    pub fn ctrl(c: char) -> Self {
        Self::new(KeyCode::Char(c), Modifiers::CTRL)
    }

    /// Alt + `c`.
    #[must_use]
    pub fn alt(c: char) -> Self {
        Self::new(KeyCode::Char(c), Modifiers::ALT)
    }
}

/// The terminal's colour scheme, from a `CSI ? 997 ; n n` report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorScheme {
    /// Dark background.
    Dark,
    /// Light background.
    Light,
}

/// An RGB colour with 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
}

impl Rgb {
    /// True for a light colour (relative luminance above one half).
    #[must_use]
    pub fn is_light(self) -> bool {
        let l = 299 * u32::from(self.r) + 587 * u32::from(self.g) + 114 * u32::from(self.b);
        l > 127_500
    }
}

/// Why a bracketed paste was not delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasteRejection {
    /// More than [`PASTE_LIMIT_BYTES`].
    TooLarge,
    /// Not valid UTF-8.
    InvalidUtf8,
}

/// One decoded input event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputEvent {
    /// A key press.
    Key(KeyEvent),
    /// A bracketed paste: `\r\n` and `\r` turned into `\n`, control characters other than `\n`
    /// and `\t` dropped.
    Paste(String),
    /// A bracketed paste that was dropped.
    PasteRejected(PasteRejection),
    /// Focus gained (`true`, `CSI I`) or lost (`false`, `CSI O`).
    Focus(bool),
    /// A colour-scheme report (`CSI ? 997 ; 1 n` dark, `; 2 n` light).
    ColorScheme(ColorScheme),
    /// The reply to an `OSC 11 ; ?` background-colour query.
    BackgroundColor(Rgb),
    /// A primary device attributes reply (`CSI ? … c`), used as a reply fence.
    DeviceAttributes,
    /// A cursor position report (`CSI row ; col R`), 1-based. Note that xterm encodes
    /// Shift/Ctrl+F3 the same way (`CSI 1 ; m R`); those keys are reported as positions.
    CursorPosition {
        /// Row, from 1.
        row: u16,
        /// Column, from 1.
        col: u16,
    },
}

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

enum Step {
    Event(InputEvent, usize),
    Skip(usize),
    PasteStart(usize),
    Incomplete,
}

/// Incremental input decoder. See the module documentation for the Escape timeout contract.
#[derive(Debug, Clone, Default)]
pub struct KeyDecoder {
    buf: Vec<u8>,
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
    /// should call [`Self::flush_pending`] if no input arrives within [`ESCAPE_TIMEOUT_MS`].
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

fn key(code: KeyCode, mods: Modifiers, n: usize) -> Step {
    Step::Event(InputEvent::Key(KeyEvent::new(code, mods)), n)
}

/// Decodes one event from the start of `b` (ground state).
fn step(b: &[u8]) -> Step {
    let Some(&b0) = b.first() else {
        return Step::Incomplete;
    };
    match b0 {
        0x1b => escape(b),
        0x00..=0x1f | 0x7f => match control(b0) {
            Some(k) => Step::Event(InputEvent::Key(k), 1),
            None => Step::Skip(1),
        },
        0x20..=0x7e => key(KeyCode::Char(char::from(b0)), Modifiers::NONE, 1),
        _ => match utf8_char(b) {
            Utf8::Char(c, n) => key(KeyCode::Char(c), Modifiers::NONE, n),
            Utf8::Incomplete => Step::Incomplete,
            Utf8::Invalid => Step::Skip(1),
        },
    }
}

fn control(b: u8) -> Option<KeyEvent> {
    let k = match b {
        0x0d => KeyEvent::plain(KeyCode::Enter),
        0x09 => KeyEvent::plain(KeyCode::Tab),
        0x08 | 0x7f => KeyEvent::plain(KeyCode::Backspace),
        0x00 => KeyEvent::ctrl(' '),
        0x01..=0x1a => KeyEvent::ctrl(char::from(b'a'.saturating_add(b).saturating_sub(1))),
        0x1c => KeyEvent::ctrl('\\'),
        0x1d => KeyEvent::ctrl(']'),
        0x1e => KeyEvent::ctrl('^'),
        0x1f => KeyEvent::ctrl('_'),
        _ => return None,
    };
    Some(k)
}

enum Utf8 {
    Char(char, usize),
    Incomplete,
    Invalid,
}

fn utf8_char(b: &[u8]) -> Utf8 {
    let Some(&lead) = b.first() else {
        return Utf8::Incomplete;
    };
    let len = match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Utf8::Invalid,
    };
    let avail = b.len().min(len);
    // Continuation bytes seen so far must be valid even before the char is complete.
    if b.iter().take(avail).skip(1).any(|&c| c & 0xc0 != 0x80) {
        return Utf8::Invalid;
    }
    let Some(bytes) = b.get(..len) else {
        return Utf8::Incomplete;
    };
    match std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => Utf8::Char(c, len),
        None => Utf8::Invalid,
    }
}

fn escape(b: &[u8]) -> Step {
    let Some(&b1) = b.get(1) else {
        return Step::Incomplete;
    };
    match b1 {
        b'[' => csi(b),
        b'O' => ss3(b),
        b']' => osc(b),
        0x0d | 0x0a => key(KeyCode::Enter, Modifiers::ALT, 2),
        0x7f | 0x08 => key(KeyCode::Backspace, Modifiers::ALT, 2),
        0x09 => key(KeyCode::Tab, Modifiers::ALT, 2),
        // ESC then another control byte (or ESC): the first is the Escape key; the byte that
        // follows is decoded on its own.
        0x00..=0x1f => key(KeyCode::Escape, Modifiers::NONE, 1),
        0x20..=0x7e => key(KeyCode::Char(char::from(b1)), Modifiers::ALT, 2),
        _ => match utf8_char(b.get(1..).unwrap_or_default()) {
            Utf8::Char(c, n) => key(KeyCode::Char(c), Modifiers::ALT, n.saturating_add(1)),
            Utf8::Incomplete => Step::Incomplete,
            Utf8::Invalid => key(KeyCode::Escape, Modifiers::NONE, 1),
        },
    }
}

fn ss3(b: &[u8]) -> Step {
    // ESC O [digits] final
    let body = b.get(2..).unwrap_or_default();
    let digits = body.iter().take_while(|c| c.is_ascii_digit()).count();
    let Some(&fin) = body.get(digits) else {
        return Step::Incomplete;
    };
    let n = digits.saturating_add(3);
    let mods =
        Modifiers::from_param(parse_u32(body.get(..digits).unwrap_or_default()).unwrap_or(1));
    let code = match fin {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        b'M' => KeyCode::Enter,
        0x40..=0x7e => return Step::Skip(n),
        // Not an SS3 after all: ESC O was Alt+Shift+o, then decode the rest normally.
        _ => return key(KeyCode::Char('O'), Modifiers::ALT, 2),
    };
    key(code, mods, n)
}

fn osc(b: &[u8]) -> Step {
    let body = b.get(2..).unwrap_or_default();
    let mut i = 0usize;
    while let Some(&c) = body.get(i) {
        let (end, term_len) = match c {
            0x07 => (i, 1),
            0x1b => match body.get(i.saturating_add(1)) {
                Some(b'\\') => (i, 2),
                // Broken reply: drop what we have and decode from this ESC.
                Some(_) => return Step::Skip(i.saturating_add(2)),
                None => return Step::Incomplete,
            },
            _ => {
                i = i.saturating_add(1);
                continue;
            }
        };
        let total = end.saturating_add(2).saturating_add(term_len);
        return match body.get(..end).and_then(parse_osc_color) {
            Some(rgb) => Step::Event(InputEvent::BackgroundColor(rgb), total),
            None => Step::Skip(total),
        };
    }
    Step::Incomplete
}

fn parse_osc_color(body: &[u8]) -> Option<Rgb> {
    let s = std::str::from_utf8(body).ok()?;
    let spec = s.strip_prefix("11;")?;
    let spec = spec
        .strip_prefix("rgb:")
        .or_else(|| spec.strip_prefix("rgba:"))?;
    let mut parts = spec.split('/');
    let mut channel = || -> Option<u8> {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 4 {
            return None;
        }
        let v = u32::from_str_radix(p, 16).ok()?;
        let max = (1u32 << (4 * p.len() as u32)).saturating_sub(1);
        u8::try_from(v.saturating_mul(255) / max.max(1)).ok()
    };
    Some(Rgb {
        r: channel()?,
        g: channel()?,
        b: channel()?,
    })
}

fn csi(b: &[u8]) -> Step {
    let body = b.get(2..).unwrap_or_default();
    let mut i = 0usize;
    let fin = loop {
        match body.get(i) {
            None => return Step::Incomplete,
            Some(&c @ 0x40..=0x7e) => break c,
            Some(0x20..=0x3f) => i = i.saturating_add(1),
            // A byte that cannot be inside a CSI: drop the sequence so far.
            Some(_) => return Step::Skip(i.saturating_add(2)),
        }
    };
    let n = i.saturating_add(3);
    let params = body.get(..i).unwrap_or_default();
    if fin == b'M' && params.is_empty() {
        // Legacy X10 mouse report: three raw bytes follow.
        return if b.len() >= 6 {
            Step::Skip(6)
        } else {
            Step::Incomplete
        };
    }
    match csi_event(params, fin) {
        CsiMeaning::Event(ev) => Step::Event(ev, n),
        CsiMeaning::PasteStart => Step::PasteStart(n),
        CsiMeaning::Ignore => Step::Skip(n),
    }
}

enum CsiMeaning {
    Event(InputEvent),
    PasteStart,
    Ignore,
}

/// Parameters split on `;`, each split on `:`; empty or non-numeric fields are `None`.
fn split_params(params: &[u8]) -> Vec<Vec<Option<u32>>> {
    params
        .split(|&c| c == b';')
        .map(|p| p.split(|&c| c == b':').map(parse_u32).collect())
        .collect()
}

fn parse_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0u32, |acc, d| {
        acc.saturating_mul(10)
            .saturating_add(u32::from(d.saturating_sub(b'0')))
    }))
}

fn csi_event(params: &[u8], fin: u8) -> CsiMeaning {
    use CsiMeaning::{Event, Ignore};
    let private = params
        .first()
        .copied()
        .filter(|c| matches!(c, b'<' | b'=' | b'>' | b'?'));
    let p = split_params(if private.is_some() {
        params.get(1..).unwrap_or_default()
    } else {
        params
    });
    let field = |i: usize, j: usize| p.get(i).and_then(|f| f.get(j)).copied().flatten();
    match private {
        Some(b'?') => {
            return match (fin, field(0, 0), field(1, 0)) {
                (b'n', Some(997), Some(1)) => Event(InputEvent::ColorScheme(ColorScheme::Dark)),
                (b'n', Some(997), Some(2)) => Event(InputEvent::ColorScheme(ColorScheme::Light)),
                (b'c', _, _) => Event(InputEvent::DeviceAttributes),
                _ => Ignore,
            }
        }
        Some(_) => return Ignore,
        None => {}
    }
    let mods = Modifiers::from_param(field(1, 0).unwrap_or(1));
    let ev = |code: KeyCode| Event(InputEvent::Key(KeyEvent::new(code, mods)));
    match fin {
        b'A' => ev(KeyCode::Up),
        b'B' => ev(KeyCode::Down),
        b'C' => ev(KeyCode::Right),
        b'D' => ev(KeyCode::Left),
        b'H' => ev(KeyCode::Home),
        b'F' => ev(KeyCode::End),
        b'P' => ev(KeyCode::F(1)),
        b'Q' => ev(KeyCode::F(2)),
        b'S' => ev(KeyCode::F(4)),
        b'Z' => Event(InputEvent::Key(KeyEvent::new(
            KeyCode::Tab,
            mods | Modifiers::SHIFT,
        ))),
        b'I' if params.is_empty() => Event(InputEvent::Focus(true)),
        b'O' if params.is_empty() => Event(InputEvent::Focus(false)),
        b'R' => match (field(0, 0), field(1, 0)) {
            (Some(r), Some(c)) => Event(InputEvent::CursorPosition {
                row: u16::try_from(r).unwrap_or(u16::MAX),
                col: u16::try_from(c).unwrap_or(u16::MAX),
            }),
            _ => Ignore,
        },
        b'~' => tilde(field(0, 0), mods, field(2, 0)),
        b'u' => {
            // kitty: code[:shifted[:base]] ; mods[:event] ; text
            if field(1, 1) == Some(3) {
                return Ignore; // key release
            }
            match field(0, 0).and_then(|c| key_from_code(c, mods)) {
                Some(k) => Event(InputEvent::Key(k)),
                None => Ignore,
            }
        }
        _ => Ignore,
    }
}

fn tilde(n: Option<u32>, mods: Modifiers, code: Option<u32>) -> CsiMeaning {
    let code = match n {
        Some(200) => return CsiMeaning::PasteStart,
        // modifyOtherKeys: CSI 27 ; mods ; code ~
        Some(27) => {
            return match code.and_then(|c| key_from_code(c, mods)) {
                Some(k) => CsiMeaning::Event(InputEvent::Key(k)),
                None => CsiMeaning::Ignore,
            }
        }
        Some(1 | 7) => KeyCode::Home,
        Some(4 | 8) => KeyCode::End,
        Some(2) => KeyCode::Insert,
        Some(3) => KeyCode::Delete,
        Some(5) => KeyCode::PageUp,
        Some(6) => KeyCode::PageDown,
        Some(f @ 11..=15) => KeyCode::F(fkey(f, 10)),
        Some(f @ 17..=21) => KeyCode::F(fkey(f, 11)),
        Some(f @ 23..=24) => KeyCode::F(fkey(f, 12)),
        _ => return CsiMeaning::Ignore,
    };
    CsiMeaning::Event(InputEvent::Key(KeyEvent::new(code, mods)))
}

fn fkey(n: u32, base: u32) -> u8 {
    u8::try_from(n.saturating_sub(base)).unwrap_or(0)
}

/// A key from a Unicode code point (kitty `CSI u`, modifyOtherKeys).
fn key_from_code(code: u32, mods: Modifiers) -> Option<KeyEvent> {
    let k = match code {
        13 => KeyCode::Enter,
        9 => KeyCode::Tab,
        27 => KeyCode::Escape,
        8 | 127 => KeyCode::Backspace,
        // kitty's private-use codes for keypad and media keys are not handled.
        0xe000..=0xf8ff => return None,
        c if c < 0x20 => {
            return control(u8::try_from(c).ok()?).map(|k| KeyEvent::new(k.code, k.mods | mods))
        }
        c => {
            let ch = char::from_u32(c)?;
            if mods == Modifiers::SHIFT && ch.is_lowercase() {
                let upper = ch.to_uppercase().next().unwrap_or(ch);
                return Some(KeyEvent::plain(KeyCode::Char(upper)));
            }
            KeyCode::Char(ch)
        }
    };
    Some(KeyEvent::new(k, mods))
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

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
