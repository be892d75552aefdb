//! Stream cursors (fxbot DESIGN §8.3): a line's cursor is `turn · 2^21 + k`, where `k ≥ 1`
//! counts the lines of the turn and its `turn_end` always has `k` = [`MAX_K`] (2^21 − 1), so
//! every cursor is a whole number ≤ 2^53 − 1, exact as a JavaScript number, and a cursor at a
//! turn's end says so by itself. `turn · 2^21` (k = 0) is the cursor `send` returns: streaming from it gives
//! that turn onward. A cursor from outside is checked: anything but a whole number from 0 to
//! 2^53 − 1 is refused.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::args::Arg;
use super::shown::kind_of;

/// Bits of `k`.
pub const K_BITS: u32 = 21;
/// The largest `k`, the `turn_end`'s: a turn holds at most this many lines.
pub const MAX_K: u32 = (1 << K_BITS) - 1;
/// The largest cursor, `2^53 − 1` (`Number.MAX_SAFE_INTEGER`).
pub const MAX_CURSOR: u64 = (1 << 53) - 1;

/// A position in a chat's stream: line `k` of turn `turn`. Ordered as the numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Cursor {
    turn: u32,
    k: u32,
}

/// A cursor argument that is not a whole number from 0 to 2^53 − 1.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CursorError {
    #[error("cursor must be a number, not {found}")]
    NotANumber { found: &'static str },
    #[error("cursor must be a whole number from 0 to 9007199254740991; got {value}")]
    OutOfRange { value: String },
}

impl Cursor {
    /// Before every line: `stream(botId, 0)` replays the whole chat.
    pub const START: Cursor = Cursor { turn: 0, k: 0 };

    /// Line `k` of `turn`; `None` when `k` is over [`MAX_K`].
    pub fn new(turn: u32, k: u32) -> Option<Cursor> {
        (k <= MAX_K).then_some(Cursor { turn, k })
    }

    /// Before the first line of `turn` (`Sent.cursor`).
    pub fn before_turn(turn: u32) -> Cursor {
        Cursor { turn, k: 0 }
    }

    pub fn turn(self) -> u32 {
        self.turn
    }

    pub fn k(self) -> u32 {
        self.k
    }

    /// The next line of the same turn; `None` past [`MAX_K`].
    pub fn next_line(self) -> Option<Cursor> {
        Cursor::new(self.turn, self.k.checked_add(1)?)
    }

    /// The number on the wire.
    pub fn value(self) -> u64 {
        (u64::from(self.turn) << K_BITS) | u64::from(self.k)
    }

    /// The cursor of a whole number.
    ///
    /// # Errors
    /// [`CursorError::OutOfRange`] over 2^53 − 1.
    pub fn from_u64(value: u64) -> Result<Cursor, CursorError> {
        if value > MAX_CURSOR {
            return Err(CursorError::OutOfRange {
                value: value.to_string(),
            });
        }
        let turn = u32::try_from(value >> K_BITS).map_err(|_| CursorError::OutOfRange {
            value: value.to_string(),
        })?;
        let k = u32::try_from(value & u64::from(MAX_K)).unwrap_or(0);
        Ok(Cursor { turn, k })
    }

    /// The cursor of a JavaScript number.
    ///
    /// # Errors
    /// [`CursorError::OutOfRange`] for a fraction, a negative number, NaN, an infinity, or a
    /// number over 2^53 − 1.
    pub fn from_f64(value: f64) -> Result<Cursor, CursorError> {
        let out_of_range = || CursorError::OutOfRange {
            value: format!("{value}"),
        };
        // `-0` is 0; every other check rejects what is not a whole number in range.
        if !value.is_finite() || value.fract() != 0.0 || value < 0.0 || value > MAX_CURSOR as f64 {
            return Err(out_of_range());
        }
        // In range and whole, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Cursor::from_u64(value as u64).map_err(|_| out_of_range())
    }

    /// The cursor of an argument as the boundary decoded it (a JavaScript number).
    ///
    /// # Errors
    /// [`CursorError::NotANumber`] for another kind, else as [`Cursor::from_f64`].
    pub fn from_arg(arg: Arg<f64>) -> Result<Cursor, CursorError> {
        match arg {
            Arg::Given(number) => Cursor::from_f64(number),
            other => Err(CursorError::NotANumber {
                found: other.found(),
            }),
        }
    }

