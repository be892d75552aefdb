//! The appender (§2.1): creates sessions and appends frames the way fx does (seq = last + 1,
//! fresh random event ids, the same generation), keeping the replayed state in memory so an
//! append costs O(frame + the records after the frames). Every new frame is re-read by the
//! strict loader path before it is accepted, so appended bytes always load. The bytes keep the
//! canonical layout of [`super::layout`]: frames, then image records, then the display and
//! notes records.

use sha2::{Digest, Sha256};

use super::checkpoint::RecoveryCheckpoint;
use super::error::{LogError, Reason};
use super::event::{Event, Frame, PreferencesChange, ReplacementChunk, ReplacementCommitted};
use super::event::{ReplacementReason, ReplacementStarted, SessionStarted, TurnCommitted};
use super::layout::{canonical, Layout};
use super::loader::{decode_line, replay, MAX_FRAME_BYTES};
use super::reducer::{Reducer, CHUNK_BYTES};
use super::state::{SessionState, MAX_STATE_BYTES};
use super::turn::{HistoryTurn, ImageSnapshot};
use super::types::Preferences;
use super::usage::UsageSnapshot;
use super::view::{view, SessionView};

/// Randomness and time, supplied by the host so the log stays pure and testable.
pub trait Environment {
    /// Fills `buf` with cryptographically random bytes.
    fn fill_random(&mut self, buf: &mut [u8]);
    /// Unix epoch milliseconds.
    fn now_ms(&mut self) -> i64;
    /// Unix epoch nanoseconds (used only in new session ids).
    fn now_ns(&mut self) -> i128;
}

fn random16(env: &mut dyn Environment) -> [u8; 16] {
    let mut id = [0u8; 16];
    env.fill_random(&mut id);
    id
}

/// What a new session starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// Absolute workspace root (also the origin root).
    pub workspace_root: String,
    pub preferences: Preferences,
    /// Defaults to `und`.
    pub conversation_language: Option<String>,
    /// A caller-chosen id; by default `<ms>-<ns>-<16 hex>` (§4.12).
    pub id: Option<String>,
}

/// A turn to commit, with the session totals after it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnCommit {
    pub turn: HistoryTurn,
    /// Defaults to the session's current language.
    pub conversation_language: Option<String>,
    /// Cumulative session totals (they replace the state's totals).
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub work_id: Option<String>,
}

/// A session being written: its bytes and the state they replay to.
pub struct SessionLog {
    pub(super) bytes: Vec<u8>,
    /// Where the frames end and the records after them sit.
    pub(super) layout: Layout,
    pub(super) reducer: Reducer,
    /// Image bytes staged by [`SessionLog::stage_image`], written with the first frame that
    /// references them.
    pub(super) staged: Vec<(ImageSnapshot, Vec<u8>)>,
    /// Counts changes to the bytes ([`SessionLog::mark`]).
    pub(super) changes: u64,
    /// Counts log compactions, which rewrite every byte.
    pub(super) epoch: u64,
}

impl std::fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLog")
            .field("bytes", &self.bytes.len())
            .field("seq", &self.reducer.last_seq)
            .finish()
    }
}

impl SessionLog {
    /// Creates a session: a fresh generation and a `session_started` frame with a zeroed usage
    /// snapshot.
    ///
    /// # Errors
    /// [`Reason::InvalidField`] and friends when the id, root, language or preferences break
    /// the format's rules.
    pub fn create(env: &mut dyn Environment, new: NewSession) -> Result<Self, LogError> {
        let created_at_ms = env.now_ms();
        let id = match new.id {
            Some(id) => id,
            None => {
                let mut suffix = [0u8; 8];
                env.fill_random(&mut suffix);
                format!(
                    "{created_at_ms}-{}-{}",
                    env.now_ns(),
                    super::json::write::hex_string(&suffix)
                )
            }
        };
        let started = SessionStarted {
            id,
            created_at_ms,
            origin_workspace_root: new.workspace_root.clone(),
            workspace_root: new.workspace_root,
            conversation_language: new
                .conversation_language
                .unwrap_or_else(|| "und".to_owned()),
            preferences: new.preferences,
            usage: Some(UsageSnapshot::default()),
        };
        let mut session = Self {
            bytes: Vec::new(),
            layout: Layout::default(),
            reducer: Reducer::default(),
            staged: Vec::new(),
            changes: 0,
            epoch: 0,
        };
        let frame = Frame {
            generation: random16(env),
            seq: 1,
            event_id: random16(env),
            timestamp_ms: created_at_ms,
            event: Event::SessionStarted(started),
        };
        session.push_frame(&frame)?;
        Ok(session)
    }

