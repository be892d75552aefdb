//! The agent's updates (live, or a stored session replayed) becoming transcript blocks: prompt
//! cards, streamed replies, tool groups, notices, and how a turn that stopped early ends.

use super::transcript::{Block, CallState, TextKind, ToolCall};
use super::{title_of, App};
use crate::agent::replay::Replayed;
use crate::caps::acp::{ToolStatus, Update};
use crate::log::turn::TerminalReason;
use crate::term::style::StyledLine;

impl App {
    /// Replays a stored session as it was drawn live (without the turn summaries).
    pub fn replay(&mut self, entries: Vec<Replayed>) {
        for entry in entries {
            match entry {
                Replayed::Update(Update::UserMessageChunk { content }) => {
                    if self.title.is_none() {
                        self.title = Some(title_of(&content.text));
                    }
                    self.push_text(TextKind::Prompt, content.text);
                }
                Replayed::Update(update) => self.apply_update(update),
                Replayed::Ended { reason, message } => match reason {
                    TerminalReason::Cancelled => self.show_stopped(None),
                    TerminalReason::Failed => {
                        self.show_stopped(Some(message.unwrap_or_else(|| {
                            "This turn failed; the reason was not kept with the session.".to_owned()
                        })))
                    }
                },
            }
        }
        self.close_open();
        self.set_title();
    }

    /// Ends a turn that stopped early: its unfinished commands are cancelled (or failed with
    /// it), then `● System: cancelled` or the failure's `⚠` line. Live and replayed alike.
    pub(crate) fn show_stopped(&mut self, failure: Option<String>) {
        let stopped = if failure.is_none() {
            CallState::Cancelled
        } else {
            CallState::Failed { exit_code: None }
        };
        if let Some(Block::Tools(calls)) = &mut self.open {
            for call in calls.iter_mut().filter(|c| !c.is_done()) {
                call.state = stopped.clone();
            }
        }
        match failure {
            None => self.notice("System: cancelled"),
            Some(message) => self.warning(&message),
        }
    }

    /// A `● Topic: body` notice.
    pub fn notice(&mut self, text: &str) {
        self.push_text(TextKind::Notice, text.to_owned());
    }

    pub fn warning(&mut self, text: &str) {
        self.push_text(TextKind::Warning, text.to_owned());
    }

    pub(crate) fn push_text(&mut self, kind: TextKind, text: String) {
        self.close_open();
        let block = Block::text(kind, text);
        self.pending.extend(block.rows(self.width));
        self.pending.push(StyledLine::new());
        self.blocks.push(block);
    }

    /// Closes the open block: its remaining rows become final.
    pub(crate) fn close_open(&mut self) {
        let Some(mut block) = self.open.take() else {
            return;
        };
        match &mut block {
            Block::Assistant(stream) => {
                stream.finish();
                let rows = stream.committed();
                self.pending
                    .extend(rows.iter().skip(self.open_taken).cloned());
            }
            other => self.pending.extend(other.rows(self.width)),
        }
        self.pending.push(StyledLine::new());
        self.blocks.push(block);
        self.open_taken = 0;
    }

    /// An update of turn `turn` (others are ignored: a turn abandoned by `/new`).
    pub fn on_update(&mut self, turn: u32, update: Update) {
        if self.turn.as_ref().map(|t| t.id) != Some(turn) {
            return;
        }
        self.apply_update(update);
    }

    /// Streamed answer text of turn `turn`.
    pub fn on_text(&mut self, turn: u32, text: &str) {
        if self.turn.as_ref().map(|t| t.id) != Some(turn) {
            return;
        }
        self.push_assistant(text);
    }

    pub(crate) fn push_assistant(&mut self, text: &str) {
        if !matches!(self.open, Some(Block::Assistant(_))) {
            self.close_open();
            self.open = Some(Block::assistant(self.width));
        }
        if let Some(Block::Assistant(stream)) = &mut self.open {
            stream.push(text);
        }
        if let Some(turn) = &mut self.turn {
            turn.chars_out = turn.chars_out.saturating_add(text.len() as u64);
            turn.retry = None;
        }
    }

    pub(crate) fn apply_update(&mut self, update: Update) {
        if let Some(turn) = &mut self.turn {
            // Output arrived: any retry is over.
            turn.retry = None;
        }
        match update {
            Update::AgentMessageChunk { content } => self.push_assistant(&content.text),
            // Reasoning stays folded away: the activity row says the model is thinking.
            Update::AgentThoughtChunk { .. } => {}
            Update::UserMessageChunk { content } => {
                self.push_text(TextKind::Prompt, content.text);
            }
            Update::ToolCall {
                tool_call_id,
                title,
                ..
            } => {
                if !matches!(self.open, Some(Block::Tools(_))) {
                    self.close_open();
                    self.open = Some(Block::Tools(Vec::new()));
                }
                if let Some(Block::Tools(calls)) = &mut self.open {
                    calls.push(ToolCall {
                        id: tool_call_id,
                        command: title,
                        state: CallState::Pending,
                        output: String::new(),
                    });
                }
            }
            Update::ToolCallUpdate {
                tool_call_id,
                status,
                content,
                raw_output,
            } => {
                let Some(Block::Tools(calls)) = &mut self.open else {
                    return;
                };
                let Some(call) = calls.iter_mut().find(|c| c.id == tool_call_id) else {
                    return;
                };
                let text: String = content.iter().map(|c| c.content.text.as_str()).collect();
                call.state = match status {
                    ToolStatus::Pending => CallState::Pending,
                    ToolStatus::InProgress => CallState::Running,
                    ToolStatus::Completed | ToolStatus::Failed => CallState::finished(
                        status == ToolStatus::Completed,
                        &text,
                        raw_output.as_ref(),
                    ),
                };
                if !text.is_empty() {
                    call.output = text;
                }
            }
        }
    }
}
