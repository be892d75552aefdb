//! The turn lifecycle: starting a prompt (or queueing it), approvals, retries, the end of a
//! turn with its summary, and session switches.

use super::transcript::{self, TextKind};
use super::{title_of, App, Approval, Effect, TurnOutcome};
use crate::agent::replay::Replayed;
use crate::caps::acp::StopReason;

/// The turn in progress.
#[derive(Debug, Clone)]
pub struct ActiveTurn {
    pub id: u32,
    pub started_ms: u64,
    /// Input tokens: an estimate from the prompt until the gateway reports usage, then the sum
    /// of the reported figures.
    pub tokens_in: u64,
    pub chars_out: u64,
    /// Usage the gateway reported for the turn's finished steps, if any.
    pub reported: Option<(u64, u64)>,
    /// `chars_out` when usage was last reported (later text is still estimated).
    pub chars_at_report: u64,
    /// Time spent waiting for the user's approval (excluded from the clock).
    pub paused_ms: u64,
    pub approval_since: Option<u64>,
    pub retry: Option<String>,
    pub cancelling: bool,
    /// The output token count the activity row shows (refreshed by the clock, not per token).
    pub shown_out: u64,
}

impl ActiveTurn {
    pub fn elapsed_ms(&self, now: u64) -> u64 {
        let until = self.approval_since.unwrap_or(now);
        until
            .saturating_sub(self.started_ms)
            .saturating_sub(self.paused_ms)
    }
    /// Output tokens: the reported figures plus an estimate for text streamed since.
    pub fn tokens_out(&self) -> u64 {
        let estimate = self
            .chars_out
            .saturating_sub(self.chars_at_report)
            .div_ceil(4);
        self.reported
            .map_or(estimate, |(_, out)| out.saturating_add(estimate))
    }
}

impl App {
    /// A retry notice from the agent (shown in the activity row).
    pub fn on_retry(&mut self, attempt: u32, limit: u32, delay_ms: u32, reason: &str) {
        if let Some(turn) = &mut self.turn {
            turn.retry = Some(format!(
                "{reason} · retrying in {}s · attempt {attempt}/{limit}",
                delay_ms.div_ceil(1000)
            ));
        }
    }

    /// The agent asks to run `command`: the footer shows the approval panel until answered.
    pub fn on_permission_request(&mut self, command: &str) {
        self.approval = Some(Approval {
            command: command.to_owned(),
            selected: 0,
            amending: false,
            note: String::new(),
        });
        if let Some(turn) = &mut self.turn {
            turn.approval_since = Some(self.now);
        }
    }

    /// The approval is no longer awaited (answered or cancelled).
    pub fn close_approval(&mut self) {
        self.approval = None;
        if let Some(turn) = &mut self.turn {
            if let Some(since) = turn.approval_since.take() {
                turn.paused_ms = turn
                    .paused_ms
                    .saturating_add(self.now.saturating_sub(since));
            }
        }
    }

    /// Starts a turn now.
    pub(crate) fn start_turn(&mut self, text: String) {
        if self.title.is_none() {
            self.title = Some(title_of(&text));
            self.set_title();
        }
        self.push_text(TextKind::Prompt, text.clone());
        let id = self.next_turn;
        self.next_turn = self.next_turn.wrapping_add(1).max(1);
        self.turn = Some(ActiveTurn {
            id,
            started_ms: self.now,
            tokens_in: (text.len() as u64).div_ceil(4),
            chars_out: 0,
            reported: None,
            chars_at_report: 0,
            paused_ms: 0,
            approval_since: None,
            retry: None,
            cancelling: false,
            shown_out: 0,
        });
        self.effects.push(Effect::Prompt { turn: id, text });
        // The catalog gives later turns their context window and efforts.
        self.want_catalog();
    }