    /// Loads existing session bytes strictly and continues from their end. Bytes written in an
    /// older layout (records between frames, several display records) are laid out anew; the
    /// session then counts as changed (see [`SessionLog::loaded_mark`]).
    ///
    /// # Errors
    /// The loader's [`LogError`].
    pub fn load(bytes: Vec<u8>) -> Result<Self, LogError> {
        Self::load_keeping(bytes).map(|(log, _)| log)
    }

    /// [`SessionLog::load`], also giving back the loaded bytes when they were laid out anew
    /// (`None`: the log holds them as they were). Bytes without records (most sessions) are
    /// taken as they are, without a copy.
    ///
    /// # Errors
    /// The loader's [`LogError`].
    pub fn load_keeping(bytes: Vec<u8>) -> Result<(Self, Option<Vec<u8>>), LogError> {
        let replayed = replay(&bytes, |_, _| {})?;
        let (laid_out, layout, original) = if replayed.blobs.is_empty() {
            let layout = Layout {
                events_end: bytes.len(),
                ..Layout::default()
            };
            (bytes, layout, None)
        } else {
            let (laid_out, layout) = canonical(&bytes, &replayed.blobs);
            let original = (laid_out != bytes).then_some(bytes);
            (laid_out, layout, original)
        };
        let log = Self {
            bytes: laid_out,
            layout,
            reducer: replayed.reducer,
            staged: Vec::new(),
            changes: u64::from(original.is_some()),
            epoch: 0,
        };
        Ok((log, original))
    }

    /// The session bytes (always a valid log).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Takes the session bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The replayed state.
    pub fn state(&self) -> &SessionState {
        // A session always holds a state: `create` and `load` guarantee a session_started.
        self.reducer
            .state
            .as_ref()
            .unwrap_or_else(|| unreachable_state())
    }

    /// The JS view of the session.
    pub fn view(&self) -> SessionView {
        view(self.state(), self.title())
    }

    /// True once the generation holds 4096 frames past its first or 128 MiB past its first
    /// frame (image records included): fx's trigger for [`SessionLog::compact_log`].
    pub fn compaction_due(&self) -> bool {
        const FRAMES: u64 = 4096;
        const BYTES: usize = 128 * 1024 * 1024;
        self.reducer.last_seq.saturating_sub(1) >= FRAMES || self.bytes.len() >= BYTES
    }

    /// The title a `/rename` gave the session, if any.
    pub fn title(&self) -> Option<&str> {
        self.reducer.title.as_deref()
    }

    /// The seq of the last frame.
    pub fn last_seq(&self) -> u64 {
        self.reducer.last_seq
    }

    /// Appends `history_turn_committed`; a frame over 8 MiB becomes a state replacement.
    ///
    /// # Errors
    /// The loader's [`LogError`] when the frame breaks a rule (work id, language, ...).
    pub fn commit_turn(
        &mut self,
        env: &mut dyn Environment,
        commit: TurnCommit,
    ) -> Result<(), LogError> {
        let language = commit
            .conversation_language
            .unwrap_or_else(|| self.state().conversation_language.clone());
        let committed = TurnCommitted {
            conversation_language: language,
            total_input_tokens: commit.total_input_tokens,
            total_output_tokens: commit.total_output_tokens,
            turn: commit.turn,
            work_id: commit.work_id,
        };
        let images = committed.turn.images().to_vec();
        self.append_or_replace(env, Event::HistoryTurnCommitted(committed), &images)
    }

    /// Appends `preferences_changed` (at least one field must be set).
    ///
    /// # Errors
    /// The loader's [`LogError`] for an empty change or an invalid value.
    pub fn change_preferences(
        &mut self,
        env: &mut dyn Environment,
        change: PreferencesChange,
    ) -> Result<(), LogError> {
        self.append(env, Event::PreferencesChanged(change))
    }

    /// Appends `workspace_rebound` to `workspace_root`.
    ///
    /// # Errors
    /// [`Reason::InvalidRebound`] when the root is empty or unchanged.
    pub fn rebind_workspace(
        &mut self,
        env: &mut dyn Environment,
        workspace_root: String,
    ) -> Result<(), LogError> {
        let previous_workspace_root = self.state().workspace_root.clone();
        self.append(
            env,
            Event::WorkspaceRebound {
                previous_workspace_root,
                workspace_root,
            },
        )
    }

    /// Appends `usage_checkpointed` (a full cumulative replacement of the usage).
    ///
    /// # Errors
    /// [`Reason::InvalidUsage`] when the snapshot breaks an invariant.
    pub fn checkpoint_usage(
        &mut self,
        env: &mut dyn Environment,
        usage: UsageSnapshot,
    ) -> Result<(), LogError> {
        self.append(env, Event::UsageCheckpointed(usage))
    }

