//! The fxbot engine (fxbot DESIGN §3.2): every call of `createFxbot()`'s object, over the
//! host's capabilities ([`Host`]: fetch, clock, randomness, the session store for chats) and a
//! [`DocStore`] for everything else. Plain Rust: `src/api/bot.rs` only crosses the boundary.
//!
//! - this file: the engine, its state and its waiters;
//! - [`bots`]: the `bots.*` calls and the pins;
//! - [`providers`]: the `settings.*` and `providers.*` calls;
//! - [`chat`]: `chat.send` (checks, files, the turn through the engine's agent) and `chat.stop`;
//! - `claim`: the `messageId` claim, this process's claims set right, the chat's session;
//! - [`stream`]: `chat.stream`'s batches and waits, `release` and `close`;
//! - [`library`]: the `library.*` calls.
//! - [`signin`]: the `signIns.*` calls (a Vercel account).
//!
//! One turn runs per bot in this process (the in-process lock), and the `messageId` claim in
//! `chat/<botId>` (compare-and-set) decides across processes: the same id runs once, another id
//! while one runs is 409.

pub mod addon_oauth;
pub mod addons;
pub mod bots;
pub mod chat;
mod claim;
pub mod embedding;
mod handoff;
pub mod library;
pub mod memories;
pub mod providers;
pub mod signin;
pub mod stream;
mod ui;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::oneshot;

use crate::agent::time::rfc3339_ms;
use crate::agent::{Agent, AgentConfig};
use crate::auth::AuthConfig;
use crate::caps::{Cancel, DocStore, Host, WithUi};
use crate::gateway::ChatEndpoint;

use super::docs::chat::{OwnClaim, Sent};
use super::error::{Entity, FxbotError};
use super::ids::{BotId, MessageId};
use super::journal::Journal;
use super::replay::KeptReplay;

/// How an engine is set up.
pub struct EngineConfig {
    /// This process's name in claims (`owner`): random per engine.
    pub owner: String,
    /// Where gateway providers send model calls (the canonical AI Gateway, or a loopback
    /// development gateway from `env`).
    pub endpoint: ChatEndpoint,
    /// A library item's `url` from its id (the default is the seed's route).
    pub library_url: Box<dyn Fn(&str) -> String>,
    /// The Vercel issuer and client id, for sign-ins and their refreshes.
    pub auth: AuthConfig,
    /// How long a model response may send nothing before the attempt is cut and retried
    /// (`modelIdleTimeoutMs`; [`crate::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS`]).
    pub model_idle_timeout_ms: u32,
    /// The host's local embedder (`createFxbot({ embedder })`), for `embedder: "local"`.
    pub embedder: Option<std::rc::Rc<dyn super::embed::LocalEmbedder>>,
}

/// The seed's route for a library item.
pub fn default_library_url(id: &str) -> String {
    format!("/api/library/{id}/file")
}

/// A turn running in this process (from its `send` on: the in-process lock).
struct Running {
    message_id: Option<MessageId>,
    cancel: Cancel,
    /// The turn's `Sent` once its claim is stored (a second `send` of the message gets it).
    sent: Option<Sent>,
    /// Second `send`s of the same message that came before the claim was stored (`None`: the
    /// first one failed).
    joiners: Vec<oneshot::Sender<Option<Sent>>>,
}

/// Who waits in this process: stream consumers by bot (a line of one bot's turn wakes that
/// bot's consumers only), and `signIns.wait` calls.
#[derive(Default)]
struct Waiters {
    bots: HashMap<BotId, Vec<oneshot::Sender<()>>>,
    signins: Vec<oneshot::Sender<()>>,
}

impl Waiters {
    /// A wait for the next change of `bot`'s stream.
    fn bot(&mut self, bot: &BotId) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        self.bots.entry(bot.clone()).or_default().push(sender);
        receiver
    }

    /// A wait for the next change of a sign-in.
    fn signin(&mut self) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        self.signins.push(sender);
        receiver
    }

    fn wake_bot(&mut self, bot: &BotId) {
        for waiter in self.bots.remove(bot).unwrap_or_default() {
            let _ = waiter.send(());
        }
    }

    fn wake_signins(&mut self) {
        for waiter in self.signins.drain(..) {
            let _ = waiter.send(());
        }
    }

    fn wake_all(&mut self) {
        for waiter in self.bots.drain().flat_map(|(_, w)| w) {
            let _ = waiter.send(());
        }
        self.wake_signins();
    }
}

