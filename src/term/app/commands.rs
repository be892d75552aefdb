//! Slash commands: the catalogue the menu and `/help` list, and a draft read as a [`Command`].

use crate::agent::modes::Mode;

/// One entry of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandInfo {
    pub name: &'static str,
    pub args: &'static str,
    pub description: &'static str,
}

const fn cmd(name: &'static str, args: &'static str, description: &'static str) -> CommandInfo {
    CommandInfo {
        name,
        args,
        description,
    }
}

/// Every command this terminal offers (each works in a browser, given the host option named
/// in its reply when it is missing).
pub const COMMANDS: &[CommandInfo] = &[
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

/// The commands whose name starts with what `draft` holds after `/` (none once it has a space).
pub fn matching(draft: &str) -> Vec<CommandInfo> {
    let Some(prefix) = draft.strip_prefix('/') else {
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

/// A submitted `/name args`, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command<'a> {
    Help,
    /// `/model` alone: the picker.
    ChooseModel,
    /// `/model <id> [effort]`.
    Model {
        id: &'a str,
        effort: Option<&'a str>,
    },
    Models,
    Permissions(PermissionsArg<'a>),
    /// `/new`, `/reset`, or `/clear` (`clear`: the screen too).
    New {
        clear: bool,
    },
    Resume,
    /// `/rename <title>` (`None`: no title given).
    Rename(Option<&'a str>),
    Export,
    Login,
    Logout,
    Status,
    Version,
    Exit,
    /// A command-like word that names no command.
    Unknown(&'a str),
}

/// What `/permissions` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionsArg<'a> {
    /// Nothing: say how it stands.
    Show,
    Set(Mode),
    Unknown(&'a str),
}

/// Reads a draft starting with `/`; `None` when it is no command but a prompt (a path such as
/// `/usr/bin/env is missing`).
pub fn parse(text: &str) -> Option<Command<'_>> {
    let body = text.trim_start_matches('/');
    let (name, args) = match body.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (body, ""),
    };
    Some(match name {
        "help" => Command::Help,
        "model" if args.is_empty() => Command::ChooseModel,
        "model" => {
            let mut parts = args.split_whitespace();
            Command::Model {
                id: parts.next().unwrap_or_default(),
                effort: parts.next(),
            }
        }
        "models" => Command::Models,
        "permissions" => Command::Permissions(match args {
            "" => PermissionsArg::Show,
            "ask" => PermissionsArg::Set(Mode::Ask),
            "auto" | "code" => PermissionsArg::Set(Mode::Code),
            other => PermissionsArg::Unknown(other),
        }),
        "new" | "clear" | "reset" => Command::New {
            clear: name == "clear",
        },
        "resume" => Command::Resume,
        "rename" => Command::Rename(Some(args).filter(|a| !a.is_empty())),
        "export" => Command::Export,
        "login" => Command::Login,
        "logout" => Command::Logout,
        "status" => Command::Status,
        "version" => Command::Version,
        "exit" | "quit" => Command::Exit,
        // A word after `/` is a command, known or not (with or without arguments).
        _ if is_command_word(name) => Command::Unknown(name),
        _ => return None,
    })
}

/// What to say about `/name`, which names no command: the nearest one, if any is near.
pub fn unknown_text(name: &str) -> String {
    let names = COMMANDS.iter().map(|c| c.name).chain(["quit", "reset"]);
    match crate::gateway::catalog::nearest(name, names, 1).first() {
        Some(near) => format!(
            "Command: unknown command /{name}; did you mean /{near}? (/help lists every command)"
        ),
        None => format!("Command: unknown command /{name}; /help lists every command"),
    }
}

/// A command-like word: ASCII letters, digits, `-` and `_`, starting with a letter.
fn is_command_word(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_read_as_commands() {
        let cases = [
            ("/help", Some(Command::Help)),
            ("/model", Some(Command::ChooseModel)),
            ("/model   ", Some(Command::ChooseModel)),
            (
                "/model a/b high extra",
                Some(Command::Model {
                    id: "a/b",
                    effort: Some("high"),
                }),
            ),
            (
                "/permissions auto",
                Some(Command::Permissions(PermissionsArg::Set(Mode::Code))),
            ),
            (
                "/permissions code",
                Some(Command::Permissions(PermissionsArg::Set(Mode::Code))),
            ),
            (
                "/permissions",
                Some(Command::Permissions(PermissionsArg::Show)),
            ),
            (
                "/permissions yolo",
                Some(Command::Permissions(PermissionsArg::Unknown("yolo"))),
            ),
            ("/reset", Some(Command::New { clear: false })),
            ("/clear", Some(Command::New { clear: true })),
            ("/rename", Some(Command::Rename(None))),
            (
                "/rename  Release prep ",
                Some(Command::Rename(Some("Release prep"))),
            ),
            ("/quit", Some(Command::Exit)),
            ("/hepl me", Some(Command::Unknown("hepl"))),
            // A path is a prompt.
            ("/usr/bin/env is missing", None),
            ("/", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn the_menu_offers_commands_by_prefix_until_a_space() {
        let names = |draft: &str| matching(draft).iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names("/mo"), ["model", "models"]);
        assert_eq!(names("/model "), Vec::<&str>::new());
        assert_eq!(names("mo"), Vec::<&str>::new());
        assert_eq!(names("/").len(), COMMANDS.len());
    }

    #[test]
    fn an_unknown_command_gets_the_nearest_name() {
        assert!(unknown_text("hepl").contains("did you mean /help?"));
        assert!(!unknown_text("zzzzzzzz").contains("did you mean"));
    }
}
