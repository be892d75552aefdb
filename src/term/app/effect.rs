//! What the app and its driver tell each other: the [`Effect`]s the app asks for, what the
//! host provides ([`Capabilities`]), and the driver's answers that carry data ([`SessionEntry`],
//! [`TurnOutcome`]).

use crate::caps::acp::{PermissionAnswer, StopReason};

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
    /// List stored sessions for the resume picker (`App::on_sessions`).
    ListSessions,
    /// Open a stored session (`App::on_session_opened`).
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
    /// Start device login `id` (`App::on_login_code` and friends report back).
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
    /// `App::set_models` or `App::on_catalog_failed` report back.
    LoadCatalog,
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
    /// The terminal adapter lets Esc then Tab move the focus out of the terminal (a browser
    /// xterm.js through `xtermAdapter`): `/help` lists the keys.
    pub esc_then_tab_leaves: bool,
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
