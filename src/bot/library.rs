//! The library (fxbot DESIGN §12.2): every file a message brought (and `library.add`), as a
//! `library/<id>` item with its tags and a `blob/<id>` record of its bytes. Items of a message
//! are tagged `bot:<botId>`, `chat:<sessionId>` and `message:<messageId>`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::args::{Arg, Object};
use super::docs::SCHEMA;
use super::ids::LibraryId;

/// Prefix of every library item.
pub const ITEM_PREFIX: &str = "library/";
/// Prefix of every blob.
pub const BLOB_PREFIX: &str = "blob/";

/// `library/<id>`.
pub fn item_key(id: &LibraryId) -> String {
    format!("{ITEM_PREFIX}{id}")
}

/// `blob/<id>`.
pub fn blob_key(id: &LibraryId) -> String {
    format!("{BLOB_PREFIX}{id}")
}

/// A stored library item (the `LibraryItem` of the JS surface without its `url`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemDoc {
    pub schema: u32,
    pub id: LibraryId,
    pub name: String,
    #[serde(rename = "type")]
    pub media_type: String,
    pub size: u64,
    pub sha256: String,
    pub created_at: String,
    pub tags: Vec<String>,
    pub bot_id: Option<String>,
    pub session_id: Option<String>,
    pub message_id: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Where a file came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub bot_id: Option<String>,
    pub session_id: Option<String>,
    pub message_id: Option<String>,
}

impl ItemDoc {
    /// A new item for `bytes`, tagged by its origin and `tags`.
    pub fn new(
        id: LibraryId,
        name: &str,
        media_type: &str,
        bytes: &[u8],
        origin: Origin,
        extra_tags: &[String],
        now: &str,
    ) -> ItemDoc {
        let mut tags = Vec::new();
        if let Some(bot) = &origin.bot_id {
            tags.push(format!("bot:{bot}"));
        }
        if let Some(session) = &origin.session_id {
            tags.push(format!("chat:{session}"));
        }
        if let Some(message) = &origin.message_id {
            tags.push(format!("message:{message}"));
        }
        for tag in extra_tags {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
        ItemDoc {
            schema: SCHEMA,
            id,
            name: name.to_owned(),
            media_type: media_type.to_owned(),
            size: bytes.len() as u64,
            sha256: hex(&Sha256::digest(bytes)),
            created_at: now.to_owned(),
            tags,
            bot_id: origin.bot_id,
            session_id: origin.session_id,
            message_id: origin.message_id,
            extra: BTreeMap::new(),
        }
    }

    /// Whether the item passes a `library.list` filter.
    pub fn matches(&self, filter: &Filter) -> bool {
        filter
            .bot_id
            .as_ref()
            .is_none_or(|b| self.bot_id.as_ref() == Some(b))
            && filter
                .session_id
                .as_ref()
                .is_none_or(|s| self.session_id.as_ref() == Some(s))
            && filter.tag.as_ref().is_none_or(|t| self.tags.contains(t))
    }

    /// Whether this is an image (the model saw it; it has no text to read).
    pub fn is_image(&self) -> bool {
        self.media_type.starts_with("image/")
    }
}

/// A `library.list` filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub bot_id: Option<String>,
    pub session_id: Option<String>,
    pub tag: Option<String>,
}

/// A `library.list` filter as the boundary decodes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FilterArg {
    pub bot_id: Arg<String>,
    pub session_id: Arg<String>,
    pub tag: Arg<String>,
}

/// Longest tag.
pub const MAX_TAG_CHARS: usize = 256;

/// A library rule an argument breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    #[error("library.list takes an object filter, not {found}")]
    FilterNotAnObject { found: &'static str },
    #[error("the library filter's {field} must be a string, not {found}")]
    FilterNotAString {
        field: &'static str,
        found: &'static str,
    },
    #[error("tags must be an array of strings, not {found}")]
    TagsNotAnArray { found: &'static str },
    #[error("tags must be strings of 1 to 256 characters")]
    BadTag,
}

impl Filter {
    /// Reads a `library.list` filter (absent: every item).
    ///
    /// # Errors
    /// [`LibraryError`] for a filter that is not an object of strings.
    pub fn from_arg(arg: Object<FilterArg>) -> Result<Filter, LibraryError> {
        let fields = arg
            .or_default()
            .map_err(|found| LibraryError::FilterNotAnObject { found })?;
        let text = |arg: Arg<String>, field| {
            arg.given()
                .map_err(|found| LibraryError::FilterNotAString { field, found })
        };
        Ok(Filter {
            bot_id: text(fields.bot_id, "botId")?,
            session_id: text(fields.session_id, "sessionId")?,
            tag: text(fields.tag, "tag")?,
        })
    }
}

/// Reads `library.add`'s `tags` (absent: none).
///
/// # Errors
/// [`LibraryError`] for tags that are not an array of strings of 1 to 256 characters.
pub fn tags_from_arg(arg: Arg<Vec<Arg<String>>>) -> Result<Vec<String>, LibraryError> {
    let tags = arg
        .given()
        .map_err(|found| LibraryError::TagsNotAnArray { found })?
        .unwrap_or_default();
    tags.into_iter()
        .map(|tag| match tag {
            Arg::Given(tag) if !tag.is_empty() && tag.chars().count() <= MAX_TAG_CHARS => Ok(tag),
            _ => Err(LibraryError::BadTag),
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A text slice for `library_read`: `offset` and `length` in bytes, moved back to character
/// boundaries; returns the text and the offset after it (`None` at the end).
pub fn text_slice(text: &str, offset: usize, length: usize) -> (&str, Option<usize>) {
    let mut start = offset.min(text.len());
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start.saturating_add(length).min(text.len());
    while end > start && !text.is_char_boundary(end) {
        end -= 1;
    }
    let next = (end < text.len()).then_some(end);
    (text.get(start..end).unwrap_or_default(), next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_tagged_by_their_origin() {
        let id = LibraryId::parse("00000000000c").unwrap();
        let origin = Origin {
            bot_id: Some("0123456789ab".into()),
            session_id: Some("s1".into()),
            message_id: Some("m1".into()),
        };
        let item = ItemDoc::new(id, "a.txt", "text/plain", b"hi", origin, &[], "t");
        assert_eq!(item.tags, ["bot:0123456789ab", "chat:s1", "message:m1"]);
        assert_eq!(item.size, 2);
        assert!(item.sha256.starts_with("8f434346"));
        assert!(item.matches(&Filter {
            bot_id: Some("0123456789ab".into()),
            ..Filter::default()
        }));
        assert!(!item.matches(&Filter {
            tag: Some("bot:x".into()),
            ..Filter::default()
        }));
    }

    #[test]
    fn slices_keep_characters_whole() {
        let text = "héllo wörld";
        assert_eq!(text_slice(text, 0, 2), ("h", Some(1)));
        assert_eq!(text_slice(text, 2, 4), ("\u{e9}ll", Some(5)));
        assert_eq!(text_slice(text, 0, 100), (text, None));
        assert_eq!(text_slice(text, 100, 5), ("", None));
    }
}
