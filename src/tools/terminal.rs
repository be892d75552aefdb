//! The `terminal` tool: its schema, strict argument decoding, and the record the model reads.
//!
//! The browser variant runs one foreground command (`{"action":"exec","command":…}`) through the
//! host's workspace adapter ([`TerminalTools`], the coding agent's tool set). Arguments are
//! checked here before the host sees them; the outcome comes back as a [`ToolOutcome`] whose
//! `output` is what the model reads on its next step.

use crate::caps::acp::ToolKind;
use crate::caps::{Cancel, ExecOutcome, Workspace};
use crate::gateway::ToolDefinition;

use super::set::{CommandDetails, Prepared, PreparedCall, ToolError, ToolOutcome, ToolSet};
use super::workspace::{
    cap_output, CappedOutput, Permission, WorkspaceInfo, COMMAND_TIMEOUT_MS, MAX_COMMAND_BYTES,
    MAX_OUTPUT_BYTES,
};

/// The tool's name, as the model calls it.
pub const NAME: &str = "terminal";

/// What the model is told the tool does (≤ 1024 bytes).
pub const DESCRIPTION: &str = "Run one foreground shell command in the browser workspace with \
action=\"exec\". The shell starts in the workspace root and is the way to read, search and edit \
files (cat, ls, find, grep, sed, awk, head, tail, wc, mkdir, mv, cp, rm, echo and redirection). \
It is an in-memory sandbox: there is no git, no network, no package manager, no language \
runtime and no background process; each command must finish within 30 seconds.";

/// The JSON schema of the tool's input, as sent in the request's `tools` (its keys sorted, as
/// serde_json writes an object; `maxLength` is [`MAX_COMMAND_BYTES`], which a test holds).
pub const INPUT_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"action":{"enum":["exec"],"type":"string"},"command":{"description":"The command line to run in the workspace root.","maxLength":65536,"type":"string"}},"required":["action","command"],"type":"object"}"#;

/// Why the model's arguments were refused; the message goes back to the model as a failed result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    #[error("terminal arguments are not valid JSON")]
    NotJson,
    #[error("terminal arguments must be a JSON object")]
    NotObject,
    #[error("terminal accepts exactly two fields, \"action\" and \"command\"; remove {0:?}")]
    UnknownField(String),
    #[error("terminal needs \"action\": \"exec\"")]
    MissingAction,
    #[error("terminal only supports \"action\": \"exec\"")]
    BadAction,
    #[error("terminal needs a \"command\" string")]
    MissingCommand,
    #[error("terminal \"command\" is empty")]
    EmptyCommand,
    #[error("terminal \"command\" is {0} bytes; the limit is {MAX_COMMAND_BYTES}")]
    CommandTooLong(usize),
    #[error("terminal \"command\" contains a NUL byte")]
    Nul,
}

/// Decodes the model's raw argument JSON into the command to run.
///
/// # Errors
/// An [`ArgumentError`] whose message tells the model what to fix.
pub fn decode_arguments(arguments_json: &str) -> Result<String, ArgumentError> {
    let value: serde_json::Value =
        serde_json::from_str(arguments_json).map_err(|_| ArgumentError::NotJson)?;
    let object = value.as_object().ok_or(ArgumentError::NotObject)?;
    if let Some(extra) = object
        .keys()
        .find(|key| *key != "action" && *key != "command")
    {
        return Err(ArgumentError::UnknownField(extra.clone()));
    }
    match object.get("action") {
        None => return Err(ArgumentError::MissingAction),
        Some(action) if action.as_str() != Some("exec") => return Err(ArgumentError::BadAction),
        Some(_) => {}
    }
    let command = object
        .get("command")
        .and_then(serde_json::Value::as_str)
        .ok_or(ArgumentError::MissingCommand)?;
    if command.len() > MAX_COMMAND_BYTES {
        return Err(ArgumentError::CommandTooLong(command.len()));
    }
    if command.contains('\0') {
        return Err(ArgumentError::Nul);
    }
    if command.trim().is_empty() {
        return Err(ArgumentError::EmptyCommand);
    }
    Ok(command.to_owned())
}

/// The coding agent's tools: `terminal` over the host's workspace when it has one, nothing
/// otherwise. A call's arguments are its command line, which is also its permission key when
/// the workspace asks before each command.
pub struct TerminalTools<'a, W: Workspace + ?Sized> {
    pub workspace: &'a W,
    pub info: Option<&'a WorkspaceInfo>,
}

