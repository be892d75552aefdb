//! Turn notes: what the screen showed when a turn ended early that the event log has no field
//! for, so a resumed session can show it again — today a failed turn's message ("HTTP 500: …
//! (FX_GATEWAY_HTTP_ERROR)"). fx-wasm's own sidecar: carried in the session bytes as a
//! `#fx-blob turn-notes.json` record (the last one wins) and exported as the session
//! directory's `turn-notes.json`, which the fx CLI does not read.
//!
//! A note names its turn by position in the history and by the SHA-256 of the turn's user text
//! (its first 8 bytes, hex), so a note never lands on another turn. The record is read
//! leniently: an unreadable one counts as no notes (it is ours, never needed to load a log).

use sha2::{Digest, Sha256};

use super::json::tree::{self, Value};
use super::json::write::{hex_string, Writer};

/// The record's path (and the exported file's name).
pub const NOTES_PATH: &str = "turn-notes.json";

/// Largest notes record: 64 KiB.
pub const MAX_NOTES_BYTES: u64 = 64 * 1024;

/// Notes kept: the newest 32.
const MAX_NOTES: usize = 32;

/// A note's message is cut to 1 KiB (on a character boundary).
const MAX_MESSAGE_BYTES: usize = 1024;

/// One note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnNote {
    /// The turn's position in the history.
    pub turn: u64,
    /// First 8 bytes of the SHA-256 of the turn's user text, as hex.
    pub user_sha: String,
    /// What was shown when the turn ended.
    pub message: String,
}

/// The notes of a session, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnNotes {
    pub notes: Vec<TurnNote>,
}

fn user_sha(user_text: &[u8]) -> String {
    let digest = Sha256::digest(user_text);
    hex_string(digest.get(..8).unwrap_or_default())
}

/// One line of at most 1 KiB: control characters become spaces (so 32 notes stay well under
/// the record's 64 KiB, escapes included).
fn clean(text: &str) -> String {
    let mut end = text.len().min(MAX_MESSAGE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end)
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn field<'a>(entries: &[(std::borrow::Cow<'a, str>, Value<'a>)], key: &str) -> Option<Value<'a>> {
    entries
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
}

impl TurnNotes {
    /// The message noted for turn `turn` whose user text is `user_text`.
    pub fn get(&self, turn: usize, user_text: &[u8]) -> Option<&str> {
        let sha = user_sha(user_text);
        self.notes
            .iter()
            .rev()
            .find(|n| n.turn == turn as u64 && n.user_sha == sha)
            .map(|n| n.message.as_str())
    }

    /// Notes `message` for turn `turn` (replacing an earlier note of it); the oldest notes go
    /// once there are more than 32.
    pub fn insert(&mut self, turn: usize, user_text: &[u8], message: &str) {
        let sha = user_sha(user_text);
        self.notes.retain(|n| n.turn != turn as u64);
        self.notes.push(TurnNote {
            turn: turn as u64,
            user_sha: sha,
            message: clean(message),
        });
        let extra = self.notes.len().saturating_sub(MAX_NOTES);
        self.notes.drain(..extra);
    }

    /// The record's content: `{"schema_version":1,"notes":[{"turn":…,"user_sha256":…,
    /// "message":…},…]}` (no trailing newline).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw("{\"schema_version\":1,\"notes\":");
        w.list(&self.notes, |w, note| {
            w.raw("{\"turn\":");
            w.u64(note.turn);
            w.raw(",\"user_sha256\":");
            w.str(&note.user_sha);
            w.raw(",\"message\":");
            w.str(&note.message);
            w.raw("}");
        });
        w.raw("}");
        w.into_bytes()
    }

    /// Reads a record's content; `None` when it is not one this version wrote.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let text = std::str::from_utf8(bytes).ok()?;
        let Ok(Value::Obj(entries)) = tree::parse(text) else {
            return None;
        };
        let get = field;
        if get(&entries, "schema_version") != Some(Value::Num("1")) {
            return None;
        }
        let Some(Value::Arr(items)) = get(&entries, "notes") else {
            return None;
        };
        let mut notes = Vec::new();
        for item in items {
            let Value::Obj(fields) = item else {
                return None;
            };
            let (Some(Value::Num(turn)), Some(Value::Str(sha)), Some(Value::Str(message))) = (
                get(&fields, "turn"),
                get(&fields, "user_sha256"),
                get(&fields, "message"),
            ) else {
                return None;
            };
            notes.push(TurnNote {
                turn: turn.parse().ok()?,
                user_sha: sha.into_owned(),
                message: clean(&message),
            });
        }
        Some(TurnNotes { notes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_round_trip_and_match_their_turn() {
        let mut notes = TurnNotes::default();
        notes.insert(2, b"run it", "HTTP 500: boom (FX_GATEWAY_HTTP_ERROR)");
        notes.insert(5, b"again", "second");
        let bytes = notes.encode();
        let back = TurnNotes::decode(&bytes).unwrap();
        assert_eq!(back, notes);
        assert_eq!(back.encode(), bytes);
        assert_eq!(
            back.get(2, b"run it"),
            Some("HTTP 500: boom (FX_GATEWAY_HTTP_ERROR)")
        );
        // Another turn at that position (the history changed) gets nothing.
        assert_eq!(back.get(2, b"something else"), None);
        assert_eq!(back.get(3, b"run it"), None);
    }

    #[test]
    fn at_most_32_notes_and_1_kib_each() {
        let mut notes = TurnNotes::default();
        for i in 0..40 {
            notes.insert(i, b"x", &"é\u{1}".repeat(400));
        }
        assert_eq!(notes.notes.len(), 32);
        assert_eq!(notes.notes[0].turn, 8);
        assert!(notes.notes[0].message.len() <= 1024);
        assert!(!notes.notes[0].message.contains('\u{1}'));
        assert!(notes.encode().len() as u64 <= MAX_NOTES_BYTES);
    }

    #[test]
    fn unreadable_records_are_no_notes() {
        for bad in [
            &b"not json"[..],
            b"{}",
            b"{\"schema_version\":2,\"notes\":[]}",
            b"{\"schema_version\":1,\"notes\":[{\"turn\":\"x\"}]}",
            b"\xff",
        ] {
            assert_eq!(TurnNotes::decode(bad), None, "{bad:?}");
        }
    }
}
