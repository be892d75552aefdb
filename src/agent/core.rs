//! The agent: sessions, the model catalog and turns, over one [`Host`] (the preferences it
//! changes live in `preferences.rs`).
//!
//! One agent serves any number of sessions; each session runs at most one turn at a time. While
//! a turn runs, the session is taken out of its slot (so no `RefCell` borrow ever spans an
//! `.await`) and put back when the turn ends.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Serialize;

use crate::auth::credentials::Credentials;
use crate::gateway::catalog::catalog_request_headers;
use crate::gateway::{Catalog, EndpointError};
use crate::log::types::{Preferences, Provider};
use crate::tools::workspace::WorkspaceError;
use crate::Code;

pub use super::config::AgentConfig;
use super::context::ContextPolicy;
use super::modes::{config_options, modes, ConfigOption, Mode, Modes};
use super::prompt::Prompt;
use super::protocol::AiGateway;
pub use super::replay::replay;
use super::session::{LiveSession, SessionError};
use super::system_prompt::SYSTEM_PROMPT;
use super::turn::{TurnError, TurnPlan};
use crate::caps::acp::{StopReason, Usage};
use crate::caps::cancel::Cancel;
use crate::caps::http::read_capped;
use crate::caps::{Host, HostEvent, HttpRequest, Method, StoreError};
use crate::tools::terminal::TerminalTools;

/// Largest catalog body read.
const MAX_CATALOG_BYTES: usize = 4 * 1024 * 1024;

/// How long something that needs the catalog (a model change, the model menu, a turn with a
/// named effort) waits for it before going on without it.
pub const CATALOG_WAIT_MS: u32 = 2_000;

/// Where the catalog's one load stands: it is fetched when first needed, never at start-up
/// (a plain turn sends one request, as the reference's does).
pub(super) enum CatalogLoad {
    Idle,
    /// Fetching; these wait for it.
    Loading(Vec<std::task::Waker>),
    /// Fetched (or failed to be: the message).
    Tried(Option<String>),
}

/// Why an agent operation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentError {
    #[error("{0}")]
    Endpoint(EndpointError),
    #[error("{0}")]
    Workspace(WorkspaceError),
    #[error("{0}")]
    Session(SessionError),
    #[error("{0}")]
    Turn(TurnError),
    #[error("no session with id {0} is open")]
    NoSession(String),
    #[error("a prompt is already in progress for session {0}")]
    Busy(String),
    #[error("invalid model id: {0}")]
    InvalidModel(String),
    #[error("unknown mode \"{0}\": the modes are \"ask\" (ask before each command) and \"code\" (run commands without asking)")]
    InvalidMode(String),
    /// A known mode this host does not offer (why: the workspace's permission).
    #[error("mode \"{mode}\" is not available: {why}")]
    ModeUnavailable { mode: String, why: &'static str },
    #[error("unknown config option \"{0}\": the options are \"model\" and \"mode\"")]
    InvalidConfigOption(String),
    #[error("invalid reasoning effort: {0:?}")]
    InvalidEffort(String),
    #[error("the prompt is empty")]
    EmptyPrompt,
    #[error("no AI Gateway credential: set env.AI_GATEWAY_API_KEY or sign in")]
    NoCredential,
    #[error("the agent is closed")]
    Closed,
}

impl AgentError {
    /// The `code` of the JS error.
    pub fn code(&self) -> Code {
        match self {
            AgentError::Endpoint(error) => error.code(),
            AgentError::Workspace(error) => error.code(),
            AgentError::Session(error) => error.code(),
            AgentError::Turn(error) => error.code(),
            AgentError::NoSession(_) => Code::SessionNotOpen,
            AgentError::Busy(_) => Code::PromptInProgress,
            AgentError::InvalidModel(_) => Code::InvalidModel,
            AgentError::InvalidMode(_) | AgentError::ModeUnavailable { .. } => Code::InvalidMode,
            AgentError::InvalidConfigOption(_) => Code::InvalidConfigOption,
            AgentError::InvalidEffort(_) => Code::InvalidEffort,
            AgentError::EmptyPrompt => Code::EmptyPrompt,
            AgentError::NoCredential => Code::AuthRequired,
            AgentError::Closed => Code::AgentClosed,
        }
    }

