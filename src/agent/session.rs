//! A live session: its event log, its stored revision, and how it reaches the host's store.
//!
//! Every change is appended to the log in memory, then committed as a compare-and-set on the
//! stored revision. A commit never overwrites a newer record: on a revision conflict the stored
//! record is reloaded; if it is what we last committed (or a longer prefix of our log: a commit
//! of ours that answered after its deadline), the commit is retried on its new revision; if
//! another writer moved it on, our whole history (the shared part and ours) is saved as a new
//! session — a fork — and the host is told. Nothing is lost either way.
//!
//! Store calls are bounded by js/host.js (`adapterTimeoutMs`, and abandoned when the agent
//! stops): a commit that gave no answer may still land later, which is why a longer prefix of
//! our own log in the store counts as ours.

use std::collections::HashSet;

use crate::log::appender::{Environment, NewSession, TurnCommit};
use crate::log::checkpoint::RecoveryCheckpoint;
use crate::log::event::PreferencesChange;
use crate::log::layout::Mark;
use base64::Engine as _;

use crate::gateway::prompt::ImagePart;
use crate::log::turn::{HistoryTurn, Image, InterruptedTurn, TerminalReason};
use crate::log::types::DurableBytes;
use crate::log::types::Preferences;
use crate::log::{LogError, SessionLog, SessionState};
use crate::Code;

use super::modes::Mode;
use super::prompt::{PromptImage, StagedImage};
use crate::caps::{Failure, Host, HostEvent, StoreError};
use sha2::{Digest, Sha256};

/// Why a session operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    Store(StoreError),
    /// Boxed, as `Unreadable`'s: a [`LogError`] is several times the size of the other variants,
    /// and every `Result` that can carry a `SessionError` would grow with it.
    #[error("the session log refused the change: {0}")]
    Log(Box<LogError>),
    #[error("session {0} was not found in the session store")]
    NotFound(String),
    /// The stored bytes are not a loadable log.
    #[error("session {id} could not be loaded: {source}")]
    Unreadable { id: String, source: Box<LogError> },
    /// The stored log is another session's (`holds` is its id).
    #[error("session {id} could not be loaded: the stored log belongs to session {holds}")]
    Misfiled { id: String, holds: String },
}

impl SessionError {
    pub fn code(&self) -> Code {
        match self {
            SessionError::Store(error) => error.code(),
            SessionError::Log(_) => Code::SessionInvalid,
            SessionError::NotFound(_) => Code::SessionNotFound,
            SessionError::Unreadable { .. } | SessionError::Misfiled { .. } => Code::SessionInvalid,
        }
    }
}

impl From<LogError> for SessionError {
    fn from(error: LogError) -> Self {
        SessionError::Log(Box::new(error))
    }
}

/// The log's randomness and clock, from the host.
pub struct HostEnvironment<'a, H: Host>(pub &'a H);

impl<H: Host> Environment for HostEnvironment<'_, H> {
    fn fill_random(&mut self, buf: &mut [u8]) {
        self.0.fill_random(buf);
    }
    fn now_ms(&mut self) -> i64 {
        self.0.now_ms()
    }
    fn now_ns(&mut self) -> i128 {
        let mut extra = [0u8; 2];
        self.0.fill_random(&mut extra);
        i128::from(self.0.now_ms()) * 1_000_000
            + i128::from(u16::from_le_bytes(extra) % 1000) * 1000
    }
}

/// A session the agent is working on.
pub struct LiveSession {
    log: SessionLog,
    /// The store's revision of what we last committed (`None`: never committed).
    revision: Option<String>,
    /// What we last committed (for telling whether there is more, and whether a stored record
    /// is still ours); for a session never committed, its start: nothing to keep yet.
    committed: Mark,
    /// How many turns the store holds (the history length at the last commit).
    committed_turns: usize,
    pub mode: Mode,
    /// Exact commands the user allowed for the rest of the session.
    pub always_allowed: HashSet<String>,
    /// SHA-256 of each log a commit wrote that gave no answer by its deadline (it may land
    /// later): a stored record equal to one is ours, not another writer's.
    unanswered: Vec<[u8; 32]>,
}