    /// The gateway reported the token usage of one model step of turn `turn`: the counts become
    /// real figures (the first report replaces the prompt estimate).
    pub fn on_usage(&mut self, turn: u32, input_tokens: u64, output_tokens: u64) {
        let Some(active) = self.turn.as_mut().filter(|t| t.id == turn) else {
            return;
        };
        let (input, output) = active.reported.unwrap_or((0, 0));
        let total = (
            input.saturating_add(input_tokens),
            output.saturating_add(output_tokens),
        );
        active.reported = Some(total);
        active.tokens_in = total.0;
        active.chars_at_report = active.chars_out;
        active.shown_out = active.tokens_out();
    }

    /// The driver reports the end of turn `turn`.
    pub fn on_turn_end(&mut self, turn: u32, outcome: TurnOutcome) {
        let Some(active) = self.turn.as_ref().filter(|t| t.id == turn).cloned() else {
            return;
        };
        if self.approval.is_some() {
            self.close_approval();
        }
        self.turn = None;
        match outcome {
            TurnOutcome::Ended(StopReason::Cancelled) => self.show_stopped(None),
            TurnOutcome::Failed(_) if active.cancelling => self.show_stopped(None),
            TurnOutcome::Failed(message) => self.show_stopped(Some(message)),
            TurnOutcome::Ended(reason) => {
                self.close_open();
                if reason == StopReason::MaxOutputTokens {
                    self.notice("System: the reply reached the output token limit");
                }
                let summary = format!(
                    "  {} (↑{} ↓{})",
                    transcript::elapsed(active.elapsed_ms(self.now)),
                    transcript::compact_count(active.tokens_in),
                    transcript::compact_count(active.tokens_out())
                );
                self.push_text(TextKind::Summary, summary);
            }
        }
        if let Some(mode) = self.pending_mode.take() {
            // Applied before any queued prompt starts (on_config_done starts it).
            let _ = self.switch_mode(mode, "terminal");
            return;
        }
        if !self.queue_paused {
            self.start_queued();
        }
    }

    /// Starts the next queued prompt when nothing else runs.
    pub(crate) fn start_queued(&mut self) {
        if self.turn.is_some() || self.switching || self.applying_config {
            return;
        }
        if let Some(next) = self.queue.pop_front() {
            self.start_turn(next);
        }
    }

    /// `Session: resumed <id>`, with the title when there is one.
    pub(crate) fn resumed_notice(&self) -> String {
        match &self.title {
            Some(title) => format!("Session: resumed {} · {title}", self.session_id),
            None => format!("Session: resumed {}", self.session_id),
        }
    }

    /// A commit met a newer stored log (another tab or window wrote this session): our history
    /// was saved as session `to`, which the screen follows when it still shows the old one.
    pub fn on_forked(&mut self, to: &str, on_screen: bool) {
        if on_screen {
            self.session_id = to.to_owned();
        }
        self.notice(&format!(
            "Session: another tab or window changed this session, so this conversation was saved as a new session {to}; nothing was lost"
        ));
    }

    /// The session was named (`/rename`): the window title follows.
    pub fn on_renamed(&mut self, title: &str) {
        self.title = Some(title_of(title));
        self.set_title();
        self.notice(&format!("Session: renamed to \"{}\"", title_of(title)));
    }

    /// A session was opened for `/resume`: the screen shows its transcript.
    pub fn on_session_opened(
        &mut self,
        session_id: &str,
        title: Option<&str>,
        updates: Vec<Replayed>,
    ) {
        self.session_id = session_id.to_owned();
        self.title = title.map(title_of);
        self.push_text(TextKind::Notice, self.resumed_notice());
        self.replay(updates);
        self.switching = false;
        self.start_queued();
    }

    /// A fresh session is ready (after `/new` or `/clear`).
    pub fn on_new_session(&mut self, session_id: &str) {
        self.session_id = session_id.to_owned();
        self.title = None;
        self.set_title();
        self.switching = false;
        self.start_queued();
    }

    /// A session switch failed: prompts go to the current session.
    pub fn on_switch_failed(&mut self, message: &str) {
        self.warning(message);
        self.switching = false;
        self.start_queued();
    }
}
