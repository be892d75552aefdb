//! The interactive terminal application: a synchronous state machine the async driver feeds.
//!
//! - [`App::handle_input`]: bytes from the terminal (keys, pastes, colour reports).
//! - [`App::on_update`]: the agent's ACP updates of the running turn.
//! - [`App::tick`]: the clock (Esc timeout, the activity row, the Ctrl+C exit window).
//! - [`App::render`]: the bytes to write: printed transcript rows plus a diff of the live region
//!   (see [`frame`]), or the alternate screen (see [`screens`]).
//! - [`App::take_effects`]: what the driver must do (start or cancel a turn, set config, …) and
//!   report back through the `on_*` methods.
//!
//! Submodules: [`transcript`] (blocks and their rows), [`updates`] (the agent's updates and a
//! replayed session becoming blocks), [`footer`] (live region: activity row,
//! composer, menus, approval panel, status line), [`input`] (keys), [`commands`] (slash
//! commands), [`login`] (the sign-in panel and `/login`, `/logout`; [`login_flow`] drives the
//! device flow), [`screens`] (help, models, transcript review, resume picker), [`frame`] (diff
//! painting), [`shell`] (the async driver over an [`crate::agent::Agent`]).

pub mod agent_host;
pub mod catalog;
pub mod commands;
pub mod footer;
pub mod frame;
pub mod input;
pub mod login;
pub mod login_flow;
pub mod screens;
pub mod shell;
pub mod transcript;
pub mod turns;
pub mod updates;

pub use turns::ActiveTurn;

use std::collections::VecDeque;

use crate::agent::replay::Replayed;
use crate::caps::acp::{PermissionAnswer, StopReason};
use crate::term::ansi::{Ansi, AnsiLine};
use crate::term::history::PromptHistory;
use crate::term::keys::KeyDecoder;
use crate::term::line_editor::LineEditor;
use crate::term::style::{line_to_ansi, Palette, StyledLine};

use frame::Frame;
use screens::Overlay;
use transcript::{Block, TextKind};

/// The version shown by `/version` and the welcome line.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the driver must do for the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run a turn with this prompt in the current session.
    Prompt { turn: u32, text: String },
    /// Cancel a running turn (aborting its host effects).
    Cancel { turn: u32 },
    /// Set `model` or `mode` on the session and persist it (`source` for `config.changed`:
    /// `terminal` for a command, `sdk` for the host's `setMode`).
    SetConfig {
        id: &'static str,
        value: String,
        source: &'static str,
    },
    /// Switch the model (persisted as `model`), then set its reasoning effort when given.
    SetModel {
        model: String,
        effort: Option<String>,
    },
    /// Start a fresh session (any turn was already cancelled).
    NewSession,
    /// List stored sessions for the resume picker ([`App::on_sessions`]).
    ListSessions,
    /// Open a stored session ([`App::on_session_opened`]).
    OpenSession(String),
    /// Append a submission to the host's prompt history.
    AppendHistory(String),
    /// Offer the current session as native fx files.
    Export,
    /// Name the current session and store the name.
    Rename(String),
    /// Answer the pending approval.
    Permission(PermissionAnswer),
    /// Leave with this exit code.
    Exit(i32),
    /// Start device login `id` ([`App::on_login_code`] and friends report back).
    Login { id: u32 },
    /// Stop device login `id`.
    CancelLogin { id: u32 },
    /// The team picked in login `id` (`None`: no team).
    ChooseTeam { id: u32, index: Option<usize> },
    /// Open the sign-in page (again) through the host's `openUrl`.
    OpenUrl(String),
    /// Sign out: remove the stored login, revoke it, drop the credential.
    Logout,
    /// Fetch the model catalog now (it is needed: a model screen opened, a turn started);
    /// [`App::set_models`] or [`App::on_catalog_failed`] report back.
    LoadCatalog,
}

/// Where the model catalog stands. It is fetched when first needed, never at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogStatus {
    NotRequested,
    Loading,
    Loaded,
    Failed(String),
}

/// What the host provides, for commands that need it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    pub history_store: bool,
    pub session_store: bool,
    pub downloads: bool,
    pub oauth: bool,
    pub workspace: bool,
    pub credential: bool,
    /// The workspace runs every command without asking (its permission is `allow-sandboxed`),
    /// so the permission mode is `auto` whatever the session's mode says.
    pub sandboxed: bool,
}

/// A stored session for the resume picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEntry {
    pub id: String,
    pub title: String,
    pub updated_at_ms: i64,
}