impl LiveSession {
    /// A new session, not stored until it has something to keep (see [`Self::is_blank`]).
    ///
    /// # Errors
    /// [`SessionError::Log`] when the workspace root or preferences break the log's rules.
    pub fn create<H: Host>(
        host: &H,
        workspace_root: &str,
        preferences: Preferences,
        mode: Mode,
    ) -> Result<Self, SessionError> {
        let new = NewSession {
            workspace_root: workspace_root.to_owned(),
            preferences,
            conversation_language: None,
            id: None,
        };
        let log = SessionLog::create(&mut HostEnvironment(host), new)?;
        Ok(LiveSession {
            committed: log.mark(),
            log,
            revision: None,
            committed_turns: 0,
            mode,
            always_allowed: HashSet::new(),
            unanswered: Vec::new(),
        })
    }

    /// Loads a stored session.
    ///
    /// # Errors
    /// [`SessionError::NotFound`], [`SessionError::Store`], [`SessionError::Unreadable`] or
    /// [`SessionError::Misfiled`].
    pub async fn open<H: Host>(host: &H, id: &str, mode: Mode) -> Result<Self, SessionError> {
        let stored = host.load_session(id).await.map_err(SessionError::Store)?;
        let stored = stored.ok_or_else(|| SessionError::NotFound(id.to_owned()))?;
        let (log, relaid) =
            SessionLog::load_keeping(stored.bytes).map_err(|source| SessionError::Unreadable {
                id: id.to_owned(),
                source: Box::new(source),
            })?;
        if log.state().id != id {
            return Err(SessionError::Misfiled {
                id: id.to_owned(),
                holds: log.state().id.clone(),
            });
        }
        // What the store holds: the log's bytes, or what they were laid out from.
        let committed = match &relaid {
            Some(stored) => log.loaded_mark(stored),
            None => log.mark(),
        };
        let committed_turns = log.state().history.len();
        Ok(LiveSession {
            log,
            revision: Some(stored.revision),
            committed,
            committed_turns,
            mode,
            always_allowed: HashSet::new(),
            unanswered: Vec::new(),
        })
    }

    pub fn id(&self) -> &str {
        &self.log.state().id
    }

    pub fn state(&self) -> &SessionState {
        self.log.state()
    }

    pub fn log(&self) -> &SessionLog {
        &self.log
    }

    /// The store's revision of what was last committed (`None`: never committed).
    pub fn revision(&self) -> Option<&str> {
        self.revision.as_deref()
    }

    /// True when the store holds everything worth keeping: all that was appended has been
    /// committed, or nothing was ever appended to a new session (a blank one).
    pub fn is_saved(&self) -> bool {
        self.log.is_at(&self.committed)
    }

    /// True for a session that holds nothing but its start and was never stored. As fx does,
    /// such a session is stored only once it has something to keep (a turn, a compaction, a
    /// preference change): [`Self::persist`] leaves it out of the store, so a launch, `/new`
    /// or `createSession()` with no turn leaves no empty record for `listSessions` and
    /// `--resume last` to find.
    pub fn is_blank(&self) -> bool {
        self.revision.is_none() && self.log.is_at(&self.committed)
    }

    /// Starts a blank session anew with `preferences` (a value restored from the config store
    /// as it opens): the log's start says them, under the same id, and it stays blank.
    /// Returns false, changing nothing, for a session that is not blank.
    ///
    /// # Errors
    /// [`SessionError::Log`] when the preferences break the log's rules.
    pub fn restart_blank<H: Host>(
        &mut self,
        host: &H,
        preferences: Preferences,
    ) -> Result<bool, SessionError> {
        if !self.is_blank() {
            return Ok(false);
        }
        let state = self.state();
        let new = NewSession {
            workspace_root: state.workspace_root.clone(),
            preferences,
            conversation_language: None,
            id: Some(state.id.clone()),
        };
        self.log = SessionLog::create(&mut HostEnvironment(host), new)?;
        self.committed = self.log.mark();
        Ok(true)
    }

