//! The lines of a chat's committed turns, derived from its session log (fxbot DESIGN §8.3):
//! per turn a `turn_start`, then for each tool step its text, and per call a `tool_call`
//! followed by its `tool_result`, then the final text, then `turn_end`. Same log and same saved
//! records → same lines and cursors, on every device.
//!
//! Turn *t* is history entry *t* (1-based). What the log does not hold (the `messageId`, the
//! input and files fxbot saved, the stop reason and error of a failed turn) comes from the
//! chat document as a [`TurnMeta`] per turn. Where that is missing, the log's own frames give the
//! time (the commit's timestamp) and the usage (the difference of the session totals).
//! A `compacted_summary` history entry (only in sessions imported from the fx CLI) yields no
//! lines: its turn number is skipped.

use std::collections::BTreeMap;

use crate::log::event::Event;
use crate::log::view::{SessionView, StepView, ToolCallView, TurnView};
use crate::log::LogError;

use super::cursor::{Cursor, MAX_K};
use super::stream::{
    CallStatus, LineError, ResultStatus, SavedFile, StopReason, StreamLine, TextLine, ToolCallLine,
    ToolResultLine, TurnEnd, TurnStart, Usage,
};
use crate::agent::time::rfc3339_ms;

/// fxbot's input of a message with files or skills (what `turn_start` carries beyond `prompt`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SavedInput {
    pub input: String,
    pub files: Vec<SavedFile>,
    pub skills: Vec<String>,
}

/// What the chat document knows about one turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnMeta {
    pub message_id: String,
    /// When the turn was claimed (RFC 3339).
    pub at: Option<String>,
    /// `Some` only for a message with files or skills.
    pub saved: Option<SavedInput>,
    pub usage: Option<Usage>,
    /// How the turn ended, as the running process saw it (the log keeps only
    /// completed/cancelled/failed).
    pub stop_reason: Option<StopReason>,
    pub error: Option<LineError>,
}

/// When a history entry was committed and what it used, from its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnStamp {
    pub at_ms: i64,
    /// `None` when the previous totals are unknown (after a state replacement).
    pub usage: Option<Usage>,
}

/// Where one turn's lines sit in [`Replay::lines`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayedTurn {
    pub turn: u32,
    /// Index of its `turn_start`.
    pub first: usize,
    /// Lines, `turn_start` and `turn_end` included.
    pub len: u32,
}

/// Every line of a session's committed turns.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    pub session_id: String,
    pub lines: Vec<StreamLine>,
    pub turns: Vec<ReplayedTurn>,
    /// How many history entries the log holds: turns up to this number are known here (an
    /// entry without lines included), a later turn is not.
    pub history: u32,
}

impl Replay {
    /// The replay of a session that holds no turns yet.
    pub fn empty(session_id: &str) -> Replay {
        Replay {
            session_id: session_id.to_owned(),
            lines: Vec::new(),
            turns: Vec::new(),
            history: 0,
        }
    }

    /// The replayed turn `turn`, if the log has it.
    pub fn turn(&self, turn: u32) -> Option<&ReplayedTurn> {
        self.turns
            .binary_search_by_key(&turn, |t| t.turn)
            .ok()
            .and_then(|i| self.turns.get(i))
    }

    /// The last turn number with lines (0 for none).
    pub fn last_turn(&self) -> u32 {
        self.turns.last().map_or(0, |t| t.turn)
    }

    /// The lines to send to a consumer at `cursor` with no live journal (§8.3): a cursor inside
    /// a replayed turn restarts that turn from its `turn_start` (the client's reset rule makes
    /// that exact), unless it is the turn's `turn_end` (k = [`MAX_K`] in every turn, live or
    /// replayed), which goes on after the turn; any other cursor gets the lines after it.
    ///
    /// The `turn_end` has its own `k` because a consumer's cursor may come from a live journal,
    /// whose lines are more than the replay's: a live `k` that happens to equal the replay's
    /// length must restart the turn, not skip the rest of it.
    pub fn after(&self, cursor: Cursor) -> &[StreamLine] {
        let start = match self.turn(cursor.turn()) {
            Some(t) if cursor.k() == MAX_K => t.first.saturating_add(t.len as usize),
            Some(t) => t.first,
            None => self.lines.partition_point(|l| l.cursor() <= cursor),
        };
        self.lines.get(start..).unwrap_or_default()
    }
}

/// A chat's replay as one process keeps it between stream calls (fxbot DESIGN §8.4), with the
/// revisions it was derived from: the session store's record of the log and the chat document
/// of the metadata. A stream call that finds both unchanged in the store serves it as it is;
/// any change (another process's turn, a finished claim) derives it again, so the store stays
/// the truth.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptReplay {
    pub replay: Replay,
    /// `None`: the session is not stored yet.
    pub session_revision: Option<String>,
    /// `None`: the bot has no chat document yet.
    pub chat_revision: Option<String>,
}

