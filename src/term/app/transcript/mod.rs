//! The transcript: the blocks a session shows and which of their rows are printed.
//!
//! Rows of closed blocks are final and printed once. The last block may be *open* (a reply still
//! streaming, a tool group whose commands still run): its final rows are printed as they become
//! final and the rest is drawn in the live region.
//!
//! - [`block`]: the blocks and their rows at a width.
//! - [`tools`]: tool groups, their rows and the tool results they show.

pub mod block;
pub mod tools;

use crate::caps::acp::ToolStatus;
use crate::term::style::StyledLine;

use block::{Block, TextKind};
use tools::{tool_rows, CallState, ToolCall};

/// The session's blocks, the open one, and the final rows not printed yet.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    blocks: Vec<Block>,
    open: Option<Block>,
    /// Rows of the open reply already final (queued for printing or printed).
    open_taken: usize,
    /// Final rows waiting to be printed.
    pending: Vec<StyledLine>,
}

impl Transcript {
    pub fn new() -> Self {
        Self::default()
    }

    /// A closed block of text (the open one is closed first).
    pub fn push_text(&mut self, kind: TextKind, text: String, width: usize) {
        self.close_open(width);
        let block = Block::text(kind, text);
        self.pending.extend(block.rows(width));
        self.pending.push(StyledLine::new());
        self.blocks.push(block);
    }

    /// Closes the open block: its remaining rows become final.
    pub fn close_open(&mut self, width: usize) {
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
            other => self.pending.extend(other.rows(width)),
        }
        self.pending.push(StyledLine::new());
        self.blocks.push(block);
        self.open_taken = 0;
    }

    /// Streamed answer text, into the open reply (opened when needed).
    pub fn push_assistant(&mut self, text: &str, width: usize) {
        if !matches!(self.open, Some(Block::Assistant(_))) {
            self.close_open(width);
            self.open = Some(Block::assistant(width));
        }
        if let Some(Block::Assistant(stream)) = &mut self.open {
            stream.push(text);
        }
    }

    /// A tool call starts, in the open tool group (opened when needed).
    pub fn tool_call(&mut self, id: String, command: String, width: usize) {
        if !matches!(self.open, Some(Block::Tools(_))) {
            self.close_open(width);
            self.open = Some(Block::Tools(Vec::new()));
        }
        if let Some(Block::Tools(calls)) = &mut self.open {
            calls.push(ToolCall {
                id,
                command,
                state: CallState::Pending,
                output: String::new(),
            });
        }
    }

    /// A tool call of the open group moved on (`text`: its result so far).
    pub fn tool_update(
        &mut self,
        id: &str,
        status: ToolStatus,
        text: String,
        raw_output: Option<&crate::caps::acp::RawOutput>,
    ) {
        let Some(Block::Tools(calls)) = &mut self.open else {
            return;
        };
        let Some(call) = calls.iter_mut().find(|c| c.id == id) else {
            return;
        };
        call.state = match status {
            ToolStatus::Pending => CallState::Pending,
            ToolStatus::InProgress => CallState::Running,
            ToolStatus::Completed | ToolStatus::Failed => {
                CallState::finished(status == ToolStatus::Completed, &text, raw_output)
            }
        };
        if !text.is_empty() {
            call.output = text;
        }
    }

    /// The turn stopped early: the open group's unfinished calls were cancelled, or failed
    /// with it.
    pub fn stop_calls(&mut self, failed: bool) {
        let stopped = if failed {
            CallState::Failed { exit_code: None }
        } else {
            CallState::Cancelled
        };
        if let Some(Block::Tools(calls)) = &mut self.open {
            for call in calls.iter_mut().filter(|c| !c.is_done()) {
                call.state = stopped.clone();
            }
        }
    }

    /// Forgets every block and the rows not printed yet (`/clear`).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.blocks.clear();
    }

    /// The width changed: the open reply is laid out again (its rows so far count as taken).
    pub fn set_width(&mut self, width: usize) {
        if let Some(Block::Assistant(stream)) = &mut self.open {
            stream.set_width(width.max(4));
            self.open_taken = stream.committed().len();
        }
    }

    /// Every final row, to print again (the screen and scrollback were cleared).
    pub fn reprint(&mut self, width: usize) {
        let mut rows = Vec::new();
        for block in &self.blocks {
            rows.extend(block.rows(width));
            rows.push(StyledLine::new());
        }
        self.pending = rows;
        if let Some(Block::Assistant(stream)) = &self.open {
            self.pending.extend(stream.committed().iter().cloned());
            self.open_taken = stream.committed().len();
        }
    }

    /// The last `room` final rows at `width`, to print again (the screen was cleared, the
    /// scrollback kept): closed blocks, each followed by a blank row, then the open reply's
    /// final rows, re-laying out the replies they come from.
    pub fn reprint_tail(&mut self, width: usize, room: usize) {
        let mut rows: Vec<StyledLine> = Vec::new();
        if let Some(Block::Assistant(stream)) = &self.open {
            rows.extend(stream.committed().iter().rev().cloned());
        }
        for block in self.blocks.iter_mut().rev() {
            if rows.len() >= room {
                break;
            }
            if let Block::Assistant(stream) = block {
                if stream.options().width != width.max(4) {
                    stream.set_width(width.max(4));
                }
            }
            rows.push(StyledLine::new());
            rows.extend(block.rows(width).into_iter().rev());
        }
        rows.truncate(room);
        rows.reverse();
        self.pending = rows;
        if let Some(Block::Assistant(stream)) = &self.open {
            self.open_taken = stream.committed().len();
        }
    }

    /// Takes the rows that became final since last time, to print.
    pub fn take_final(&mut self) -> Vec<StyledLine> {
        if let Some(Block::Assistant(stream)) = &self.open {
            let committed = stream.committed();
            if committed.len() > self.open_taken {
                self.pending
                    .extend(committed.iter().skip(self.open_taken).cloned());
                self.open_taken = committed.len();
            }
        }
        std::mem::take(&mut self.pending)
    }

    /// The open block's rows that are not final yet (drawn in the live region).
    pub fn open_rows(&self, width: usize) -> Vec<StyledLine> {
        match &self.open {
            Some(Block::Assistant(stream)) => stream.tail(),
            Some(Block::Tools(calls)) => tool_rows(calls, width, false),
            Some(other) => other.rows(width),
            None => Vec::new(),
        }
    }

    /// The command of the open group still running, on one line (sanitized).
    pub fn running_command(&self) -> Option<String> {
        match &self.open {
            Some(Block::Tools(calls)) => calls
                .iter()
                .find(|c| !c.is_done())
                .map(|c| crate::term::sanitize::sanitize(&c.command).replace('\n', " ")),
            _ => None,
        }
    }

    /// Every row of the transcript with the full output of every command (the review screen).
    pub fn review_rows(&self, width: usize) -> Vec<StyledLine> {
        let mut all = Vec::new();
        for block in self.blocks.iter().chain(self.open.iter()) {
            match block {
                Block::Tools(calls) => all.extend(tool_rows(calls, width, true)),
                other => all.extend(other.rows(width)),
            }
            all.push(StyledLine::new());
        }
        all
    }
}
