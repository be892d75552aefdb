//! The canonical layout of session bytes: every frame first (the `events.jsonl` stream), then
//! the image blob records in path order, then the last display record (`/rename`), then the
//! last turn-notes record. [`super::import_native`] writes exactly this, and the appender keeps
//! it (a new frame or image goes before the records that follow it; a rename or a note
//! replaces its record), so exporting a session and importing the files gives back the same
//! bytes.
//!
//! [`Layout`] knows where each part sits in a byte vector; [`Mark`] is what was committed, for
//! telling later whether a stored record is still exactly that.

use super::blob::{BlobRecord, DISPLAY_PATH};
use super::notes::NOTES_PATH;

/// Where the parts of canonical session bytes sit. Invariant: the bytes are
/// `frames | images… | display | notes`, with these lengths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// End of the frames.
    pub(crate) events_end: usize,
    /// The image records, in path order, with their encoded lengths.
    pub(crate) images: Vec<(String, usize)>,
    /// Encoded length of the display record (0: none).
    pub(crate) display: usize,
    /// Encoded length of the notes record (0: none).
    pub(crate) notes: usize,
}

fn splice(bytes: &mut Vec<u8>, at: usize, remove: usize, insert: &[u8]) {
    let end = at.saturating_add(remove).min(bytes.len());
    let at = at.min(end);
    bytes.splice(at..end, insert.iter().copied());
}

impl Layout {
    fn images_len(&self) -> usize {
        self.images.iter().map(|(_, len)| len).sum()
    }

    /// Inserts a frame line after the last frame.
    pub(crate) fn insert_frame(&mut self, bytes: &mut Vec<u8>, line: &[u8]) {
        splice(bytes, self.events_end, 0, line);
        self.events_end += line.len();
    }

    /// Inserts an encoded image record at its place in path order.
    pub(crate) fn insert_image(&mut self, bytes: &mut Vec<u8>, path: &str, record: &[u8]) {
        let index = self.images.partition_point(|(p, _)| p.as_str() < path);
        let at = self.events_end
            + self
                .images
                .iter()
                .take(index)
                .map(|(_, len)| len)
                .sum::<usize>();
        splice(bytes, at, 0, record);
        self.images.insert(index, (path.to_owned(), record.len()));
    }

    /// Replaces the display record.
    pub(crate) fn set_display(&mut self, bytes: &mut Vec<u8>, record: &[u8]) {
        let at = self.events_end + self.images_len();
        splice(bytes, at, self.display, record);
        self.display = record.len();
    }

    /// Whether the display record is `record` (empty: there is none).
    pub(crate) fn display_is(&self, bytes: &[u8], record: &[u8]) -> bool {
        let at = self.events_end + self.images_len();
        self.display == record.len() && bytes.get(at..at + self.display) == Some(record)
    }

    /// Replaces the notes record.
    pub(crate) fn set_notes(&mut self, bytes: &mut Vec<u8>, record: &[u8]) {
        let at = self.events_end + self.images_len() + self.display;
        splice(bytes, at, self.notes, record);
        self.notes = record.len();
    }

    /// Whether an image record with `path` is in place.
    pub(crate) fn has_image(&self, path: &str) -> bool {
        self.images.iter().any(|(p, _)| p == path)
    }
}

/// Lays out loaded session bytes canonically: the frames without the records between them,
/// the image records in path order, the last display record, the last notes record. Returns
/// the bytes and their layout.
pub(crate) fn canonical(bytes: &[u8], blobs: &[BlobRecord]) -> (Vec<u8>, Layout) {
    let record = |b: &BlobRecord| {
        bytes
            .get(b.record_start..b.start + b.len + 1)
            .unwrap_or_default()
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut pos = 0usize;
    for blob in blobs {
        out.extend_from_slice(bytes.get(pos..blob.record_start).unwrap_or_default());
        pos = blob.start + blob.len + 1;
    }
    out.extend_from_slice(bytes.get(pos..).unwrap_or_default());
    let mut layout = Layout {
        events_end: out.len(),
        ..Layout::default()
    };
    // Path order, by insertion (a session has a handful of images; no sort code in the wasm).
    let mut images: Vec<&BlobRecord> = Vec::new();
    for blob in blobs
        .iter()
        .filter(|b| b.path != DISPLAY_PATH && b.path != NOTES_PATH)
    {
        let at = images.partition_point(|other| other.path < blob.path);
        images.insert(at, blob);
    }
    for blob in images {
        let r = record(blob);
        out.extend_from_slice(r);
        layout.images.push((blob.path.clone(), r.len()));
    }
    for (path, slot) in [(DISPLAY_PATH, 0), (NOTES_PATH, 1)] {
        if let Some(blob) = blobs.iter().rev().find(|b| b.path == path) {
            let r = record(blob);
            out.extend_from_slice(r);
            if slot == 0 {
                layout.display = r.len();
            } else {
                layout.notes = r.len();
            }
        }
    }
    (out, layout)
}

/// What was last committed: the first `shared` bytes of the log as it is now, then `rest`
/// (valid while the log keeps its `epoch`: a log compaction rewrites every byte).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mark {
    pub(crate) epoch: u64,
    pub(crate) changes: u64,
    pub(crate) shared: usize,
    pub(crate) rest: Vec<u8>,
}
