//! Word-at-a-time byte searches (eight bytes per step): event lines and JSON strings run to
//! kilobytes, and these scans are most of a streamed response's decoding time.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `word` is zero (exact for existence).
fn has_zero(word: u64) -> bool {
    word.wrapping_sub(ONES) & !word & HIGHS != 0
}

/// Whether any byte of `word` is below `limit` (`limit` ≤ 128; exact for existence).
fn has_less(word: u64, limit: u8) -> bool {
    word.wrapping_sub(ONES.wrapping_mul(u64::from(limit))) & !word & HIGHS != 0
}

fn load(chunk: &[u8]) -> u64 {
    <[u8; 8]>::try_from(chunk).map_or(u64::MAX, u64::from_le_bytes)
}

/// Position of the first `needle` in `haystack`.
pub fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
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
pub fn find_string_end(bytes: &[u8]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
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
}
