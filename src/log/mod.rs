//! The fx session event log (`event_log_v1`), byte-compatible with the fx CLI.
//!
//! Table of contents:
//!
//! - [`error`]: [`LogError`] (seq + typed [`Reason`]), code `FX_SESSION_INVALID`.
//! - `json`: strict tree parser, typed readers with JSON paths, canonical writer (Zig escaping,
//!   plain-decimal floats, lowercase hex, durable bytes).
//! - [`types`], [`turn`], [`execution`], [`presentation`], [`usage`], [`checkpoint`]: payload
//!   types and codecs.
//! - [`event`]: frames and the ten event kinds. [`state`]: the session state and its
//!   order-sensitive state document.
//! - `reducer` (crate-private) and [`loader`]: strict replay of session bytes.
//! - [`appender`]: builds new sessions and appends frames the way fx does.
//! - [`display`], [`view`]: title/preview derivation and the JS view.
//! - [`native`]: export to / import from a native fx session directory.
//! - [`blob`]: image blob records inside session bytes. [`layout`]: their canonical place.
//! - [`notes`]: turn notes (a failed turn's message), fx-wasm's own sidecar record.
//!
//! # Session bytes
//!
//! Session bytes are the `events.jsonl` byte stream exactly, optionally interleaved with image
//! blob records so the bytes can carry the image snapshots fx keeps beside the log. A blob
//! record is a line `#fx-blob <relative path> <byte length> <sha256 hex>\n`, then the raw bytes,
//! then `\n`. The path must be a canonical snapshot locator (`images/image-<id>-<sha16>.bin`),
//! the content at most 16 MiB, and it must match (path and SHA-256) an image snapshot some
//! frame references; all of this is verified on load. A log with no records is exactly
//! `events.jsonl`. The bytes we write are laid out canonically ([`layout`]): the frames, then
//! the image records in path order, then the display record, then the notes record, which is
//! also what [`import_native`] builds, so export → import gives back the same bytes. Older
//! layouts (records between frames) still load. A frame always starts with `{`, so records and
//! frames never collide. A missing snapshot is fine: fx only needs one to replay an image.
//!
//! The whole byte string is committed: a last line without `\n` is a truncated frame and an
//! error (there is no watermark beyond the end).
//!
//! # Errors
//!
//! Every rejection is a [`LogError`]: `seq` is the 1-based position of the offending line among
//! the frames (the seq it carries in a valid log), `None` for whole-log problems (empty input,
//! an unreferenced blob, a bad directory); `reason` is a [`Reason`] variant per rule, with the
//! JSON path where one applies. Loading is linear in the input and never panics.
//!
//! # Canonical bytes
//!
//! [`Frame::encode`] writes fx's canonical form, so decoding and re-encoding an fx-written log
//! gives it back byte for byte. Like fx, re-encoding canonicalizes what the reader tolerates:
//! whitespace and key order, provider/effort case and aliases, legacy result schemas (→ 3),
//! a missing `terminal_reason` or image snapshot keys, legacy summary keys, and repaired
//! `arguments_json`. The appender never rewrites a frame: it adds frames after the last one
//! and replaces only the records that follow the frames.
//!
//! # Known gaps
//!
//! - Permission state schema 1 (read-only in fx) is rejected: its layout is not specified.
//! - The rich usage form is accepted in state documents but only its rollback-readable
//!   projection is kept; `usage-v2.json` is neither read nor written.
//! - The 256 KiB cap on a state document's `usage` value is not enforced.

pub mod appender;
pub mod blob;
pub mod checkpoint;
pub mod display;
mod durable;
pub mod error;
pub mod event;
pub mod execution;
pub(crate) mod json;
pub mod layout;
pub mod loader;
pub mod native;
pub mod notes;
pub mod presentation;
mod records;
pub(crate) mod reducer;
pub mod state;
pub mod turn;
pub mod types;
pub mod usage;
pub mod view;

#[doc(hidden)]
// Native tests and examples/log_bench.rs use it; wasm builds only with feature `bench`.
#[cfg(any(feature = "bench", not(target_arch = "wasm32")))]
pub mod bench;

pub use appender::{Environment, NewSession, SessionLog};
pub use error::{LogError, Reason};
pub use event::{Event, Frame};
pub use json::write::hex_string;
pub use loader::{decode_frames, load, Loaded};
pub use state::SessionState;
pub use view::SessionView;

/// Loads `bytes` strictly and returns the session's view.
///
/// # Errors
/// A [`LogError`] naming the seq and the reason when the log is not a valid `event_log_v1` log.
pub fn read_session(bytes: &[u8]) -> Result<SessionView, LogError> {
    let loaded = loader::load(bytes)?;
    Ok(view::view(&loaded.state, loaded.title.as_deref()))
}

/// Builds session bytes from a native session directory's files (relative path → bytes).
///
/// # Errors
/// A [`LogError`] when the directory is not a loadable fx session.
pub fn import_native(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, LogError> {
    native::import(files)
}

/// Writes the files the fx CLI needs to load the session (relative path → bytes).
///
/// # Errors
/// A [`LogError`] when `bytes` is not a valid session log.
pub fn export_native(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    native::export(bytes)
}