    /// How many of the session's turns the store does not hold yet.
    pub fn unsaved_turns(&self) -> usize {
        self.state()
            .history
            .len()
            .saturating_sub(self.committed_turns)
    }

    /// What a host is told when this session's unsaved part will not be stored: `code` and
    /// `message` say why.
    pub fn unsaved_event(&self, code: &'static str, message: String) -> HostEvent {
        HostEvent::SessionUnsaved {
            session_id: self.id().to_owned(),
            turns: self.unsaved_turns(),
            code,
            message,
            bytes: self.log.bytes().to_vec(),
        }
    }

    /// Stages the images of the next user turn (a front end does, before the turn's
    /// [`super::Agent::run_plan`]): each gets the session's next image id, and its bytes a
    /// snapshot the log writes with the turn. Returns them as the turn's [`Prompt`] takes them.
    ///
    /// # Errors
    /// [`SessionError::Log`] for an image the log cannot keep (over 16 MiB).
    pub fn stage_images(
        &mut self,
        images: Vec<PromptImage>,
    ) -> Result<Vec<StagedImage>, SessionError> {
        let mut next = self
            .state()
            .history
            .iter()
            .flat_map(|turn| turn.images())
            .map(|image| image.id)
            .max()
            .unwrap_or(0);
        let mut staged = Vec::with_capacity(images.len());
        for image in images {
            next = next.saturating_add(1);
            let part = ImagePart {
                media_type: image.media_type.clone(),
                data_base64: base64::engine::general_purpose::STANDARD.encode(&image.bytes),
            };
            let snapshot = self.log.stage_image(next, image.bytes)?;
            let logged = Image {
                id: next,
                path: DurableBytes::from(image.name),
                media_type: DurableBytes::from(image.media_type),
                snapshot: Some(snapshot),
            };
            staged.push(StagedImage { logged, part });
        }
        Ok(staged)
    }

    /// Appends a committed turn with the session totals after it.
    ///
    /// # Errors
    /// [`SessionError::Log`] when the turn breaks a rule of the format.
    pub fn append_turn<H: Host>(
        &mut self,
        host: &H,
        turn: HistoryTurn,
        input_tokens: u64,
        output_tokens: u64,
    ) -> Result<(), SessionError> {
        let commit = TurnCommit {
            turn,
            conversation_language: None,
            total_input_tokens: input_tokens,
            total_output_tokens: output_tokens,
            work_id: None,
        };
        self.log.commit_turn(&mut HostEnvironment(host), commit)?;
        Ok(())
    }

    /// Appends a preferences change.
    ///
    /// # Errors
    /// [`SessionError::Log`] for an invalid value.
    pub fn change_preferences<H: Host>(
        &mut self,
        host: &H,
        change: PreferencesChange,
    ) -> Result<(), SessionError> {
        self.log
            .change_preferences(&mut HostEnvironment(host), change)?;
        Ok(())
    }

    /// Names the session (the title the session list and the export show).
    ///
    /// # Errors
    /// [`SessionError::Log`] when nothing is left of `title`.
    pub fn rename(&mut self, title: &str) -> Result<String, SessionError> {
        Ok(self.log.rename(title)?)
    }

    /// Records the in-flight turn so a closed tab can resume it.
    ///
    /// # Errors
    /// [`SessionError::Log`] when the checkpoint breaks an invariant.
    pub fn set_checkpoint<H: Host>(
        &mut self,
        host: &H,
        checkpoint: RecoveryCheckpoint,
    ) -> Result<(), SessionError> {
        self.log
            .set_recovery_checkpoint(&mut HostEnvironment(host), checkpoint)?;
        Ok(())
    }

