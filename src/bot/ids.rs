//! Ids of the bots layer: bot, provider, memory and library ids (12 lowercase hex characters,
//! minted from host randomness), the `mem:<id>` and `msg:<id>` reference forms, and the
//! `messageId` rule (1 to 128 of `[A-Za-z0-9._-]`).
//!
//! Every id type is a checked newtype: holding a [`BotId`] means the text is valid, so the engine
//! never re-checks it, and serde refuses an invalid one when a stored document is read.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::args::Arg;
use super::shown::{kind_of, shown};

/// Characters in a hex id.
pub const ID_HEX_LEN: usize = 12;
/// Random bytes behind one hex id.
pub const ID_BYTES: usize = ID_HEX_LEN / 2;
/// Longest `messageId`.
pub const MAX_MESSAGE_ID_LEN: usize = 128;
/// Prefix of a memory reference (`mem:<id>`).
pub const MEMORY_PREFIX: &str = "mem:";
/// Prefix of a message reference (`msg:<messageId>`).
pub const MESSAGE_PREFIX: &str = "msg:";

/// Which id an argument was meant to be (names it in messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Bot,
    Provider,
    Memory,
    Library,
    Message,
}

impl IdKind {
    /// The argument's name as the JS surface spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            IdKind::Bot => "botId",
            IdKind::Provider => "providerId",
            IdKind::Memory => "memoryId",
            IdKind::Library => "itemId",
            IdKind::Message => "messageId",
        }
    }
}

/// An id argument that breaks its rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Not a string at all.
    #[error("{} must be a string, not {found}", kind.as_str())]
    NotAString { kind: IdKind, found: &'static str },
    /// A hex id of the wrong shape.
    #[error(
        "{} must be 12 lowercase hex characters (0-9, a-f){}; got {shown}",
        kind.as_str(),
        if *kind == IdKind::Memory { ", optionally after mem:" } else { "" }
    )]
    NotHex { kind: IdKind, shown: String },
    /// A `messageId` (or `msg:` reference) of the wrong shape.
    #[error("messageId must be 1 to 128 letters, digits, '.', '_' or '-'; got {shown}")]
    BadMessageId { shown: String },
}

impl IdError {
    /// Which id was wrong.
    pub fn kind(&self) -> IdKind {
        match self {
            IdError::NotAString { kind, .. } | IdError::NotHex { kind, .. } => *kind,
            IdError::BadMessageId { .. } => IdKind::Message,
        }
    }
}

