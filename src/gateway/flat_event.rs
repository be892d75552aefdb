//! Fast recognition of the flat `{"type":..,"id":..,"delta":..}` events that make up almost all
//! of a response, and word-at-a-time byte searches used by the SSE decoder.
//!
//! Everything here is a shortcut: when in doubt it answers `None` and the caller takes the
//! general serde path, which yields the same values.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `word` is zero (exact for existence).
#[inline(always)]
fn has_zero(word: u64) -> bool {
    word.wrapping_sub(ONES) & !word & HIGHS != 0
}

/// Whether any byte of `word` is below `limit` (`limit` ≤ 128; exact for existence).
#[inline(always)]
fn has_less(word: u64, limit: u8) -> bool {
    word.wrapping_sub(ONES.wrapping_mul(u64::from(limit))) & !word & HIGHS != 0
}

#[inline(always)]
fn load(chunk: &[u8]) -> u64 {
    <[u8; 8]>::try_from(chunk).map_or(u64::MAX, u64::from_le_bytes)
}

/// Position of the first `needle` in `haystack`.
pub(crate) fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    let pattern = ONES.wrapping_mul(u64::from(needle));
    let mut offset = 0usize;
    let mut chunks = haystack.chunks_exact(8);
    for chunk in &mut chunks {
        if has_zero(load(chunk) ^ pattern) {
            if let Some(position) = chunk.iter().position(|&b| b == needle) {
                return offset.checked_add(position);
            }
        }
        offset = offset.saturating_add(8);
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .and_then(|p| offset.checked_add(p))
}

/// Position of the first `"`, `\\` or control byte (< 0x20) in `bytes`.
fn find_string_end(bytes: &[u8]) -> Option<usize> {
    let stop = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
    let quotes = ONES.wrapping_mul(u64::from(b'"'));
    let backslashes = ONES.wrapping_mul(u64::from(b'\\'));
    let mut offset = 0usize;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = load(chunk);
        if has_zero(word ^ quotes) || has_zero(word ^ backslashes) || has_less(word, 0x20) {
            if let Some(position) = chunk.iter().position(|&b| stop(b)) {
                return offset.checked_add(position);
            }
        }
        offset = offset.saturating_add(8);
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| stop(b))
        .and_then(|p| offset.checked_add(p))
}

/// The fields of a flat event object recognised by [`scan_flat_event`].
pub(crate) struct FlatEvent<'a> {
    pub(crate) ty: &'a str,
    pub(crate) delta: Option<&'a str>,
}

/// Recognises an object whose only keys are `type`, `id` and `delta` (each at most once) and
/// whose values are strings without escapes or control characters, followed by nothing but
/// whitespace. Returns `None` for anything else, including inputs serde would accept; those take
/// the general path. Whatever it accepts, serde would decode to the same values.
pub(crate) fn scan_flat_event(payload: &[u8]) -> Option<FlatEvent<'_>> {
    let mut cursor = FlatCursor {
        bytes: payload,
        pos: 0,
    };
    cursor.skip_ws();
    cursor.expect(b'{')?;
    let mut ty = None;
    let mut id = None;
    let mut delta = None;
    loop {
        cursor.skip_ws();
        let key = cursor.plain_string()?;
        cursor.skip_ws();
        cursor.expect(b':')?;
        cursor.skip_ws();
        let value = cursor.plain_string()?;
        let slot = match key {
            b"type" => &mut ty,
            b"id" => &mut id,
            b"delta" => &mut delta,
            _ => return None,
        };
        if slot.replace(value).is_some() {
            return None;
        }
        cursor.skip_ws();
        match cursor.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    cursor.skip_ws();
    if cursor.pos != payload.len() {
        return None;
    }
    if let Some(id) = id {
        std::str::from_utf8(id).ok()?;
    }
    Some(FlatEvent {
        ty: std::str::from_utf8(ty?).ok()?,
        delta: match delta {
            Some(bytes) => Some(std::str::from_utf8(bytes).ok()?),
            None => None,
        },
    })
}

struct FlatCursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> FlatCursor<'a> {
    #[inline(always)]
    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos = self.pos.saturating_add(1);
        }
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.pos)?;
        self.pos = self.pos.saturating_add(1);
        Some(byte)
    }

    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// A string token without escapes or control characters; returns its contents.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let rest = self.bytes.get(self.pos..)?;
        let len = find_string_end(rest)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        let contents = rest.get(..len)?;
        self.pos = self.pos.saturating_add(len).saturating_add(1);
        Some(contents)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn word_searches_match_naive_scans(bytes in proptest::collection::vec(any::<u8>(), 0..80), needle in any::<u8>()) {
            prop_assert_eq!(find_byte(&bytes, needle), bytes.iter().position(|&b| b == needle));
            prop_assert_eq!(
                find_string_end(&bytes),
                bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            );
        }

        #[test]
        fn searches_find_bytes_in_mostly_ascii_text(text in "[a-z\"\\\\\n\t ]{0,64}") {
            let bytes = text.as_bytes();
            prop_assert_eq!(find_byte(bytes, b'\n'), bytes.iter().position(|&b| b == b'\n'));
            prop_assert_eq!(
                find_string_end(bytes),
                bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            );
        }
    }

    #[test]
    fn flat_events_are_recognised() {
        let event = scan_flat_event(br#"{"type":"text-delta","id":"t","delta":"abcd"}"#).unwrap();
        assert_eq!((event.ty, event.delta), ("text-delta", Some("abcd")));
        assert!(scan_flat_event(br#"{"type":"text-delta","toolName":"x"}"#).is_none());
        assert!(scan_flat_event(br#"{}"#).is_none());
        assert!(scan_flat_event(br#"{"id":"x"}"#).is_none());
    }
}
