//! The running turn as the screen shows it: its clock (stopped while an approval waits), its
//! token counts (estimated until the gateway reports usage), a retry under way, and the
//! activity row and summary drawn from them.

use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::{elide, str_width};

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
    /// When `shown_out` was last refreshed.
    pub shown_at: u64,
}

/// How often the activity row's output count catches up with the text streamed.
const COUNT_REFRESH_MS: u64 = 250;

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

    /// The summary printed when the turn ends: `  5s (↑1.2k ↓300)`.
    pub fn summary(&self, now: u64) -> String {
        format!(
            "  {} (↑{} ↓{})",
            elapsed(self.elapsed_ms(now)),
            compact_count(self.tokens_in),
            compact_count(self.tokens_out())
        )
    }
}

/// The turn in progress, if any, and the id the next one gets.
#[derive(Debug, Clone)]
pub struct TurnView {
    active: Option<ActiveTurn>,
    next_id: u32,
}

impl Default for TurnView {
    fn default() -> Self {
        TurnView {
            active: None,
            next_id: 1,
        }
    }
}

impl TurnView {
    pub fn is_running(&self) -> bool {
        self.active.is_some()
    }

    /// The running turn's id.
    pub fn id(&self) -> Option<u32> {
        self.active.as_ref().map(|t| t.id)
    }

    /// Whether turn `id` is the one running.
    pub fn is(&self, id: u32) -> bool {
        self.id() == Some(id)
    }

    /// Starts a turn for a prompt of `text_len` bytes at `now`; its id.
    pub fn begin(&mut self, text_len: usize, now: u64) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.active = Some(ActiveTurn {
            id,
            started_ms: now,
            tokens_in: (text_len as u64).div_ceil(4),
            chars_out: 0,
            reported: None,
            chars_at_report: 0,
            paused_ms: 0,
            approval_since: None,
            retry: None,
            cancelling: false,
            shown_out: 0,
            shown_at: now,
        });
        id
    }

    /// Marks the running turn as cancelling; its id the first time (the driver must cancel it).
    pub fn cancel(&mut self) -> Option<u32> {
        let turn = self.active.as_mut().filter(|t| !t.cancelling)?;
        turn.cancelling = true;
        Some(turn.id)
    }

    /// Forgets the running turn (a session switch leaves it behind); its id.
    pub fn abandon(&mut self) -> Option<u32> {
        self.active.take().map(|t| t.id)
    }

    /// Ends turn `id`: the turn as it stood, when it is the one running.
    pub fn end(&mut self, id: u32) -> Option<ActiveTurn> {
        if !self.is(id) {
            return None;
        }
        self.active.take()
    }

    /// An approval is awaited from `now`: the clock stops.
    pub fn wait_for_approval(&mut self, now: u64) {
        if let Some(turn) = &mut self.active {
            turn.approval_since = Some(now);
        }
    }

    /// The approval is no longer awaited: the clock goes on, the wait left out.
    pub fn approval_done(&mut self, now: u64) {
        if let Some(turn) = &mut self.active {
            if let Some(since) = turn.approval_since.take() {
                turn.paused_ms = turn.paused_ms.saturating_add(now.saturating_sub(since));
            }
        }
    }

    /// The agent retries a request.
    pub fn retry(&mut self, attempt: u32, limit: u32, delay_ms: u32, reason: &str) {
        if let Some(turn) = &mut self.active {
            turn.retry = Some(format!(
                "{reason} · retrying in {}s · attempt {attempt}/{limit}",
                delay_ms.div_ceil(1000)
            ));
        }
    }

    /// Output arrived: any retry is over.
    pub fn clear_retry(&mut self) {
        if let Some(turn) = &mut self.active {
            turn.retry = None;
        }
    }

    /// `bytes` of answer text streamed.
    pub fn streamed(&mut self, bytes: usize) {
        if let Some(turn) = &mut self.active {
            turn.chars_out = turn.chars_out.saturating_add(bytes as u64);
            turn.retry = None;
        }
    }

    /// The gateway reported the usage of one model step of turn `id`: the counts become real
    /// figures (the first report replaces the prompt estimate).
    pub fn usage(&mut self, id: u32, input_tokens: u64, output_tokens: u64) {
        let Some(active) = self.active.as_mut().filter(|t| t.id == id) else {
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

    /// The clock: the output count shown catches up, four times a second (each change
    /// repaints the activity row).
    pub fn tick(&mut self, now: u64) {
        if let Some(turn) = &mut self.active {
            if now.saturating_sub(turn.shown_at) >= COUNT_REFRESH_MS {
                turn.shown_out = turn.tokens_out();
                turn.shown_at = now;
            }
        }
    }

    /// The activity row (`• Thinking (3s) (↑12 ↓40)`, the command running, the approval
    /// awaited, a retry), `width` cells wide.
    pub fn activity_row(
        &self,
        width: usize,
        now: u64,
        running: Option<String>,
    ) -> Option<StyledLine> {
        let turn = self.active.as_ref()?;
        let w = width;
        let elapsed = turn.elapsed_ms(now);
        let secs = elapsed / 1000;
        let tokens = format!(
            " (↑{} ↓{})",
            compact_count(turn.tokens_in),
            compact_count(turn.shown_out)
        );
        let mut line = StyledLine::new();
        if let Some(retry) = &turn.retry {
            line.push(&retry_line(retry, w), Style::plain().fg(Tone::Secondary));
            return Some(line);
        }
        let lit = elapsed % 1000 < 500 || turn.approval_since.is_some();
        line.push(if lit { "• " } else { "  " }, Style::plain().bold());
        let verb = if turn.cancelling {
            "Cancelling".to_owned()
        } else if turn.approval_since.is_some() {
            "Waiting for approval".to_owned()
        } else if let Some(command) = running {
            format!("Running {command}")
        } else {
            "Thinking".to_owned()
        };
        // The clock and the token counts stay whole; a long command gives way (`…`), and on
        // a very narrow screen the token counts go first.
        let clock = format!(" ({secs}s)");
        let tokens = if 2 + 12 + str_width(&clock) + str_width(&tokens) <= w {
            tokens
        } else {
            String::new()
        };
        let room = w.saturating_sub(2 + str_width(&clock) + str_width(&tokens));
        line.push(&format!("{}{clock}", elide(&verb, room)), Style::plain());
        line.push(&tokens, Style::plain().fg(Tone::Secondary));
        Some(line.elided(w))
    }
}

/// The retry row, `⚠ <problem> · retrying in Ns · attempt k/n`, in `width` cells: the problem
/// gives way first (`…`), then the whole row is elided.
fn retry_line(retry: &str, width: usize) -> String {
    let full = format!("⚠ {retry}");
    if str_width(&full) <= width {
        return full;
    }
    let when = retry
        .find(" · retrying")
        .and_then(|at| retry.get(at..))
        .unwrap_or("");
    let problem = retry.get(..retry.len() - when.len()).unwrap_or(retry);
    let room = width.saturating_sub(2 + str_width(when));
    if room >= 4 {
        return format!("⚠ {}{when}", elide(problem, room));
    }
    let when = format!("⚠ {}", when.trim_start_matches(" · "));
    elide(&when, width).into_owned()
}

/// `1.2k`-style token counts.
pub fn compact_count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 10_000 {
        format!("{}.{}k", n / 1000, n % 1000 / 100)
    } else {
        format!("{}k", n / 1000)
    }
}

