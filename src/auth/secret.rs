//! [`Secret`]: a token string that never prints itself and is wiped when dropped.

use std::fmt;

pub(crate) use crate::caps::http::wipe;

/// An OAuth token (access, refresh or device code).
///
/// Invariant: the value is only reachable through [`Secret::expose`]; `Debug` prints
/// `[redacted]` and there is deliberately no `Display`. On drop the bytes are overwritten with
/// zeros (best effort: copies made by the host, by JSON parsing or by the allocator are out of
/// reach).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a token.
    #[must_use]
    pub fn new(value: String) -> Self {
        Self(value)
    }

    /// The token itself, for the one place that has to send it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        wipe(std::mem::take(&mut self.0).into_bytes());
    }
}

/// True when `value` can be sent as a bearer token: 1 to 16 KiB of visible ASCII (no spaces,
/// no control characters), so it can never break out of an HTTP header or a form field.
pub(crate) fn is_token_shaped(value: &str) -> bool {
    !value.is_empty() && value.len() <= 16 * 1024 && value.bytes().all(|b| b.is_ascii_graphic())
}
