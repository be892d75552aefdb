//! What a front end asks of the [`Agent`] beyond its own configured turns: a turn run from the
//! front end's [`TurnPlan`] (its protocol, tools, system prompt and credential), and the
//! sessions such a front end keeps itself (the bots: one per chat, with the chat's workspace
//! root, model and mode, opened for a turn and let go after it).
//!
//! Every turn of every front end runs through [`Agent::run_plan`]: the same opening of
//! sessions, settling of a turn a closed page left unfinished, deadlines, retries, events and
//! saves as the agent's own turns ([`Agent::prompt`] builds its plan from the config).

use std::future::Future;
use std::pin::Pin;

use crate::caps::{Cancel, Host};
use crate::log::execution::Execution;
use crate::log::turn::{HistoryTurn, InterruptedTurn, TerminalReason, UserTurn};
use crate::log::types::{DurableBytes, Preferences};
use crate::tools::set::ToolSet;

use super::core::{Agent, AgentError, PromptEnd, Slot};
use super::modes::Mode;
use super::prompt::Prompt;
use super::protocol::ModelProtocol;
use super::session::LiveSession;
use super::turn::{run_turn, TurnPlan};

/// A session a front end opened ([`Agent::load_session`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// Its id now: the id asked for, unless saving what this agent held of it met a newer
    /// stored log and it continued as a fork.
    pub session_id: String,
    /// Turns in its history.
    pub turns: usize,
    /// A turn a closed page left unfinished (a recovery checkpoint) waits to be settled
    /// ([`Agent::settle_session`]).
    pub unfinished: bool,
}

impl<H: Host> Agent<H> {
    /// Runs one turn of session `id` from `plan`; updates go to the host tagged with
    /// `turn_id`, which [`Agent::cancel`] cancels.
    ///
    /// # Errors
    /// [`AgentError::Turn`] when the model request fails for good or the session cannot be
    /// saved (the turn is recorded as interrupted); [`AgentError::NoSession`] /
    /// [`AgentError::Busy`] for a session that is not open or runs a turn.
    pub async fn run_plan<P: ModelProtocol, T: ToolSet>(
        &self,
        id: &str,
        turn_id: u32,
        prompt: Prompt,
        plan: &TurnPlan<'_, P, T>,
    ) -> Result<PromptEnd, AgentError> {
        let cancel = self.register_turn(turn_id);
        let result = self
            .run_registered(id, turn_id, prompt, plan, &cancel)
            .await;
        self.unregister_turn(turn_id);
        result
    }

    async fn run_registered<P: ModelProtocol, T: ToolSet>(
        &self,
        id: &str,
        turn_id: u32,
        prompt: Prompt,
        plan: &TurnPlan<'_, P, T>,
        cancel: &Cancel,
    ) -> Result<PromptEnd, AgentError> {
        self.check_open()?;
        if prompt.is_empty() {
            return Err(AgentError::EmptyPrompt);
        }
        let session = self.take_for_turn(id).await?;
        self.run_taken(id, session, turn_id, prompt, plan, cancel)
            .await
    }

