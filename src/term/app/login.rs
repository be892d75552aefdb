//! Sign-in as the app shows it: `/login` and `/logout`, the device-login panel in the live
//! region (where to go, which code to type, a ticking clock, the team picker), its keys (Esc or
//! Ctrl+C cancels), and the auth state `/status` reports. The device flow itself runs in the
//! driver ([`super::login_flow`]), which reports back through the `on_login_*` methods; every
//! report names the login's id, so a report about a cancelled login is ignored.
//!
//! No token ever reaches the app: it only sees URLs, the user code, team names and our own
//! sentences.

use crate::auth::credentials::{AuthSource, AuthStatus};
use crate::term::keys::{KeyCode, KeyEvent};
use crate::term::style::{Style, StyledLine, Tone};

use super::{App, Effect};

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

/// The app's sign-in state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignIn {
    pub flow: Option<Flow>,
    pub next_id: u32,
    /// The credential as the driver last reported it (`None` before the first report).
    pub status: Option<AuthStatus>,
}

fn line(text: &str, width: usize, style: Style) -> StyledLine {
    let mut row = StyledLine::new();
    row.push(text, style);
    row.elided(width)
}

impl App {
    /// `/login`.
    pub(crate) fn login_command(&mut self) {
        if !self.caps.oauth {
            self.notice(
                "Auth: sign-in needs the host's oauthSessionStore and openUrl options; set env.AI_GATEWAY_API_KEY instead",
            );
            return;
        }
        match self.signin.flow.as_ref().map(|f| &f.stage) {
            Some(Stage::Waiting { open_url, .. }) => {
                let url = open_url.clone();
                self.effects.push(Effect::OpenUrl(url));
                self.notice("Auth: opening the sign-in page again");
            }
            Some(_) => self.notice("Auth: a sign-in is already under way (Esc cancels it)"),
            None => {
                self.signin.next_id = self.signin.next_id.wrapping_add(1);
                let id = self.signin.next_id;
                self.signin.flow = Some(Flow {
                    id,
                    started_ms: self.now,
                    stage: Stage::Preparing,
                });
                self.effects.push(Effect::Login { id });
            }
        }
    }

    /// `/logout`.
    pub(crate) fn logout_command(&mut self) {
        if !self.caps.oauth {
            self.notice(
                "Auth: sign-out needs the host's oauthSessionStore option; nothing is stored here",
            );
            return;
        }
        self.cancel_login();
        self.effects.push(Effect::Logout);
    }

    fn flow_mut(&mut self, id: u32) -> Option<&mut Flow> {
        self.signin.flow.as_mut().filter(|f| f.id == id)
    }

    /// The device code arrived: the URL and code go into the transcript (they stay readable
    /// whether or not a browser opens) and the panel starts waiting.
    pub fn on_login_code(
        &mut self,
        id: u32,
        url: &str,
        open_url: &str,
        code: &str,
        interval_s: u64,
    ) {
        let Some(flow) = self.flow_mut(id) else {
            return;
        };
        flow.stage = Stage::Waiting {
            url: url.to_owned(),
            open_url: open_url.to_owned(),
            code: code.to_owned(),
            checks: 0,
            interval_s,
        };
        self.notice(&format!(
            "Auth: to sign in with Vercel, open {url} and enter the code {code}"
        ));
    }

    /// Whether the host's `openUrl` took the link.
    pub fn on_login_browser(&mut self, id: u32, opened: bool) {
        if !opened && self.flow_mut(id).is_some() {
            self.notice("Auth: no browser page was opened; open the link above yourself");
        }
    }

    /// One token request came back without a decision; `slow_down` carries the new interval.
    pub fn on_login_poll(&mut self, id: u32, slow_down: Option<u64>) {
        let Some(flow) = self.flow_mut(id) else {
            return;
        };
        if let Stage::Waiting {
            checks, interval_s, ..
        } = &mut flow.stage
        {
            *checks = checks.saturating_add(1);
            if let Some(seconds) = slow_down {
                *interval_s = seconds;
            }
        }
        if let Some(seconds) = slow_down {
            self.notice(&format!(
                "Auth: Vercel asked to check less often; next check in {seconds}s"
            ));
        }
    }

