//! The records a [`SessionLog`] keeps after its frames ([`super::layout`]): image blobs staged
//! for a turn, the display record a `/rename` writes, the turn notes; and the commit [`Mark`]
//! that tells whether stored bytes are still exactly what was committed.

use sha2::{Digest, Sha256};

use super::appender::SessionLog;
use super::blob::{encode_blob, MAX_BLOB_BYTES};
use super::error::{LogError, Reason};
use super::layout::Mark;
use super::notes::{TurnNotes, NOTES_PATH};
use super::turn::{snapshot_locator, ImageSnapshot};

impl SessionLog {
    /// What is committed now, for [`SessionLog::is_at`] and [`SessionLog::committed_equals`].
    pub fn mark(&self) -> Mark {
        Mark {
            epoch: self.epoch,
            changes: self.changes,
            shared: self.layout.events_end,
            rest: self
                .bytes
                .get(self.layout.events_end..)
                .unwrap_or_default()
                .to_vec(),
        }
    }

    /// The mark of the stored bytes this session was loaded from (`stored`): not the current
    /// bytes when they were laid out anew.
    pub fn loaded_mark(&self, stored: &[u8]) -> Mark {
        if self.changes == 0 {
            return self.mark();
        }
        Mark {
            epoch: self.epoch,
            changes: 0,
            shared: 0,
            rest: stored.to_vec(),
        }
    }

    /// `old`, a commit mark of `old_log`, as a mark of this log: `old_log` reloaded from the
    /// bytes it had before a change that was taken back. With `current`, this log is what was
    /// committed; otherwise the mark still tells the committed bytes apart but is never "at".
    pub fn carry_mark(&self, old_log: &SessionLog, old: &Mark, current: bool) -> Mark {
        if current {
            return self.mark();
        }
        Mark {
            // A mark of an earlier generation matches nothing here.
            epoch: if old.epoch == old_log.epoch {
                self.epoch
            } else {
                u64::MAX
            },
            changes: u64::MAX,
            shared: old.shared,
            rest: old.rest.clone(),
        }
    }

    /// The bytes appended since `mark` was taken, when the log is exactly what was committed
    /// then followed by them (new frames, no record before them changed); `None` otherwise (a
    /// rename, a note or a compaction since, or records after the frames: new frames go
    /// before those).
    pub fn appended_since(&self, mark: &Mark) -> Option<&[u8]> {
        if mark.epoch != self.epoch {
            return None;
        }
        let end = mark.shared.checked_add(mark.rest.len())?;
        let committed_rest = self.bytes.get(mark.shared..end)?;
        (committed_rest == mark.rest.as_slice()).then(|| self.bytes.get(end..).unwrap_or_default())
    }

    /// True when nothing changed since `mark` was taken.
    pub fn is_at(&self, mark: &Mark) -> bool {
        mark.epoch == self.epoch && mark.changes == self.changes
    }

    /// True when `other` is exactly the bytes `mark` describes.
    pub fn committed_equals(&self, mark: &Mark, other: &[u8]) -> bool {
        mark.epoch == self.epoch
            && other.len() == mark.shared + mark.rest.len()
            && other.get(..mark.shared) == self.bytes.get(..mark.shared)
            && other.get(mark.shared..) == Some(mark.rest.as_slice())
    }

    /// True when `other` holds our log as `mark` describes it, or a later state of it: our
    /// frames up to a frame boundary at or after the mark's, then the records committed at the
    /// mark or the records we hold now (a commit of ours that was stored after we stopped
    /// waiting for it).
    pub fn holds_ours(&self, mark: &Mark, other: &[u8]) -> bool {
        if self.committed_equals(mark, other) {
            return true;
        }
        if mark.epoch != self.epoch {
            return false;
        }
        let frames = self.bytes.get(..self.layout.events_end).unwrap_or_default();
        let common = frames.iter().zip(other).take_while(|(a, b)| a == b).count();
        let boundary = frames
            .get(..common)
            .and_then(|f| f.iter().rposition(|&b| b == b'\n'))
            .map_or(0, |i| i + 1);
        if boundary < mark.shared {
            return false;
        }
        let records = other.get(boundary..).unwrap_or_default();
        let ours_now = self.bytes.get(self.layout.events_end..).unwrap_or_default();
        records == mark.rest.as_slice() || records == ours_now
    }

    /// The note shown when turn `turn` (user text `user_text`) ended early, if one was kept.
    pub fn turn_note(&self, turn: usize, user_text: &super::types::DurableBytes) -> Option<&str> {
        self.reducer.notes.as_ref()?.get(turn, user_text.as_bytes())
    }

