//! The `terminal` tool: its schema, strict argument decoding, and the record the model reads.
//!
//! The browser variant runs one foreground command (`{"action":"exec","command":…}`) through the
//! host's workspace adapter. Arguments are checked here before the host sees them; the outcome
//! comes back as a [`ToolRecord`] whose `output` is what the model reads on its next step.

use serde::Serialize;

use crate::caps::ExecOutcome;

use super::workspace::{
    cap_output, CappedOutput, COMMAND_TIMEOUT_MS, MAX_COMMAND_BYTES, MAX_OUTPUT_BYTES,
};

/// The tool's name, as the model calls it.
pub const NAME: &str = "terminal";

/// What the model is told the tool does (≤ 1024 bytes).
pub const DESCRIPTION: &str = "Run one foreground shell command in the browser workspace with \
action=\"exec\". The shell starts in the workspace root and is the way to read, search and edit \
files (cat, ls, find, grep, sed, awk, head, tail, wc, mkdir, mv, cp, rm, echo and redirection). \
It is an in-memory sandbox: there is no git, no network, no package manager, no language \
runtime and no background process; each command must finish within 30 seconds.";

/// The JSON schema of the tool's input, as sent in the request's `tools`.
pub fn input_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["exec"]},
            "command": {
                "type": "string",
                "maxLength": MAX_COMMAND_BYTES,
                "description": "The command line to run in the workspace root."
            }
        },
        "additionalProperties": false,
        "required": ["action", "command"]
    })
}

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

/// `success` or `failure`, as stored in the session log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Success,
    Failure,
}

/// One tool result: what the model reads and what the session log keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRecord {
    pub status: Status,
    pub output: String,
    pub exit_code: Option<i32>,
    pub cancelled: bool,
}

impl ToolRecord {
    fn failure(output: String) -> Self {
        ToolRecord {
            status: Status::Failure,
            output,
            exit_code: None,
            cancelled: false,
        }
    }

    /// The record for arguments that never reached the host.
    pub fn invalid_arguments(error: &ArgumentError) -> Self {
        Self::failure(error_json(&ErrorBody {
            kind: "tool_input_invalid",
            tool_name: NAME,
            message: &error.to_string(),
            details: None,
            reason: None,
            denied: None,
            suggestion: "Call terminal again with {\"action\":\"exec\",\"command\":\"…\"}.",
        }))
    }

    /// The record for a call the user (or policy) refused.
    pub fn denied(note: Option<&str>) -> Self {
        let message = match note {
            Some(note) if !note.trim().is_empty() => {
                format!("The user declined this command: {note}")
            }
            _ => "The user declined this command.".to_owned(),
        };
        Self::failure(error_json(&ErrorBody {
            kind: "tool_permission_denied",
            tool_name: NAME,
            message: &message,
            details: None,
            reason: Some("user_denied"),
            denied: Some(true),
            suggestion: "Do not retry the same command; change the approach or ask the user.",
        }))
    }

    /// The record for a tool the model called that this host does not offer.
    pub fn unavailable(tool_name: &str) -> Self {
        Self::failure(error_json(&ErrorBody {
            kind: "tool_unavailable",
            tool_name,
            message: "This tool is not available in this browser session.",
            details: None,
            reason: None,
            denied: None,
            suggestion: "Answer without tools, or use a tool from the request's tool list.",
        }))
    }

    /// The record for a command the host ran (or failed to run); its output is capped at
    /// [`MAX_OUTPUT_BYTES`] (at a UTF-8 boundary).
    pub fn from_outcome(command: &str, cwd: &str, outcome: &ExecOutcome) -> Self {
        match outcome {
            ExecOutcome::Exited {
                exit_code,
                stdout,
                stderr,
            } => Self::exited(command, cwd, *exit_code, &cap_output(stdout, stderr, MAX_OUTPUT_BYTES)),
            ExecOutcome::TimedOut => Self::failure(format!(
                "timeout=true\ntimeout_ms={COMMAND_TIMEOUT_MS}\nThe command did not finish in time and was stopped.\n"
            )),
            ExecOutcome::Cancelled => {
                let mut record = Self::failure("command cancelled\n".to_owned());
                record.cancelled = true;
                record
            }
            ExecOutcome::Failed(message) => Self::failure(error_json(&ErrorBody {
                kind: "tool_execution_failed",
                tool_name: NAME,
                message: &format!("The workspace could not run the command: {message}"),
                details: None,
                reason: None,
                denied: None,
                suggestion: "Try a simpler command, or tell the user the workspace is failing.",
            })),
        }
    }

    fn exited(command: &str, cwd: &str, exit_code: i32, output: &CappedOutput) -> Self {
        match exit_code {
            0 => ToolRecord {
                status: Status::Success,
                output: success_text(output),
                exit_code: Some(0),
                cancelled: false,
            },
            exit_code => {
                let details = Details {
                    command,
                    cwd,
                    exit_code,
                    truncated: output.truncated,
                    stdout: non_empty(&output.stdout),
                    stderr: non_empty(&output.stderr),
                };
                let mut record = Self::failure(error_json(&ErrorBody {
                    kind: "tool_execution_failed",
                    tool_name: NAME,
                    message: "The command exited with a non-zero status.",
                    details: Some(details),
                    reason: None,
                    denied: None,
                    suggestion: "Read stderr and fix the command or explain the blocker; do not rerun it unchanged.",
                }));
                record.exit_code = Some(exit_code);
                record
            }
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

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    error: &'a ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    tool_name: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Details<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    denied: Option<bool>,
    suggestion: &'a str,
}

#[derive(Serialize)]
struct Details<'a> {
    command: &'a str,
    cwd: &'a str,
    exit_code: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr: Option<&'a str>,
}

fn error_json(body: &ErrorBody<'_>) -> String {
    // Serializing plain strings and integers cannot fail; fall back to the message alone if it did.
    serde_json::to_string(&ErrorEnvelope { error: body })
        .unwrap_or_else(|_| body.message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let record = ToolRecord::from_outcome(
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
        let record = ToolRecord::from_outcome(
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
        let record = ToolRecord::from_outcome(
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
        let record = ToolRecord::from_outcome("x", "/w", &ExecOutcome::Cancelled);
        assert!(record.cancelled);
        assert_eq!(record.output, "command cancelled\n");
        let record = ToolRecord::from_outcome("x", "/w", &ExecOutcome::TimedOut);
        assert!(record
            .output
            .starts_with("timeout=true\ntimeout_ms=30000\n"));
        let record = ToolRecord::denied(Some("use rg"));
        let value: serde_json::Value = serde_json::from_str(&record.output).unwrap();
        assert_eq!(value["error"]["reason"], "user_denied");
        assert_eq!(value["error"]["denied"], true);
    }
}
