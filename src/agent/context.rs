//! Projection of a session's history into model messages, within a turn-count window and a
//! token budget.
//!
//! The per-turn shapes follow fx exactly (a resumed fx session sends the same user, assistant,
//! tool-call and tool-result messages fx sent, including its interrupted-turn and file-evidence
//! texts); the summaries that stand for folded turns are our own wording. Folding is
//! deterministic and never separates a tool call from its result: whole turns are kept or
//! folded.

use crate::gateway::prompt::{AssistantPart, Message, ToolCallPart, ToolResult, UserPart};
use crate::log::execution::{Execution, FileRecord, ToolCall};
use crate::log::turn::{HistoryTurn, InterruptedTurn, UserTurn};
use crate::log::SessionState;

/// The user message fx appends after an interrupted turn (model-visible contract text).
pub const TURN_ABORTED: &str = "<turn_aborted>\nThe previous turn ended before completion. Any tools or commands may have partially executed. Do not continue this request unless the user explicitly asks to continue.\n</turn_aborted>";
/// Appended to partial text when a turn ended without tools.
pub const ENDED_EARLY: &str = "The previous response ended before completion.";
/// The synthetic result of a call that was in flight when the turn ended.
pub const ABORTED_RESULT: &str = "aborted by user";
const FILE_EVIDENCE_HEADER: &str =
    "Session file evidence from previous tool execution. Re-read stale paths before relying on exact contents:";

/// Token budget used when the model's context window is unknown.
pub const DEFAULT_BUDGET_TOKENS: u64 = 24_000;

/// How much history a request may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextPolicy {
    /// Turns sent verbatim at most; older ones fold into a summary (fx: 100 headless, 8 in its TUI).
    pub max_history_turns: usize,
    /// Estimated tokens the history may use.
    pub budget_tokens: u64,
}

