//! Running a slash command the composer submitted (see [`super::commands`] for the catalogue).

use super::commands::{self, Command, PermissionsArg};
use super::overlay::help::Help;
use super::overlay::models::ModelPicker;
use super::overlay::Overlay;
use super::transcript::block::TextKind;
use super::{App, Effect, VERSION};

impl App {
    /// Runs `/name args`; false when it is no command (the text is sent as a prompt).
    pub(super) fn run_command(&mut self, text: &str) -> bool {
        let Some(command) = commands::parse(text) else {
            return false;
        };
        match command {
            Command::Help => {
                let help = Help::new(self.caps.esc_then_tab_leaves);
                self.open_screen(Overlay::Help(help));
            }
            Command::ChooseModel => self.open_models(true),
            Command::Model { id, effort } => self.set_model(id, effort.map(str::to_owned)),
            Command::Models => self.open_models(false),
            Command::Permissions(arg) => self.permissions(arg),
            Command::New { clear } => self.new_session(clear),
            Command::Resume => {
                if self.caps.session_store {
                    self.effects.push(Effect::ListSessions);
                } else {
                    self.notice("Session: resuming needs the host's sessionStore option");
                }
            }
            Command::Rename(None) => self.notice("Session: usage: /rename <title>"),
            Command::Rename(Some(title)) => self.effects.push(Effect::Rename(title.to_owned())),
            Command::Export => {
                if self.caps.downloads {
                    self.effects.push(Effect::Export);
                } else {
                    self.notice("Export: this host offers no downloads (pass the download option)");
                }
            }
            Command::Login => self.login_command(),
            Command::Logout => self.logout_command(),
            Command::Status => self.status(),
            Command::Version => self.notice(&format!("Version: {VERSION}")),
            Command::Exit => self.exit(0),
            Command::Unknown(name) => self.notice(&commands::unknown_text(name)),
        }
        true
    }

    fn open_models(&mut self, pick: bool) {
        let picker = ModelPicker::new(&self.catalog, &self.session.model, pick);
        self.open_screen(Overlay::Models(picker));
    }

    fn permissions(&mut self, arg: PermissionsArg) {
        let mode = match arg {
            PermissionsArg::Show => {
                let text = if self.caps.sandboxed {
                    "Permissions: auto · this host runs every command without asking (its workspace permission is allow-sandboxed)".to_owned()
                } else {
                    format!(
                        "Permissions: {} · /permissions ask: fx asks before each command · /permissions auto: commands run without asking (also Shift+Tab)",
                        self.permission().permission_mode()
                    )
                };
                self.notice(&text);
                return;
            }
            PermissionsArg::Set(mode) => mode,
            PermissionsArg::Unknown(other) => {
                let other = crate::term::sanitize::sanitize(other);
                self.notice(&format!(
                    "Permissions: there is no mode \"{other}\"; /permissions ask asks before each command, /permissions auto runs them without asking"
                ));
                return;
            }
        };
        if let Err(why) = self.switch_mode(mode, "terminal") {
            self.notice(&format!("Permissions: {why}"));
        }
    }

    /// `/new` and `/clear` (which clears the screen too): any turn is left behind.
    fn new_session(&mut self, clear: bool) {
        if let Some(turn) = self.turn.abandon() {
            self.effects.push(Effect::Cancel { turn });
        }
        self.approval = None;
        self.queue.reset();
        self.close_open();
        if clear {
            self.transcript.clear();
            self.out.push_str("\u{1b}[H\u{1b}[2J");
            self.frame.reset();
            self.push_welcome();
        } else {
            self.notice("Session: started a new session");
        }
        self.session.switching = true;
        self.effects.push(Effect::NewSession);
    }

    /// `/status`: the settings in effect, one labelled row each.
    fn status(&mut self) {
        let mode = self.permission().permission_mode();
        let permissions = if self.caps.sandboxed {
            format!("{mode}: this host runs every command without asking")
        } else if mode == "ask" {
            format!("{mode}: fx asks before each command (/permissions, Shift+Tab)")
        } else {
            format!("{mode}: commands run without asking (/permissions, Shift+Tab)")
        };
        let kept = |yes: bool, store: &str| {
            if yes {
                format!("kept ({store})")
            } else {
                format!("this run only (no {store})")
            }
        };
        let session = if self.session.id.is_empty() {
            "none yet"
        } else {
            self.session.id.as_str()
        };
        let facts = [
            ("Model", self.session.model.clone()),
            ("Permissions", permissions),
            ("Sign-in", self.signin.status_text(self.caps.credential)),
            ("Session", session.to_owned()),
            ("Sessions", kept(self.caps.session_store, "sessionStore")),
            (
                "Prompt history",
                kept(self.caps.history_store, "promptHistoryStore"),
            ),
            (
                "Workspace",
                if self.caps.workspace {
                    "connected: fx runs commands in it".to_owned()
                } else {
                    "none: fx cannot run commands".to_owned()
                },
            ),
            ("Version", VERSION.to_owned()),
        ];
        let mut text = "Status".to_owned();
        for (label, value) in facts {
            text.push_str(&format!("\n{label}: {value}"));
        }
        self.push_text(TextKind::Facts, text);
    }
}
