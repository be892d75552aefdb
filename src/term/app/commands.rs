//! Slash commands: the catalogue the menu and `/help` list, and what each one does.

use super::screens::Overlay;
use super::transcript::TextKind;
use super::{App, Effect, VERSION};
use crate::agent::modes::Mode;

/// One command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub name: &'static str,
    pub args: &'static str,
    pub description: &'static str,
}

const fn cmd(name: &'static str, args: &'static str, description: &'static str) -> Command {
    Command {
        name,
        args,
        description,
    }
}

/// Every command this terminal offers (each works in a browser, given the host option named
/// in its reply when it is missing).
pub const COMMANDS: &[Command] = &[
    cmd("help", "", "list commands and keys"),
    cmd(
        "model",
        " [id] [effort]",
        "choose the model and its reasoning effort",
    ),
    cmd("models", "", "browse the model catalog"),
    cmd(
        "permissions",
        " [ask|auto]",
        "ask before each command, or run them without asking",
    ),
    cmd("new", "", "start a fresh session"),
    cmd("clear", "", "clear the screen and start a fresh session"),
    cmd("resume", "", "reopen a saved session"),
    cmd("rename", " <title>", "name the current session"),
    cmd("export", "", "download the session as native fx files"),
    cmd("login", "", "sign in to Vercel"),
    cmd("logout", "", "sign out"),
    cmd("status", "", "show the runtime configuration"),
    cmd("version", "", "show the fx version"),
    cmd("exit", "", "leave fx"),
];

/// Commands whose name starts with what the draft holds after `/` (none once it has a space).
pub fn matching_commands(app: &App) -> Vec<Command> {
    let text = app.editor.text();
    let Some(prefix) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if prefix.contains(char::is_whitespace) {
        return Vec::new();
    }
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(prefix))
        .copied()
        .collect()
}

impl App {
    /// Runs `/name args`; false when `name` is not a command (the text is sent as a prompt).
    pub(crate) fn run_command(&mut self, text: &str) -> bool {
        let body = text.trim_start_matches('/');
        let (name, args) = match body.split_once(char::is_whitespace) {
            Some((name, args)) => (name, args.trim()),
            None => (body, ""),
        };
        match name {
            "help" => self.open_overlay(Overlay::help()),
            "model" if args.is_empty() => self.open_overlay(Overlay::models(self, true)),
            "model" => {
                let mut parts = args.split_whitespace();
                let model = parts.next().unwrap_or_default().to_owned();
                let effort = parts.next().map(str::to_owned);
                self.set_model(&model, effort);
            }
            "models" => self.open_overlay(Overlay::models(self, false)),
            "permissions" => self.permissions(args),
            "new" | "clear" | "reset" => self.new_session(name == "clear"),
            "resume" => {
                if self.caps.session_store {
                    self.effects.push(Effect::ListSessions);
                } else {
                    self.notice("Session: resuming needs the host's sessionStore option");
                }
            }
            "rename" if args.is_empty() => self.notice("Session: usage: /rename <title>"),
            "rename" => self.effects.push(Effect::Rename(args.to_owned())),
            "export" => {
                if self.caps.downloads {
                    self.effects.push(Effect::Export);
                } else {
                    self.notice("Export: this host offers no downloads (pass the download option)");
                }
            }
            "login" => self.login_command(),
            "logout" => self.logout_command(),
            "status" => self.status(),
            "version" => self.notice(&format!("Version: {VERSION}")),
            "exit" | "quit" => self.exit(0),
            // A word after `/` is a command, known or not (with or without arguments); a path
            // such as `/usr/bin/env is missing` is a prompt.
            _ if is_command_word(name) => self.unknown_command(name),
            _ => return false,
        }
        true
    }

    fn unknown_command(&mut self, name: &str) {
        let names = COMMANDS.iter().map(|c| c.name).chain(["quit", "reset"]);
        let text = match crate::gateway::catalog::nearest(name, names, 1).first() {
            Some(near) => format!("Command: unknown command /{name}; did you mean /{near}? (/help lists every command)"),
            None => format!("Command: unknown command /{name}; /help lists every command"),
        };
        self.notice(&text);
    }

    /// The catalog has no model `id`: say so and offer the nearest ones.
    pub fn on_unknown_model(&mut self, id: &str, nearest: &[String]) {
        let suggestion = match nearest {
            [] => String::new(),
            [one] => format!(" Did you mean /model {one}?"),
            [first, rest @ ..] => format!(" Did you mean /model {first} (or {})?", rest.join(", ")),
        };
        self.notice(&format!(
            "Model: {id} is not in the model catalog, so the model stays {}.{suggestion} /models lists them all.",
            self.model
        ));
    }

