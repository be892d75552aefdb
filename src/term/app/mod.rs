//! The interactive terminal application: a synchronous state machine the async driver
//! ([`crate::term::driver`]) feeds.
//!
//! - `App::handle_input`: bytes from the terminal (keys, pastes, colour reports); keys become
//!   actions through the `keymap`, which the app applies.
//! - `App::on_update` and the other `on_*` reports: the agent's updates and the outcomes of
//!   the effects the driver ran.
//! - `App::tick`: the clock (Esc timeout, the activity row, the Ctrl+C exit window).
//! - `App::render`: the bytes to write: printed transcript rows plus a diff of the live region
//!   (see `frame`), or the alternate screen (see `overlay`).
//! - `App::take_effects`: what the driver must do ([`Effect`]) and report back.
//!
//! The app is made of parts that own their state and methods: the `composer` (draft, history,
//! slash menu), the prompt `queue`, the `transcript`, the running `turn`, the `session` on
//! screen (model, mode, effort), the `approval` panel, the `signin` panel, the screens of the
//! `overlay`, the model `catalog` and the `theme`. The `commands` module reads slash commands;
//! `effect` is the vocabulary shared with the driver.
//!
//! What the app does with them, by responsibility: `input` (keys and pastes), `run` (slash
//! commands), `turns` (a turn's life and the agent's updates), `config` (model, mode, effort),
//! `switching` (new, resumed and forked sessions), `login` (sign-in and sign-out), `render`
//! (the bytes to write).

mod approval;
mod catalog;
mod cells;
mod commands;
mod composer;
mod effect;
mod frame;
mod keymap;
mod overlay;
mod queue;
mod session;
mod signin;
mod theme;
mod transcript;
mod turn;

mod config;
mod input;
mod login;
mod render;
mod run;
mod switching;
mod turns;

pub use effect::{Capabilities, Effect, SessionEntry, TurnOutcome};

use crate::term::ansi::Ansi;
use crate::term::keys::KeyDecoder;

use approval::Approval;
use catalog::ModelCatalog;
use composer::Composer;
use frame::Frame;
use overlay::Screens;
use queue::PromptQueue;
use session::SessionInfo;
use signin::SignIn;
use theme::{Theme, ThemeProbe};
use transcript::block::TextKind;
use transcript::Transcript;
use turn::TurnView;

/// The version shown by `/version` and the welcome line.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The terminal app. See the module docs.
pub struct App {
    width: usize,
    height: usize,
    theme: Theme,
    theme_probe: ThemeProbe,
    /// The clock, as the last input or tick set it.
    now: u64,
    decoder: KeyDecoder,
    /// A lone Esc resolves then (unless more bytes complete a sequence).
    esc_deadline: Option<u64>,
    /// A first Ctrl+C armed "again exits" until then.
    ctrl_c_until: Option<u64>,
    composer: Composer,
    queue: PromptQueue,
    transcript: Transcript,
    turn: TurnView,
    session: SessionInfo,
    catalog: ModelCatalog,
    approval: Option<Approval>,
    signin: SignIn,
    screens: Screens,
    caps: Capabilities,
    frame: Frame,
    /// Bytes queued for the next render.
    out: Ansi,
    effects: Vec<Effect>,
    /// A resize asks for the screen to be drawn again at the new width.
    repaint_screen: bool,
    started: bool,
    exit_code: Option<i32>,
    /// The goodbye frame was written: nothing more is.
    silent: bool,
}

impl App {
    /// A new app for a `width`×`height` terminal. Writes the terminal modes on first render.
    pub(crate) fn new(width: u16, height: u16, caps: Capabilities) -> Self {
        let mut out = Ansi::new();
        // Bracketed paste, no autowrap, colour-scheme reports and a first query.
        out.push_str("\u{1b}[?2004h\u{1b}[?7l\u{1b}[?2031h\u{1b}[?996n");
        App {
            width: usize::from(width.max(10)),
            height: usize::from(height.max(4)),
            theme: Theme::Dark,
            theme_probe: ThemeProbe::Idle,
            now: 0,
            decoder: KeyDecoder::new(),
            esc_deadline: None,
            ctrl_c_until: None,
            composer: Composer::new(),
            queue: PromptQueue::default(),
            transcript: Transcript::new(),
            turn: TurnView::default(),
            session: SessionInfo::default(),
            catalog: ModelCatalog::default(),
            approval: None,
            signin: SignIn::default(),
            screens: Screens::new(),
            caps,
            frame: Frame::new(usize::from(width.max(10)), usize::from(height.max(4))),
            out,
            effects: Vec::new(),
            repaint_screen: false,
            started: false,
            exit_code: None,
            silent: false,
        }
    }

    /// What the host provides.
    pub(crate) fn caps(&self) -> &Capabilities {
        &self.caps
    }

    /// Loads the prompt history (oldest first).
    pub(crate) fn load_history(&mut self, entries: Vec<String>) {
        self.composer.load_history(entries);
    }

    /// Takes what the driver must do.
    pub(crate) fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Whether the approval panel waits for an answer.
    pub(crate) fn awaiting_approval(&self) -> bool {
        self.approval.is_some()
    }

    /// The session id shown by `/status`.
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// True while something on screen moves or a timer is armed: the driver keeps ticking.
    pub(crate) fn animating(&self) -> bool {
        self.turn.is_running()
            || self.signin.flow.is_some()
            || self.esc_deadline.is_some()
            || self.ctrl_c_until.is_some()
            || self.composer.clear_armed()
    }

    /// The host took the terminal back (abort): nothing more is written.
    pub(crate) fn silence(&mut self, code: i32) {
        self.exit_code.get_or_insert(code);
        self.silent = true;
    }

    /// Leaves with `code`: the footer is erased, the terminal modes restored.
    pub(crate) fn exit(&mut self, code: i32) {
        if self.exit_code.is_some() {
            return;
        }
        if let Some(turn) = self.turn.id() {
            self.effects.push(Effect::Cancel { turn });
        }
        self.close_open();
        self.exit_code = Some(code);
        self.effects.push(Effect::Exit(code));
    }

    /// A `● Topic: body` notice.
    pub(crate) fn notice(&mut self, text: &str) {
        self.push_text(TextKind::Notice, text.to_owned());
    }

    pub(crate) fn warning(&mut self, text: &str) {
        self.push_text(TextKind::Warning, text.to_owned());
    }

    fn push_text(&mut self, kind: TextKind, text: String) {
        self.transcript.push_text(kind, text, self.width);
    }

    fn push_welcome(&mut self) {
        self.push_text(
            TextKind::Welcome,
            format!("𝒇x fx {VERSION} · Run /help for commands"),
        );
    }

    /// Closes the open block: its remaining rows become final.
    fn close_open(&mut self) {
        self.transcript.close_open(self.width);
    }

    fn set_title(&mut self) {
        self.out.title(&self.session.window_title());
    }

    /// The permission mode in effect (the session's, unless the host runs every command
    /// without asking).
    fn permission(&self) -> crate::agent::modes::Mode {
        self.session.permission(self.caps.sandboxed)
    }
}