/// `5s`, `18m0s`, `1h1m3s`.
pub fn elapsed(ms: u64) -> String {
    let s = ms / 1000;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{}s", s / 60, s % 60)
    } else {
        format!("{}h{}m{}s", s / 3600, s / 60 % 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_stops_while_an_approval_waits() {
        let mut turns = TurnView::default();
        let id = turns.begin(40, 1_000);
        assert_eq!(id, 1);
        turns.wait_for_approval(3_000);
        turns.approval_done(10_000);
        let turn = turns.end(id).unwrap_or_else(|| unreachable!("turn 1 runs"));
        assert_eq!(turn.elapsed_ms(12_000), 4_000);
        assert_eq!(turn.summary(12_000), "  4s (↑10 ↓0)");
        assert!(!turns.is_running());
        assert_eq!(turns.begin(1, 0), 2);
    }

    #[test]
    fn reported_usage_replaces_the_estimate() {
        let mut turns = TurnView::default();
        let id = turns.begin(4_000, 0);
        turns.streamed(400);
        turns.usage(id, 1_200, 90);
        turns.streamed(8);
        turns.usage(id + 1, 5, 5);
        let turn = turns
            .end(id)
            .unwrap_or_else(|| unreachable!("the turn runs"));
        assert_eq!((turn.tokens_in, turn.tokens_out()), (1_200, 92));
        assert_eq!(turns.cancel(), None);
    }

    #[test]
    fn a_cancel_is_asked_once() {
        let mut turns = TurnView::default();
        let id = turns.begin(1, 0);
        assert_eq!(turns.cancel(), Some(id));
        assert_eq!(turns.cancel(), None);
        assert_eq!(turns.abandon(), Some(id));
    }

    #[test]
    fn counts_and_durations() {
        assert_eq!(compact_count(999), "999");
        assert_eq!(compact_count(1_234), "1.2k");
        assert_eq!(compact_count(12_345), "12k");
        assert_eq!(elapsed(5_999), "5s");
        assert_eq!(elapsed(1_080_000), "18m0s");
        assert_eq!(elapsed(3_663_000), "1h1m3s");
    }
}
