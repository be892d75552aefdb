//! The strict loader (§7): splits session bytes into frames and blob records, parses and
//! decodes every frame, reduces them, and rejects anything fx would reject. Linear in size.

use super::blob::{parse_blob, BlobRecord, BLOB_PREFIX, DISPLAY_PATH};
use super::error::{LogError, Reason};
use super::event::Frame;
use super::json::tree;
use super::reducer::Reducer;
use super::state::SessionState;

/// Largest frame: 8 MiB including the trailing newline.
pub const MAX_FRAME_BYTES: usize = 8 * 1024 * 1024;

/// The outcome of a successful load.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The replayed state.
    pub state: SessionState,
    /// The log generation of every frame.
    pub generation: [u8; 16],
    /// Seq and event id of the last frame.
    pub last_seq: u64,
    pub last_event_id: [u8; 16],
    /// Length of the frames alone (the `events.jsonl` length).
    pub events_len: u64,
    /// Length of frame 1 including its newline.
    pub first_frame_len: u64,
    /// Blob records carried by the bytes (images and `display.json` records, in order).
    pub blobs: Vec<BlobRecord>,
    /// The title the last `display.json` record set (a `/rename`), if any.
    pub title: Option<String>,
    /// Every image snapshot the log references: locator and SHA-256.
    pub snapshots: Vec<(String, [u8; 32])>,
}

/// Parses and decodes one frame line (without its newline).
pub(crate) fn decode_line(line: &[u8]) -> Result<Frame, Reason> {
    let text = std::str::from_utf8(line).map_err(|_| Reason::InvalidUtf8)?;
    let value = tree::parse(text)?;
    Frame::decode(&value)
}

/// Loads session bytes strictly.
///
/// # Errors
/// A [`LogError`] with the seq of the offending line and the [`Reason`].
pub fn load(bytes: &[u8]) -> Result<Loaded, LogError> {
    load_with(bytes, |_, _| {})
}

/// Loads session bytes strictly, showing every decoded frame (and its line, newline
/// included) to `visit` before it is applied.
///
/// # Errors
/// A [`LogError`] with the seq of the offending line and the [`Reason`].
pub fn load_with(bytes: &[u8], visit: impl FnMut(&Frame, &[u8])) -> Result<Loaded, LogError> {
    let Replayed {
        mut reducer,
        events_len,
        first_frame_len,
        blobs,
    } = replay(bytes, visit)?;
    let Some(state) = reducer.state.take() else {
        return Err(LogError::whole(Reason::Empty));
    };
    let mut snapshots: Vec<(String, [u8; 32])> = reducer.snapshots.into_iter().collect();
    snapshots.sort();
    Ok(Loaded {
        title: reducer.title,
        state,
        generation: reducer.generation,
        last_seq: reducer.last_seq,
        last_event_id: reducer.last_event_id,
        events_len,
        first_frame_len,
        blobs,
        snapshots,
    })
}

/// A finished replay: the reducer (holding the state) and what the bytes contained.
pub(crate) struct Replayed {
    pub(crate) reducer: Reducer,
    pub(crate) events_len: u64,
    pub(crate) first_frame_len: u64,
    pub(crate) blobs: Vec<BlobRecord>,
}

/// Replays session bytes into a reducer (the state is guaranteed to exist on success).
pub(crate) fn replay(
    bytes: &[u8],
    mut visit: impl FnMut(&Frame, &[u8]),
) -> Result<Replayed, LogError> {
    let mut reducer = Reducer::default();
    let mut blobs: Vec<BlobRecord> = Vec::new();
    let mut blob_paths = std::collections::HashSet::new();
    let mut pos = 0usize;
    let mut events_len = 0u64;
    let mut first_frame_len = 0u64;
    let mut frames = 0u64;
    while pos < bytes.len() {
        let rest = bytes.get(pos..).unwrap_or_default();
        let seq = frames + 1;
        if rest.starts_with(BLOB_PREFIX) {
            let (blob, next) = parse_blob(bytes, pos).map_err(|r| LogError::at(seq, r))?;
            let data = bytes
                .get(blob.start..blob.start + blob.len)
                .unwrap_or_default();
            if blob.path == DISPLAY_PATH {
                reducer.title =
                    Some(super::display::decode_title(data).map_err(|r| LogError::at(seq, r))?);
            } else if blob.path == super::notes::NOTES_PATH {
                // Ours, and never needed to load the log: an unreadable one is no notes.
                reducer.notes = super::notes::TurnNotes::decode(data);
            } else if !blob_paths.insert(blob.path.clone()) {
                return Err(LogError::at(
                    seq,
                    Reason::InvalidBlob(format!("{} appears twice", blob.path)),
                ));
            }
            blobs.push(blob);
            pos = next;
            continue;
        }
        let Some(nl) = rest.iter().take(MAX_FRAME_BYTES).position(|&b| b == b'\n') else {
            let reason = if rest.len() >= MAX_FRAME_BYTES {
                let bytes = rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(rest.len(), |n| n + 1);
                Reason::FrameTooLarge { bytes }
            } else {
                Reason::TruncatedFrame
            };
            return Err(LogError::at(seq, reason));
        };
        let line_len = nl + 1;
        let line = rest.get(..nl).unwrap_or_default();
        let frame = decode_line(line).map_err(|r| LogError::at(seq, r))?;
        visit(&frame, rest.get(..line_len).unwrap_or_default());
        reducer.apply(frame).map_err(|r| LogError::at(seq, r))?;
        if frames == 0 {
            first_frame_len = line_len as u64;
        }
        frames = seq;
        events_len += line_len as u64;
        pos += line_len;
    }
    if let Some(started) = reducer.open_replacement() {
        return Err(LogError::at(
            frames + 1,
            Reason::IncompleteReplacement(started),
        ));
    }
    if reducer.state.is_none() {
        return Err(LogError::whole(Reason::Empty));
    }
    for blob in blobs
        .iter()
        .filter(|b| b.path != DISPLAY_PATH && b.path != super::notes::NOTES_PATH)
    {
        if reducer.snapshots.get(&blob.path) != Some(&blob.sha256) {
            return Err(LogError::whole(Reason::InvalidBlob(format!(
                "{} does not match an image snapshot the log references",
                blob.path
            ))));
        }
    }
    Ok(Replayed {
        reducer,
        events_len,
        first_frame_len,
        blobs,
    })
}

/// Decodes every frame of a valid log (for tests and tools; holds all frames in memory).
///
/// # Errors
/// As [`load`].
pub fn decode_frames(bytes: &[u8]) -> Result<Vec<Frame>, LogError> {
    let mut frames = Vec::new();
    load_with(bytes, |frame, _| frames.push(frame.clone()))?;
    Ok(frames)
}
