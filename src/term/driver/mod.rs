//! The async driver: [`Shell`] runs an [`App`] with an [`Agent`] over any [`Host`] and a
//! [`TermEnv`], turning the app's effects into agent calls and their outcomes into reports.
//!
//! - [`self::env`]: [`TermEnv`], the terminal side of the host (output, tasks, ticker, history,
//!   downloads).
//! - [`agent_host`]: [`TermHost`], the agent's host as the terminal runs it.
//! - `effects`: what each [`crate::term::app::Effect`] of the app does.
//! - `catalog`: the model catalog, fetched when first needed.
//! - `login`: the device login and logout over the agent's host.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use futures::channel::oneshot;

use crate::agent::{Agent, AgentConfig, AgentError, Opened};
use crate::caps::acp::PermissionAnswer;
use crate::caps::cancel::Cancel;
use crate::caps::{Clock, Host, WithUi};
use crate::term::app::{App, Capabilities};

pub mod agent_host;
mod catalog;
mod effects;
pub mod env;
mod login;

pub use agent_host::TermHost;
pub use env::{Task, TermEnv};

/// The agent's host in the terminal: the page's capabilities, the terminal's screen.
pub type TermAgentHost<H> = WithUi<H, TermHost<H>>;

struct Inner<H: Host, E: TermEnv> {
    app: Rc<RefCell<App>>,
    agent: Agent<TermAgentHost<H>>,
    env: Rc<E>,
    /// The id of the session on screen, shared with the [`TermHost`].
    session: Rc<RefCell<String>>,
    catalog: RefCell<CatalogLoad>,
    /// The device login in progress (see `login`).
    login: RefCell<Option<LoginRun>>,
}

/// The model catalog's load: fetched when first needed (a model screen, `/model <id>`, the
/// first turn), never at start-up.
enum CatalogLoad {
    Idle,
    /// Fetching; these wait for it.
    Loading(Vec<oneshot::Sender<()>>),
    Done,
}

/// The device login in progress, as the driver holds it.
#[derive(Debug)]
struct LoginRun {
    id: u32,
    cancel: Cancel,
    /// Answers the team picker.
    team: Option<oneshot::Sender<Option<usize>>>,
}

/// The running terminal. Cheap to clone.
pub struct Shell<H: Host + Clone + 'static, E: TermEnv + 'static> {
    inner: Rc<Inner<H, E>>,
}

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Clone for Shell<H, E> {
    fn clone(&self) -> Self {
        Shell {
            inner: self.inner.clone(),
        }
    }
}

/// The current value of config option `id` of an opened session.
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
        // Updates mark the screen dirty; one repaint at the next frame shows however many
        // arrived meanwhile (many network reads, each often with many text deltas), and what the
        // clock changed. Input repaints at once (`flush`), so echo never waits for a frame.
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
                env.frame(Box::pin(async move {
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

    fn flush(&self) {
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
                    app.set_stored_title(o.title.as_deref());
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
        if self.inner.app.borrow().awaiting_approval() {
            // In the approval panel the key means "deny"; the panel handles it.
            return;
        }
        self.inner.app.borrow_mut().cancel_turn();
        self.process();
        self.flush();
    }

    /// The clock; false once nothing animates. What it changed is painted at the next frame
    /// with the streamed updates.
    pub fn tick(&self) -> bool {
        let now = self.now();
        self.inner.app.borrow_mut().tick(now);
        self.process();
        (self.inner.agent.host().ui.repaint)();
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

    fn spawn(&self, task: impl Future<Output = ()> + 'static) {
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

    fn after(&self) {
        self.process();
        self.flush();
    }
}
