//! The reducer (§3, §10.1): applies frames in order to a [`SessionState`], enforcing seq,
//! generation, identity, work-id and state-replacement rules.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::error::Reason;
use super::event::{
    Event, Frame, ReplacementReason, ReplacementStarted, SessionStarted, TurnCommitted,
};
use super::state::{SessionState, MAX_STATE_BYTES};
use super::turn::{HistoryTurn, Image};

/// State replacement chunks hold 4 MiB of raw bytes (the last one may hold less).
pub const CHUNK_BYTES: u64 = 4 * 1024 * 1024;

struct OpenReplacement {
    started: ReplacementStarted,
    started_seq: u64,
    buffer: Vec<u8>,
    next_index: u64,
}

/// Folds frames into a session state.
#[derive(Default)]
pub(crate) struct Reducer {
    pub(crate) state: Option<SessionState>,
    pub(crate) generation: [u8; 16],
    pub(crate) last_seq: u64,
    pub(crate) last_event_id: [u8; 16],
    open: Option<OpenReplacement>,
    /// Every image snapshot any frame referenced: locator → SHA-256.
    pub(crate) snapshots: HashMap<String, [u8; 32]>,
    /// The title of the last `display.json` record (a `/rename`), if any.
    pub(crate) title: Option<String>,
    /// The last `turn-notes.json` record, if any was readable.
    pub(crate) notes: Option<super::notes::TurnNotes>,
}

impl Reducer {
    /// The seq of the `started` frame of an unfinished replacement, if any.
    pub(crate) fn open_replacement(&self) -> Option<u64> {
        self.open.as_ref().map(|o| o.started_seq)
    }

    fn note_images(&mut self, images: &[Image]) {
        for image in images {
            if let Some(s) = &image.snapshot {
                self.snapshots.insert(s.path.clone(), s.sha256);
            }
        }
    }

    fn note_state_images(&mut self, state: &SessionState) {
        for turn in &state.history {
            self.note_images(turn.images());
        }
        if let Some(c) = &state.recovery_checkpoint {
            self.note_images(&c.user.images);
        }
    }

