//! Tool groups: one row per command with how it stands, its first output lines (all of them
//! in the transcript review), and the tool results they are read from.

use crate::caps::acp::RawOutput;
use crate::term::sanitize::{expand_tabs, sanitize};
use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::{str_width, truncate_to_width};

/// Lines of command output shown under a finished tool row.
const PREVIEW_LINES: usize = 2;

/// How one tool call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallState {
    Pending,
    Running,
    Ran {
        exit_code: Option<i32>,
    },
    Failed {
        exit_code: Option<i32>,
    },
    /// The user (or the turn's cancel) stopped it while it ran.
    Cancelled,
    /// The user said no in the approval panel.
    Denied,
}

impl CallState {
    /// The state a finished call's result describes: `completed` ran; a failure is a denial,
    /// a cancelled run, or a failed one. `raw` is the update's `rawOutput` when there is one.
    pub fn finished(completed: bool, text: &str, raw: Option<&RawOutput>) -> Self {
        let (parsed_code, _) = parse_output(text);
        let exit_code = raw.and_then(|r| r.exit_code).or(parsed_code);
        if completed {
            return CallState::Ran { exit_code };
        }
        let cancelled = raw.map_or_else(|| text.starts_with("command cancelled"), |r| r.cancelled);
        if cancelled {
            return CallState::Cancelled;
        }
        let denied = serde_json::from_str::<serde_json::Value>(text.trim())
            .ok()
            .and_then(|v| v.get("error")?.get("type")?.as_str().map(str::to_owned))
            .is_some_and(|kind| kind == "tool_permission_denied");
        if denied {
            CallState::Denied
        } else {
            CallState::Failed { exit_code }
        }
    }
}

/// One tool call of a group.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub id: String,
    pub command: String,
    pub state: CallState,
    /// The tool result text as the agent reported it (raw: rows clean it when drawn).
    pub output: String,
}

impl ToolCall {
    pub fn is_done(&self) -> bool {
        !matches!(self.state, CallState::Pending | CallState::Running)
    }
}

/// Model and command text as it may be shown: sanitized, tabs expanded.
pub fn clean(text: &str) -> String {
    expand_tabs(&sanitize(text), 4)
}

/// The exit code and the output lines (sanitized, tabs expanded) of a tool result text.
///
/// A JSON result is decoded before its strings are cleaned: escapes such as `\u001b` only
/// become control characters once decoded.
pub fn parse_output(text: &str) -> (Option<i32>, Vec<String>) {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text.trim()) {
        let value = value.get("error").cloned().unwrap_or(value);
        let details = value.get("details");
        let code = details
            .and_then(|d| d.get("exit_code").or_else(|| d.get("exitCode")))
            .and_then(serde_json::Value::as_i64)
            .and_then(|c| i32::try_from(c).ok());
        let mut lines = Vec::new();
        for key in ["stderr", "stdout"] {
            if let Some(s) = details.and_then(|d| d.get(key)).and_then(|v| v.as_str()) {
                lines.extend(clean(s).lines().map(str::to_owned));
            }
        }
        if lines.is_empty() {
            if let Some(m) = value.get("message").and_then(|v| v.as_str()) {
                lines.extend(clean(m).lines().map(str::to_owned));
            }
        }
        return (code, lines);
    }
    let mut code = None;
    let mut lines = Vec::new();
    for line in clean(text).lines() {
        if let Some(c) = line.strip_prefix("exit_code=") {
            code = c.trim().parse().ok();
            continue;
        }
        if matches!(
            line,
            "<stdout>" | "</stdout>" | "<stderr>" | "</stderr>" | "(no output)"
        ) || line.starts_with("truncated=")
            || line.starts_with("stdout_bytes=")
            || line.starts_with("stderr_bytes=")
        {
            continue;
        }
        lines.push(line.to_owned());
    }
    (code, lines)
}

fn clip(text: &str, width: usize) -> String {
    let (kept, used) = truncate_to_width(text, width);
    if used < str_width(text) && width > 1 {
        let (short, _) = truncate_to_width(text, width - 1);
        format!("{short}…")
    } else {
        kept.to_owned()
    }
}

/// The rows of a tool group; `full` shows every output line (transcript review).
pub fn tool_rows(calls: &[ToolCall], width: usize, full: bool) -> Vec<StyledLine> {
    let width = width.max(8);
    let count = |want: fn(&CallState) -> bool| calls.iter().filter(|c| want(&c.state)).count();
    let failed = count(|s| matches!(s, CallState::Failed { .. }));
    let cancelled = count(|s| *s == CallState::Cancelled);
    let denied = count(|s| *s == CallState::Denied);
    let running = calls.iter().filter(|c| !c.is_done()).count();
    let n = calls.len();
    let mut header = format!(
        "{n} tool call{} · {n} command{}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "" } else { "s" }
    );
    if running > 0 {
        header.push_str(&format!(" · {running} running"));
    }
    for (n, label) in [
        (failed, "failed"),
        (denied, "denied"),
        (cancelled, "cancelled"),
    ] {
        if n > 0 {
            header.push_str(&format!(" · {n} {label}"));
        }
    }
    let mut out = vec![{
        let mut line = StyledLine::new();
        line.push("● ", Style::plain().bold());
        line.push(
            &clip(&header, width - 2),
            Style::plain().fg(Tone::Secondary),
        );
        line
    }];
    for (i, call) in calls.iter().enumerate() {
        let last = i + 1 == calls.len();
        let branch = if last { "└ " } else { "├ " };
        let command = clean(&call.command).replace('\n', " ");
        let (verb, suffix) = match &call.state {
            CallState::Pending => ("Waiting", String::new()),
            CallState::Running => ("Running", String::new()),
            CallState::Ran { exit_code } => (
                "Ran",
                exit_code.map_or_else(String::new, |c| format!(" · exit {c}")),
            ),
            CallState::Failed { exit_code } => (
                "Failed",
                exit_code.map_or_else(String::new, |c| format!(" · exit {c}")),
            ),
            CallState::Cancelled => ("Cancelled", String::new()),
            CallState::Denied => ("Denied", String::new()),
        };
        let mut line = StyledLine::new();
        line.push(branch, Style::plain().fg(Tone::Secondary));
        let body = clip(
            &format!("{verb} {command}"),
            width.saturating_sub(2 + str_width(&suffix)),
        );
        line.push(&body, Style::plain());
        line.push(&suffix, Style::plain().fg(Tone::Secondary));
        out.push(line);
        // A denied or cancelled call has no output to show (its label says how it ended).
        if call.is_done() && !matches!(call.state, CallState::Denied | CallState::Cancelled) {
            let (_, lines) = parse_output(&call.output);
            let rail = if last { "    " } else { "│   " };
            let shown = if full { lines.len() } else { PREVIEW_LINES };
            for text in lines.iter().take(shown) {
                let mut line = StyledLine::new();
                line.push(rail, Style::plain().fg(Tone::Secondary));
                line.push(
                    &clip(text, width.saturating_sub(4)),
                    Style::plain().fg(Tone::Secondary),
                );
                out.push(line);
            }
            if lines.len() > shown {
                let mut line = StyledLine::new();
                line.push(rail, Style::plain().fg(Tone::Secondary));
                let more = lines.len() - shown;
                line.push(
                    &format!(
                        "… {more} more line{} (ctrl+o to review)",
                        if more == 1 { "" } else { "s" }
                    ),
                    Style::plain().fg(Tone::Secondary).italic(),
                );
                out.push(line);
            }
        }
    }
    out
}