/// How a turn ended, as the driver reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    Ended(StopReason),
    Failed(String),
}

/// Where the theme detection stands (see `input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeProbe {
    Idle,
    /// A scheme report arrived; waiting for the first fence reply.
    First(crate::term::keys::ColorScheme),
    /// The background was asked; waiting for the second fence reply.
    Second(
        crate::term::keys::ColorScheme,
        Option<crate::term::keys::Rgb>,
    ),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Dark,
    Light,
}

/// The approval panel's state: the highlighted choice (0 Yes, 1 Yes for the session, 2 No)
/// and, while `amending`, the note typed for the model ("Yes, and …" / "No, and …").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    pub command: String,
    pub selected: usize,
    pub amending: bool,
    pub note: String,
}

impl Approval {
    /// Whether the highlighted choice takes a note (Yes and No do; "don't ask again" does not).
    pub fn can_amend(&self) -> bool {
        self.selected != 1
    }
}

/// The terminal app. See the module docs.
pub struct App {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) theme: Theme,
    pub(crate) now: u64,
    pub(crate) decoder: KeyDecoder,
    pub(crate) esc_deadline: Option<u64>,
    pub(crate) editor: LineEditor,
    pub(crate) history: PromptHistory,
    pub(crate) blocks: Vec<Block>,
    pub(crate) open: Option<Block>,
    pub(crate) open_taken: usize,
    pub(crate) pending: Vec<StyledLine>,
    pub(crate) frame: Frame,
    pub(crate) out: Ansi,
    pub(crate) effects: Vec<Effect>,
    pub(crate) turn: Option<ActiveTurn>,
    pub(crate) next_turn: u32,
    pub(crate) queue: VecDeque<String>,
    pub(crate) queue_paused: bool,
    pub(crate) model: String,
    pub(crate) mode: String,
    /// A mode switch asked for during a turn, applied when it ends.
    pub(crate) pending_mode: Option<crate::agent::modes::Mode>,
    /// A config change is being applied: queued prompts wait for it.
    pub(crate) applying_config: bool,
    pub(crate) session_id: String,
    pub(crate) title: Option<String>,
    pub(crate) models: Vec<String>,
    pub(crate) catalog: CatalogStatus,
    /// Reasoning efforts per model id, from the catalog.
    pub(crate) efforts: std::collections::HashMap<String, Vec<String>>,
    /// The session's reasoning effort (`auto` by default).
    pub(crate) effort: String,
    pub(crate) caps: Capabilities,
    pub(crate) ctrl_c_until: Option<u64>,
    pub(crate) esc_clear_until: Option<u64>,
    pub(crate) menu_selected: usize,
    pub(crate) overlay: Option<Overlay>,
    pub(crate) alt_drawn: bool,
    pub(crate) alt_dirty: bool,
    /// A resize asks for the screen to be drawn again at the new width.
    pub(crate) repaint_screen: bool,
    pub(crate) approval: Option<Approval>,
    pub(crate) exit_code: Option<i32>,
    pub(crate) started: bool,
    /// A session switch (`/new`, `/resume`) is under way: prompts wait for it.
    pub(crate) switching: bool,
    /// The goodbye frame was written: nothing more is.
    pub(crate) silent: bool,
    pub(crate) theme_probe: ThemeProbe,
    pub(crate) signin: login::SignIn,
}

impl App {
    /// A new app for a `width`×`height` terminal. Writes the terminal modes on first render.
    pub fn new(width: u16, height: u16, caps: Capabilities) -> Self {
        let mut out = Ansi::new();
        // Bracketed paste, no autowrap, colour-scheme reports and a first query.
        out.push_str("\u{1b}[?2004h\u{1b}[?7l\u{1b}[?2031h\u{1b}[?996n");
        App {
            width: usize::from(width.max(10)),
            height: usize::from(height.max(4)),
            theme: Theme::Dark,
            now: 0,
            decoder: KeyDecoder::new(),
            esc_deadline: None,
            editor: LineEditor::new(),
            history: PromptHistory::new(),
            blocks: Vec::new(),
            open: None,
            open_taken: 0,
            pending: Vec::new(),
            frame: Frame::new(),
            out,
            effects: Vec::new(),
            turn: None,
            next_turn: 1,
            queue: VecDeque::new(),
            queue_paused: false,
            model: String::new(),
            mode: "ask".to_owned(),
            pending_mode: None,
            applying_config: false,
            session_id: String::new(),
            title: None,
            models: Vec::new(),
            catalog: CatalogStatus::NotRequested,
            efforts: std::collections::HashMap::new(),
            effort: "auto".to_owned(),
            caps,
            ctrl_c_until: None,
            esc_clear_until: None,
            menu_selected: 0,
            overlay: None,
            alt_drawn: false,
            alt_dirty: false,
            repaint_screen: false,
            approval: None,
            exit_code: None,
            started: false,
            switching: false,
            silent: false,
            theme_probe: ThemeProbe::Idle,
            signin: login::SignIn::default(),
        }
    }