    /// Appends `recovery_checkpoint_set`; over 8 MiB it becomes a state replacement.
    ///
    /// # Errors
    /// [`Reason::InvalidCheckpoint`] when the checkpoint breaks an invariant.
    pub fn set_recovery_checkpoint(
        &mut self,
        env: &mut dyn Environment,
        checkpoint: RecoveryCheckpoint,
    ) -> Result<(), LogError> {
        let images = checkpoint.user.images.clone();
        self.append_or_replace(env, Event::RecoveryCheckpointSet(checkpoint), &images)
    }

    /// Appends `recovery_checkpoint_cleared`.
    ///
    /// # Errors
    /// Only if the session is in an impossible state.
    pub fn clear_recovery_checkpoint(&mut self, env: &mut dyn Environment) -> Result<(), LogError> {
        self.append(env, Event::RecoveryCheckpointCleared)
    }

    /// Writes a state replacement transaction (§3.7) holding `next` as the whole new state; its
    /// `updated_at_ms` becomes the current time. Use reason `Compaction` for `/compact`.
    ///
    /// # Errors
    /// [`Reason::ImmutableIdentity`] when `next` changes the identity; [`Reason::BlobTooLarge`]
    /// over 16 MiB; a decode error when `next` breaks a value rule.
    pub fn replace_state(
        &mut self,
        env: &mut dyn Environment,
        mut next: SessionState,
        reason: ReplacementReason,
    ) -> Result<(), LogError> {
        next.updated_at_ms = env.now_ms();
        self.write_replacement(env, &next, reason)
    }

    /// Rewrites the log as a new generation (fx's log compaction, §5.5): a `session_started`
    /// frame and a `log_compaction` replacement holding the whole state, plus the image blobs.
    /// fx does this once a generation passes 4096 frames or 128 MiB; it costs O(state).
    ///
    /// # Errors
    /// [`Reason::BlobTooLarge`] when the state document is over 16 MiB.
    pub fn compact_log(&mut self, env: &mut dyn Environment) -> Result<(), LogError> {
        let state = self.state().clone();
        let started = SessionStarted {
            id: state.id.clone(),
            created_at_ms: state.created_at_ms,
            origin_workspace_root: state.origin_workspace_root.clone(),
            workspace_root: state.workspace_root.clone(),
            conversation_language: state.conversation_language.clone(),
            preferences: state.preferences.clone(),
            usage: state.usage.clone(),
        };
        let old_bytes = std::mem::take(&mut self.bytes);
        let old_layout = std::mem::take(&mut self.layout);
        let old_reducer = std::mem::take(&mut self.reducer);
        let frame = Frame {
            generation: random16(env),
            seq: 1,
            event_id: random16(env),
            timestamp_ms: state.updated_at_ms,
            event: Event::SessionStarted(started),
        };
        let result = self
            .push_frame(&frame)
            .and_then(|()| self.write_replacement(env, &state, ReplacementReason::LogCompaction));
        if let Err(e) = result {
            self.bytes = old_bytes;
            self.layout = old_layout;
            self.reducer = old_reducer;
            return Err(e);
        }
        // Carry over the image blobs the state still references (they are already verified),
        // the renamed title and the turn notes.
        self.epoch += 1;
        let mut at = old_layout.events_end;
        for (path, len) in &old_layout.images {
            let record = old_bytes.get(at..at + len).unwrap_or_default();
            at += len;
            if self.reducer.snapshots.contains_key(path) {
                self.layout.insert_image(&mut self.bytes, path, record);
            }
        }
        if let Some(title) = &old_reducer.title {
            self.write_display(title);
        }
        if let Some(notes) = old_reducer.notes {
            self.set_notes(notes);
        }
        Ok(())
    }

