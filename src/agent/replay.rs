//! A stored session replayed turn by turn, as it was shown live: per turn, the user's message,
//! each tool step's text, calls and results, the answer, and for an interrupted turn the call
//! it stopped in and how it ended (cancelled, or failed and why, when the session noted it).
//!
//! [`replay`] gives the terminal these [`Replayed`] entries; [`history_updates`] turns them
//! into the ACP updates of `session.history`, where the end of an interrupted turn is a notice
//! chunk of its own.

use crate::log::execution::ToolCall as LoggedCall;
use crate::log::turn::{HistoryTurn, TerminalReason};

use super::session::LiveSession;
use crate::caps::acp::{RawOutput, ToolCallContent, ToolKind, ToolStatus, Update};

/// One entry of a replayed session.
#[derive(Debug, Clone, PartialEq)]
pub enum Replayed {
    Update(Update),
    /// An interrupted turn ended here: cancelled, or failed with the message shown then (when
    /// it was noted).
    Ended {
        reason: TerminalReason,
        message: Option<String>,
    },
}

/// The entries that replay a session's stored turns.
pub fn replay(session: &LiveSession) -> Vec<Replayed> {
    let state = session.state();
    let mut out = Vec::new();
    let push = |out: &mut Vec<Replayed>, update: Update| out.push(Replayed::Update(update));
    for (index, turn) in state.history.iter().enumerate() {
        match turn {
            HistoryTurn::CompactedSummary(summary) => {
                push(&mut out, Update::user_text(summary.summary.to_lossy()))
            }
            _ => {
                if let Some(user) = turn.user() {
                    push(&mut out, Update::user_text(user.text.to_lossy()));
                }
            }
        }
        let (execution, assistant) = match turn {
            HistoryTurn::Assistant(t) => (
                Some(&t.execution),
                Some(t.assistant.to_lossy().into_owned()),
            ),
            HistoryTurn::Interrupted(t) => (
                Some(&t.execution),
                t.assistant.as_ref().map(|a| a.to_lossy().into_owned()),
            ),
            HistoryTurn::BackgroundCommand(t) => (
                Some(&t.execution),
                t.assistant.as_ref().map(|a| a.to_lossy().into_owned()),
            ),
            HistoryTurn::CompactedSummary(_) => (None, None),
        };
        let steps = execution
            .map(|e| e.tool_steps.as_slice())
            .unwrap_or_default();
        let mut last_step_text = None;
        for step in steps {
            let text = step
                .assistant
                .as_ref()
                .map(|a| a.to_lossy().into_owned())
                .filter(|a| !a.is_empty());
            if let Some(text) = &text {
                push(&mut out, Update::agent_text(text.clone()));
            }
            last_step_text = text;
            for call in &step.tool_calls {
                push(&mut out, tool_call(call));
                let result = step.tool_results.iter().find(|r| r.tool_call_id == call.id);
                let (status, content) = match result {
                    Some(r) if r.status == crate::log::execution::ToolStatus::Success => (
                        ToolStatus::Completed,
                        vec![ToolCallContent::text(r.output.to_lossy())],
                    ),
                    Some(r) => (
                        ToolStatus::Failed,
                        vec![ToolCallContent::text(r.output.to_lossy())],
                    ),
                    None => (ToolStatus::Failed, Vec::new()),
                };
                push(
                    &mut out,
                    Update::ToolCallUpdate {
                        tool_call_id: call.id.to_lossy().into_owned(),
                        status,
                        content,
                        raw_output: None,
                    },
                );
            }
        }
        // An interrupted turn's partial text repeats its last step's text when that step had
        // already finished a call before the one in flight.
        let assistant = assistant.filter(|t| !t.is_empty());
        if let HistoryTurn::Interrupted(t) = turn {
            let repeated =
                t.tool_call.is_some() && assistant.is_some() && assistant == last_step_text;
            if let Some(text) = assistant.filter(|_| !repeated) {
                push(&mut out, Update::agent_text(text));
            }
            if let Some(call) = &t.tool_call {
                push(&mut out, tool_call(call));
            }
            let message = session
                .log()
                .turn_note(index, &t.user.text)
                .map(str::to_owned);
            out.push(Replayed::Ended {
                reason: t.terminal_reason,
                message,
            });
        } else if let Some(text) = assistant {
            push(&mut out, Update::agent_text(text));
        }
    }
    out
}

/// The ACP `tool_call` update for a logged call.
fn tool_call(call: &LoggedCall) -> Update {
    let raw_input =
        serde_json::from_slice(call.arguments_json.as_bytes()).unwrap_or(serde_json::Value::Null);
    let title = raw_input
        .get("command")
        .and_then(|c| c.as_str())
        .map_or_else(|| call.name.to_lossy().into_owned(), str::to_owned);
    Update::ToolCall {
        tool_call_id: call.id.to_lossy().into_owned(),
        tool_name: call.name.to_lossy().into_owned(),
        title,
        kind: ToolKind::Execute,
        status: ToolStatus::Pending,
        raw_input,
    }
}

/// `session.history`: the replayed entries as ACP updates. A call an interrupted turn stopped
/// in ends `failed`; the end itself is a notice chunk (`[cancelled]`, `[failed: …]`) of its own.
pub fn history_updates(replayed: &[Replayed]) -> Vec<Update> {
    let mut out = Vec::with_capacity(replayed.len());
    let mut open_calls: Vec<String> = Vec::new();
    for entry in replayed {
        match entry {
            Replayed::Update(update) => {
                match update {
                    Update::ToolCall { tool_call_id, .. } => open_calls.push(tool_call_id.clone()),
                    Update::ToolCallUpdate { tool_call_id, .. } => {
                        open_calls.retain(|id| id != tool_call_id);
                    }
                    _ => {}
                }
                out.push(update.clone());
            }
            Replayed::Ended { reason, message } => {
                for id in open_calls.drain(..) {
                    out.push(Update::ToolCallUpdate {
                        tool_call_id: id,
                        status: ToolStatus::Failed,
                        content: Vec::new(),
                        // As the live turn's last update for it said.
                        raw_output: Some(RawOutput {
                            exit_code: None,
                            cancelled: *reason == TerminalReason::Cancelled,
                        }),
                    });
                }
                let notice = match message {
                    Some(message) => format!("\n\n[{}: {message}]", reason.as_str()),
                    None => format!("\n\n[{}]", reason.as_str()),
                };
                out.push(Update::agent_text(notice));
            }
        }
    }
    out
}