#[derive(Default)]
struct State {
    closed: bool,
    running: HashMap<BotId, Running>,
    /// The bot of each turn the agent runs for this engine (its updates go to that journal).
    /// (A few entries at most: a list is smaller in wasm than another map.)
    turn_bots: Vec<(u32, BotId)>,
    /// The last turn id given out.
    last_turn_id: u32,
    /// Claims of this process whose stored state is not what happened (a write failed or
    /// timed out), set right by the next claim of the bot.
    unsettled: Vec<(BotId, MessageId, OwnClaim)>,
    /// Sessions that continued as forks (`from`, `to`), as the agent reported them.
    forks: Vec<(String, String)>,
    journals: HashMap<BotId, Journal>,
    /// The replay of each bot's current chat, kept between stream calls (§8.4).
    kept: HashMap<BotId, KeptReplay>,
    /// Bumped by `release(bot)`: a stream of an older epoch ends.
    epochs: HashMap<BotId, u64>,
    /// The provider switches of this process: the epoch the old chat's streams had, and the
    /// new chat (those streams end with `chat_end`).
    handoffs: HashMap<BotId, (u64, String)>,
    waiters: Waiters,
    signins: HashMap<String, signin::SignIn>,
    fill: embedding::FillState,
}

impl State {
    /// Applies `change` to `bot`'s live journal (if it has one) and wakes that bot's consumers.
    fn with_journal(&mut self, bot: &BotId, change: impl FnOnce(&mut Journal)) {
        if let Some(journal) = self.journals.get_mut(bot) {
            change(journal);
        }
        self.waiters.wake_bot(bot);
    }
}

/// The engine. Its turns run through the [`Agent`], over the host with the bots' UI
/// ([`ui::BotUi`]: updates go to the bot's live journal).
pub struct Fxbot<H: Host + Clone, D: DocStore> {
    host: H,
    docs: D,
    config: EngineConfig,
    state: Rc<RefCell<State>>,
    agent: Agent<WithUi<H, ui::BotUi<H>>>,
}

fn not_found(what: Entity, id: &impl ToString) -> FxbotError {
    FxbotError::NotFound {
        what,
        id: id.to_string(),
    }
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    pub fn new(host: H, docs: D, config: EngineConfig) -> Self {
        let state = Rc::new(RefCell::new(State::default()));
        let agent = Agent::new(
            WithUi {
                host: host.clone(),
                ui: ui::BotUi {
                    state: state.clone(),
                    events: host.clone(),
                },
            },
            AgentConfig::for_plans(config.endpoint.clone()),
        );
        Fxbot {
            host,
            docs,
            config,
            state,
            agent,
        }
    }

    pub fn host(&self) -> &H {
        &self.host
    }

    pub fn docs(&self) -> &D {
        &self.docs
    }

    fn now(&self) -> String {
        rfc3339_ms(self.host.now_ms())
    }

    /// 409 `FXBOT_CLOSED` after `close` (the boundary asks first, before it reads arguments).
    ///
    /// # Errors
    /// [`FxbotError::Closed`].
    pub fn check_open(&self) -> Result<(), FxbotError> {
        if self.state.borrow().closed {
            return Err(FxbotError::Closed);
        }
        Ok(())
    }

    fn mint<T>(&self, make: impl FnOnce(&mut dyn FnMut(&mut [u8])) -> T) -> T {
        let host = &self.host;
        make(&mut |buf: &mut [u8]| host.fill_random(buf))
    }

    /// Wakes every waiter (a turn starts or ends, a release, the close).
    fn notify(&self) {
        self.state.borrow_mut().waiters.wake_all();
    }

    fn is_busy(&self, bot: &BotId) -> bool {
        self.state.borrow().running.contains_key(bot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(n: u8) -> BotId {
        BotId::from_random_bytes([n; 6])
    }

    #[test]
    fn a_line_of_one_bot_wakes_only_its_consumers() {
        let (a, b) = (bot(1), bot(2));
        let mut state = State::default();
        let mut of_a = state.waiters.bot(&a);
        let mut of_b = state.waiters.bot(&b);
        let mut signin = state.waiters.signin();
        state.with_journal(&a, |_| {});
        assert_eq!(of_a.try_recv(), Ok(Some(())));
        assert_eq!(of_b.try_recv(), Ok(None), "bot b's consumer sleeps on");
        assert_eq!(signin.try_recv(), Ok(None));
        assert!(!state.waiters.bots.contains_key(&a));
        assert_eq!(state.waiters.bots.get(&b).map(Vec::len), Some(1));
        state.waiters.wake_signins();
        assert_eq!(signin.try_recv(), Ok(Some(())));
        assert_eq!(of_b.try_recv(), Ok(None));
        state.waiters.wake_all();
        assert_eq!(of_b.try_recv(), Ok(Some(())));
        assert!(state.waiters.bots.is_empty());
    }
}