impl KeptReplay {
    /// True when this was derived from these revisions of session `session_id`.
    pub fn is_current(
        &self,
        session_id: &str,
        session_revision: Option<&str>,
        chat_revision: Option<&str>,
    ) -> bool {
        self.replay.session_id == session_id
            && self.session_revision.as_deref() == session_revision
            && self.chat_revision.as_deref() == chat_revision
    }
}

/// Loads session bytes and derives the lines of its committed turns.
///
/// # Errors
/// The log's [`LogError`] when the bytes are not a valid session.
pub fn replay(bytes: &[u8], meta: &BTreeMap<u32, TurnMeta>) -> Result<Replay, LogError> {
    let (view, stamps) = load_with_stamps(bytes)?;
    Ok(replay_view(&view, &stamps, meta))
}

/// Loads session bytes into their view and the stamp of each history entry (by index).
///
/// # Errors
/// The log's [`LogError`].
pub fn load_with_stamps(bytes: &[u8]) -> Result<(SessionView, Vec<Option<TurnStamp>>), LogError> {
    // Stamps of the commits since the log began (`head`, aligned with history from index 0),
    // and, once a state replacement has replaced the history, of the commits after the latest
    // replacement (`tail`, aligned with the end of the history).
    let mut head = Vec::new();
    let mut tail = Vec::new();
    let mut replaced = false;
    let mut totals = Some((0u64, 0u64));
    let loaded = crate::log::loader::load_with(bytes, |frame, _| match &frame.event {
        Event::HistoryTurnCommitted(c) => {
            let usage = totals.map(|(input, output)| Usage {
                input_tokens: c.total_input_tokens.saturating_sub(input),
                output_tokens: c.total_output_tokens.saturating_sub(output),
            });
            totals = Some((c.total_input_tokens, c.total_output_tokens));
            let stamp = TurnStamp {
                at_ms: frame.timestamp_ms,
                usage,
            };
            if replaced {
                tail.push(stamp);
            } else {
                head.push(stamp);
            }
        }
        Event::StateReplacementCommitted(_) => {
            replaced = true;
            tail.clear();
            totals = None;
        }
        _ => {}
    })?;
    let view = crate::log::view::view(&loaded.state, loaded.title.as_deref());
    let len = view.turns.len();
    let mut stamps: Vec<Option<TurnStamp>> = vec![None; len];
    let tail_from = len.saturating_sub(tail.len());
    for (slot, stamp) in stamps.iter_mut().zip(head).take(tail_from) {
        *slot = Some(stamp);
    }
    for (slot, stamp) in stamps.iter_mut().skip(tail_from).zip(tail) {
        *slot = Some(stamp);
    }
    Ok((view, stamps))
}

/// Derives the lines of a session view's turns; `stamps` is by history index (missing = none).
pub fn replay_view(
    view: &SessionView,
    stamps: &[Option<TurnStamp>],
    meta: &BTreeMap<u32, TurnMeta>,
) -> Replay {
    let mut replay = Replay {
        history: u32::try_from(view.turns.len()).unwrap_or(u32::MAX),
        ..Replay::empty(&view.id)
    };
    for (index, entry) in view.turns.iter().enumerate() {
        let Ok(turn) = u32::try_from(index + 1) else {
            break;
        };
        let stamp = stamps.get(index).copied().flatten();
        let first = replay.lines.len();
        let mut lines = TurnLines {
            turn,
            k: 0,
            out: &mut replay.lines,
        };
        let empty = TurnMeta::default();
        let meta = meta.get(&turn).unwrap_or(&empty);
        if !lines.turn_lines(view, entry, meta, stamp) {
            continue;
        }
        replay.turns.push(ReplayedTurn {
            turn,
            first,
            len: lines.k,
        });
    }
    replay
}

/// The lines of one turn being built; `k` counts its lines so far.
struct TurnLines<'a> {
    turn: u32,
    k: u32,
    out: &'a mut Vec<StreamLine>,
}