    /// A pending recovery checkpoint (a turn that never finished) becomes an interrupted turn
    /// that keeps its completed tool steps. Returns whether anything changed.
    ///
    /// # Errors
    /// [`SessionError::Log`] when the turn cannot be appended.
    pub fn settle_checkpoint<H: Host>(&mut self, host: &H) -> Result<bool, SessionError> {
        let Some(checkpoint) = self.state().recovery_checkpoint.clone() else {
            return Ok(false);
        };
        let assistant = Some(checkpoint.assistant_source.clone()).filter(|text| !text.is_empty());
        let completed_tool_names = checkpoint
            .execution
            .tool_steps
            .iter()
            .flat_map(|step| step.tool_results.iter().map(|r| r.tool_name.clone()))
            .collect();
        let turn = HistoryTurn::Interrupted(InterruptedTurn {
            user: checkpoint.user,
            assistant,
            tool_call: None,
            completed_tool_names,
            terminal_reason: TerminalReason::Failed,
            execution: checkpoint.execution,
            cancelled_command: None,
        });
        let (input, output) = (
            self.state().total_input_tokens,
            self.state().total_output_tokens,
        );
        self.append_turn(host, turn, input, output)?;
        self.log.note_last_turn(
            "This turn did not finish: the page closed while it ran. The commands it completed are kept.",
        );
        Ok(true)
    }

    /// Appends a change with `apply`, commits it, and takes it back when the commit fails, so a
    /// change the store refused is applied nowhere (the next turn does not see it either).
    ///
    /// # Errors
    /// [`SessionError::Log`] when `apply` fails (nothing appended); [`SessionError::Store`]
    /// when the commit fails (the change is undone).
    pub async fn change_and_persist<H: Host, T>(
        &mut self,
        host: &H,
        apply: impl FnOnce(&mut Self) -> Result<T, SessionError>,
    ) -> Result<T, SessionError> {
        // A change may rewrite a record in place (a rename), so the undo keeps the bytes whole.
        let before = self.log.bytes().to_vec();
        let was_saved = self.is_saved();
        let value = apply(self)?;
        match self.persist(host).await {
            Ok(_) => Ok(value),
            Err(error) => {
                self.restore(before, was_saved)?;
                Err(error)
            }
        }
    }

    /// Goes back to `bytes`, the log as it was before a change (they loaded before);
    /// `was_saved` says whether the store held exactly them.
    fn restore(&mut self, bytes: Vec<u8>, was_saved: bool) -> Result<(), SessionError> {
        if self.log.bytes() != bytes.as_slice() {
            let log = SessionLog::load(bytes)?;
            self.committed = log.carry_mark(&self.log, &self.committed, was_saved);
            self.log = log;
        }
        Ok(())
    }

    /// Keeps what the screen showed when the last turn ended early (a failure's message), so
    /// a resumed session shows it again.
    pub fn note_last_turn(&mut self, message: &str) {
        self.log.note_last_turn(message);
    }

    /// Commits everything appended so far (nothing for a blank session: it is not stored yet).
    /// On a conflict with a record another writer moved on, saves our history as a new session
    /// and returns the old id.
    ///
    /// # Errors
    /// [`SessionError::Store`] when the store fails (our log stays in memory; a later commit
    /// retries it).
    pub async fn persist<H: Host>(&mut self, host: &H) -> Result<Option<String>, SessionError> {
        if self.is_saved() {
            return Ok(None);
        }
        let id = self.id().to_owned();
        match self.write(host, &id).await {
            Ok(revision) => {
                self.mark_committed(revision);
                self.compact_if_due(host).await;
                Ok(None)
            }
            Err(StoreError::RevisionConflict { .. }) => self.resolve_conflict(host, id).await,
            Err(error) => {
                if matches!(
                    error,
                    StoreError::Failed {
                        failure: Failure::TimedOut | Failure::Abandoned,
                        ..
                    }
                ) {
                    // The store may still write it (a full commit or an append: either way
                    // the record becomes our log as it is now).
                    self.unanswered
                        .push(Sha256::digest(self.log.bytes()).into());
                }
                Err(SessionError::Store(error))
            }
        }
    }

