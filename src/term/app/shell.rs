//! The async driver: runs an [`App`] with an [`Agent`] over any [`Host`], and the terminal side
//! of the environment ([`TermEnv`]: output, task spawning, the ticker, prompt history, downloads).
//!
//! The agent's host is wrapped in [`TermHost`] (see [`super::agent_host`]).

#![allow(async_fn_in_trait)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use futures::channel::oneshot;

use crate::agent::{Agent, AgentConfig, AgentError, Opened};
use crate::caps::acp::PermissionAnswer;
use crate::caps::{Clock, Host, SessionStore, WithUi};
use crate::term::ansi::Ansi;

pub use super::agent_host::TermHost;
use super::{App, Capabilities, Effect, SessionEntry, TurnOutcome};

/// A boxed local task.
pub type Task = Pin<Box<dyn Future<Output = ()>>>;

/// What the terminal needs besides the agent's host.
pub trait TermEnv {
    /// Writes to the terminal: only [`Ansi`] (the terminal's own sequences and sanitized text).
    fn write(&self, out: &Ansi);
    /// Runs a task on the event loop.
    fn spawn(&self, task: Task);
    /// Calls [`Shell::tick`] about every 50 ms until it returns false (idempotent).
    fn animate(&self);
    /// The stored prompt history, oldest first; `None` when the host keeps none.
    ///
    /// # Errors
    /// A message when the store failed.
    async fn history_load(&self) -> Option<Result<Vec<String>, String>>;
    /// Appends a submission; the store's outcome (`duplicate`, `record_too_large`, `appended`).
    ///
    /// # Errors
    /// A message when the store failed.
    async fn history_append(&self, text: &str) -> Result<String, String>;
    /// Offers files to the user.
    ///
    /// # Errors
    /// A message when the host refused.
    async fn download(&self, files: Vec<(String, Vec<u8>)>) -> Result<(), String>;
    /// The app left with `code`.
    fn exited(&self, code: i32);
}

/// The agent's host in the terminal: the page's capabilities, the terminal's screen.
pub type TermAgentHost<H> = WithUi<H, TermHost<H>>;

pub(super) struct Inner<H: Host, E: TermEnv> {
    pub(super) app: Rc<RefCell<App>>,
    pub(super) agent: Agent<TermAgentHost<H>>,
    pub(super) env: Rc<E>,
    session: Rc<RefCell<String>>,
    pub(super) catalog: RefCell<CatalogLoad>,
    /// The device login in progress (see [`super::login_flow`]).
    pub(super) login: RefCell<Option<super::login_flow::Running>>,
}

/// The model catalog's load: fetched when first needed (a model screen, `/model <id>`, the
/// first turn), never at start-up.
pub(super) enum CatalogLoad {
    Idle,
    /// Fetching; these wait for it.
    Loading(Vec<oneshot::Sender<()>>),
    Done,
}

/// The running terminal. Cheap to clone.
pub struct Shell<H: Host + Clone + 'static, E: TermEnv + 'static> {
    pub(super) inner: Rc<Inner<H, E>>,
}

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Clone for Shell<H, E> {
    fn clone(&self) -> Self {
        Shell {
            inner: self.inner.clone(),
        }
    }
}

fn current(opened: &Opened, id: &str) -> String {
    opened
        .config_options
        .iter()
        .find(|o| o.id == id)
        .map(|o| o.current_value.clone())
        .unwrap_or_default()
}