    fn write_replacement(
        &mut self,
        env: &mut dyn Environment,
        next: &SessionState,
        reason: ReplacementReason,
    ) -> Result<(), LogError> {
        let seq = self.reducer.last_seq + 1;
        let doc = next.encode_document();
        if doc.len() as u64 > MAX_STATE_BYTES {
            return Err(LogError::at(
                seq,
                Reason::BlobTooLarge {
                    what: "state document",
                    bytes: doc.len() as u64,
                },
            ));
        }
        SessionState::decode_document(&doc).map_err(|r| LogError::at(seq, r))?;
        let images: Vec<_> = next
            .history
            .iter()
            .flat_map(|t| t.images().iter().cloned())
            .chain(
                next.recovery_checkpoint
                    .iter()
                    .flat_map(|c| c.user.images.iter().cloned()),
            )
            .collect();
        let seed = u128::from_be_bytes(random16(env));
        let replacement_id = random16(env);
        let sha256: [u8; 32] = Sha256::digest(&doc).into();
        let encoded_bytes = doc.len() as u64;
        let chunks: Vec<&[u8]> = doc
            .chunks(usize::try_from(CHUNK_BYTES).unwrap_or(usize::MAX))
            .collect();
        let chunk_count = chunks.len() as u64;
        let mut events = vec![Event::StateReplacementStarted(ReplacementStarted {
            replacement_id,
            reason,
            encoded_bytes,
            sha256,
            chunk_count,
        })];
        for (i, chunk) in chunks.iter().enumerate() {
            events.push(Event::StateReplacementChunk(ReplacementChunk {
                replacement_id,
                chunk_index: i as u64,
                raw_bytes: chunk.len() as u64,
                chunk_sha256: Sha256::digest(chunk).into(),
                data: chunk.to_vec(),
            }));
        }
        events.push(Event::StateReplacementCommitted(ReplacementCommitted {
            replacement_id,
            encoded_bytes,
            sha256,
            chunk_count,
        }));
        let rollback = (self.bytes.clone(), self.layout.clone());
        for (i, event) in events.into_iter().enumerate() {
            let frame = Frame {
                generation: self.reducer.generation,
                seq: self.reducer.last_seq + 1,
                event_id: seed.wrapping_add(i as u128 + 1).to_be_bytes(),
                timestamp_ms: next.updated_at_ms,
                event,
            };
            if let Err(e) = self.push_frame(&frame) {
                // Only an impossible state gets here (the document was checked above); keep
                // the bytes loadable by reloading what was there before.
                (self.bytes, self.layout) = rollback;
                if let Ok(replayed) = replay(&self.bytes, |_, _| {}) {
                    self.reducer = replayed.reducer;
                }
                return Err(e);
            }
        }
        self.write_staged_blobs(&images);
        Ok(())
    }

    fn append(&mut self, env: &mut dyn Environment, event: Event) -> Result<(), LogError> {
        let frame = Frame {
            generation: self.reducer.generation,
            seq: self.reducer.last_seq + 1,
            event_id: random16(env),
            timestamp_ms: env.now_ms(),
            event,
        };
        self.push_frame(&frame)
    }

    fn append_or_replace(
        &mut self,
        env: &mut dyn Environment,
        event: Event,
        images: &[super::turn::Image],
    ) -> Result<(), LogError> {
        let frame = Frame {
            generation: self.reducer.generation,
            seq: self.reducer.last_seq + 1,
            event_id: random16(env),
            timestamp_ms: env.now_ms(),
            event,
        };
        let line = frame.encode();
        if line.len() <= MAX_FRAME_BYTES {
            self.push_line(line)?;
            self.write_staged_blobs(images);
            return Ok(());
        }
        // Too large for one frame: fold it into a copy of the state and replace the state.
        let mut next = self.state().clone();
        super::reducer::apply_to_state(&mut next, frame.event)
            .map_err(|r| LogError::at(frame.seq, r))?;
        self.replace_state(env, next, ReplacementReason::Compaction)
    }

    fn push_frame(&mut self, frame: &Frame) -> Result<(), LogError> {
        self.push_line(frame.encode())
    }

    /// Validates a new line exactly as the loader would, applies it, and appends it.
    fn push_line(&mut self, line: Vec<u8>) -> Result<(), LogError> {
        let seq = self.reducer.last_seq + 1;
        if line.len() > MAX_FRAME_BYTES {
            return Err(LogError::at(
                seq,
                Reason::FrameTooLarge { bytes: line.len() },
            ));
        }
        let body = line.get(..line.len().saturating_sub(1)).unwrap_or_default();
        let decoded = decode_line(body).map_err(|r| LogError::at(seq, r))?;
        self.reducer
            .apply(decoded)
            .map_err(|r| LogError::at(seq, r))?;
        self.layout.insert_frame(&mut self.bytes, &line);
        self.changes += 1;
        self.settle_display();
        Ok(())
    }
}

#[cold]
fn unreachable_state() -> &'static SessionState {
    static EMPTY: std::sync::OnceLock<SessionState> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| SessionState {
        id: String::new(),
        origin_workspace_root: String::new(),
        workspace_root: String::new(),
        created_at_ms: 0,
        updated_at_ms: 0,
        conversation_language: String::new(),
        preferences: Preferences {
            model: String::new(),
            effort: String::new(),
            fast_mode: false,
            provider: Default::default(),
        },
        history: Vec::new(),
        total_input_tokens: 0,
        total_output_tokens: 0,
        context_history_start: 0,
        permission_state: Default::default(),
        usage: None,
        last_subagent_work_id: None,
        recovery_checkpoint: None,
    })
}
