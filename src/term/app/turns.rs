//! A turn's life on screen: starting a prompt (or queueing it), the agent's updates becoming
//! transcript blocks, approvals, retries and usage, and how a turn ends (its summary, or how
//! it stopped early).

use crate::caps::acp::{StopReason, Update};

use super::approval::Approval;
use super::session::title_of;
use super::transcript::block::TextKind;
use super::{App, Effect, TurnOutcome};

impl App {
    /// Starts a turn now.
    pub(super) fn start_turn(&mut self, text: String) {
        if self.session.title.is_none() {
            self.session.title = Some(title_of(&text));
            self.set_title();
        }
        self.push_text(TextKind::Prompt, text.clone());
        let id = self.turn.begin(text.len(), self.now);
        // No catalog request: a plain turn costs one request (the core fetches the catalog
        // itself for a turn with a named effort, and uses fx's table of context windows).
        self.effects.push(Effect::Prompt { turn: id, text });
    }

    /// Starts the next queued prompt when nothing else runs.
    pub(super) fn start_queued(&mut self) {
        if self.turn.is_running() || self.session.is_settling() {
            return;
        }
        if let Some(next) = self.queue.next_prompt() {
            self.start_turn(next);
        }
    }

    /// An update of turn `turn` (others are ignored: a turn abandoned by `/new`).
    pub(crate) fn on_update(&mut self, turn: u32, update: Update) {
        if self.turn.is(turn) {
            self.apply_update(update);
        }
    }

    /// Streamed answer text of turn `turn`.
    pub(crate) fn on_text(&mut self, turn: u32, text: &str) {
        if self.turn.is(turn) {
            self.push_assistant(text);
        }
    }

    fn push_assistant(&mut self, text: &str) {
        self.transcript.push_assistant(text, self.width);
        self.turn.streamed(text.len());
    }

    /// An update, live or replayed, into the transcript.
    pub(super) fn apply_update(&mut self, update: Update) {
        // Output arrived: any retry is over.
        self.turn.clear_retry();
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
            } => self.transcript.tool_call(tool_call_id, title, self.width),
            Update::ToolCallUpdate {
                tool_call_id,
                status,
                content,
                raw_output,
            } => {
                let text: String = content.iter().map(|c| c.content.text.as_str()).collect();
                self.transcript
                    .tool_update(&tool_call_id, status, text, raw_output.as_ref());
            }
        }
    }

    /// Ends a turn that stopped early: its unfinished commands are cancelled (or failed with
    /// it), then `● System: cancelled` or the failure's `⚠` line. Live and replayed alike.
    pub(super) fn show_stopped(&mut self, failure: Option<String>) {
        self.transcript.stop_calls(failure.is_some());
        match failure {
            None => self.notice("System: cancelled"),
            Some(message) => self.warning(&message),
        }
    }

    /// A retry notice from the agent (shown in the activity row).
    pub(crate) fn on_retry(&mut self, attempt: u32, limit: u32, delay_ms: u32, reason: &str) {
        self.turn.retry(attempt, limit, delay_ms, reason);
    }

    /// The gateway reported the token usage of one model step of turn `turn`.
    pub(crate) fn on_usage(&mut self, turn: u32, input_tokens: u64, output_tokens: u64) {
        self.turn.usage(turn, input_tokens, output_tokens);
    }

    /// The agent asks to run `command`: the footer shows the approval panel until answered.
    pub(crate) fn on_permission_request(&mut self, command: &str) {
        self.approval = Some(Approval::new(command));
        self.turn.wait_for_approval(self.now);
    }

    /// The approval is no longer awaited (answered or cancelled).
    pub(crate) fn close_approval(&mut self) {
        self.approval = None;
        self.turn.approval_done(self.now);
    }

    /// The driver reports the end of turn `turn`.
    pub(crate) fn on_turn_end(&mut self, turn: u32, outcome: TurnOutcome) {
        let Some(active) = self.turn.end(turn) else {
            return;
        };
        if self.approval.is_some() {
            self.close_approval();
        }
        match outcome {
            TurnOutcome::Ended(StopReason::Cancelled) => self.show_stopped(None),
            TurnOutcome::Failed(_) if active.cancelling => self.show_stopped(None),
            TurnOutcome::Failed(message) => self.show_stopped(Some(message)),
            TurnOutcome::Ended(reason) => {
                self.close_open();
                if reason == StopReason::MaxTokens {
                    self.notice("System: the reply reached the output token limit");
                }
                self.push_text(TextKind::Summary, active.summary(self.now));
            }
        }
        if let Some(mode) = self.session.pending_mode.take() {
            // Applied before any queued prompt starts (on_config_done starts it).
            let _ = self.switch_mode(mode, "terminal");
            return;
        }
        if !self.queue.is_held() {
            self.start_queued();
        }
    }
}
