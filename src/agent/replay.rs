//! A stored session replayed as ACP updates (`session.history` after `openSession`): per turn,
//! the user's message, each tool step's text, calls and results, the answer, the call an
//! interrupted turn had in flight (ended as failed), and a notice for an interrupted turn.

use crate::log::execution::ToolCall;
use crate::log::turn::{HistoryTurn, TerminalReason};
use crate::tools::terminal::{ExecOutcome, ToolRecord};

use super::acp::{ToolCallContent, ToolKind, ToolStatus, Update};
use super::session::LiveSession;

/// The ACP updates that replay a session's stored turns.
pub fn replay(session: &LiveSession) -> Vec<Update> {
    let mut updates = Vec::new();
    for turn in &session.state().history {
        match turn {
            HistoryTurn::CompactedSummary(summary) => {
                updates.push(Update::user_text(summary.summary.to_lossy()))
            }
            _ => {
                if let Some(user) = turn.user() {
                    updates.push(Update::user_text(user.text.to_lossy()));
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
        for step in execution
            .map(|e| e.tool_steps.as_slice())
            .unwrap_or_default()
        {
            if let Some(text) = step
                .assistant
                .as_ref()
                .map(|a| a.to_lossy())
                .filter(|a| !a.is_empty())
            {
                updates.push(Update::agent_text(text));
            }
            for call in &step.tool_calls {
                let result = step.tool_results.iter().find(|r| r.tool_call_id == call.id);
                updates.push(tool_call(call));
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
                updates.push(Update::ToolCallUpdate {
                    tool_call_id: call.id.to_lossy().into_owned(),
                    status,
                    content,
                    raw_output: None,
                });
            }
        }
        if let Some(text) = assistant.filter(|t| !t.is_empty()) {
            updates.push(Update::agent_text(text));
        }
        if let HistoryTurn::Interrupted(t) = turn {
            if let Some(call) = &t.tool_call {
                // The call in flight never got a result: it ended with its turn, as the live
                // turn's last update for it said.
                let ended = ToolRecord::from_outcome("", "", &ExecOutcome::Cancelled);
                updates.push(tool_call(call));
                updates.push(Update::ToolCallUpdate {
                    tool_call_id: call.id.to_lossy().into_owned(),
                    status: ToolStatus::Failed,
                    content: vec![ToolCallContent::text(ended.output)],
                    raw_output: Some(serde_json::json!({
                        "exitCode": null,
                        "cancelled": t.terminal_reason == TerminalReason::Cancelled,
                    })),
                });
            }
            updates.push(Update::agent_text(format!(
                "[{}]",
                t.terminal_reason.as_str()
            )));
        }
    }
    updates
}

/// A stored call as the `tool_call` update that started it.
fn tool_call(call: &ToolCall) -> Update {
    let raw_input =
        serde_json::from_slice(call.arguments_json.as_bytes()).unwrap_or(serde_json::Value::Null);
    let title = raw_input
        .get("command")
        .and_then(|c| c.as_str())
        .map_or_else(|| call.name.to_lossy().into_owned(), str::to_owned);
    Update::ToolCall {
        tool_call_id: call.id.to_lossy().into_owned(),
        title,
        kind: ToolKind::Execute,
        status: ToolStatus::Pending,
        raw_input,
    }
}