impl TurnLines<'_> {
    /// The next cursor for a body line; `None` once the body space (k < [`MAX_K`]) is full.
    fn body(&mut self) -> Option<Cursor> {
        if self.k >= MAX_K - 1 {
            return None;
        }
        self.k += 1;
        Cursor::new(self.turn, self.k)
    }

    /// The `turn_end`'s cursor: always k = [`MAX_K`].
    fn end_cursor(&mut self) -> Cursor {
        self.k += 1;
        Cursor::new(self.turn, MAX_K).unwrap_or_default()
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(cursor) = self.body() {
            self.out.push(StreamLine::Text(TextLine {
                cursor,
                turn: self.turn,
                text: text.to_owned(),
            }));
        }
    }

    fn call(&mut self, call: &ToolCallView) {
        let Some(cursor) = self.body() else { return };
        let arguments = serde_json::from_str(&call.arguments_json)
            .unwrap_or_else(|_| serde_json::Value::String(call.arguments_json.clone()));
        self.out.push(StreamLine::ToolCall(ToolCallLine {
            cursor,
            turn: self.turn,
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            title: tool_title(&call.name, &arguments),
            arguments,
            status: CallStatus::Pending,
        }));
    }

    fn steps(&mut self, steps: &[StepView]) {
        for step in steps {
            self.text(step.assistant.as_deref().unwrap_or_default());
            let mut shown = vec![false; step.tool_results.len()];
            for call in &step.tool_calls {
                self.call(call);
                let found = step
                    .tool_results
                    .iter()
                    .position(|r| r.tool_call_id == call.id);
                if let Some(i) = found {
                    if let Some(slot) = shown.get_mut(i) {
                        *slot = true;
                    }
                    self.result(step, i);
                }
            }
            // Results of calls the step does not list (fx tolerates them) come last.
            for i in 0..step.tool_results.len() {
                if !shown.get(i).copied().unwrap_or(true) {
                    self.result(step, i);
                }
            }
        }
    }

    fn result(&mut self, step: &StepView, i: usize) {
        let Some(result) = step.tool_results.get(i) else {
            return;
        };
        let Some(cursor) = self.body() else { return };
        self.out.push(StreamLine::ToolResult(ToolResultLine {
            cursor,
            turn: self.turn,
            tool_call_id: result.tool_call_id.clone(),
            status: if result.status == "success" {
                ResultStatus::Completed
            } else {
                ResultStatus::Failed
            },
            output: result.output.clone(),
            truncated: result.truncated,
        }));
    }

    /// Writes the turn's lines; false for an entry that yields none.
    fn turn_lines(
        &mut self,
        view: &SessionView,
        entry: &TurnView,
        meta: &TurnMeta,
        stamp: Option<TurnStamp>,
    ) -> bool {
        let (user, steps, assistant, logged_reason, in_flight) = match entry {
            TurnView::Assistant(t) => (&t.user, &t.steps, Some(&t.assistant), None, None),
            TurnView::Interrupted(t) => (
                &t.user,
                &t.steps,
                t.assistant.as_ref(),
                Some(if t.reason == "cancelled" {
                    StopReason::Cancelled
                } else {
                    StopReason::Error
                }),
                t.tool_call.as_ref(),
            ),
            TurnView::BackgroundCommand(t) => (&t.user, &t.steps, t.assistant.as_ref(), None, None),
            TurnView::CompactedSummary(_) => return false,
        };
        let at = meta
            .at
            .clone()
            .unwrap_or_else(|| rfc3339_ms(stamp.map_or(view.created_at_ms, |s| s.at_ms)));
        let start = self.body().unwrap_or_default();
        self.out.push(StreamLine::TurnStart(TurnStart {
            cursor: start,
            session_id: view.id.clone(),
            turn: self.turn,
            message_id: meta.message_id.clone(),
            at,
            prompt: user.text.clone(),
            input: meta.saved.as_ref().map(|s| s.input.clone()),
            files: meta.saved.as_ref().map(|s| s.files.clone()),
            skills: meta.saved.as_ref().map(|s| s.skills.clone()),
        }));
        self.steps(steps);
        if let Some(call) = in_flight {
            self.call(call);
        }
        self.text(assistant.map(String::as_str).unwrap_or_default());
        // The log is the authority on whether the turn completed; the saved stop reason says
        // how (length limit, refusal, step limit), which the log does not keep.
        let stop_reason = match (logged_reason, meta.stop_reason) {
            (None, Some(saved)) if !matches!(saved, StopReason::Cancelled | StopReason::Error) => {
                saved
            }
            (None, _) => StopReason::EndTurn,
            (Some(logged), _) => logged,
        };
        let usage = meta
            .usage
            .or_else(|| stamp.and_then(|s| s.usage))
            .unwrap_or_default();
        let error = match stop_reason {
            StopReason::Error => meta.error.clone(),
            _ => None,
        };
        let cursor = self.end_cursor();
        self.out.push(StreamLine::TurnEnd(TurnEnd {
            cursor,
            turn: self.turn,
            stop_reason,
            usage,
            error,
        }));
        true
    }
}

/// A tool call's title: a `terminal` call's command, else the tool's name (as the agent's own
/// replay shows it).
pub fn tool_title(name: &str, arguments: &serde_json::Value) -> String {
    arguments
        .get("command")
        .and_then(serde_json::Value::as_str)
        .map_or_else(|| name.to_owned(), str::to_owned)
}