    /// One write of everything appended: only the new bytes when the store appends and they
    /// extend what it holds (so a commit costs what the turn added, not the whole log), else
    /// the whole log.
    async fn write<H: Host>(&self, host: &H, id: &str) -> Result<String, StoreError> {
        if let Some(expected) = self.revision.as_deref() {
            if host.appends_sessions() {
                if let Some(tail) = self.log.appended_since(&self.committed) {
                    if !tail.is_empty() {
                        return host.append_session(id, tail, expected).await;
                    }
                }
            }
        }
        host.commit_session(id, self.log.bytes(), self.revision.as_deref())
            .await
    }

    /// After a commit, as fx does: once the generation is long, rewrite the log as a new
    /// generation holding the same state and commit that. A failure leaves the committed log
    /// as it was (what the caller appended is stored); the in-memory log is compacted and a
    /// later commit stores it.
    async fn compact_if_due<H: Host>(&mut self, host: &H) {
        if !self.log.compaction_due() {
            return;
        }
        if self.log.compact_log(&mut HostEnvironment(host)).is_err() {
            return;
        }
        let id = self.id().to_owned();
        if let Ok(revision) = host
            .commit_session(&id, self.log.bytes(), self.revision.as_deref())
            .await
        {
            self.mark_committed(revision);
        }
    }

    /// Records that the store holds our log as it is now under `revision`.
    fn mark_committed(&mut self, revision: String) {
        self.revision = Some(revision);
        self.committed = self.log.mark();
        self.committed_turns = self.state().history.len();
        // A commit that answered moved the revision on: a late one can no longer land.
        self.unanswered.clear();
    }

    async fn resolve_conflict<H: Host>(
        &mut self,
        host: &H,
        id: String,
    ) -> Result<Option<String>, SessionError> {
        let stored = host.load_session(&id).await.map_err(SessionError::Store)?;
        if let Some(stored) = &stored {
            // The store holds our bytes under a new revision (what we committed, or a later
            // state of our log: a commit of ours that answered after we stopped waiting, also
            // the first one: `committed` is then our start, whose random ids nobody else has),
            // or the log of a commit of ours that gave no answer and landed after its deadline
            // (perhaps of a change taken back since). Nobody moved on: commit on top of it.
            if self.log.holds_ours(&self.committed, &stored.bytes)
                || self
                    .unanswered
                    .contains(&Sha256::digest(&stored.bytes).into())
            {
                if self.log.bytes() == stored.bytes.as_slice() {
                    self.mark_committed(stored.revision.clone());
                    return Ok(None);
                }
                let revision = host
                    .commit_session(&id, self.log.bytes(), Some(&stored.revision))
                    .await
                    .map_err(SessionError::Store)?;
                self.mark_committed(revision);
                return Ok(None);
            }
        }
        self.fork(host, &id).await?;
        Ok(Some(id))
    }

    /// Re-creates our history under a new id and commits it as a new record.
    async fn fork<H: Host>(&mut self, host: &H, from: &str) -> Result<(), SessionError> {
        let state = self.state().clone();
        let mut fork = LiveSession::create(
            host,
            &state.workspace_root,
            state.preferences.clone(),
            self.mode,
        )?;
        fork.always_allowed = self.always_allowed.clone();
        let mut total_in = 0;
        let mut total_out = 0;
        let last = state.history.len().saturating_sub(1);
        for (index, turn) in state.history.into_iter().enumerate() {
            if index == last {
                (total_in, total_out) = (state.total_input_tokens, state.total_output_tokens);
            }
            fork.append_turn(host, turn, total_in, total_out)?;
        }
        if let Some(checkpoint) = state.recovery_checkpoint {
            fork.set_checkpoint(host, checkpoint)?;
        }
        if let Some(title) = self.log.title() {
            fork.log.rename(title)?;
        }
        if let Some(notes) = self.log.notes() {
            fork.log.set_notes(notes.clone());
        }
        let id = fork.id().to_owned();
        // `self` changes only once the fork is stored (a dropped or failed commit leaves it).
        let revision = host
            .commit_session(&id, fork.log.bytes(), None)
            .await
            .map_err(SessionError::Store)?;
        fork.mark_committed(revision);
        host.event(HostEvent::SessionForked {
            from: from.to_owned(),
            to: id,
            reason: "revision_conflict",
        });
        *self = fork;
        Ok(())
    }
}
