//! Blob records carried inside session bytes: a line
//! `#fx-blob <relative path> <byte length> <sha256 hex>\n`, then the raw bytes, then `\n`.
//! Image snapshots use `images/…` paths; a `display.json` record carries a renamed title (the
//! last one wins).

use sha2::{Digest, Sha256};

use super::error::Reason;
use super::json::read::parse_hex;
use super::json::write::hex_string;

/// The prefix that marks a blob record line (a frame always starts with `{`).
pub const BLOB_PREFIX: &[u8] = b"#fx-blob ";

/// Largest blob: 16 MiB.
pub const MAX_BLOB_BYTES: u64 = 16 * 1024 * 1024;

/// The path of a display record (fx's `display.json` sidecar).
pub const DISPLAY_PATH: &str = "display.json";

/// Largest display record: 16 KiB, as fx's `display.json`.
pub const MAX_DISPLAY_BYTES: u64 = 16 * 1024;

/// A blob record found in session bytes (its bytes stay in the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRecord {
    /// Relative path inside the session directory (`images/image-<id>-<sha16>.bin`).
    pub path: String,
    pub sha256: [u8; 32],
    /// Offset of the record's `#fx-blob` line in the session bytes.
    pub record_start: usize,
    /// Byte range of the raw content in the session bytes.
    pub start: usize,
    pub len: usize,
}

/// Encodes one blob record.
pub fn encode_blob(path: &str, bytes: &[u8]) -> Vec<u8> {
    let sha = Sha256::digest(bytes);
    let mut out = Vec::with_capacity(bytes.len() + path.len() + 100);
    out.extend_from_slice(BLOB_PREFIX);
    out.extend_from_slice(path.as_bytes());
    out.extend_from_slice(format!(" {} {}\n", bytes.len(), hex_string(&sha)).as_bytes());
    out.extend_from_slice(bytes);
    out.push(b'\n');
    out
}

/// True when `path` is a canonical snapshot locator `images/image-<id>-<16 hex>.bin` whose
/// hex prefix matches `sha256`.
pub(crate) fn is_locator_for(path: &str, sha256: &[u8; 32]) -> bool {
    let Some(rest) = path
        .strip_prefix("images/image-")
        .and_then(|r| r.strip_suffix(".bin"))
    else {
        return false;
    };
    let Some((id, sha16)) = rest.split_once('-') else {
        return false;
    };
    let id_ok = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && !id.starts_with('0');
    id_ok && hex_string(sha256).get(..16) == Some(sha16)
}

/// Parses the blob record starting at `start` (which begins with [`BLOB_PREFIX`]); returns it
/// and the offset just past it.
pub(crate) fn parse_blob(bytes: &[u8], start: usize) -> Result<(BlobRecord, usize), Reason> {
    let bad = |detail: &str| Reason::InvalidBlob(detail.to_owned());
    let rest = bytes.get(start..).unwrap_or_default();
    let header_len = rest
        .iter()
        .take(512)
        .position(|&b| b == b'\n')
        .ok_or_else(|| bad("header line is missing or too long"))?;
    let header = rest
        .get(BLOB_PREFIX.len()..header_len)
        .ok_or_else(|| bad("header is truncated"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not UTF-8"))?;
    let parts: Vec<&str> = header.split(' ').collect();
    let [path, len_text, sha_text] = parts.as_slice() else {
        return Err(bad("header must be: #fx-blob <path> <length> <sha256>"));
    };
    let canonical_len = !len_text.is_empty()
        && len_text.bytes().all(|b| b.is_ascii_digit())
        && (*len_text == "0" || !len_text.starts_with('0'));
    let len: u64 = if canonical_len {
        len_text
            .parse()
            .map_err(|_| bad("length is not a number"))?
    } else {
        return Err(bad("length is not a canonical number"));
    };
    let display = *path == DISPLAY_PATH;
    let notes = *path == super::notes::NOTES_PATH;
    if display && len > MAX_DISPLAY_BYTES {
        return Err(Reason::BlobTooLarge {
            what: "display record",
            bytes: len,
        });
    }
    if notes && len > super::notes::MAX_NOTES_BYTES {
        return Err(Reason::BlobTooLarge {
            what: "turn notes record",
            bytes: len,
        });
    }
    if len > MAX_BLOB_BYTES {
        return Err(Reason::BlobTooLarge {
            what: "image blob",
            bytes: len,
        });
    }
    let sha256: [u8; 32] =
        parse_hex(sha_text).ok_or_else(|| bad("sha256 must be 64 lowercase hex digits"))?;
    if !display && !notes && !is_locator_for(path, &sha256) {
        return Err(bad(
            "path must be display.json, turn-notes.json or images/image-<id>-<first 16 hex of sha256>.bin",
        ));
    }
    let len = usize::try_from(len).map_err(|_| bad("length out of range"))?;
    let data_start = start + header_len + 1;
    let data_end = data_start
        .checked_add(len)
        .ok_or_else(|| bad("length out of range"))?;
    let data = bytes
        .get(data_start..data_end)
        .ok_or(Reason::TruncatedFrame)?;
    match bytes.get(data_end) {
        Some(b'\n') => {}
        Some(_) => return Err(bad("content is not followed by a newline")),
        None => return Err(Reason::TruncatedFrame),
    }
    if Sha256::digest(data).as_slice() != sha256 {
        return Err(bad("content does not match its sha256"));
    }
    Ok((
        BlobRecord {
            path: (*path).to_owned(),
            sha256,
            record_start: start,
            start: data_start,
            len,
        },
        data_end + 1,
    ))
}