    /// Applies one frame.
    pub(crate) fn apply(&mut self, frame: Frame) -> Result<(), Reason> {
        let expected = self
            .last_seq
            .checked_add(1)
            .ok_or(Reason::NonContiguousSequence {
                expected: u64::MAX,
                found: frame.seq,
            })?;
        if self.last_seq == 0 && !matches!(frame.event, Event::SessionStarted(_)) {
            return Err(Reason::MissingSessionStarted);
        }
        if frame.seq != expected {
            return Err(Reason::NonContiguousSequence {
                expected,
                found: frame.seq,
            });
        }
        if self.last_seq == 0 {
            self.generation = frame.generation;
        } else if frame.generation != self.generation {
            return Err(Reason::GenerationChanged);
        }
        let seq = frame.seq;
        let event_id = frame.event_id;
        let timestamp_ms = frame.timestamp_ms;
        if self.open.is_some()
            && !matches!(
                frame.event,
                Event::StateReplacementChunk(_) | Event::StateReplacementCommitted(_)
            )
        {
            return Err(Reason::InvalidReplacement(
                "another frame interrupted an open state replacement",
            ));
        }
        match frame.event {
            Event::SessionStarted(started) => {
                if self.state.is_some() {
                    return Err(Reason::SecondSessionStarted);
                }
                self.state = Some(initial_state(started, timestamp_ms));
            }
            Event::StateReplacementStarted(started) => {
                if started.encoded_bytes == 0 {
                    return Err(Reason::InvalidReplacement("encoded_bytes must not be 0"));
                }
                if started.encoded_bytes > MAX_STATE_BYTES {
                    return Err(Reason::BlobTooLarge {
                        what: "state document",
                        bytes: started.encoded_bytes,
                    });
                }
                if started.chunk_count != started.encoded_bytes.div_ceil(CHUNK_BYTES) {
                    return Err(Reason::InvalidReplacement(
                        "chunk_count does not match encoded_bytes",
                    ));
                }
                let capacity = usize::try_from(started.encoded_bytes).unwrap_or(0);
                self.open = Some(OpenReplacement {
                    started,
                    started_seq: seq,
                    buffer: Vec::with_capacity(capacity),
                    next_index: 0,
                });
            }
            Event::StateReplacementChunk(chunk) => {
                let open = self
                    .open
                    .as_mut()
                    .ok_or(Reason::InvalidReplacement("a chunk outside a replacement"))?;
                let s = &open.started;
                if chunk.replacement_id != s.replacement_id {
                    return Err(Reason::InvalidReplacement(
                        "chunk replacement_id differs from the started frame",
                    ));
                }
                if chunk.chunk_index != open.next_index || chunk.chunk_index >= s.chunk_count {
                    return Err(Reason::InvalidReplacement("chunk_index out of order"));
                }
                let is_last = chunk.chunk_index + 1 == s.chunk_count;
                let expected_len = if is_last {
                    s.encoded_bytes - CHUNK_BYTES * (s.chunk_count - 1)
                } else {
                    CHUNK_BYTES
                };
                if chunk.raw_bytes != expected_len || chunk.data.len() as u64 != chunk.raw_bytes {
                    return Err(Reason::InvalidReplacement(
                        "chunk raw_bytes does not match its size rule or data",
                    ));
                }
                if Sha256::digest(&chunk.data).as_slice() != chunk.chunk_sha256 {
                    return Err(Reason::InvalidReplacement(
                        "chunk_sha256 does not match the chunk",
                    ));
                }
                open.buffer.extend_from_slice(&chunk.data);
                open.next_index += 1;
            }
            Event::StateReplacementCommitted(committed) => {
                let open = self
                    .open
                    .take()
                    .ok_or(Reason::InvalidReplacement("a commit outside a replacement"))?;
                let s = &open.started;
                if committed.replacement_id != s.replacement_id
                    || committed.encoded_bytes != s.encoded_bytes
                    || committed.chunk_count != s.chunk_count
                    || committed.sha256 != s.sha256
                {
                    return Err(Reason::InvalidReplacement(
                        "the commit frame does not repeat the started frame",
                    ));
                }
                if open.next_index != s.chunk_count || open.buffer.len() as u64 != s.encoded_bytes {
                    return Err(Reason::InvalidReplacement("chunks are missing"));
                }
                if Sha256::digest(&open.buffer).as_slice() != s.sha256 {
                    return Err(Reason::InvalidReplacement(
                        "sha256 does not match the state document",
                    ));
                }
                let decoded = SessionState::decode_document(&open.buffer)?;
                let prior = self.state.as_ref().ok_or(Reason::MissingSessionStarted)?;
                if decoded.id != prior.id
                    || decoded.created_at_ms != prior.created_at_ms
                    || decoded.origin_workspace_root != prior.origin_workspace_root
                    || decoded.workspace_root != prior.workspace_root
                {
                    return Err(Reason::ImmutableIdentity(
                        "a state replacement changed the session identity",
                    ));
                }
                if decoded.updated_at_ms != timestamp_ms {
                    return Err(Reason::InvalidReplacement(
                        "updated_at_ms differs from the commit frame timestamp",
                    ));
                }
                if s.reason == ReplacementReason::LogCompaction
                    && timestamp_ms != prior.updated_at_ms
                {
                    return Err(Reason::InvalidReplacement(
                        "a log compaction must keep updated_at_ms",
                    ));
                }
                self.note_state_images(&decoded);
                self.state = Some(decoded);
            }
            other => {
                let state = self.state.as_mut().ok_or(Reason::MissingSessionStarted)?;
                let images = apply_to_state(state, other)?;
                if let Some(images) = images {
                    self.note_images(&images);
                }
            }
        }
        if self.open.is_none() {
            if let Some(state) = self.state.as_mut() {
                state.updated_at_ms = timestamp_ms;
            }
        }
        self.last_seq = seq;
        self.last_event_id = event_id;
        Ok(())
    }
}

