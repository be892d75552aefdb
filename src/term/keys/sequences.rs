//! Decoding of one event at a time from the ground state: C0 controls, UTF-8, the `ESC`
//! prefix, CSI (legacy, xterm modifiers, kitty `CSI u`, modifyOtherKeys), SS3 and OSC replies.

use super::{ColorScheme, InputEvent, KeyCode, KeyEvent, Modifiers, Rgb};

/// The result of decoding at the start of a buffer.
pub(super) enum Step {
    Event(InputEvent, usize),
    Skip(usize),
    PasteStart(usize),
    Incomplete,
}

fn key(code: KeyCode, mods: Modifiers, n: usize) -> Step {
    Step::Event(InputEvent::Key(KeyEvent::new(code, mods)), n)
}

/// Decodes one event from the start of `b` (ground state).
pub(super) fn step(b: &[u8]) -> Step {
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