    /// True for argument errors a JS caller should see as a `TypeError`.
    pub fn is_type_error(&self) -> bool {
        matches!(self, AgentError::Endpoint(_) | AgentError::Workspace(_))
    }
}

impl From<SessionError> for AgentError {
    fn from(error: SessionError) -> Self {
        AgentError::Session(error)
    }
}

/// A session as the host sees it after creating or opening it.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub session_id: String,
    pub config_options: Vec<ConfigOption>,
    pub modes: Modes,
    /// The stored turns replayed (empty for a new session); `session.history` is
    /// [`super::replay::history_updates`] of these.
    pub history: Vec<super::replay::Replayed>,
    /// The session's display title (`/rename`d or derived); `None` while it has no turns and
    /// no name.
    pub title: Option<String>,
}

/// One entry of `listSessions()` (ACP's session info).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub session_id: String,
    /// The workspace root (`/` without a workspace).
    pub cwd: String,
    /// [`Listed::updated_at_ms`] as RFC 3339 (`2026-11-30T02:13:07Z`).
    pub updated_at: String,
    pub updated_at_ms: i64,
}

/// How a prompt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptEnd {
    pub stop_reason: StopReason,
    /// The session's id now (a fork gets a new one).
    pub session_id: String,
    pub forked_from: Option<String>,
    /// The tokens of this turn's steps, as the gateway reported them.
    pub usage: Usage,
}

pub(super) enum Slot {
    Idle(Box<LiveSession>),
    Busy,
}

/// The agent.
pub struct Agent<H: Host> {
    pub(super) host: H,
    pub(super) config: AgentConfig,
    pub(super) catalog: RefCell<Option<Catalog>>,
    catalog_load: RefCell<CatalogLoad>,
    pub(super) sessions: RefCell<HashMap<String, Slot>>,
    /// Sessions taken for a preference change, and the turns waiting for one to end (a few
    /// at most: a `Vec`, not a map, keeps the wasm small).
    changing: RefCell<(Vec<String>, Vec<std::task::Waker>)>,
    turns: RefCell<HashMap<u32, Cancel>>,
    /// Set by [`Agent::shutdown`]: no new work; the catalog request in flight is aborted.
    stop: Cancel,
    /// The credential in use; see [`crate::auth::credentials`].
    pub(super) credentials: RefCell<Credentials>,
}

impl<H: Host> Agent<H> {
    pub fn new(host: H, config: AgentConfig) -> Self {
        Agent {
            host,
            credentials: RefCell::new(Credentials::new(config.api_key.clone())),
            stop: Cancel::new(),
            config,
            catalog: RefCell::new(None),
            catalog_load: RefCell::new(CatalogLoad::Idle),
            sessions: RefCell::new(HashMap::new()),
            changing: RefCell::new((Vec::new(), Vec::new())),
            turns: RefCell::new(HashMap::new()),
        }
    }