/// True when `text` is exactly 12 lowercase hex characters.
pub fn is_hex_id(text: &str) -> bool {
    text.len() == ID_HEX_LEN && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// True when `text` is a valid `messageId`.
pub fn is_message_id(text: &str) -> bool {
    (1..=MAX_MESSAGE_ID_LEN).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn hex(bytes: &[u8; ID_BYTES]) -> String {
    let mut out = String::with_capacity(ID_HEX_LEN);
    for b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            // A nibble is below 16, so from_digit always answers (lowercase).
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

fn string_of(value: &serde_json::Value, kind: IdKind) -> Result<&str, IdError> {
    value.as_str().ok_or(IdError::NotAString {
        kind,
        found: kind_of(value),
    })
}

fn string_arg(arg: Arg<String>, kind: IdKind) -> Result<String, IdError> {
    match arg {
        Arg::Given(text) => Ok(text),
        other => Err(IdError::NotAString {
            kind,
            found: other.found(),
        }),
    }
}

macro_rules! hex_id {
    ($(#[$doc:meta])* $name:ident, $kind:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Checks `text` (exactly 12 lowercase hex characters).
            ///
            /// # Errors
            /// [`IdError::NotHex`] for any other text.
            pub fn parse(text: &str) -> Result<Self, IdError> {
                if is_hex_id(text) {
                    Ok(Self(text.to_owned()))
                } else {
                    Err(IdError::NotHex { kind: $kind, shown: shown(text) })
                }
            }

            /// Checks a JSON argument (it must be a string).
            ///
            /// # Errors
            /// [`IdError::NotAString`] or [`IdError::NotHex`].
            pub fn from_json(value: &serde_json::Value) -> Result<Self, IdError> {
                Self::parse(string_of(value, $kind)?)
            }

            /// Checks an argument as the boundary decoded it (it must be a string).
            ///
            /// # Errors
            /// [`IdError::NotAString`] or [`IdError::NotHex`].
            pub fn from_arg(arg: Arg<String>) -> Result<Self, IdError> {
                Self::parse(&string_arg(arg, $kind)?)
            }

            /// The id of six random bytes.
            pub fn from_random_bytes(bytes: [u8; ID_BYTES]) -> Self {
                Self(hex(&bytes))
            }

            /// A fresh id from the host's randomness (`fill` fills the buffer it is given).
            pub fn mint(mut fill: impl FnMut(&mut [u8])) -> Self {
                let mut bytes = [0u8; ID_BYTES];
                fill(&mut bytes);
                Self::from_random_bytes(bytes)
            }

            /// The 12 hex characters.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(text: String) -> Result<Self, IdError> {
                if is_hex_id(&text) {
                    Ok(Self(text))
                } else {
                    Err(IdError::NotHex { kind: $kind, shown: shown(&text) })
                }
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

hex_id!(
    /// A bot's id (`Profile.id`).
    BotId,
    IdKind::Bot
);
hex_id!(
    /// A provider's id (`Provider.id`, a bot's `provider` field when not empty).
    ProviderId,
    IdKind::Provider
);
hex_id!(
    /// A memory's id; [`MemoryId::parse_ref`] also takes the `mem:<id>` form.
    MemoryId,
    IdKind::Memory
);
hex_id!(
    /// A library item's id (`LibraryItem.id`, `blob/<id>`).
    LibraryId,
    IdKind::Library
);

impl MemoryId {
    /// Checks a memory argument: `<id>` or `mem:<id>` (the seed accepts both everywhere).
    ///
    /// # Errors
    /// [`IdError::NotHex`] for any other text.
    pub fn parse_ref(text: &str) -> Result<Self, IdError> {
        match text.strip_prefix(MEMORY_PREFIX) {
            Some(rest) if is_hex_id(rest) => Ok(Self(rest.to_owned())),
            Some(_) => Err(IdError::NotHex {
                kind: IdKind::Memory,
                shown: shown(text),
            }),
            None => Self::parse(text),
        }
    }

    /// `mem:<id>`, the form tools and instructions show.
    pub fn reference(&self) -> String {
        format!("{MEMORY_PREFIX}{}", self.0)
    }
}

/// A client's `messageId`: 1 to 128 of `[A-Za-z0-9._-]`, unique per bot (the idempotency key).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct MessageId(String);

impl MessageId {
    /// Checks `text` against the messageId rule.
    ///
    /// # Errors
    /// [`IdError::BadMessageId`] for any other text.
    pub fn parse(text: &str) -> Result<Self, IdError> {
        if is_message_id(text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(IdError::BadMessageId { shown: shown(text) })
        }
    }

    /// Checks a JSON argument (it must be a string).
    ///
    /// # Errors
    /// [`IdError::NotAString`] or [`IdError::BadMessageId`].
    pub fn from_json(value: &serde_json::Value) -> Result<Self, IdError> {
        Self::parse(string_of(value, IdKind::Message)?)
    }

    /// Checks a message reference: `msg:<messageId>` or the bare id. A messageId never holds a
    /// `:`, so the two forms cannot be confused.
    ///
    /// # Errors
    /// [`IdError::BadMessageId`] for any other text.
    pub fn parse_ref(text: &str) -> Result<Self, IdError> {
        let bare = text.strip_prefix(MESSAGE_PREFIX).unwrap_or(text);
        if is_message_id(bare) {
            Ok(Self(bare.to_owned()))
        } else {
            Err(IdError::BadMessageId { shown: shown(text) })
        }
    }

    /// `msg:<messageId>`, the form `chat_history` and memories show.
    pub fn reference(&self) -> String {
        format!("{MESSAGE_PREFIX}{}", self.0)
    }

    /// The id itself.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for MessageId {
    type Error = IdError;
    fn try_from(text: String) -> Result<Self, IdError> {
        if is_message_id(&text) {
            Ok(Self(text))
        } else {
            Err(IdError::BadMessageId {
                shown: shown(&text),
            })
        }
    }
}

impl From<MessageId> for String {
    fn from(id: MessageId) -> String {
        id.0
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ids_are_twelve_lowercase_hex() {
        assert!(BotId::parse("0123456789ab").is_ok());
        for bad in [
            "",
            "0123456789a",
            "0123456789abc",
            "0123456789AB",
            "0123456789ag",
            "0123456789a ",
            "mem:0123456789ab",
            "٠١٢٣٤٥٦٧٨٩ab",
        ] {
            let err = BotId::parse(bad).unwrap_err();
            assert_eq!(err.kind(), IdKind::Bot, "{bad}");
        }
        assert_eq!(
            BotId::parse("0123456789abc").unwrap_err().to_string(),
            "botId must be 12 lowercase hex characters (0-9, a-f); got \"0123456789abc\""
        );
        assert_eq!(
            ProviderId::from_json(&serde_json::json!(7))
                .unwrap_err()
                .to_string(),
            "providerId must be a string, not a number"
        );
    }

    #[test]
    fn minting_uses_the_hosts_bytes() {
        let id = BotId::mint(|buf| {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = 0xf0 | u8::try_from(i).unwrap();
            }
        });
        assert_eq!(id.as_str(), "f0f1f2f3f4f5");
        assert_eq!(
            LibraryId::from_random_bytes([0, 1, 0xab, 0xcd, 0xef, 0xff]).as_str(),
            "0001abcdefff"
        );
        let mut calls = 0;
        let minted = ProviderId::mint(|buf| {
            calls += 1;
            assert_eq!(buf.len(), ID_BYTES);
            buf.fill(0x5a);
        });
        assert_eq!((calls, minted.as_str()), (1, "5a5a5a5a5a5a"));
    }

    #[test]
    fn memory_ids_take_both_forms() {
        let id = MemoryId::parse_ref("mem:00000000abcd").unwrap();
        assert_eq!(id, MemoryId::parse_ref("00000000abcd").unwrap());
        assert_eq!(id.reference(), "mem:00000000abcd");
        for bad in [
            "mem:",
            "mem:00000000ABCD",
            "MEM:00000000abcd",
            "mem:mem:00000000abcd",
        ] {
            let err = MemoryId::parse_ref(bad).unwrap_err();
            assert!(err.to_string().contains("optionally after mem:"), "{err}");
        }
        assert!(MemoryId::parse("mem:00000000abcd").is_err());
    }

    #[test]
    fn message_ids() {
        assert!(MessageId::parse("m1").is_ok());
        assert!(MessageId::parse("A.b_c-9").is_ok());
        assert!(MessageId::parse(&"x".repeat(128)).is_ok());
        for bad in ["", "a/b", "a b", "msg:m1", "é", &"x".repeat(129)] {
            assert!(MessageId::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            MessageId::parse("a/b").unwrap_err().to_string(),
            "messageId must be 1 to 128 letters, digits, '.', '_' or '-'; got \"a/b\""
        );
        let id = MessageId::parse_ref("msg:m1").unwrap();
        assert_eq!(id.as_str(), "m1");
        assert_eq!(id.reference(), "msg:m1");
        assert_eq!(MessageId::parse_ref("m1").unwrap(), id);
        assert!(MessageId::parse_ref("msg:").is_err());
        assert!(MessageId::parse_ref("msg:msg:m1").is_err());
    }

    #[test]
    fn serde_refuses_invalid_ids() {
        let id: BotId = serde_json::from_str("\"0123456789ab\"").unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"0123456789ab\"");
        assert!(serde_json::from_str::<BotId>("\"XYZ\"").is_err());
        assert!(serde_json::from_str::<MessageId>("\"a/b\"").is_err());
        let m: MessageId = serde_json::from_str("\"m-1\"").unwrap();
        assert_eq!(m.to_string(), "m-1");
    }
}
