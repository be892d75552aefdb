//! The live journal of a running turn (fxbot DESIGN §8.3–§8.4): the turn's lines as the agent's
//! ACP updates arrive, numbered `k = 1, 2, …` after the `turn_start`, so a consumer that
//! reconnects with a cursor of this turn continues exactly. One text chunk the agent delivers
//! (one network read) is one `text` line.
//!
//! The engine keeps the journal of the last turn until the next `turn_start` replaces it, so a
//! consumer reconnecting right after the end also continues exactly. A consumer more than
//! [`MAX_BEHIND`] lines behind is ended instead of served ([`Journal::after`]); it restarts from
//! its last cursor and loses nothing.

use std::collections::HashMap;

use crate::caps::acp::{ToolStatus, Update};

use super::cursor::{Cursor, MAX_K};
use super::replay::tool_title;
use super::stream::{
    CallStatus, Ending, LineError, ResultStatus, StreamLine, TextLine, ToolCallLine,
    ToolResultLine, TurnEnd, TurnStart, Usage,
};

/// A consumer this many lines behind the journal's end is ended.
pub const MAX_BEHIND: usize = 10_000;

/// A consumer too far behind to be served from the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the stream fell {behind} lines behind (more than 10,000); start again from the last cursor"
)]
pub struct TooFarBehind {
    pub behind: usize,
}

/// What the journal knows of a tool call, to repeat it in a later `tool_call` line.
#[derive(Debug, Clone)]
struct CallInfo {
    name: String,
    title: String,
    arguments: serde_json::Value,
}

/// The lines of one live turn.
#[derive(Debug, Clone)]
pub struct Journal {
    session_id: String,
    turn: u32,
    lines: Vec<StreamLine>,
    calls: HashMap<String, CallInfo>,
    ended: bool,
    /// Lines not kept because the turn reached [`MAX_K`] lines (the committed replay has them).
    dropped: u64,
    /// The `turn_end`'s `k`: [`MAX_K`], smaller only in tests.
    max_k: u32,
}