    pub(crate) fn set_model(&mut self, id: &str, effort: Option<String>) {
        if crate::agent::modes::validate_model_id(id).is_err() {
            self.notice(&format!("Model: \"{id}\" is not a valid model id"));
            return;
        }
        if self.turn.is_some() {
            self.notice("Model: wait for the turn to finish (or press Esc) before switching");
            return;
        }
        self.effects.push(Effect::SetModel {
            model: id.to_owned(),
            effort,
        });
    }

    fn permissions(&mut self, args: &str) {
        let mode = match args {
            "" => {
                let text = if self.caps.sandboxed {
                    "Permissions: auto · this host runs every command without asking (its workspace permission is allow-sandboxed)".to_owned()
                } else {
                    format!(
                        "Permissions: {} · /permissions ask: fx asks before each command · /permissions auto: commands run without asking (also Shift+Tab)",
                        self.permission_label()
                    )
                };
                self.notice(&text);
                return;
            }
            "ask" => Mode::Ask,
            "auto" | "code" => Mode::Code,
            other => {
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

    /// Switches the permission mode: at once when idle, else when the running turn ends.
    ///
    /// # Errors
    /// Why not: `ask` under a host that runs every command without asking.
    pub fn switch_mode(&mut self, mode: Mode, source: &'static str) -> Result<(), &'static str> {
        if self.caps.sandboxed && mode == Mode::Ask {
            return Err("this host runs every command without asking (its workspace permission is allow-sandboxed), so ask is not available");
        }
        if self.turn.is_some() || self.applying_config {
            self.pending_mode = Some(mode);
            self.notice(&format!(
                "Permissions: switching to {} when this turn ends",
                mode.permission_mode()
            ));
            return Ok(());
        }
        self.pending_mode = None;
        self.applying_config = true;
        self.effects.push(Effect::SetConfig {
            id: "mode",
            value: mode.id().to_owned(),
            source,
        });
        Ok(())
    }

    /// Shift+Tab: ask ⇄ auto.
    pub(crate) fn toggle_mode(&mut self) {
        let next = if self.permission_label() == "ask" {
            Mode::Code
        } else {
            Mode::Ask
        };
        if let Err(why) = self.switch_mode(next, "terminal") {
            self.notice(&format!("Permissions: {why}"));
        }
    }

    /// A config change ended (applied or not): queued prompts may go on.
    pub fn on_config_done(&mut self) {
        self.applying_config = false;
        if self.turn.is_none() {
            if let Some(mode) = self.pending_mode.take() {
                let _ = self.switch_mode(mode, "terminal");
                return;
            }
        }
        if !self.queue_paused {
            self.start_queued();
        }
    }

    /// The driver applied a reasoning effort.
    pub fn on_effort_applied(&mut self, effort: &str) {
        self.effort = effort.to_owned();
        self.notice(&format!("Effort: {effort}"));
    }

    /// The driver applied a config value.
    pub fn on_config_applied(&mut self, id: &str, value: &str) {
        match id {
            "model" => {
                self.model = value.to_owned();
                self.notice(&format!("Switched to {value}"));
                self.set_title();
            }
            "mode" => {
                self.mode = value.to_owned();
                let text = match self.permission_label() {
                    "auto" => "Permissions: auto · commands run without asking",
                    _ => "Permissions: ask · fx asks before each command",
                };
                self.notice(text);
            }
            _ => {}
        }
    }

    fn new_session(&mut self, clear: bool) {
        if let Some(turn) = self.turn.take() {
            self.effects.push(Effect::Cancel { turn: turn.id });
        }
        self.approval = None;
        self.queue.clear();
        self.queue_paused = false;
        self.close_open();
        if clear {
            self.pending.clear();
            self.blocks.clear();
            self.out.push_str("\u{1b}[H\u{1b}[2J");
            self.frame.reset();
            self.push_text(
                TextKind::Welcome,
                format!("𝒇x fx {VERSION} · Run /help for commands"),
            );
        } else {
            self.notice("Session: started a new session");
        }
        self.switching = true;
        self.effects.push(Effect::NewSession);
    }

    fn status(&mut self) {
        let mode = self.permission_label();
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let text = format!(
            "Status: model={} · permission_mode={mode} · session={} · {} · workspace={} · history_store={} · session_store={} · version={VERSION}",
            self.model,
            self.session_id,
            self.auth_status_text(),
            yes_no(self.caps.workspace),
            yes_no(self.caps.history_store),
            yes_no(self.caps.session_store),
        );
        self.notice(&text);
    }
}

/// A command-like word: ASCII letters, digits, `-` and `_`, starting with a letter.
fn is_command_word(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