    /// The permission mode as it really is: `ask` (fx asks before each command) or `auto`
    /// (commands run without asking). One word for the footer, `/status` and `/permissions`.
    pub fn permission_label(&self) -> &'static str {
        if self.caps.sandboxed || self.mode == "code" {
            "auto"
        } else {
            "ask"
        }
    }

    pub fn palette(&self) -> Palette {
        match self.theme {
            Theme::Dark => Palette::dark(),
            Theme::Light => Palette::light(),
        }
    }

    /// Sets the session's model and mode (after start, restore or a config change).
    pub fn set_session(&mut self, session_id: &str, model: &str, mode: &str) {
        self.session_id = session_id.to_owned();
        self.model = model.to_owned();
        self.mode = mode.to_owned();
        self.set_title();
    }

    /// The catalog's model ids with their reasoning efforts, for `/model` and `/models`.
    pub fn set_models(&mut self, models: Vec<(String, Vec<String>)>) {
        self.efforts = models
            .iter()
            .filter(|(_, efforts)| !efforts.is_empty())
            .cloned()
            .collect();
        self.models = models.into_iter().map(|(id, _)| id).collect();
        self.catalog = CatalogStatus::Loaded;
        self.alt_dirty = true;
    }

    /// The catalog could not be loaded (the current model keeps working).
    pub fn on_catalog_failed(&mut self, message: &str) {
        self.catalog = CatalogStatus::Failed(message.to_owned());
        self.alt_dirty = true;
    }

    /// Asks the driver for the catalog unless it was asked already.
    pub(crate) fn want_catalog(&mut self) {
        if self.catalog == CatalogStatus::NotRequested {
            self.catalog = CatalogStatus::Loading;
            self.effects.push(Effect::LoadCatalog);
        }
    }

    /// Loads the prompt history (oldest first).
    pub fn load_history(&mut self, entries: Vec<String>) {
        self.history = PromptHistory::from_entries(entries);
    }

    /// Prints the welcome line (or the resume notice and the replayed session) and any notice.
    pub fn start(&mut self, resumed: Option<Vec<Replayed>>, notices: &[String]) {
        self.started = true;
        match resumed {
            Some(updates) => {
                self.push_text(TextKind::Notice, self.resumed_notice());
                self.replay(updates);
            }
            None => self.push_welcome(),
        }
        for notice in notices {
            self.notice(notice);
        }
    }

    fn push_welcome(&mut self) {
        self.push_text(
            TextKind::Welcome,
            format!("𝒇x fx {VERSION} · Run /help for commands"),
        );
    }

    /// Takes what the driver must do.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The exit code once the app asked to leave.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit_code
    }

    pub fn is_busy(&self) -> bool {
        self.turn.is_some()
    }

    /// The session id shown by `/status`.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// True while something on screen moves or a timer is armed: the driver keeps ticking.
    pub fn animating(&self) -> bool {
        self.turn.is_some()
            || self.signin.flow.is_some()
            || self.esc_deadline.is_some()
            || self.ctrl_c_until.is_some()
            || self.esc_clear_until.is_some()
    }

    /// The host took the terminal back (abort): nothing more is written.
    pub fn silence(&mut self, code: i32) {
        self.exit_code.get_or_insert(code);
        self.silent = true;
    }

    /// Leaves with `code`: the footer is erased, the terminal modes restored.
    pub fn exit(&mut self, code: i32) {
        if self.exit_code.is_some() {
            return;
        }
        if let Some(turn) = &self.turn {
            self.effects.push(Effect::Cancel { turn: turn.id });
        }
        self.close_open();
        self.exit_code = Some(code);
        self.effects.push(Effect::Exit(code));
    }

    pub(crate) fn set_title(&mut self) {
        let label = self.title.as_deref().unwrap_or("workspace");
        self.out.title(&format!("fx · {label} · {}", self.model));
    }

    /// Applies a new size: the screen is drawn again at the new width (the transcript rows
    /// that fit above the live region, re-wrapped; the terminal's own reflow cuts words), while
    /// the rows already in scrollback stay as they are.
    pub fn resize(&mut self, width: u16, height: u16) {
        let width = usize::from(width.max(10));
        let height = usize::from(height.max(4));
        if width == self.width && height == self.height {
            return;
        }
        self.width = width;
        self.height = height;
        if let Some(Block::Assistant(stream)) = &mut self.open {
            stream.set_width(width.max(4));
            self.open_taken = stream.committed().len();
        }
        self.frame.invalidate();
        self.alt_dirty = true;
        self.repaint_screen = self.started;
    }

    /// The last `room` transcript rows at the current width (closed blocks, each followed by a
    /// blank row, then the open reply's final rows), re-laying out the replies they come from.
    fn screen_tail(&mut self, room: usize) -> Vec<StyledLine> {
        let width = self.width;
        let mut rows: Vec<StyledLine> = Vec::new();
        if let Some(Block::Assistant(stream)) = &self.open {
            rows.extend(stream.committed().iter().rev().cloned());
        }
        for block in self.blocks.iter_mut().rev() {
            if rows.len() >= room {
                break;
            }
            if let Block::Assistant(stream) = block {
                if stream.options().width != width.max(4) {
                    stream.set_width(width.max(4));
                }
            }
            rows.push(StyledLine::new());
            rows.extend(block.rows(width).into_iter().rev());
        }
        rows.truncate(room);
        rows.reverse();
        rows
    }

    /// Switches the palette; a change repaints everything (scrollback is cleared and the
    /// transcript printed again in the new colours).
    pub fn set_theme(&mut self, theme: Theme) {
        if theme == self.theme {
            return;
        }
        self.theme = theme;
        if !self.started {
            return;
        }
        self.out.push_str("\u{1b}[2J\u{1b}[3J\u{1b}[H");
        self.frame.reset();
        let mut rows = Vec::new();
        for block in &self.blocks {
            rows.extend(block.rows(self.width));
            rows.push(StyledLine::new());
        }
        self.pending = rows;
        if let Some(Block::Assistant(stream)) = &self.open {
            self.pending.extend(stream.committed().iter().cloned());
            self.open_taken = stream.committed().len();
        }
        self.alt_dirty = true;
    }

    /// The bytes to write now (empty when nothing changed).
    pub fn render(&mut self) -> Ansi {
        if self.silent {
            return Ansi::new();
        }
        let mut out = self.out.take();
        if self.overlay.is_some() && self.exit_code.is_none() {
            self.render_overlay(&mut out);
            return out;
        }
        if self.alt_drawn {
            out.push_str("\u{1b}[?1049l");
            self.alt_drawn = false;
            self.frame.invalidate();
        }
        if std::mem::take(&mut self.repaint_screen) && self.exit_code.is_none() {
            // After a resize: home, erase the screen (not the scrollback), and print the rows
            // that fit above the live region again at the new width.
            out.push_str("\u{1b}[H\u{1b}[2J");
            self.frame.reset();
            let (live, _) = self.live_rows();
            let room = self.height.saturating_sub(live.len());
            self.pending = self.screen_tail(room);
            if let Some(Block::Assistant(stream)) = &self.open {
                self.open_taken = stream.committed().len();
            }
        }
        if let Some(Block::Assistant(stream)) = &self.open {
            let committed = stream.committed();
            if committed.len() > self.open_taken {
                self.pending
                    .extend(committed.iter().skip(self.open_taken).cloned());
                self.open_taken = committed.len();
            }
        }
        let palette = self.palette();
        let commit: Vec<AnsiLine> = self
            .pending
            .drain(..)
            .map(|row| line_to_ansi(&row, &palette))
            .collect();
        if self.exit_code.is_some() {
            self.frame.paint(&mut out, &commit, &[], None);
            out.push_str("\u{1b}[?2004l\u{1b}[?2031l\u{1b}[?7h\u{1b}[0m\u{1b}]2;\u{7}\u{1b}[?25h");
            self.silent = true;
            return out;
        }
        let (live, cursor) = self.live_rows();
        let live: Vec<AnsiLine> = live.iter().map(|row| line_to_ansi(row, &palette)).collect();
        self.frame.paint(&mut out, &commit, &live, cursor);
        out
    }
}

/// A session title from a first prompt: its first 8 words.
pub fn title_of(text: &str) -> String {
    let clean = crate::term::sanitize::sanitize(text);
    clean
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}