impl<W: Workspace + ?Sized> ToolSet for TerminalTools<'_, W> {
    /// The command line.
    type Arguments = String;

    fn definitions(&self) -> Vec<ToolDefinition> {
        let Some(_) = self.info else {
            return Vec::new();
        };
        match serde_json::value::RawValue::from_string(INPUT_SCHEMA.to_owned()) {
            Ok(input_schema) => vec![ToolDefinition {
                name: NAME.to_owned(),
                description: DESCRIPTION.to_owned(),
                input_schema,
            }],
            Err(_) => Vec::new(),
        }
    }

    fn kind(&self, _name: &str) -> ToolKind {
        ToolKind::Execute
    }

    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared<String> {
        let command = decode_arguments(arguments_json);
        // The command is the title even of a call this set refuses (the screen shows it).
        let title = match &command {
            Ok(command) => command.clone(),
            Err(_) => name.to_owned(),
        };
        let call = match self.info {
            Some(info) if name == NAME => command
                .map(|command| PreparedCall {
                    name: name.to_owned(),
                    permission_key: (info.permission == Permission::Prompt)
                        .then(|| command.clone()),
                    arguments: command,
                })
                .map_err(|error| invalid_arguments(&error)),
            _ => Err(ToolOutcome::unavailable(name)),
        };
        Prepared { title, call }
    }

    async fn run(&self, call: &PreparedCall<String>, cancel: &Cancel) -> ToolOutcome {
        let cwd = self.info.map_or("/", |info| info.cwd.as_str());
        let outcome = self
            .workspace
            .exec(&call.arguments, cwd, COMMAND_TIMEOUT_MS, cancel)
            .await;
        exec_outcome(&call.arguments, cwd, &outcome)
    }

    fn cancelled(&self, call: &PreparedCall<String>) -> ToolOutcome {
        let cwd = self.info.map_or("/", |info| info.cwd.as_str());
        exec_outcome(&call.arguments, cwd, &ExecOutcome::Cancelled)
    }

    fn denied(&self, _call: &PreparedCall<String>, note: Option<&str>) -> ToolOutcome {
        denied(note)
    }
}

/// What the model reads for a command that ran past [`COMMAND_TIMEOUT_MS`] (a test holds the
/// figure).
const TIMED_OUT: &str =
    "timeout=true\ntimeout_ms=30000\nThe command did not finish in time and was stopped.\n";

/// The outcome for arguments that never reached the host.
pub fn invalid_arguments(error: &ArgumentError) -> ToolOutcome {
    ToolOutcome::failure(
        ToolError {
            kind: "tool_input_invalid",
            tool_name: NAME,
            message: &error.to_string(),
            details: None,
            reason: None,
            denied: None,
            suggestion: "Call terminal again with {\"action\":\"exec\",\"command\":\"…\"}.",
        }
        .to_json(),
    )
}

/// The outcome for a command the user (or policy) refused.
pub fn denied(note: Option<&str>) -> ToolOutcome {
    let message = match note {
        Some(note) if !note.trim().is_empty() => {
            format!("The user declined this command: {note}")
        }
        _ => "The user declined this command.".to_owned(),
    };
    ToolOutcome::failure(
        ToolError {
            kind: "tool_permission_denied",
            tool_name: NAME,
            message: &message,
            details: None,
            reason: Some("user_denied"),
            denied: Some(true),
            suggestion: "Do not retry the same command; change the approach or ask the user.",
        }
        .to_json(),
    )
}

/// The outcome of a command the host ran (or failed to run); its output is capped at
/// [`MAX_OUTPUT_BYTES`] (at a UTF-8 boundary).
pub fn exec_outcome(command: &str, cwd: &str, outcome: &ExecOutcome) -> ToolOutcome {
    match outcome {
        ExecOutcome::Exited {
            exit_code,
            stdout,
            stderr,
        } => exited(
            command,
            cwd,
            *exit_code,
            &cap_output(stdout, stderr, MAX_OUTPUT_BYTES),
        ),
        ExecOutcome::TimedOut => ToolOutcome::failure(TIMED_OUT.to_owned()),
        ExecOutcome::Cancelled => {
            let mut outcome = ToolOutcome::failure("command cancelled\n".to_owned());
            outcome.cancelled = true;
            outcome
        }
        ExecOutcome::Failed(message) => ToolOutcome::failure(
            ToolError {
                kind: "tool_execution_failed",
                tool_name: NAME,
                message: &format!("The workspace could not run the command: {message}"),
                details: None,
                reason: None,
                denied: None,
                suggestion: "Try a simpler command, or tell the user the workspace is failing.",
            }
            .to_json(),
        ),
    }
}

fn exited(command: &str, cwd: &str, exit_code: i32, output: &CappedOutput) -> ToolOutcome {
    match exit_code {
        0 => ToolOutcome {
            exit_code: Some(0),
            ..ToolOutcome::success(success_text(output))
        },
        exit_code => {
            let details = CommandDetails {
                command,
                cwd,
                exit_code,
                truncated: output.truncated,
                stdout: non_empty(&output.stdout),
                stderr: non_empty(&output.stderr),
            };
            let mut outcome = ToolOutcome::failure(
                ToolError {
                    kind: "tool_execution_failed",
                    tool_name: NAME,
                    message: "The command exited with a non-zero status.",
                    details: Some(details),
                    reason: None,
                    denied: None,
                    suggestion: "Read stderr and fix the command or explain the blocker; do not rerun it unchanged.",
                }
                .to_json(),
            );
            outcome.exit_code = Some(exit_code);
            outcome
        }
    }
}