    /// The cursor of a JSON argument.
    ///
    /// # Errors
    /// [`CursorError::NotANumber`] for another type, else as [`Cursor::from_f64`].
    pub fn from_json(value: &serde_json::Value) -> Result<Cursor, CursorError> {
        let serde_json::Value::Number(number) = value else {
            return Err(CursorError::NotANumber {
                found: kind_of(value),
            });
        };
        if let Some(whole) = number.as_u64() {
            return Cursor::from_u64(whole);
        }
        match number.as_f64() {
            Some(float) => Cursor::from_f64(float),
            None => Err(CursorError::OutOfRange {
                value: number.to_string(),
            }),
        }
    }
}

impl Serialize for Cursor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.value())
    }
}

impl<'de> Deserialize<'de> for Cursor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Cursor::from_u64(u64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encoding() {
        assert_eq!(Cursor::new(1, 1).unwrap().value(), 2_097_153);
        assert_eq!(Cursor::before_turn(3).value(), 3 * 2_097_152);
        assert_eq!(Cursor::new(u32::MAX, MAX_K).unwrap().value(), MAX_CURSOR);
        assert_eq!(Cursor::new(1, MAX_K + 1), None);
        assert_eq!(Cursor::new(1, MAX_K).unwrap().next_line(), None);
        for value in [
            0,
            1,
            2_097_151,
            2_097_152,
            2_097_153,
            123_456_789_012,
            MAX_CURSOR,
        ] {
            let cursor = Cursor::from_u64(value).unwrap();
            assert_eq!(cursor.value(), value);
            assert_eq!(
                Cursor::from_u64(value + 1).map(|c| c > cursor),
                if value == MAX_CURSOR {
                    Err(CursorError::OutOfRange {
                        value: (MAX_CURSOR + 1).to_string(),
                    })
                } else {
                    Ok(true)
                }
            );
        }
        let c = Cursor::from_u64(5 * 2_097_152 + 7).unwrap();
        assert_eq!((c.turn(), c.k()), (5, 7));
        assert!(Cursor::new(2, 0).unwrap() > Cursor::new(1, MAX_K).unwrap());
    }

    #[test]
    fn arguments_from_javascript() {
        assert_eq!(Cursor::from_f64(0.0).unwrap(), Cursor::START);
        assert_eq!(Cursor::from_f64(-0.0).unwrap(), Cursor::START);
        assert_eq!(Cursor::from_f64(2_097_153.0).unwrap().k(), 1);
        assert_eq!(
            Cursor::from_f64(9_007_199_254_740_991.0).unwrap().value(),
            MAX_CURSOR
        );
        for bad in [
            1.5,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            9_007_199_254_740_992.0,
            1e300,
        ] {
            assert!(Cursor::from_f64(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Cursor::from_f64(1.5).unwrap_err().to_string(),
            "cursor must be a whole number from 0 to 9007199254740991; got 1.5"
        );
        assert_eq!(Cursor::from_json(&json!(7)).unwrap().value(), 7);
        assert_eq!(Cursor::from_json(&json!(7.0)).unwrap().value(), 7);
        assert!(Cursor::from_json(&json!(-3)).is_err());
        assert!(Cursor::from_json(&json!(2.5)).is_err());
        assert_eq!(
            Cursor::from_json(&json!("7")).unwrap_err().to_string(),
            "cursor must be a number, not a string"
        );
        assert!(Cursor::from_json(&json!(null)).is_err());
        assert_eq!(Cursor::from_arg(Arg::Given(7.0)).unwrap().value(), 7);
        assert_eq!(
            Cursor::from_arg(Arg::Wrong("a string"))
                .unwrap_err()
                .to_string(),
            "cursor must be a number, not a string"
        );
        assert!(Cursor::from_arg(Arg::Absent).is_err());
    }

    #[test]
    fn serde_is_the_number() {
        let c = Cursor::new(2, 3).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), "4194307");
        assert_eq!(serde_json::from_str::<Cursor>("4194307").unwrap(), c);
        assert!(serde_json::from_str::<Cursor>("9007199254740992").is_err());
    }
}