    /// Runs the turn on `session`, taken out of slot `id`, and puts it back.
    pub(super) async fn run_taken<P: ModelProtocol, T: ToolSet>(
        &self,
        id: &str,
        mut session: Box<LiveSession>,
        turn_id: u32,
        prompt: Prompt,
        plan: &TurnPlan<'_, P, T>,
        cancel: &Cancel,
    ) -> Result<PromptEnd, AgentError> {
        // Boxed so the turn's large state machine is not copied into every caller's future.
        let turn: Pin<Box<dyn Future<Output = _> + '_>> = Box::pin(run_turn(
            &self.host,
            cancel,
            &mut session,
            plan,
            turn_id,
            prompt,
        ));
        let result = turn.await;
        let session_id = session.id().to_owned();
        if self.is_stopped() {
            // Nothing will commit it later: say what the store does not hold.
            self.report_stopped(&session);
        }
        self.put_back(id, session);
        let end = result.map_err(AgentError::Turn)?;
        Ok(PromptEnd {
            stop_reason: end.stop_reason,
            session_id,
            forked_from: end.forked_from,
            usage: end.usage,
        })
    }

    /// Opens stored session `id` for a front end that keeps its own settings (no config is
    /// restored, no history replayed, a turn left unfinished is not settled yet). What this
    /// agent still holds of it unsaved (a turn whose save failed) is saved first; a copy it
    /// holds saved is read anew, since another process may have moved the session on.
    ///
    /// # Errors
    /// [`AgentError::Session`] when the store fails or holds no readable session `id`;
    /// [`AgentError::Busy`] while a turn of it runs.
    pub async fn load_session(&self, id: &str, mode: Mode) -> Result<Loaded, AgentError> {
        self.check_open()?;
        let held = match self.take(id) {
            Ok(session) => Some(session),
            Err(AgentError::NoSession(_)) => None,
            Err(other) => return Err(other),
        };
        let session = match held {
            // Never stored and nothing to store yet: the store has no copy to read anew.
            Some(session) if session.is_blank() => session,
            Some(mut session) if !session.is_saved() => match session.persist(&self.host).await {
                Ok(_) => session,
                Err(error) => {
                    self.put_back(id, session);
                    return Err(error.into());
                }
            },
            held => {
                // Marked busy while the store is read (a copy held saved is read anew).
                if held.is_none() {
                    self.sessions.borrow_mut().insert(id.to_owned(), Slot::Busy);
                }
                match LiveSession::open(&self.host, id, mode).await {
                    Ok(session) => Box::new(session),
                    Err(error) => {
                        self.sessions.borrow_mut().remove(id);
                        return Err(error.into());
                    }
                }
            }
        };
        let loaded = Loaded {
            session_id: session.id().to_owned(),
            turns: session.state().history.len(),
            unfinished: session.state().recovery_checkpoint.is_some(),
        };
        self.put_back(id, session);
        Ok(loaded)
    }

    /// A new session of a front end's own (workspace root, preferences, mode), held here and
    /// not stored until its first save (a turn's end). Returns its id.
    ///
    /// # Errors
    /// [`AgentError::Session`] when the root or preferences break the log's rules.
    pub fn start_session(
        &self,
        workspace_root: &str,
        preferences: Preferences,
        mode: Mode,
    ) -> Result<String, AgentError> {
        self.check_open()?;
        let session = LiveSession::create(&self.host, workspace_root, preferences, mode)?;
        let id = session.id().to_owned();
        self.put_back(&id, Box::new(session));
        Ok(id)
    }

    /// Runs `change` on open session `id` while no turn runs in it (its model, say).
    ///
    /// # Errors
    /// [`AgentError::NoSession`] / [`AgentError::Busy`]; what `change` returns.
    pub fn change_session<R>(
        &self,
        id: &str,
        change: impl FnOnce(&mut LiveSession, &H) -> Result<R, AgentError>,
    ) -> Result<R, AgentError> {
        let mut change = Some(change);
        let mut out = None;
        self.change_idle(id, &mut |session, host| {
            if let Some(change) = change.take() {
                out = Some(change(session, host)?);
            }
            Ok(())
        })?;
        out.ok_or_else(|| AgentError::NoSession(id.to_owned()))
    }

    /// [`Agent::change_session`]'s one body (a `dyn` change: one copy in wasm).
    fn change_idle(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LiveSession, &H) -> Result<(), AgentError>,
    ) -> Result<(), AgentError> {
        let mut sessions = self.sessions.borrow_mut();
        match sessions.get_mut(id) {
            Some(Slot::Idle(session)) => change(session, &self.host),
            Some(Slot::Busy) => Err(AgentError::Busy(id.to_owned())),
            None => Err(AgentError::NoSession(id.to_owned())),
        }
    }

    /// Settles open session `id` as [`Agent::open_session`] does: a turn a closed page left
    /// unfinished becomes an interrupted (failed) turn that keeps its completed tool steps, and
    /// turns a front end claimed that never reached the log (`missing`, in order) follow as
    /// interrupted turns of their own; then the session is saved. Returns its id now (a save
    /// that met a newer stored log continues as a fork).
    ///
    /// # Errors
    /// [`AgentError::Session`] when the log refuses a turn or the store fails (nothing is
    /// lost: the session stays held, unsaved, and the next [`Agent::load_session`] saves it).
    pub async fn settle_session(
        &self,
        id: &str,
        missing: Vec<(String, String)>,
    ) -> Result<String, AgentError> {
        let mut session = self.take(id)?;
        let settled = settle(&self.host, &mut session, missing);
        let saved = match settled {
            Ok(()) => session.persist(&self.host).await.map_err(AgentError::from),
            Err(error) => Err(error),
        };
        let now = session.id().to_owned();
        self.put_back(id, session);
        saved.map(|_| now)
    }

    /// Lets go of open session `id` once the front end is done with it: a session the store
    /// holds whole is forgotten and handed back (the front end may keep what it read of it);
    /// one it does not is kept, and saved by the next [`Agent::load_session`] (or reported by
    /// [`Agent::close_sessions`]).
    pub fn release_session(&self, id: &str) -> Option<Box<LiveSession>> {
        let mut sessions = self.sessions.borrow_mut();
        if !matches!(sessions.get(id), Some(Slot::Idle(session)) if session.is_saved()) {
            return None;
        }
        match sessions.remove(id) {
            Some(Slot::Idle(session)) => Some(session),
            _ => None,
        }
    }
}

/// Appends the interrupted turns [`Agent::settle_session`] asks for.
fn settle<H: Host>(
    host: &H,
    session: &mut LiveSession,
    missing: Vec<(String, String)>,
) -> Result<(), AgentError> {
    session.settle_checkpoint(host)?;
    for (text, note) in missing {
        let (input, output) = (
            session.state().total_input_tokens,
            session.state().total_output_tokens,
        );
        let turn = HistoryTurn::Interrupted(InterruptedTurn {
            user: UserTurn {
                text: DurableBytes::from(text),
                images: Vec::new(),
                work_id: None,
            },
            assistant: None,
            tool_call: None,
            completed_tool_names: Vec::new(),
            terminal_reason: TerminalReason::Failed,
            execution: Execution::default(),
            cancelled_command: None,
        });
        session.append_turn(host, turn, input, output)?;
        session.note_last_turn(&note);
    }
    Ok(())
}