impl Journal {
    /// A journal whose first line is `start` (its cursor, turn and session are taken from the
    /// journal: k = 1 of `start.turn`).
    pub fn start(mut start: TurnStart) -> Journal {
        start.cursor = Cursor::new(start.turn, 1).unwrap_or_default();
        Journal {
            session_id: start.session_id.clone(),
            turn: start.turn,
            lines: vec![StreamLine::TurnStart(start)],
            calls: HashMap::new(),
            ended: false,
            dropped: 0,
            max_k: MAX_K,
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// Every line so far.
    pub fn lines(&self) -> &[StreamLine] {
        &self.lines
    }

    /// True once `turn_end` is in.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Lines that did not fit in the turn's cursor space (0 in practice).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The cursor of the last line.
    pub fn last_cursor(&self) -> Cursor {
        self.lines
            .last()
            .map_or(Cursor::before_turn(self.turn), StreamLine::cursor)
    }

    /// The next body cursor; `None` after the end or once only the `turn_end` slot is left.
    fn next_body(&mut self) -> Option<Cursor> {
        if self.ended {
            return None;
        }
        let k = u32::try_from(self.lines.len()).ok()?.checked_add(1)?;
        if k >= self.max_k {
            self.dropped = self.dropped.saturating_add(1);
            return None;
        }
        Cursor::new(self.turn, k)
    }

    fn push(&mut self, make: impl FnOnce(Cursor, u32) -> StreamLine) -> Option<&StreamLine> {
        let cursor = self.next_body()?;
        self.lines.push(make(cursor, self.turn));
        self.lines.last()
    }

    /// Adds a chunk of assistant text (empty text adds nothing).
    pub fn push_text(&mut self, text: &str) -> Option<&StreamLine> {
        self.push_chunk(text, StreamLine::Text)
    }

    /// Adds a chunk of reasoning (empty text adds nothing).
    pub fn push_reasoning(&mut self, text: &str) -> Option<&StreamLine> {
        self.push_chunk(text, StreamLine::Reasoning)
    }

    fn push_chunk(&mut self, text: &str, kind: fn(TextLine) -> StreamLine) -> Option<&StreamLine> {
        if text.is_empty() {
            return None;
        }
        self.push(|cursor, turn| {
            kind(TextLine {
                cursor,
                turn,
                text: text.to_owned(),
            })
        })
    }

    fn call_line(&mut self, id: &str, status: CallStatus) -> Option<&StreamLine> {
        let info = self.calls.get(id).cloned().unwrap_or_else(|| CallInfo {
            name: String::new(),
            title: String::new(),
            arguments: serde_json::Value::Null,
        });
        self.push(|cursor, turn| {
            StreamLine::ToolCall(ToolCallLine {
                cursor,
                turn,
                tool_call_id: id.to_owned(),
                name: info.name,
                title: info.title,
                arguments: info.arguments,
                status,
            })
        })
    }

    fn result_line(
        &mut self,
        id: &str,
        status: ResultStatus,
        output: String,
    ) -> Option<&StreamLine> {
        self.push(|cursor, turn| {
            StreamLine::ToolResult(ToolResultLine {
                cursor,
                turn,
                tool_call_id: id.to_owned(),
                status,
                output,
                // Live updates carry a preview of the output; whether it was cut is known only
                // once the turn is committed (the replay says so).
                truncated: false,
            })
        })
    }

    /// Adds the lines of one ACP update and returns how many were added.
    ///
    /// ACP's `tool_call` carries no tool name, so `tool_name` names the tool of a `ToolCall`
    /// update (it is ignored for the others). The user's own message chunk adds nothing (the
    /// `turn_start` carries it). A `tool_call_update` that is still pending or in progress
    /// repeats the call as a `tool_call` line with the new status; a completed or failed one is
    /// a `tool_result` with the update's text content.
    pub fn push_update(&mut self, update: &Update, tool_name: &str) -> usize {
        let before = self.lines.len();
        match update {
            Update::AgentMessageChunk { content } => {
                self.push_text(&content.text);
            }
            Update::AgentThoughtChunk { content } => {
                self.push_reasoning(&content.text);
            }
            Update::UserMessageChunk { .. } => {}
            Update::ToolCall {
                tool_call_id,
                title,
                status,
                raw_input,
                ..
            } => {
                let title = if title.is_empty() {
                    tool_title(tool_name, raw_input)
                } else {
                    title.clone()
                };
                self.calls.insert(
                    tool_call_id.clone(),
                    CallInfo {
                        name: tool_name.to_owned(),
                        title,
                        arguments: raw_input.clone(),
                    },
                );
                match status {
                    ToolStatus::Pending => {
                        self.call_line(tool_call_id, CallStatus::Pending);
                    }
                    ToolStatus::InProgress => {
                        self.call_line(tool_call_id, CallStatus::InProgress);
                    }
                    ToolStatus::Completed | ToolStatus::Failed => {
                        self.call_line(tool_call_id, CallStatus::InProgress);
                        let result = if *status == ToolStatus::Completed {
                            ResultStatus::Completed
                        } else {
                            ResultStatus::Failed
                        };
                        self.result_line(tool_call_id, result, String::new());
                    }
                }
            }
            Update::ToolCallUpdate {
                tool_call_id,
                status,
                content,
                ..
            } => {
                let output: String = content.iter().map(|c| c.content.text.as_str()).collect();
                match status {
                    ToolStatus::Pending => {
                        self.call_line(tool_call_id, CallStatus::Pending);
                    }
                    ToolStatus::InProgress => {
                        self.call_line(tool_call_id, CallStatus::InProgress);
                    }
                    ToolStatus::Completed => {
                        self.result_line(tool_call_id, ResultStatus::Completed, output);
                    }
                    ToolStatus::Failed => {
                        self.result_line(tool_call_id, ResultStatus::Failed, output);
                    }
                }
            }
        }
        self.lines.len() - before
    }

    /// Ends the turn with its `turn_end` (at k = [`MAX_K`], as in a replay) and returns it. A
    /// second call changes nothing and returns the first `turn_end`.
    pub fn end(
        &mut self,
        stop_reason: impl Into<Ending>,
        usage: Usage,
        error: Option<LineError>,
    ) -> StreamLine {
        let stop_reason = stop_reason.into();
        if !self.ended {
            self.lines.push(StreamLine::TurnEnd(TurnEnd {
                cursor: Cursor::new(self.turn, self.max_k).unwrap_or_default(),
                turn: self.turn,
                stop_reason,
                usage,
                error,
            }));
            self.ended = true;
        }
        // Never empty: it holds at least the turn_start and now the turn_end.
        self.lines.last().cloned().unwrap_or_else(|| {
            StreamLine::TurnEnd(TurnEnd {
                cursor: Cursor::before_turn(self.turn),
                turn: self.turn,
                stop_reason,
                usage,
                error: None,
            })
        })
    }

    /// The lines after `cursor`, for a consumer of this turn: every line when the cursor is
    /// before the turn, the exact continuation inside it, none past its end.
    ///
    /// # Errors
    /// [`TooFarBehind`] when more than [`MAX_BEHIND`] lines would be owed at once.
    pub fn after(&self, cursor: Cursor) -> Result<&[StreamLine], TooFarBehind> {
        let start = self.lines.partition_point(|l| l.cursor() <= cursor);
        let owed = self.lines.get(start..).unwrap_or_default();
        if owed.len() > MAX_BEHIND {
            return Err(TooFarBehind { behind: owed.len() });
        }
        Ok(owed)
    }
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
