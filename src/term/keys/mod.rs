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

mod decoder;
mod sequences;

pub use decoder::KeyDecoder;

use std::ops::BitOr;

/// How long a lone `ESC` waits for a follow-up byte before it counts as the Escape key.
pub const ESCAPE_TIMEOUT_MS: u32 = 30;
/// Largest bracketed paste accepted; a larger one is reported as [`PasteRejection::TooLarge`].
pub const PASTE_LIMIT_BYTES: usize = 8 * 1024 * 1024;
/// Longest CSI/SS3 sequence kept while incomplete; longer ones are skipped to their final byte.
pub(crate) const SEQUENCE_LIMIT: usize = 64;
/// Longest OSC reply kept while incomplete; longer ones are skipped to their terminator.
pub(crate) const OSC_LIMIT: usize = 512;
pub(crate) const PASTE_END: &[u8] = b"\x1b[201~";

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

#[cfg(test)]
mod tests;