    /// Keeps `message` as the note of the last turn (what the screen showed when it ended),
    /// in the session's notes record.
    pub fn note_last_turn(&mut self, message: &str) {
        let Some(index) = self.state().history.len().checked_sub(1) else {
            return;
        };
        let Some(user) = self
            .state()
            .history
            .get(index)
            .and_then(|t| t.user())
            .map(|u| u.text.as_bytes().to_vec())
        else {
            return;
        };
        let mut notes = self.reducer.notes.clone().unwrap_or_default();
        notes.insert(index, &user, message);
        self.set_notes(notes);
    }

    /// The session's turn notes.
    pub fn notes(&self) -> Option<&TurnNotes> {
        self.reducer.notes.as_ref()
    }

    /// Replaces the session's turn notes (a fork carries them over).
    pub fn set_notes(&mut self, notes: TurnNotes) {
        let record = encode_blob(NOTES_PATH, &notes.encode());
        self.layout.set_notes(&mut self.bytes, &record);
        self.reducer.notes = Some(notes);
        self.changes += 1;
    }

    /// Names the session: appends a `display.json` record with `title` (one line, whitespace
    /// collapsed, at most 240 bytes) and the derived preview. Returns the title as stored.
    ///
    /// # Errors
    /// [`Reason::InvalidField`] when nothing is left of `title`.
    pub fn rename(&mut self, title: &str) -> Result<String, LogError> {
        let title = super::display::clean_title(title).ok_or_else(|| {
            LogError::whole(Reason::InvalidField {
                path: "title".to_owned(),
                detail: "must not be empty",
            })
        })?;
        self.write_display(&title);
        Ok(title)
    }

    pub(super) fn write_display(&mut self, title: &str) {
        self.reducer.title = Some(title.to_owned());
        self.settle_display();
    }

    /// Keeps the display record what import would build from the state: the renamed title
    /// with the preview derived now, and no record at all while the title is the derived one.
    pub(super) fn settle_display(&mut self) {
        let Some(title) = self.reducer.title.clone() else {
            return;
        };
        let state = self.state();
        let derived = super::display::derive(state).map(|d| d.title);
        let record = if derived.as_deref() == Some(title.as_str()) {
            Vec::new()
        } else {
            let shown =
                super::display::shown(state, Some(&title)).unwrap_or(super::display::Display {
                    title: title.clone(),
                    preview: None,
                });
            let json = super::display::encode_display_json(&shown, &state.origin_workspace_root);
            super::blob::encode_blob(super::blob::DISPLAY_PATH, &json)
        };
        if record.is_empty() {
            self.reducer.title = None;
        }
        if !self.layout.display_is(&self.bytes, &record) {
            self.layout.set_display(&mut self.bytes, &record);
            self.changes += 1;
        }
    }

    /// Keeps image bytes to be written with the turn (or checkpoint) that references them;
    /// returns the snapshot to put on the [`super::turn::Image`].
    ///
    /// # Errors
    /// [`Reason::BlobTooLarge`] over 16 MiB; [`Reason::InvalidAppend`] for id 0.
    pub fn stage_image(&mut self, id: u64, bytes: Vec<u8>) -> Result<ImageSnapshot, LogError> {
        if bytes.len() as u64 > MAX_BLOB_BYTES {
            return Err(LogError::whole(Reason::BlobTooLarge {
                what: "image blob",
                bytes: bytes.len() as u64,
            }));
        }
        if id == 0 {
            return Err(LogError::whole(Reason::InvalidAppend(
                "image ids start at 1".to_owned(),
            )));
        }
        let sha256: [u8; 32] = Sha256::digest(&bytes).into();
        let snapshot = ImageSnapshot {
            path: snapshot_locator(id, &sha256),
            sha256,
        };
        self.staged.push((snapshot.clone(), bytes));
        Ok(snapshot)
    }

    pub(super) fn write_staged_blobs(&mut self, images: &[super::turn::Image]) {
        for image in images {
            let Some(snapshot) = &image.snapshot else {
                continue;
            };
            if self.layout.has_image(&snapshot.path) {
                continue;
            }
            if let Some(pos) = self.staged.iter().position(|(s, _)| s == snapshot) {
                let (snapshot, bytes) = self.staged.swap_remove(pos);
                let record = encode_blob(&snapshot.path, &bytes);
                self.layout
                    .insert_image(&mut self.bytes, &snapshot.path, &record);
                self.changes += 1;
            }
        }
    }
}
