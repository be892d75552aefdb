//! The documents fxbot keeps in its document store (fxbot DESIGN §5.2), as serde types with one
//! canonical JSON form, and the pure read-modify-write functions a compare-and-set loop applies
//! to them (§5.3: read → apply → `commit(expectedRevision)`, re-applied on a conflict).
//!
//! - [`keys`]: the store keys (`bot/<id>`, `chat/<botId>`).
//! - [`bot`]: `bot/<id>`, a bot's fields and state; the update and pin rules; `Profile`.
//! - [`chat`]: `chat/<botId>`, a bot's messages by `messageId` (the idempotency claims) and its
//!   earlier chats.
//! - [`pins`]: `pins`, which bots are pinned (one document, so the limit holds under races).
//!
//! # Canonical JSON
//!
//! [`encode`] writes compact UTF-8 JSON with fields in declaration order and maps sorted by key,
//! so equal documents are equal bytes. Every document starts with `schema` ([`SCHEMA`]); a
//! document of a newer schema is refused rather than rewritten. Keys this version does not know
//! are kept (each document has an `extra` map) and written back, so an older tab never drops
//! what a newer one stored.

pub mod bot;
pub mod chat;
pub mod keys;
pub mod pins;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The schema this version writes and reads.
pub const SCHEMA: u32 = 1;

/// A stored document this version cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocError {
    #[error("the stored document {key} is damaged: {detail}")]
    Damaged { key: String, detail: String },
    #[error("the stored document {key} has schema {schema}, newer than this version reads ({SCHEMA}); update fx-wasm")]
    NewerSchema { key: String, schema: u64 },
}

/// The canonical bytes of a document.
pub fn encode<T: Serialize>(doc: &T) -> Vec<u8> {
    // Serializing these plain types to a Vec cannot fail (no maps with non-string keys, no
    // failing Serialize impls); an empty object is the impossible fallback.
    serde_json::to_vec(doc).unwrap_or_else(|_| b"{}".to_vec())
}

/// Reads a stored document.
///
/// # Errors
/// [`DocError::NewerSchema`] for a document of a newer schema, [`DocError::Damaged`] for bytes
/// that are not a document of this type.
pub fn decode<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T, DocError> {
    let damaged = |detail: String| DocError::Damaged {
        key: key.to_owned(),
        detail,
    };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| damaged(e.to_string()))?;
    match value.get("schema").map(serde_json::Value::as_u64) {
        Some(Some(schema)) if schema > u64::from(SCHEMA) => {
            return Err(DocError::NewerSchema {
                key: key.to_owned(),
                schema,
            })
        }
        Some(Some(_)) => {}
        _ => return Err(damaged("it has no schema number".to_owned())),
    }
    serde_json::from_value(value).map_err(|e| damaged(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_refuses_what_it_cannot_use() {
        let key = "chat/0123456789ab";
        assert_eq!(
            decode::<chat::ChatDoc>(key, b"not json").unwrap_err(),
            DocError::Damaged {
                key: key.into(),
                detail: "expected ident at line 1 column 2".into()
            }
        );
        assert!(matches!(
            decode::<chat::ChatDoc>(key, br#"{"earlier":[],"messages":{}}"#),
            Err(DocError::Damaged { .. })
        ));
        let newer = decode::<chat::ChatDoc>(key, br#"{"schema":2,"earlier":[],"messages":{}}"#);
        assert_eq!(
            newer.unwrap_err().to_string(),
            "the stored document chat/0123456789ab has schema 2, newer than this version reads (1); update fx-wasm"
        );
        assert!(
            decode::<chat::ChatDoc>(key, br#"{"schema":1,"earlier":[],"messages":{}}"#).is_ok()
        );
    }

    /// The fuzzer's find (fuzz/seeds/bot_docs/long-integer.json): a key this version does not
    /// know, holding a number past u64, is kept, its value read as the nearest f64 to within an
    /// ulp (serde_json without `float_roundtrip`; docs/DECISIONS.md, "Numbers in unknown keys").
    #[test]
    fn an_unknown_key_with_a_long_number_is_kept_to_within_an_ulp() {
        let key = "chat/0123456789ab";
        let stored = br#"{"schema":1,"earlier":[],"messages":{"m1":{"sessionId":"s1","turn":1,"state":"running","input":"i","files":[],"skills":[],"at":"2026-12-01T00:00:00.000Z","owner":"tab-a","later":{"n":77777777777777777777777777777777777777777777777777774}}}}"#;
        let doc = decode::<chat::ChatDoc>(key, stored).unwrap();
        let again = decode::<chat::ChatDoc>(key, &encode(&doc)).unwrap();
        let number = |d: &chat::ChatDoc| {
            d.messages.values().next().unwrap().extra["later"]["n"]
                .as_f64()
                .unwrap()
        };
        let (first, second) = (number(&doc), number(&again));
        assert!(((first - second) / first).abs() < 1e-15, "{first} {second}");
        assert!((first / 7.777_777_777_777_778e52 - 1.0).abs() < 1e-15);
    }
}