fn success_text(output: &CappedOutput) -> String {
    let mut text = String::from("exit_code=0\n");
    if output.truncated {
        text.push_str(&format!(
            "truncated=true\nstdout_bytes={}\nstderr_bytes={}\n",
            output.stdout_bytes, output.stderr_bytes
        ));
    }
    let stdout = output.stdout.trim_end_matches(['\n', '\r']);
    let stderr = output.stderr.trim_end_matches(['\n', '\r']);
    if !stdout.is_empty() {
        text.push_str("<stdout>\n");
        text.push_str(stdout);
        text.push_str("\n</stdout>\n");
    }
    if !stderr.is_empty() {
        text.push_str("<stderr>\n");
        text.push_str(stderr);
        text.push_str("\n</stderr>\n");
    }
    if stdout.is_empty() && stderr.is_empty() {
        text.push_str("(no output)\n");
    }
    text
}

fn non_empty(text: &str) -> Option<&str> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    (!trimmed.is_empty()).then_some(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::set::Status;

    #[test]
    fn the_timeout_record_names_the_limit() {
        assert!(TIMED_OUT.contains(&format!("timeout_ms={COMMAND_TIMEOUT_MS}\n")));
    }

    #[test]
    fn the_schema_limits_the_command() {
        let schema: serde_json::Value = serde_json::from_str(INPUT_SCHEMA).unwrap();
        assert_eq!(
            schema["properties"]["command"]["maxLength"],
            MAX_COMMAND_BYTES
        );
        // Written as serde_json writes it, byte for byte.
        assert_eq!(schema.to_string(), INPUT_SCHEMA);
    }

    #[test]
    fn decodes_strictly() {
        assert_eq!(
            decode_arguments(r#"{"action":"exec","command":"ls"}"#),
            Ok("ls".into())
        );
        assert_eq!(
            decode_arguments(r#"{"command":"ls","action":"exec"}"#),
            Ok("ls".into())
        );
        let cases = [
            ("{", ArgumentError::NotJson),
            ("[1]", ArgumentError::NotObject),
            (r#"{"command":"ls"}"#, ArgumentError::MissingAction),
            (
                r#"{"action":"read","command":"ls"}"#,
                ArgumentError::BadAction,
            ),
            (r#"{"action":"exec"}"#, ArgumentError::MissingCommand),
            (
                r#"{"action":"exec","command":5}"#,
                ArgumentError::MissingCommand,
            ),
            (
                r#"{"action":"exec","command":"  "}"#,
                ArgumentError::EmptyCommand,
            ),
            (
                r#"{"action":"exec","command":"a\u0000b"}"#,
                ArgumentError::Nul,
            ),
            (
                r#"{"action":"exec","command":"ls","cwd":"/"}"#,
                ArgumentError::UnknownField("cwd".into()),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(decode_arguments(input), Err(expected), "{input}");
        }
        let long = format!(
            r#"{{"action":"exec","command":"{}"}}"#,
            "x".repeat(MAX_COMMAND_BYTES + 1)
        );
        assert_eq!(
            decode_arguments(&long),
            Err(ArgumentError::CommandTooLong(MAX_COMMAND_BYTES + 1))
        );
    }

    #[test]
    fn success_record_matches_fx() {
        let record = exec_outcome(
            "echo",
            "/w",
            &ExecOutcome::Exited {
                exit_code: 0,
                stdout: "hello-from-tool\n".into(),
                stderr: "".into(),
            },
        );
        assert_eq!(
            record.output,
            "exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n"
        );
        assert_eq!(record.status, Status::Success);
        let record = exec_outcome(
            "true",
            "/w",
            &ExecOutcome::Exited {
                exit_code: 0,
                stdout: "".into(),
                stderr: "".into(),
            },
        );
        assert_eq!(record.output, "exit_code=0\n(no output)\n");
    }

    #[test]
    fn failure_record_is_json() {
        let record = exec_outcome(
            "ls x",
            "/w",
            &ExecOutcome::Exited {
                exit_code: 2,
                stdout: "partial\n".into(),
                stderr: "ls: nope\n".into(),
            },
        );
        assert_eq!(record.status, Status::Failure);
        assert_eq!(record.exit_code, Some(2));
        let value: serde_json::Value = serde_json::from_str(&record.output).unwrap();
        assert_eq!(value["error"]["type"], "tool_execution_failed");
        assert_eq!(value["error"]["details"]["exit_code"], 2);
        assert_eq!(value["error"]["details"]["stderr"], "ls: nope");
        assert_eq!(value["error"]["details"]["stdout"], "partial");
        assert!(record
            .output
            .starts_with(r#"{"error":{"type":"tool_execution_failed","tool_name":"terminal""#));
    }

    #[test]
    fn cancel_timeout_denied() {
        let record = exec_outcome("x", "/w", &ExecOutcome::Cancelled);
        assert!(record.cancelled);
        assert_eq!(record.output, "command cancelled\n");
        let record = exec_outcome("x", "/w", &ExecOutcome::TimedOut);
        assert!(record
            .output
            .starts_with("timeout=true\ntimeout_ms=30000\n"));
        let record = denied(Some("use rg"));
        let value: serde_json::Value = serde_json::from_str(&record.output).unwrap();
        assert_eq!(value["error"]["reason"], "user_denied");
        assert_eq!(value["error"]["denied"], true);
    }
}