impl Default for ContextPolicy {
    fn default() -> Self {
        ContextPolicy {
            max_history_turns: 100,
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

impl ContextPolicy {
    /// The budget for a model: `(context_window − max_output_tokens) / 4`, at least 1.
    pub fn budget_for(context_window: Option<u64>, max_output_tokens: Option<u64>) -> u64 {
        match context_window {
            Some(window) => (window.saturating_sub(max_output_tokens.unwrap_or(0)) / 4).max(1),
            None => DEFAULT_BUDGET_TOKENS,
        }
    }
}

/// The history messages of a request (before the current user message).
pub fn history_messages(state: &SessionState, policy: &ContextPolicy) -> Vec<Message> {
    let history = &state.history;
    let start = usize::try_from(state.context_history_start)
        .unwrap_or(usize::MAX)
        .min(history.len());
    let (compacted, live) = history.split_at(start);
    let keep = keep_count(policy.max_history_turns);
    let (folded_live, verbatim) = if live.len() > policy.max_history_turns {
        live.split_at(live.len().saturating_sub(keep))
    } else {
        (&live[..0], live)
    };

    let mut messages = Vec::new();
    let folded: Vec<&HistoryTurn> = compacted.iter().chain(folded_live.iter()).collect();
    if !folded.is_empty() && policy.max_history_turns > 1 {
        messages.push(Message::system(summary_message(&folded)));
    }

    // Newest first: keep whole turns while they fit the budget; the newest always stays.
    let mut per_turn: Vec<Vec<Message>> = Vec::new();
    let mut used = 0u64;
    let mut dropped: Vec<&HistoryTurn> = Vec::new();
    for (index, turn) in verbatim.iter().enumerate().rev() {
        let mut turn_messages = Vec::new();
        push_turn(turn, &mut turn_messages);
        let cost: u64 = turn_messages.iter().map(estimate_message_tokens).sum();
        if per_turn.is_empty() || used.saturating_add(cost) <= policy.budget_tokens {
            used = used.saturating_add(cost);
            per_turn.push(turn_messages);
        } else {
            dropped.extend(verbatim.get(..=index).unwrap_or_default().iter().rev());
            break;
        }
    }
    if !dropped.is_empty() {
        dropped.reverse();
        messages.push(Message::system(budget_notice(&dropped)));
    }
    for turn_messages in per_turn.into_iter().rev() {
        messages.extend(turn_messages);
    }
    messages
}

fn keep_count(max: usize) -> usize {
    if max <= 2 {
        1
    } else {
        max.saturating_sub(1).min(4)
    }
}

/// Appends one history turn's messages.
pub fn push_turn(turn: &HistoryTurn, out: &mut Vec<Message>) {
    match turn {
        HistoryTurn::Assistant(t) => {
            out.push(user_message(&t.user));
            push_execution(&t.execution, out);
            let text = t.assistant.to_lossy();
            if !text.is_empty() {
                out.push(Message::assistant_text(text.into_owned()));
            }
        }
        HistoryTurn::BackgroundCommand(t) => {
            out.push(user_message(&t.user));
            push_execution(&t.execution, out);
            if let Some(text) = t
                .assistant
                .as_ref()
                .map(|a| a.to_lossy())
                .filter(|a| !a.is_empty())
            {
                out.push(Message::assistant_text(text.into_owned()));
            }
            let mut note = format!(
                "Session event: an earlier request started a background command. Its log is at {}.",
                t.log_path.to_lossy()
            );
            if let Some(url) = &t.url {
                note.push_str(&format!(" It serves {}.", url.to_lossy()));
            }
            out.push(Message::user_text(note));
        }
        HistoryTurn::Interrupted(t) => push_interrupted(t, out),
        HistoryTurn::CompactedSummary(s) => {
            out.push(Message::user_text(wrap_summary(&s.summary.to_lossy())))
        }
    }
}

fn user_message(user: &UserTurn) -> Message {
    let mut parts = Vec::new();
    let text = user.text.to_lossy();
    if !text.is_empty() {
        parts.push(UserPart::Text(text.into_owned()));
    }
    Message::User { parts }
}

fn call_part(call: &ToolCall) -> AssistantPart {
    let id = call.id.to_lossy().into_owned();
    let name = call.name.to_lossy().into_owned();
    let arguments = call.arguments_json.to_lossy();
    let part = ToolCallPart::new(id.clone(), name.clone(), &arguments)
        .or_else(|_| ToolCallPart::new(id, name, "{}"));
    match part {
        Ok(part) => AssistantPart::ToolCall(part),
        // "{}" always parses; keep the text form if it somehow did not.
        Err(_) => AssistantPart::Text(String::new()),
    }
}

/// The execution messages of a turn: one assistant message per step with calls, its results,
/// then the user's permission feedback; then the file evidence.
pub fn push_execution(execution: &Execution, out: &mut Vec<Message>) {
    for step in &execution.tool_steps {
        if step.tool_calls.is_empty() {
            continue;
        }
        let mut parts = Vec::new();
        if let Some(text) = step
            .assistant
            .as_ref()
            .map(|a| a.to_lossy())
            .filter(|a| !a.is_empty())
        {
            parts.push(AssistantPart::Text(text.into_owned()));
        }
        parts.extend(step.tool_calls.iter().map(call_part));
        out.push(Message::Assistant { parts });
        let mut feedback = Vec::new();
        for result in &step.tool_results {
            out.push(Message::tool_result(ToolResult {
                tool_call_id: result.tool_call_id.to_lossy().into_owned(),
                tool_name: result.tool_name.to_lossy().into_owned(),
                output: result.output.to_lossy().into_owned(),
            }));
            feedback.extend(
                result
                    .permission_feedback
                    .iter()
                    .map(|f| f.to_lossy().into_owned()),
            );
        }
        out.extend(feedback.into_iter().map(Message::user_text));
    }
    if !execution.files.is_empty() {
        let mut text = String::from(FILE_EVIDENCE_HEADER);
        for file in &execution.files {
            text.push('\n');
            text.push_str(&file_line(file));
        }
        out.push(Message::user_text(text));
    }
}

fn file_line(file: &FileRecord) -> String {
    let mut line = format!(
        "- action={} status={} path={}",
        file.action.as_str(),
        file.status.as_str(),
        file.path.to_lossy()
    );
    if let Some(new_path) = &file.new_path {
        line.push_str(&format!(" new_path={}", new_path.to_lossy()));
    }
    if file.model_view_covers_full_file {
        line.push_str(" model_view=full");
    }
    if file.stale {
        line.push_str(" stale=true");
    }
    line.push_str(&format!(" tool={}", file.tool_name.to_lossy()));
    line
}

fn completed_note(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| {
        format!(
            "Interrupted by user after completing {} tool call(s): {}.",
            names.len(),
            names.join(", ")
        )
    })
}

fn push_interrupted(turn: &InterruptedTurn, out: &mut Vec<Message>) {
    out.push(user_message(&turn.user));
    push_execution(&turn.execution, out);
    let partial = turn
        .assistant
        .as_ref()
        .map(|a| a.to_lossy().into_owned())
        .filter(|a| !a.is_empty());
    let names: Vec<String> = turn
        .completed_tool_names
        .iter()
        .map(|n| n.to_lossy().into_owned())
        .collect();
    let note = completed_note(&names);
    match &turn.tool_call {
        Some(call) => {
            let mut parts = Vec::new();
            let text = match (&partial, &note) {
                (Some(p), Some(n)) => Some(format!("{p}\n\n{n}")),
                (Some(p), None) => Some(p.clone()),
                (None, Some(n)) => Some(n.clone()),
                (None, None) => None,
            };
            if let Some(text) = text {
                parts.push(AssistantPart::Text(text));
            }
            parts.push(call_part(call));
            out.push(Message::Assistant { parts });
            out.push(Message::tool_result(ToolResult {
                tool_call_id: call.id.to_lossy().into_owned(),
                tool_name: call.name.to_lossy().into_owned(),
                output: ABORTED_RESULT.to_owned(),
            }));
        }
        None => {
            let text = match (&partial, &note) {
                (Some(p), Some(n)) => format!("{p}\n\n{n}"),
                (None, Some(n)) => n.clone(),
                (Some(p), None) => format!("{p}\n\n{ENDED_EARLY}"),
                (None, None) => ENDED_EARLY.to_owned(),
            };
            out.push(Message::assistant_text(text));
        }
    }
    out.push(Message::user_text(TURN_ABORTED));
}

/// fx's token estimate: ⌈len/4⌉ per whitespace-separated span.
pub fn estimate_tokens(text: &str) -> u64 {
    text.split_whitespace()
        .map(|span| (span.len() as u64).div_ceil(4))
        .sum()
}

/// The estimate for one message.
pub fn estimate_message_tokens(message: &Message) -> u64 {
    match message {
        Message::System { content, .. } => estimate_tokens(content),
        Message::User { parts } => parts
            .iter()
            .map(|p| match p {
                UserPart::Text(text) => estimate_tokens(text),
                UserPart::Image(_) => 1_000,
            })
            .sum(),
        Message::Assistant { parts } => parts
            .iter()
            .map(|p| match p {
                AssistantPart::Text(text) => estimate_tokens(text),
                AssistantPart::ToolCall(call) => {
                    estimate_tokens(&call.name) + estimate_tokens(call.input.get())
                }
            })
            .sum(),
        Message::Tool { results } => results.iter().map(|r| estimate_tokens(&r.output)).sum(),
    }
}

const SUMMARY_LINE_BYTES: usize = 156;
const SUMMARY_MAX_LINES: usize = 24;
const SUMMARY_MAX_BYTES: usize = 1200;

fn clip(text: &str) -> String {
    let single = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if single.len() <= SUMMARY_LINE_BYTES {
        return single;
    }
    let mut end = SUMMARY_LINE_BYTES.saturating_sub(1);
    while end > 0 && !single.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", single.get(..end).unwrap_or_default())
}

/// A deterministic summary of folded turns.
pub fn summarize(turns: &[&HistoryTurn]) -> String {
    let mut lines = vec!["Summary of earlier conversation:".to_owned()];
    let mut requests = Vec::new();
    let mut outcomes = Vec::new();
    let mut evidence = Vec::new();
    let mut incomplete = Vec::new();
    let mut prior = Vec::new();
    for turn in turns {
        if let HistoryTurn::CompactedSummary(s) = turn {
            prior.extend(
                s.summary
                    .to_lossy()
                    .lines()
                    .map(|l| format!("  {}", clip(l))),
            );
            continue;
        }
        if let Some(user) = turn.user() {
            let text = user.text.to_lossy();
            if !text.trim().is_empty() {
                requests.push(format!("  - {}", clip(&text)));
            }
        }
        match turn {
            HistoryTurn::Assistant(t) => {
                let text = t.assistant.to_lossy();
                if !text.trim().is_empty() {
                    outcomes.push(format!("  - {}", clip(&text)));
                }
                collect_evidence(&t.execution, &mut evidence);
            }
            HistoryTurn::Interrupted(t) => {
                incomplete.push(format!(
                    "  - {} ({})",
                    clip(&t.user.text.to_lossy()),
                    t.terminal_reason.as_str()
                ));
                collect_evidence(&t.execution, &mut evidence);
            }
            HistoryTurn::BackgroundCommand(t) => collect_evidence(&t.execution, &mut evidence),
            HistoryTurn::CompactedSummary(_) => {}
        }
    }
    lines.push(format!("- Turns folded: {}", turns.len()));
    if !prior.is_empty() {
        lines.push("- Earlier summary:".to_owned());
        lines.extend(prior);
    }
    push_section(&mut lines, "- Latest requests:", requests, 4);
    push_section(&mut lines, "- Latest answers:", outcomes, 3);
    push_section(&mut lines, "- Tool evidence:", evidence, 4);
    push_section(&mut lines, "- Unfinished turns:", incomplete, 3);

    let mut seen = std::collections::HashSet::new();
    lines.retain(|line| seen.insert(line.clone()));
    let mut out = String::new();
    let mut omitted = 0usize;
    for (i, line) in lines.iter().enumerate() {
        if i >= SUMMARY_MAX_LINES || out.len() + line.len() + 1 > SUMMARY_MAX_BYTES {
            omitted += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    if omitted > 0 {
        out.push_str(&format!("\n- ({omitted} more line(s) left out)"));
    }
    out
}

fn push_section(lines: &mut Vec<String>, title: &str, items: Vec<String>, newest: usize) {
    if items.is_empty() {
        return;
    }
    lines.push(title.to_owned());
    let skip = items.len().saturating_sub(newest);
    lines.extend(items.into_iter().skip(skip));
}

fn collect_evidence(execution: &Execution, out: &mut Vec<String>) {
    for step in &execution.tool_steps {
        for result in &step.tool_results {
            let first = result
                .output
                .to_lossy()
                .lines()
                .next()
                .map(clip)
                .unwrap_or_default();
            out.push(format!(
                "  - {} {}: {}",
                result.tool_name.to_lossy(),
                result.status.as_str(),
                first
            ));
        }
    }
}

fn wrap_summary(summary: &str) -> String {
    format!(
        "The conversation below continues from earlier turns that were condensed to save context. What they covered:\n\n{summary}\n\nThe turns after this note are complete. Carry on from where the conversation stands without asking the user to repeat themselves."
    )
}

fn summary_message(turns: &[&HistoryTurn]) -> String {
    wrap_summary(&summarize(turns))
}

fn budget_notice(dropped: &[&HistoryTurn]) -> String {
    let mut text = format!(
        "To fit the model's context, {} older turn(s) of this conversation were left out of this request.",
        dropped.len()
    );
    let summary = summarize(dropped);
    text.push_str("\n\n");
    text.push_str(&summary);
    text
}
