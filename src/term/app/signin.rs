//! The sign-in panel: where a device login stands (asking for a code, waiting for approval in
//! the browser, the team picker, saving), its keys ([`LoginKey`]: Esc or Ctrl+C cancels) and its
//! rows in the live region, and the credential as the driver last reported it. Every report
//! names the login's id, so a report about a cancelled login is ignored.
//!
//! No token ever reaches the app: it only sees URLs, the user code, team names and our own
//! sentences.

use crate::auth::credentials::{AuthSource, AuthStatus};
use crate::term::style::{Style, StyledLine, Tone};

use super::effect::Effect;

/// Where a login stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Discovery and the device authorization request.
    Preparing,
    /// The code is shown; the driver polls.
    Waiting {
        url: String,
        open_url: String,
        code: String,
        checks: u32,
        interval_s: u64,
    },
    /// Several teams: the user picks one.
    Teams { names: Vec<String>, selected: usize },
    /// Approved; the record is being stored.
    Saving,
}

/// A login in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    pub id: u32,
    pub started_ms: u64,
    pub stage: Stage,
}

/// What a key does while a login runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginKey {
    Cancel,
    Up,
    Down,
    /// Enter; `plain` without a modifier.
    Enter {
        plain: bool,
    },
}

/// What a [`LoginKey`] led to.
#[derive(Debug, Clone, PartialEq)]
pub enum LoginStep {
    /// Not a key of the panel's stage: the composer has it.
    Ignored,
    /// The panel used it.
    Done,
    /// The login is to be cancelled.
    Cancel,
    /// The driver must do this.
    Effect(Effect),
}

/// The app's sign-in state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignIn {
    pub flow: Option<Flow>,
    next_id: u32,
    /// The credential as the driver last reported it (`None` before the first report).
    pub status: Option<AuthStatus>,
}

fn line(text: &str, width: usize, style: Style) -> StyledLine {
    StyledLine::of(text, style).elided(width)
}

impl SignIn {
    /// Starts a login at `now`; its id.
    pub fn begin(&mut self, now: u64) -> u32 {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        self.flow = Some(Flow {
            id,
            started_ms: now,
            stage: Stage::Preparing,
        });
        id
    }

    /// Login `id`, while it is the one in progress.
    pub fn flow_mut(&mut self, id: u32) -> Option<&mut Flow> {
        self.flow.as_mut().filter(|f| f.id == id)
    }

    /// Applies a key; `draft_empty` says whether the composer holds nothing.
    pub fn key(&mut self, key: LoginKey, draft_empty: bool) -> LoginStep {
        let Some(flow) = self.flow.as_mut() else {
            return LoginStep::Ignored;
        };
        if key == LoginKey::Cancel {
            return LoginStep::Cancel;
        }
        let id = flow.id;
        match (&mut flow.stage, key) {
            (Stage::Teams { names, selected }, LoginKey::Up) => {
                let n = names.len().max(1);
                *selected = (*selected + n - 1) % n;
                LoginStep::Done
            }
            (Stage::Teams { names, selected }, LoginKey::Down) => {
                let n = names.len().max(1);
                *selected = (*selected + 1) % n;
                LoginStep::Done
            }
            (Stage::Teams { selected, .. }, LoginKey::Enter { .. }) => {
                let index = *selected;
                flow.stage = Stage::Saving;
                LoginStep::Effect(Effect::ChooseTeam {
                    id,
                    index: Some(index),
                })
            }
            (Stage::Waiting { open_url, .. }, LoginKey::Enter { plain: true }) if draft_empty => {
                LoginStep::Effect(Effect::OpenUrl(open_url.clone()))
            }
            _ => LoginStep::Ignored,
        }
    }

    /// The credential as `/status` says it: where it comes from, in words (never a token).
    pub fn status_text(&self, credential: bool) -> String {
        let Some(status) = &self.status else {
            return if credential {
                "configured by the host".to_owned()
            } else {
                "none: /login signs in, or set AI_GATEWAY_API_KEY".to_owned()
            };
        };
        let mut text = match status.source {
            AuthSource::None => "none: /login signs in, or set AI_GATEWAY_API_KEY".to_owned(),
            AuthSource::ApiKey => "AI_GATEWAY_API_KEY from the environment".to_owned(),
            AuthSource::Login => "fx login (renews itself)".to_owned(),
        };
        if let Some(team) = &status.team {
            text.push_str(&format!(" · team {team}"));
        }
        if status.login_held && status.source != AuthSource::Login {
            text.push_str(" · an fx login is stored too; the key wins (/login to switch)");
        }
        text
    }

    /// The panel rows above the composer while a login runs.
    pub fn rows(&self, width: usize, now: u64) -> Vec<StyledLine> {
        let Some(flow) = &self.flow else {
            return Vec::new();
        };
        let w = width;
        let elapsed = now.saturating_sub(flow.started_ms);
        let dot = if elapsed % 1000 < 500 { "• " } else { "  " };
        let secs = elapsed / 1000;
        let hint = Style::plain().fg(Tone::Secondary);
        let mut rows = Vec::new();
        match &flow.stage {
            Stage::Preparing => {
                rows.push(line(
                    &format!("{dot}Asking Vercel for a sign-in code ({secs}s)"),
                    w,
                    Style::plain(),
                ));
                rows.push(line("  Esc cancels", w, hint));
            }
            Stage::Waiting {
                url,
                code,
                checks,
                interval_s,
                ..
            } => {
                let plural = if *checks == 1 { "" } else { "s" };
                rows.push(line(
                    &format!("{dot}Waiting for approval in the browser ({secs}s · {checks} check{plural}, every {interval_s}s)"),
                    w,
                    Style::plain(),
                ));
                rows.push(line(&format!("  Open  {url}"), w, Style::plain()));
                rows.push(line(&format!("  Code  {code}"), w, Style::plain().bold()));
                rows.push(line("  Enter reopens the page · Esc cancels", w, hint));
            }
            Stage::Teams { names, selected } => {
                rows.push(line(
                    "  Signed in. Which team should AI Gateway usage go to?",
                    w,
                    Style::plain().bold(),
                ));
                let start = selected.saturating_sub(5);
                for (i, name) in names.iter().enumerate().skip(start).take(6) {
                    let marker = if i == *selected { "❯ " } else { "  " };
                    let name = crate::term::sanitize::sanitize(name);
                    let style = if i == *selected {
                        Style::plain().bold()
                    } else {
                        Style::plain()
                    };
                    rows.push(line(&format!("  {marker}{name}"), w, style));
                }
                rows.push(line("  ↑↓ Select · Enter Confirm · Esc Cancel", w, hint));
            }
            Stage::Saving => rows.push(line(
                &format!("{dot}Saving the sign-in ({secs}s)"),
                w,
                Style::plain(),
            )),
        }
        rows.push(StyledLine::new());
        rows
    }
}