    pub fn host(&self) -> &H {
        &self.host
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    pub(super) fn check_open(&self) -> Result<(), AgentError> {
        if self.stop.is_cancelled() {
            Err(AgentError::Closed)
        } else {
            Ok(())
        }
    }

    /// Loads the model catalog unless it was loaded (or failed to be) already; waits for it at
    /// most `wait_ms` (a catalog that never answers holds nothing up, and is asked again the
    /// next time it is needed). A failure is a `catalog.error` event and never stops the agent.
    ///
    /// # Errors
    /// Why there is no catalog: the load's failure, or `wait_ms` passed.
    pub async fn ensure_catalog(&self, wait_ms: u32) -> Result<(), String> {
        use std::future::Future;
        use std::task::Poll;
        // Whoever finds it idle loads it; the others wait for that load (or their deadline).
        let idle = matches!(*self.catalog_load.borrow(), CatalogLoad::Idle);
        let mut load = idle.then(|| Box::pin(self.load_catalog_result()));
        if idle {
            *self.catalog_load.borrow_mut() = CatalogLoad::Loading(Vec::new());
        }
        let mut deadline = Box::pin(self.host.deadline(wait_ms));
        let loaded = std::future::poll_fn(|cx| {
            if let Some(load) = &mut load {
                if let Poll::Ready(result) = load.as_mut().poll(cx) {
                    return Poll::Ready(Some(result.err()));
                }
            } else if let CatalogLoad::Loading(waiters) = &mut *self.catalog_load.borrow_mut() {
                waiters.push(cx.waker().clone());
            } else {
                return Poll::Ready(None);
            }
            deadline.as_mut().poll(cx).map(|()| None)
        })
        .await;
        if idle {
            // How it went; past the deadline nobody loads it (the next need asks again).
            let next = loaded.map_or(CatalogLoad::Idle, CatalogLoad::Tried);
            let previous = std::mem::replace(&mut *self.catalog_load.borrow_mut(), next);
            if let CatalogLoad::Loading(waiters) = previous {
                waiters.into_iter().for_each(std::task::Waker::wake);
            }
        }
        match &*self.catalog_load.borrow() {
            CatalogLoad::Tried(failed) => failed.clone().map_or(Ok(()), Err),
            _ => Err(format!(
                "the model catalog did not answer within {wait_ms} ms"
            )),
        }
    }

    /// Fetches the model catalog now (again, if it was loaded: the credential changed). A
    /// failure is reported as a `catalog.error` event and never stops the agent.
    ///
    /// # Errors
    /// The failure's message (after the `CatalogError` event); the previous catalog, if any,
    /// stays in use.
    pub async fn load_catalog_result(&self) -> Result<(), String> {
        let (token, team) = self.catalog_credential();
        let headers = catalog_request_headers(token.as_deref(), team.as_deref())
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect();
        let request = HttpRequest {
            method: Method::Get,
            url: self.config.endpoint.catalog_url(),
            headers,
            body: Vec::new(),
        };
        // Stopping the agent aborts it.
        let cancel = self.stop.clone();
        let result = match self.host.fetch(request, &cancel).await {
            Ok(mut response) if response.status == 200 => {
                read_capped(&mut response.body, &cancel, MAX_CATALOG_BYTES)
                    .await
                    .map_err(|error| error.to_string())
                    .and_then(|body| Catalog::parse(&body).map_err(|error| error.to_string()))
            }
            Ok(response) => Err(format!(
                "the model catalog answered HTTP {}",
                response.status
            )),
            Err(error) => Err(error.to_string()),
        };
        match result {
            Ok(catalog) => {
                *self.catalog.borrow_mut() = Some(catalog);
                Ok(())
            }
            // Stopped meanwhile: the request was aborted on purpose.
            Err(message) if self.stop.is_cancelled() => Err(message),
            Err(message) => {
                self.host.event(HostEvent::CatalogError {
                    message: message.clone(),
                });
                Err(message)
            }
        }
    }

    /// The catalog's model ids, best first (empty until a load succeeded).
    pub fn catalog_ids(&self) -> Vec<String> {
        self.catalog
            .borrow()
            .as_ref()
            .map(|catalog| catalog.sorted().into_iter().map(|m| m.id.clone()).collect())
            .unwrap_or_default()
    }

    fn workspace_root(&self) -> &str {
        self.config
            .workspace
            .as_ref()
            .map_or("/", |w| w.root.as_str())
    }

    pub(super) fn describe(
        &self,
        session: &LiveSession,
        history: Vec<super::replay::Replayed>,
    ) -> Opened {
        Opened {
            session_id: session.id().to_owned(),
            config_options: config_options(
                &self.catalog_ids(),
                &session.state().preferences.model,
                session.mode,
            ),
            modes: modes(session.mode),
            history,
            title: crate::log::display::shown(session.state(), session.log().title())
                .map(|d| d.title),
        }
    }

    /// Creates a session and applies stored config. It is not stored until it has something
    /// to keep (see [`LiveSession::is_blank`]): a turn, a preference change.
    ///
    /// # Errors
    /// [`AgentError::Session`] when the workspace root or the model break the log's rules.
    pub async fn create_session(&self) -> Result<Opened, AgentError> {
        self.check_open()?;
        let preferences = Preferences {
            model: self.config.model.clone(),
            effort: "auto".to_owned(),
            fast_mode: false,
            provider: Provider::Gateway,
        };
        let mut session = LiveSession::create(
            &self.host,
            self.workspace_root(),
            preferences,
            Mode::default(),
        )?;
        self.restore_config(&mut session).await;
        let opened = self.describe(&session, Vec::new());
        self.sessions
            .borrow_mut()
            .insert(opened.session_id.clone(), Slot::Idle(Box::new(session)));
        Ok(opened)
    }

    /// Opens a stored session; a turn a closed tab left unfinished becomes an interrupted turn.
    ///
    /// # Errors
    /// [`AgentError::Session`] when it is missing or unreadable.
    pub async fn open_session(&self, id: &str) -> Result<Opened, AgentError> {
        self.check_open()?;
        if matches!(self.sessions.borrow().get(id), Some(Slot::Busy)) {
            return Err(AgentError::Busy(id.to_owned()));
        }
        let mut session = LiveSession::open(&self.host, id, Mode::default()).await?;
        if session.settle_checkpoint(&self.host)? {
            session.persist(&self.host).await?;
        }
        self.restore_config(&mut session).await;
        let history = replay(&session);
        let opened = self.describe(&session, history);
        self.sessions
            .borrow_mut()
            .insert(opened.session_id.clone(), Slot::Idle(Box::new(session)));
        Ok(opened)
    }

    /// Closes an open session: commits what the store does not hold yet (a commit that failed
    /// earlier is retried), then forgets it. What still cannot be stored is reported as
    /// [`HostEvent::SessionUnsaved`]. A session whose turn is running is left alone.
    pub async fn close_session(&self, id: &str) {
        let session = {
            let mut sessions = self.sessions.borrow_mut();
            match sessions.remove(id) {
                Some(Slot::Idle(session)) => session,
                Some(Slot::Busy) => {
                    sessions.insert(id.to_owned(), Slot::Busy);
                    return;
                }
                None => return,
            }
        };
        self.save_or_report(session).await;
    }

    /// Closes every idle session as [`Self::close_session`] does (for `agent.close()`).
    pub async fn close_sessions(&self) {
        let ids: Vec<String> = self.sessions.borrow().keys().cloned().collect();
        for id in ids {
            self.close_session(&id).await;
        }
    }

    async fn save_or_report(&self, mut session: Box<LiveSession>) {
        if session.is_saved() {
            return;
        }
        if let Err(error) = session.persist(&self.host).await {
            let code = error.code().as_str();
            self.host
                .event(session.unsaved_event(code, error.to_string()));
        }
    }

    /// Reports a session the agent stopped with before it was stored.
    pub(super) fn report_stopped(&self, session: &LiveSession) {
        if session.is_saved() {
            return;
        }
        let message = format!(
            "the agent stopped before session {} was stored",
            session.id()
        );
        self.host
            .event(session.unsaved_event(Code::AgentClosed.as_str(), message));
    }

    /// The stored sessions, newest first.
    ///
    /// # Errors
    /// [`AgentError::Session`] when the store fails.
    pub async fn list_sessions(&self) -> Result<Vec<Listed>, AgentError> {
        self.check_open()?;
        let mut listed = self
            .host
            .list_sessions()
            .await
            .map_err(|e| AgentError::Session(SessionError::Store(e)))?;
        listed.sort_by_key(|l| std::cmp::Reverse(l.updated_at_ms));
        let cwd = self.workspace_root();
        Ok(listed
            .into_iter()
            .map(|l| Listed {
                session_id: l.id,
                cwd: cwd.to_owned(),
                updated_at: super::time::rfc3339_seconds(l.updated_at_ms),
                updated_at_ms: l.updated_at_ms,
            })
            .collect())
    }

    /// Deletes a stored session.
    ///
    /// # Errors
    /// [`AgentError::Busy`] while a turn runs; [`AgentError::Session`] when the store fails.
    pub async fn remove_session(&self, id: &str) -> Result<(), AgentError> {
        self.check_open()?;
        if matches!(self.sessions.borrow().get(id), Some(Slot::Busy)) {
            return Err(AgentError::Busy(id.to_owned()));
        }
        self.host
            .remove_session(id)
            .await
            .map_err(|e| AgentError::Session(SessionError::Store(e)))?;
        self.sessions.borrow_mut().remove(id);
        Ok(())
    }

    pub(super) fn take(&self, id: &str) -> Result<Box<LiveSession>, AgentError> {
        let mut sessions = self.sessions.borrow_mut();
        match sessions.insert(id.to_owned(), Slot::Busy) {
            Some(Slot::Idle(session)) => Ok(session),
            Some(Slot::Busy) => Err(AgentError::Busy(id.to_owned())),
            None => {
                sessions.remove(id);
                Err(AgentError::NoSession(id.to_owned()))
            }
        }
    }

    /// [`Self::take`] for a preference change: a turn asked meanwhile waits for it
    /// ([`Self::take_for_turn`]) instead of being refused.
    pub(super) fn take_for_change(&self, id: &str) -> Result<Box<LiveSession>, AgentError> {
        let session = self.take(id)?;
        self.changing.borrow_mut().0.push(id.to_owned());
        Ok(session)
    }

    /// Puts back a session taken by [`Self::take_for_change`], waking the turns waiting for it.
    pub(super) fn put_back_changed(&self, id: &str, session: Box<LiveSession>) {
        self.put_back(id, session);
        let waiting = {
            let mut changing = self.changing.borrow_mut();
            changing.0.retain(|changed| changed != id);
            std::mem::take(&mut changing.1)
        };
        waiting.into_iter().for_each(std::task::Waker::wake);
    }

    /// [`Self::take`] for a turn: while a model change of the session is being stored, waits
    /// for it (its store call is bounded by the host's deadline), then takes the session.
    pub(super) async fn take_for_turn(&self, id: &str) -> Result<Box<LiveSession>, AgentError> {
        std::future::poll_fn(|cx| {
            let mut changing = self.changing.borrow_mut();
            if changing.0.iter().any(|changed| changed == id) {
                changing.1.push(cx.waker().clone());
                std::task::Poll::Pending
            } else {
                std::task::Poll::Ready(())
            }
        })
        .await;
        self.check_open()?;
        self.take(id)
    }

    pub(super) fn put_back(&self, old_id: &str, session: Box<LiveSession>) {
        let mut sessions = self.sessions.borrow_mut();
        sessions.remove(old_id);
        sessions.insert(session.id().to_owned(), Slot::Idle(session));
    }

    /// Runs one turn of session `id`. Updates go to the host tagged with `turn_id`.
    ///
    /// # Errors
    /// [`AgentError::Turn`] when the model request fails for good (the turn is recorded as
    /// interrupted); [`AgentError::NoCredential`] without a usable credential.
    pub async fn prompt(
        &self,
        id: &str,
        turn_id: u32,
        text: String,
    ) -> Result<PromptEnd, AgentError> {
        self.prompt_with(id, turn_id, Prompt::text(text)).await
    }

    /// [`Agent::prompt`] with a [`Prompt`]: text and images.
    ///
    /// # Errors
    /// As [`Agent::prompt`].
    pub async fn prompt_with(
        &self,
        id: &str,
        turn_id: u32,
        prompt: Prompt,
    ) -> Result<PromptEnd, AgentError> {
        let cancel = self.register_turn(turn_id);
        let result = self
            .prompt_as_configured(id, turn_id, prompt, &cancel)
            .await;
        self.unregister_turn(turn_id);
        result
    }

    /// A turn of the agent's own plan: the AI Gateway, the terminal tool over the workspace,
    /// the configured system prompt and credential.
    async fn prompt_as_configured(
        &self,
        id: &str,
        turn_id: u32,
        prompt: Prompt,
        cancel: &Cancel,
    ) -> Result<PromptEnd, AgentError> {
        self.check_open()?;
        if prompt.is_empty() {
            return Err(AgentError::EmptyPrompt);
        }
        let (token, team) = self.chat_credential().await;
        if token.is_none() && self.config.endpoint.is_canonical() {
            return Err(AgentError::NoCredential);
        }
        if self.turn_needs_catalog(id) {
            // A failed or late catalog leaves the turn without the named effort, as fx does.
            let _ = self.ensure_catalog(CATALOG_WAIT_MS).await;
        }
        let session = self.take_for_turn(id).await?;
        let catalog = self.catalog.borrow().clone();
        let model = &session.state().preferences.model;
        let model_info = catalog.as_ref().and_then(|c| c.get(model));
        // Without the catalog, fx's own table of context windows (a plain turn needs no
        // catalog request).
        let window = model_info.map_or_else(
            || crate::gateway::catalog::fallback_context_window(model),
            |m| m.effective_context_window(),
        );
        let mut policy = self.config.policy;
        policy.budget_tokens =
            ContextPolicy::budget_for(window, model_info.and_then(|m| m.max_tokens));
        let protocol = AiGateway {
            endpoint: &self.config.endpoint,
        };
        let tools = TerminalTools {
            workspace: &self.host,
            info: self.config.workspace.as_ref(),
        };
        let plan = TurnPlan {
            protocol: &protocol,
            tools: &tools,
            system_prompt: self
                .config
                .system_prompt
                .as_deref()
                .unwrap_or(SYSTEM_PROMPT),
            token: token.as_deref(),
            team: team.as_deref(),
            reauth: self.reauth(),
            model_info,
            workspace: self.config.workspace.as_ref(),
            policy,
            step_limit: self.config.step_limit,
            model_idle_timeout_ms: self.config.model_idle_timeout_ms,
        };
        self.run_taken(id, session, turn_id, prompt, &plan, cancel)
            .await
    }

    /// Whether a turn of session `id` asks for what only the catalog tells: a named effort or
    /// Fast (both are sent only for a model whose catalog entry lists them).
    fn turn_needs_catalog(&self, id: &str) -> bool {
        match self.sessions.borrow().get(id) {
            Some(Slot::Idle(session)) => {
                let preferences = &session.state().preferences;
                preferences.effort != "auto" || preferences.fast_mode
            }
            _ => false,
        }
    }

    /// Makes turn `turn_id` cancellable before its prompt starts running: a host that starts a
    /// turn and cancels it at once (before the prompt future is first polled) must still cancel
    /// it. [`Agent::prompt`] registers the turn itself when this was not called.
    pub fn register_turn(&self, turn_id: u32) -> Cancel {
        self.turns.borrow_mut().entry(turn_id).or_default().clone()
    }

    /// Forgets turn `turn_id`'s cancel once the turn ended (or will not run).
    pub fn unregister_turn(&self, turn_id: u32) {
        self.turns.borrow_mut().remove(&turn_id);
    }

    /// True once [`Agent::shutdown`] ran.
    pub(super) fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Cancels a running turn (no-op when it already ended).
    pub fn cancel(&self, turn_id: u32) {
        let cancel = self.turns.borrow().get(&turn_id).cloned();
        if let Some(cancel) = cancel {
            cancel.cancel();
        }
    }

    /// Cancels every turn and refuses further work (js/host.js abandons the adapter calls in
    /// flight). Idle sessions the store does not fully hold are reported now, a running turn's
    /// session when the turn has ended.
    pub fn shutdown(&self) {
        if self.stop.is_cancelled() {
            return;
        }
        self.stop.cancel();
        let turns: Vec<Cancel> = self.turns.borrow().values().cloned().collect();
        for cancel in turns {
            cancel.cancel();
        }
        let sessions = std::mem::take(&mut *self.sessions.borrow_mut());
        for (id, slot) in sessions {
            match slot {
                Slot::Idle(session) => self.report_stopped(&session),
                Slot::Busy => {
                    self.sessions.borrow_mut().insert(id, Slot::Busy);
                }
            }
        }
    }
}

impl From<StoreError> for AgentError {
    fn from(error: StoreError) -> Self {
        AgentError::Session(SessionError::Store(error))
    }
}