fn initial_state(s: SessionStarted, timestamp_ms: i64) -> SessionState {
    SessionState {
        id: s.id,
        origin_workspace_root: s.origin_workspace_root,
        workspace_root: s.workspace_root,
        created_at_ms: s.created_at_ms,
        updated_at_ms: timestamp_ms,
        conversation_language: s.conversation_language,
        preferences: s.preferences,
        history: Vec::new(),
        total_input_tokens: 0,
        total_output_tokens: 0,
        context_history_start: 0,
        permission_state: Default::default(),
        usage: s.usage,
        last_subagent_work_id: None,
        recovery_checkpoint: None,
    }
}

/// Applies an ordinary (non-replacement, non-start) event; returns images it referenced.
pub(crate) fn apply_to_state(
    state: &mut SessionState,
    event: Event,
) -> Result<Option<Vec<Image>>, Reason> {
    match event {
        Event::PreferencesChanged(c) => {
            if let Some(provider) = c.provider {
                state.preferences.provider = provider;
            }
            if let Some(model) = c.model {
                state.preferences.model = model;
            }
            if let Some(effort) = c.effort {
                state.preferences.effort = effort;
            }
            if let Some(fast) = c.fast_mode {
                state.preferences.fast_mode = fast;
            }
        }
        Event::WorkspaceRebound {
            previous_workspace_root,
            workspace_root,
        } => {
            if previous_workspace_root != state.workspace_root {
                return Err(Reason::InvalidRebound(
                    "previous_workspace_root is not the current workspace root",
                ));
            }
            if workspace_root == state.workspace_root {
                return Err(Reason::InvalidRebound(
                    "the new workspace root equals the current one",
                ));
            }
            state.workspace_root = workspace_root;
        }
        Event::HistoryTurnCommitted(committed) => return commit_turn(state, committed),
        Event::UsageCheckpointed(usage) => state.usage = Some(usage),
        Event::RecoveryCheckpointSet(checkpoint) => {
            let images = checkpoint.user.images.clone();
            state.recovery_checkpoint = Some(checkpoint);
            return Ok(Some(images));
        }
        Event::RecoveryCheckpointCleared => state.recovery_checkpoint = None,
        Event::SessionStarted(_)
        | Event::StateReplacementStarted(_)
        | Event::StateReplacementChunk(_)
        | Event::StateReplacementCommitted(_) => {}
    }
    Ok(None)
}

fn commit_turn(
    state: &mut SessionState,
    committed: TurnCommitted,
) -> Result<Option<Vec<Image>>, Reason> {
    let TurnCommitted {
        conversation_language,
        total_input_tokens,
        total_output_tokens,
        mut turn,
        work_id,
    } = committed;
    let is_summary = matches!(turn, HistoryTurn::CompactedSummary(_));
    match (&work_id, turn.user_mut()) {
        (Some(_), None) if is_summary => {
            return Err(Reason::InvalidWorkId(
                "a compacted_summary turn cannot carry a work_id",
            ));
        }
        (Some(id), Some(user)) => match &user.work_id {
            None => user.work_id = Some(id.clone()),
            Some(existing) if existing == id => {}
            Some(_) => {
                return Err(Reason::InvalidWorkId(
                    "payload work_id differs from turn.user.work_id",
                ))
            }
        },
        (None, Some(user)) if user.work_id.is_some() => {
            return Err(Reason::InvalidWorkId(
                "turn.user.work_id is set without a payload work_id",
            ));
        }
        _ => {}
    }
    if let Some(id) = work_id {
        state.last_subagent_work_id = Some(id);
    }
    let images = turn.images().to_vec();
    state.history.push(turn);
    state.conversation_language = conversation_language;
    state.total_input_tokens = total_input_tokens;
    state.total_output_tokens = total_output_tokens;
    state.recovery_checkpoint = None;
    Ok(if images.is_empty() {
        None
    } else {
        Some(images)
    })
}