    /// Approved, with several teams: the user picks the one to bill.
    pub fn on_login_teams(&mut self, id: u32, names: Vec<String>) {
        if let Some(flow) = self.flow_mut(id) {
            flow.stage = Stage::Teams { names, selected: 0 };
        }
    }

    /// Approved: the record is being stored.
    pub fn on_login_saving(&mut self, id: u32) {
        if let Some(flow) = self.flow_mut(id) {
            flow.stage = Stage::Saving;
        }
    }

    /// The login ended: `text` says how (a warning unless `ok`).
    pub fn on_login_end(&mut self, id: u32, ok: bool, text: &str) {
        if self.flow_mut(id).is_none() {
            return;
        }
        self.signin.flow = None;
        let text = format!("Auth: {text}");
        if ok {
            self.notice(&text);
        } else {
            self.warning(&text);
        }
    }

    /// The logout's local and remote outcomes.
    pub fn on_logout(&mut self, message: &str, warning: Option<&str>) {
        self.notice(&format!("Auth: {message}"));
        if let Some(warning) = warning {
            self.warning(&format!("Auth: {warning}"));
        }
    }

    /// Stops the login in progress (the driver aborts its request and drops any late token).
    pub(crate) fn cancel_login(&mut self) {
        let Some(flow) = self.signin.flow.take() else {
            return;
        };
        self.effects.push(Effect::CancelLogin { id: flow.id });
        let kept = if self.caps.credential {
            "; the current credential is unchanged"
        } else {
            ""
        };
        self.notice(&format!("Auth: sign-in cancelled{kept}"));
    }

    /// The credential as the agent now holds it; `usable` is false when a request would be
    /// refused for lack of one.
    pub fn set_auth_status(&mut self, status: AuthStatus, usable: bool) {
        self.caps.credential = usable;
        self.signin.status = Some(status);
    }

    /// The `auth=… · auth_team=… · auth_refreshable=…` part of `/status`.
    pub(crate) fn auth_status_text(&self) -> String {
        let Some(status) = &self.signin.status else {
            return format!(
                "auth={}",
                if self.caps.credential {
                    "configured"
                } else {
                    "none"
                }
            );
        };
        let mut text = format!(
            "auth={} · auth_refreshable={}",
            status.source.label(),
            status.refreshable()
        );
        if let Some(team) = &status.team {
            text.push_str(&format!(" · auth_team={team}"));
        }
        if status.login_held && status.source != AuthSource::Login {
            text.push_str(" · fx_login=stored (the env key wins; /login to switch)");
        }
        text
    }

    /// Keys while a login runs; true when consumed. Esc and Ctrl+C cancel; in the team picker
    /// ↑/↓ move and Enter confirms; Enter on an empty draft reopens the sign-in page.
    pub(crate) fn login_key(&mut self, key: KeyEvent) -> bool {
        let Some(flow) = self.signin.flow.as_mut() else {
            return false;
        };
        if (key.code == KeyCode::Escape && key.mods.is_empty()) || key == KeyEvent::ctrl('c') {
            self.cancel_login();
            return true;
        }
        let id = flow.id;
        match &mut flow.stage {
            Stage::Teams { names, selected } => {
                let n = names.len().max(1);
                match key.code {
                    KeyCode::Up => *selected = (*selected + n - 1) % n,
                    KeyCode::Down => *selected = (*selected + 1) % n,
                    KeyCode::Enter => {
                        let index = *selected;
                        flow.stage = Stage::Saving;
                        self.effects.push(Effect::ChooseTeam {
                            id,
                            index: Some(index),
                        });
                    }
                    _ => return false,
                }
                true
            }
            Stage::Waiting { open_url, .. }
                if key == KeyEvent::plain(KeyCode::Enter) && self.editor.is_empty() =>
            {
                let url = open_url.clone();
                self.effects.push(Effect::OpenUrl(url));
                true
            }
            _ => false,
        }
    }

    /// The panel rows above the composer while a login runs.
    pub(crate) fn login_rows(&self) -> Vec<StyledLine> {
        let Some(flow) = &self.signin.flow else {
            return Vec::new();
        };
        let w = self.width;
        let elapsed = self.now.saturating_sub(flow.started_ms);
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
