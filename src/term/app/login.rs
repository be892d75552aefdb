//! Sign-in as the app runs it: `/login` and `/logout`, cancelling a login, and the device flow's
//! reports (which the driver sends, each naming its login) becoming the panel's stages and
//! notices. The panel itself is [`super::signin`].

use crate::auth::credentials::AuthStatus;

use super::signin::Stage;
use super::{App, Effect};

impl App {
    /// `/login`.
    pub(super) fn login_command(&mut self) {
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
                let id = self.signin.begin(self.now);
                self.effects.push(Effect::Login { id });
            }
        }
    }

    /// `/logout`.
    pub(super) fn logout_command(&mut self) {
        if !self.caps.oauth {
            self.notice(
                "Auth: sign-out needs the host's oauthSessionStore option; nothing is stored here",
            );
            return;
        }
        self.cancel_login();
        self.effects.push(Effect::Logout);
    }

    /// Stops the login in progress (the driver aborts its request and drops any late token).
    pub(super) fn cancel_login(&mut self) {
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

    /// The terminal is going away: the panel goes without a word (so nothing keeps ticking).
    pub(crate) fn drop_login(&mut self) {
        self.signin.flow = None;
    }

    /// The device code arrived: the URL and code go into the transcript (they stay readable
    /// whether or not a browser opens) and the panel starts waiting.
    pub(crate) fn on_login_code(
        &mut self,
        id: u32,
        url: &str,
        open_url: &str,
        code: &str,
        interval_s: u64,
    ) {
        let Some(flow) = self.signin.flow_mut(id) else {
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
    pub(crate) fn on_login_browser(&mut self, id: u32, opened: bool) {
        if !opened && self.signin.flow_mut(id).is_some() {
            self.notice("Auth: no browser page was opened; open the link above yourself");
        }
    }

    /// One token request came back without a decision; `slow_down` carries the new interval.
    pub(crate) fn on_login_poll(&mut self, id: u32, slow_down: Option<u64>) {
        let Some(flow) = self.signin.flow_mut(id) else {
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
    pub(crate) fn on_login_teams(&mut self, id: u32, names: Vec<String>) {
        if let Some(flow) = self.signin.flow_mut(id) {
            flow.stage = Stage::Teams { names, selected: 0 };
        }
    }

    /// Approved: the record is being stored.
    pub(crate) fn on_login_saving(&mut self, id: u32) {
        if let Some(flow) = self.signin.flow_mut(id) {
            flow.stage = Stage::Saving;
        }
    }

    /// The login ended: `text` says how (a warning unless `ok`).
    pub(crate) fn on_login_end(&mut self, id: u32, ok: bool, text: &str) {
        if self.signin.flow_mut(id).is_none() {
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
    pub(crate) fn on_logout(&mut self, message: &str, warning: Option<&str>) {
        self.notice(&format!("Auth: {message}"));
        if let Some(warning) = warning {
            self.warning(&format!("Auth: {warning}"));
        }
    }

    /// The credential as the agent now holds it; `usable` is false when a request would be
    /// refused for lack of one.
    pub(crate) fn set_auth_status(&mut self, status: AuthStatus, usable: bool) {
        self.caps.credential = usable;
        self.signin.status = Some(status);
    }
}