fn flush_with<E: TermEnv>(app: &RefCell<App>, env: &E) {
    let (out, animating) = {
        let mut app = app.borrow_mut();
        (app.render(), app.animating())
    };
    if !out.is_empty() {
        env.write(&out);
    }
    if animating {
        env.animate();
    }
}

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Shell<H, E> {
    /// A terminal of `width`×`height` over `host`.
    pub fn new(
        host: H,
        config: AgentConfig,
        env: E,
        size: (u16, u16),
        mut caps: Capabilities,
    ) -> Self {
        caps.sandboxed = config
            .workspace
            .as_ref()
            .is_some_and(|w| w.permission == crate::tools::workspace::Permission::AllowSandboxed);
        let app = Rc::new(RefCell::new(App::new(size.0, size.1, caps)));
        let env = Rc::new(env);
        // Updates mark the screen dirty; one task repaints after however many arrived together
        // (a network chunk often carries many text deltas).
        let repaint: Rc<dyn Fn()> = {
            let app = app.clone();
            let env = env.clone();
            let scheduled = Rc::new(Cell::new(false));
            Rc::new(move || {
                if scheduled.replace(true) {
                    return;
                }
                let app = app.clone();
                let task_env = env.clone();
                let scheduled = scheduled.clone();
                env.spawn(Box::pin(async move {
                    scheduled.set(false);
                    flush_with(&app, &*task_env);
                }));
            })
        };
        let repaint_now: Rc<dyn Fn()> = {
            let app = app.clone();
            let env = env.clone();
            Rc::new(move || flush_with(&app, &*env))
        };
        let session = Rc::new(RefCell::new(String::new()));
        let term_host = TermHost {
            inner: host.clone(),
            app: app.clone(),
            session: session.clone(),
            repaint,
            repaint_now,
            pending: RefCell::new(None),
        };
        Shell {
            inner: Rc::new(Inner {
                app,
                agent: Agent::new(
                    WithUi {
                        host,
                        ui: term_host,
                    },
                    config,
                ),
                env,
                session,
                catalog: RefCell::new(CatalogLoad::Idle),
                login: RefCell::new(None),
            }),
        }
    }

    /// The app (for tests and the bindings).
    pub fn app(&self) -> &RefCell<App> {
        &self.inner.app
    }

    pub fn agent(&self) -> &Agent<TermAgentHost<H>> {
        &self.inner.agent
    }

    fn now(&self) -> u64 {
        u64::try_from(self.inner.agent.host().now_ms()).unwrap_or(0)
    }

    pub(super) fn flush(&self) {
        flush_with(&self.inner.app, &*self.inner.env);
    }

    /// Restores history, creates (or, with `resume`, reopens) the session and paints the
    /// first frame. `resume` is `last` or a session id.
    pub async fn start(&self, resume: Option<String>) {
        let mut notices = Vec::new();
        match self.inner.env.history_load().await {
            Some(Ok(entries)) => self.inner.app.borrow_mut().load_history(entries),
            Some(Err(message)) => notices.push(format!(
                "History: could not load the prompt history ({message})"
            )),
            None => notices.push("History: kept for this run only (no promptHistoryStore)".into()),
        }
        let mut replay = None;
        let mut opened = None;
        if let Some(which) = resume {
            let id = if which == "last" {
                self.inner
                    .agent
                    .list_sessions()
                    .await
                    .ok()
                    .and_then(|l| l.into_iter().next())
                    .map(|l| l.session_id)
            } else {
                Some(which)
            };
            match id {
                Some(id) => match self.inner.agent.open_session(&id).await {
                    Ok(o) => {
                        replay = Some(o.history.clone());
                        opened = Some(o);
                    }
                    Err(error) => notices.push(format!("Session: could not resume {id}: {error}")),
                },
                None => notices.push("Session: there is no saved session to resume".into()),
            }
        }
        let opened = match opened {
            Some(o) => Ok(o),
            None => self.inner.agent.create_session().await,
        };
        self.restore_login(&mut notices).await;
        {
            let mut app = self.inner.app.borrow_mut();
            match &opened {
                Ok(o) => {
                    *self.inner.session.borrow_mut() = o.session_id.clone();
                    app.set_session(&o.session_id, &current(o, "model"), &current(o, "mode"));
                    app.title = o.title.as_deref().map(super::title_of);
                }
                Err(error) => notices.push(format!("Session: could not start a session: {error}")),
            }
            app.start(replay, &notices);
        }
        self.flush();
    }

    /// Input bytes from the terminal.
    pub fn input(&self, bytes: &[u8]) {
        let now = self.now();
        self.inner.app.borrow_mut().handle_input(bytes, now);
        self.process();
        self.flush();
    }

    /// The interrupt key arrived (before its bytes): cancel the running turn at once.
    pub fn interrupt(&self) {
        if self.inner.app.borrow().approval.is_some() {
            // In the approval panel the key means "deny"; the panel handles it.
            return;
        }
        self.inner.app.borrow_mut().cancel_turn();
        self.process();
        self.flush();
    }

    /// The clock; false once nothing animates.
    pub fn tick(&self) -> bool {
        let now = self.now();
        self.inner.app.borrow_mut().tick(now);
        self.process();
        self.flush();
        self.inner.app.borrow().animating()
    }

    pub fn resize(&self, width: u16, height: u16) {
        self.inner.app.borrow_mut().resize(width, height);
        self.flush();
    }

    /// The host's `setMode`: switches the permission mode as `/permissions` does (at once when
    /// idle, else when the running turn ends).
    ///
    /// # Errors
    /// [`AgentError::InvalidMode`] for an unknown mode, or `ask` under a workspace that runs
    /// every command without asking.
    pub fn set_mode(&self, value: &str) -> Result<(), AgentError> {
        let mode = crate::agent::modes::Mode::parse(value)
            .ok_or_else(|| AgentError::InvalidMode(value.to_owned()))?;
        let result = self.inner.app.borrow_mut().switch_mode(mode, "sdk");
        self.after();
        result.map_err(|why| AgentError::ModeUnavailable {
            mode: value.to_owned(),
            why,
        })
    }

    /// Stops everything without writing (the host releases the terminal).
    pub fn abort(&self) {
        self.inner.app.borrow_mut().silence(130);
        self.stop_login();
        self.inner.agent.shutdown();
        self.inner
            .agent
            .host()
            .ui
            .answer(PermissionAnswer::Cancelled);
    }

    pub(super) fn spawn(&self, task: impl Future<Output = ()> + 'static) {
        self.inner.env.spawn(Box::pin(task));
    }

    /// Runs the app's effects (and those they cause).
    fn process(&self) {
        loop {
            let effects = self.inner.app.borrow_mut().take_effects();
            if effects.is_empty() {
                return;
            }
            for effect in effects {
                self.execute(effect);
            }
        }
    }

    pub(super) fn after(&self) {
        self.process();
        self.flush();
    }

    fn execute(&self, effect: Effect) {
        let shell = self.clone();
        let agent = &self.inner.agent;
        match effect {
            Effect::Prompt { turn, text } => self.spawn(async move {
                let session = shell.inner.session.borrow().clone();
                let result = shell.inner.agent.prompt(&session, turn, text).await;
                let outcome = match result {
                    Ok(end) => {
                        let mut current = shell.inner.session.borrow_mut();
                        if *current == session && end.session_id != session {
                            *current = end.session_id.clone();
                            shell.inner.app.borrow_mut().session_id = end.session_id.clone();
                        }
                        TurnOutcome::Ended(end.stop_reason)
                    }
                    Err(AgentError::NoCredential) if shell.inner.app.borrow().caps.oauth => {
                        TurnOutcome::Failed(
                            "no AI Gateway credential yet: run /login to sign in with Vercel, or set env.AI_GATEWAY_API_KEY (FX_AUTH_REQUIRED)".to_owned(),
                        )
                    }
                    Err(error) => TurnOutcome::Failed(error_text(&error)),
                };
                shell.inner.app.borrow_mut().on_turn_end(turn, outcome);
                // A refresh during the turn may have changed (or dropped) the login.
                shell.sync_auth();
                shell.after();
            }),
            Effect::Cancel { turn } => {
                agent.cancel(turn);
                agent.host().ui.answer(PermissionAnswer::Cancelled);
            }
            Effect::SetConfig { id, value, source } => self.spawn(async move {
                shell.apply_option(id, &value, source).await;
                shell.inner.app.borrow_mut().on_config_done();
                shell.after();
            }),
            Effect::SetModel { model, effort } => self.spawn(async move {
                // The model is checked against the catalog, so it is needed now.
                shell.catalog_ready().await;
                let agent = &shell.inner.agent;
                let ok = shell.apply_option("model", &model, "terminal").await;
                if let (true, Some(effort)) = (ok, effort) {
                    let current = shell.inner.session.borrow().clone();
                    let result = agent.set_effort(&current, &effort).await;
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(()) => app.on_effort_applied(&effort),
                        Err(error) => app.warning(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::NewSession => self.spawn(async move {
                let result = shell.inner.agent.create_session().await;
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(opened) => {
                            *shell.inner.session.borrow_mut() = opened.session_id.clone();
                            app.on_new_session(&opened.session_id);
                        }
                        Err(error) => app.on_switch_failed(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::ListSessions => self.spawn(async move {
                let result = shell.inner.agent.list_sessions().await;
                let mut entries = Vec::new();
                if let Ok(listed) = &result {
                    for l in listed.iter().take(50) {
                        let title = shell.session_title(&l.session_id).await;
                        entries.push(SessionEntry {
                            id: l.session_id.clone(),
                            title,
                            updated_at_ms: l.updated_at_ms,
                        });
                    }
                }
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(_) => app.on_sessions(entries),
                        Err(error) => app.warning(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::OpenSession(id) => self.spawn(async move {
                let result = shell.inner.agent.open_session(&id).await;
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(opened) => {
                            *shell.inner.session.borrow_mut() = opened.session_id.clone();
                            app.model = current(&opened, "model");
                            app.mode = current(&opened, "mode");
                            app.on_session_opened(
                                &opened.session_id,
                                opened.title.as_deref(),
                                opened.history,
                            );
                        }
                        Err(error) => app.on_switch_failed(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::AppendHistory(text) => self.spawn(async move {
                let notice = match shell.inner.env.history_append(&text).await {
                    Ok(outcome) if outcome == "record_too_large" => Some(
                        "History: this entry is too large for the prompt history and was not saved"
                            .to_owned(),
                    ),
                    // `duplicate` and `appended` both mean the history holds it.
                    Ok(_) => None,
                    Err(message) => Some(format!(
                        "History: could not save the prompt ({message}); it was still sent"
                    )),
                };
                if let Some(notice) = notice {
                    shell.inner.app.borrow_mut().notice(&notice);
                    shell.after();
                }
            }),
            Effect::Export => self.spawn(async move {
                let message = shell.export().await;
                shell.inner.app.borrow_mut().notice(&message);
                shell.after();
            }),
            Effect::Rename(title) => self.spawn(async move {
                let session = shell.inner.session.borrow().clone();
                let result = shell.inner.agent.rename_session(&session, &title).await;
                match result {
                    Ok(title) => shell.inner.app.borrow_mut().on_renamed(&title),
                    Err(error) => shell
                        .inner
                        .app
                        .borrow_mut()
                        .warning(&format!("Session: {}", error_text(&error))),
                }
                shell.after();
            }),
            Effect::Permission(answer) => agent.host().ui.answer(answer),
            Effect::LoadCatalog => self.start_catalog(),
            Effect::Login { .. }
            | Effect::CancelLogin { .. }
            | Effect::ChooseTeam { .. }
            | Effect::OpenUrl(_)
            | Effect::Logout => self.login_effect(effect),
            Effect::Exit(code) => {
                self.stop_login();
                self.spawn(async move {
                    // As `agent.close()` does: store what an earlier commit failed to store
                    // (bounded by the host's deadline); what still fails is `session.unsaved`.
                    let agent = &shell.inner.agent;
                    agent.close_sessions().await;
                    agent.shutdown();
                    agent.host().ui.answer(PermissionAnswer::Cancelled);
                    shell.flush();
                    shell.inner.env.exited(code);
                });
            }
        }
    }

    /// Applies config option `id` to the session on screen and shows it at once; then writes it
    /// to the config store (a slow write holds nothing up). True when it was applied.
    /// Applies a config value and shows the outcome; once the session is free again (and the
    /// screen updated) writes it to the config store. True when it was applied.
    async fn apply_option(&self, id: &'static str, value: &str, source: &'static str) -> bool {
        let session = self.inner.session.borrow().clone();
        let agent = &self.inner.agent;
        let result = agent.apply_config_option(&session, id, value).await;
        let previous = {
            let mut app = self.inner.app.borrow_mut();
            match result {
                Ok((_, previous)) => {
                    app.on_config_applied(id, value);
                    Some(previous)
                }
                Err(AgentError::UnknownModel { id, nearest }) => {
                    app.on_unknown_model(&id, &nearest);
                    None
                }
                Err(error) => {
                    app.warning(&error_text(&error));
                    None
                }
            }
        };
        self.after();
        let applied = previous.is_some();
        if let Some(previous) = previous {
            agent.store_config(id, value, previous, source).await;
        }
        applied
    }

    async fn export(&self) -> String {
        let session = self.inner.session.borrow().clone();
        let stored = match self.inner.agent.host().load_session(&session).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return "Export: the session has not been saved yet".into(),
            Err(error) => return format!("Export: {error}"),
        };
        let files = match crate::log::export_native(&stored.bytes) {
            Ok(files) => files,
            Err(error) => return format!("Export: {error}"),
        };
        let n = files.len();
        match self.inner.env.download(files).await {
            Ok(()) => format!("Export: offered {n} files of session {session}"),
            Err(message) => format!("Export: the host refused the download ({message})"),
        }
    }

    /// A stored session's title, as the log reader derives it.
    async fn session_title(&self, id: &str) -> String {
        let Ok(Some(stored)) = self.inner.agent.host().load_session(id).await else {
            return String::new();
        };
        crate::log::read_session(&stored.bytes)
            .map(|view| view.title)
            .unwrap_or_default()
    }
}

fn error_text(error: &AgentError) -> String {
    format!("{error} ({})", error.code())
}
