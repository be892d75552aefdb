//! Fast recognition of the flat `{"type":"text-delta","id":..,"delta":..}` events that make up
//! almost all of a response.
//!
//! Everything here is a shortcut: when in doubt it answers `None` and the caller takes the
//! general serde path, which yields the same values.

use crate::net::bytes::find_string_end;

/// Bytes that end a plain string token: `"`, `\\` and control characters.
static STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = true;
        i += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Which delta a flat event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeltaKind {
    /// `text-delta`.
    Text,
    /// `reasoning-delta`.
    Reasoning,
}

/// A `text-delta` or `reasoning-delta` recognised by [`scan_flat_delta`].
#[derive(Debug)]
pub(crate) struct FlatDelta<'a> {
    pub(crate) kind: DeltaKind,
    pub(crate) delta: Option<&'a str>,
}

/// Recognises a `text-delta` / `reasoning-delta` object whose only keys are `type`, `id` and
/// `delta` (each at most once) and whose values are strings without escapes or control
/// characters, followed by nothing but whitespace. Returns `None` for anything else, including
/// inputs serde would accept; those take the general path. Whatever it accepts, serde would
/// decode to the same values.
pub(crate) fn scan_flat_delta(payload: &[u8]) -> Option<FlatDelta<'_>> {
    // Quotes are ASCII, so every string between them in a valid UTF-8 payload is valid too. An
    // all-ASCII payload (the usual case) is valid UTF-8 without a full validation pass; only
    // the delta is converted then.
    let ascii = payload.is_ascii();
    let text = if ascii {
        None
    } else {
        Some(std::str::from_utf8(payload).ok()?)
    };
    let bytes = payload;
    let mut pos = skip_ws(bytes, 0);
    if bytes.get(pos) != Some(&b'{') {
        return None;
    }
    let mut kind = None;
    let mut seen_id = false;
    let mut delta = None;
    loop {
        pos = skip_ws(bytes, pos.checked_add(1)?);
        let (key_start, key_end) = plain_string(bytes, pos)?;
        pos = skip_ws(bytes, key_end.checked_add(1)?);
        if bytes.get(pos) != Some(&b':') {
            return None;
        }
        pos = skip_ws(bytes, pos.checked_add(1)?);
        let (value_start, value_end) = plain_string(bytes, pos)?;
        let value = bytes.get(value_start..value_end)?;
        match bytes.get(key_start..key_end)? {
            b"type" if kind.is_none() => {
                kind = Some(match value {
                    b"text-delta" => DeltaKind::Text,
                    b"reasoning-delta" => DeltaKind::Reasoning,
                    _ => return None,
                });
            }
            b"id" if !seen_id => seen_id = true,
            b"delta" if delta.is_none() => {
                delta = Some(match text {
                    Some(text) => text.get(value_start..value_end)?,
                    None => std::str::from_utf8(value).ok()?,
                });
            }
            _ => return None,
        }
        pos = skip_ws(bytes, value_end.checked_add(1)?);
        match bytes.get(pos)? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    if skip_ws(bytes, pos.checked_add(1)?) != bytes.len() {
        return None;
    }
    Some(FlatDelta { kind: kind?, delta })
}

#[inline]
fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos = pos.saturating_add(1);
    }
    pos
}

/// For a string token starting at `pos` (the opening quote) without escapes or control
/// characters, the range of its contents; the closing quote sits at the range's end.
#[inline]
fn plain_string(bytes: &[u8], pos: usize) -> Option<(usize, usize)> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let start = pos.checked_add(1)?;
    let rest = bytes.get(start..)?;
    // Short strings (keys, ids, small deltas) are quicker to scan byte by byte.
    let head = rest.get(..16).unwrap_or(rest);
    let len = match head
        .iter()
        .position(|&b| STRING_STOP.get(usize::from(b)) == Some(&true))
    {
        Some(len) => len,
        None => find_string_end(rest.get(16..)?)?.checked_add(16)?,
    };
    if rest.get(len) != Some(&b'"') {
        return None;
    }
    Some((start, start.checked_add(len)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_deltas_are_recognised() {
        let event = scan_flat_delta(br#"{"type":"text-delta","id":"t","delta":"abcd"}"#).unwrap();
        assert_eq!((event.kind, event.delta), (DeltaKind::Text, Some("abcd")));
        let long =
            scan_flat_delta(br#"{"type":"reasoning-delta","delta":"0123456789abcdefghij\"}"#);
        assert!(long.is_none(), "escape after the first 16 bytes");
        let long = scan_flat_delta(br#"{"type":"reasoning-delta","delta":"0123456789abcdefghij"}"#);
        assert_eq!(long.unwrap().delta, Some("0123456789abcdefghij"));
        assert!(scan_flat_delta(br#"{"type":"text-delta","toolName":"x"}"#).is_none());
        assert!(scan_flat_delta(br#"{"type":"finish","delta":"x"}"#).is_none());
        assert!(scan_flat_delta(br#"{}"#).is_none());
        assert!(scan_flat_delta(br#"{"id":"x"}"#).is_none());
        assert!(scan_flat_delta(br#"{"delta":"x","id":"y"}"#).is_none());
    }
}
