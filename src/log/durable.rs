//! [`DurableBytes`]: a byte string as the log keeps it (its JSON encoding lives in `json::read`
//! and `json::write`).

use std::borrow::Cow;

/// A byte string stored as durable bytes (§0.3): a JSON string when it is valid UTF-8, the
/// `{"encoding":"base64","data":...}` form otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DurableBytes(pub Vec<u8>);

impl DurableBytes {
    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes as text when they are valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The bytes as text, invalid UTF-8 replaced by U+FFFD.
    pub fn to_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<&str> for DurableBytes {
    fn from(text: &str) -> Self {
        Self(text.as_bytes().to_vec())
    }
}

impl From<String> for DurableBytes {
    fn from(text: String) -> Self {
        Self(text.into_bytes())
    }
}

impl From<Vec<u8>> for DurableBytes {
    fn from(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}
