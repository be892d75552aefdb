//! The device-login driver: runs `/login` (discovery, device code, `openUrl`, polling, team
//! choice, saving the record, handing the credential to the agent) and `/logout` (remove,
//! revoke, drop the credential) over the agent's host, and restores a stored login at start.
//!
//! Polling sleeps on the host's timer until the next token request is due, so the screen stays
//! live; a cancel (Esc, Ctrl+C, `/logout`) aborts the request in flight and drops any token that
//! still arrives. Tokens stay inside [`crate::auth`] and [`crate::agent`]: the app
//! is told URLs, the user code, team names and outcomes.

use futures::channel::oneshot;

use crate::auth::credentials::{AuthSource, LoginOrigin};
use crate::auth::{self, AuthError, Credential, DeviceLogin, LocalLogout, PollOutcome, TeamChoice};
use crate::caps::cancel::Cancel;
use crate::caps::{Clock, Host, Ui};

use crate::term::app::Effect;

use super::{LoginRun, Shell, TermEnv};

/// How a login that did not sign in ended: `None` when it was cancelled (the app already said
/// so), else the sentence to show.
type Ended = Option<(bool, String)>;

fn failure(outcome: &PollOutcome, has_credential: bool) -> String {
    let text = outcome
        .message()
        .unwrap_or("Signing in to Vercel did not work.");
    let text = match outcome {
        PollOutcome::Failed(error) => format!("{text} ({error})"),
        _ => text.to_owned(),
    };
    format!("{text}{}", credential_kept(has_credential, &text))
}

/// What a sign-in that did not happen means for the credential: kept when there is one; when
/// there is none, only how to try again (never "your credential is untouched").
fn credential_kept(has_credential: bool, said: &str) -> &'static str {
    if has_credential {
        " Your current credential is untouched."
    } else if said.contains("/login") {
        ""
    } else {
        " Run /login to try again."
    }
}

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Shell<H, E> {
    /// Runs a sign-in effect of the app.
    pub(super) fn login_effect(&self, effect: Effect) {
        match effect {
            Effect::Login { id } => {
                let cancel = Cancel::new();
                *self.inner.login.borrow_mut() = Some(LoginRun {
                    id,
                    cancel: cancel.clone(),
                    team: None,
                });
                let shell = self.clone();
                self.spawn(async move {
                    shell.run_login(id, cancel).await;
                    shell.after();
                });
            }
            Effect::CancelLogin { id } => {
                let mut running = self.inner.login.borrow_mut();
                if running.as_ref().is_some_and(|r| r.id == id) {
                    if let Some(running) = running.take() {
                        running.cancel.cancel();
                    }
                }
            }
            Effect::ChooseTeam { id, index } => {
                let sender = self
                    .inner
                    .login
                    .borrow_mut()
                    .as_mut()
                    .filter(|r| r.id == id)
                    .and_then(|r| r.team.take());
                if let Some(sender) = sender {
                    let _ = sender.send(index);
                }
            }
            Effect::OpenUrl(url) => {
                let shell = self.clone();
                self.spawn(async move {
                    let opened = shell.inner.agent.host().open_url(&url).await;
                    if !opened {
                        shell
                            .inner
                            .app
                            .borrow_mut()
                            .notice("Auth: the host did not open the page; use the link above");
                        shell.after();
                    }
                });
            }
            Effect::Logout => {
                let shell = self.clone();
                self.spawn(async move {
                    shell.run_logout().await;
                    shell.after();
                });
            }
            _ => {}
        }
    }

    /// Stops a login in progress without a word (the terminal is going away); its panel goes
    /// too, so nothing keeps the ticker running.
    pub(super) fn stop_login(&self) {
        if let Some(running) = self.inner.login.borrow_mut().take() {
            running.cancel.cancel();
        }
        self.inner.app.borrow_mut().drop_login();
    }

    /// Tells the app where the credential stands now.
    pub(super) fn sync_auth(&self) {
        let agent = &self.inner.agent;
        let status = agent.auth_status();
        let usable = status.source != AuthSource::None || !agent.config().endpoint.is_canonical();
        self.inner.app.borrow_mut().set_auth_status(status, usable);
    }

    /// At start: holds a stored login (no device flow, no request) when the host has a store.
    pub(super) async fn restore_login(&self, notices: &mut Vec<String>) {
        let has_store = self.inner.app.borrow().caps().oauth;
        if has_store {
            match self.inner.agent.restore_login().await {
                Ok(true) => {
                    let status = self.inner.agent.auth_status();
                    notices.push(match (status.source, status.team) {
                        (AuthSource::Login, Some(team)) => {
                            format!("Auth: signed in to Vercel (stored sign-in, team {team})")
                        }
                        (AuthSource::Login, None) => {
                            "Auth: signed in to Vercel (stored sign-in)".to_owned()
                        }
                        _ => "Auth: a stored Vercel sign-in exists; env.AI_GATEWAY_API_KEY is used instead (/login to switch)".to_owned(),
                    });
                }
                Ok(false) => {}
                Err(error) => notices.push(format!(
                    "Auth: the stored Vercel sign-in could not be read ({error})"
                )),
            }
        }
        self.sync_auth();
    }

    async fn run_login(&self, id: u32, cancel: Cancel) {
        let ended = self.device_login(id, &cancel).await;
        {
            let mut running = self.inner.login.borrow_mut();
            if running.as_ref().is_some_and(|r| r.id == id) {
                *running = None;
            }
        }
        if let Some((ok, text)) = ended {
            self.inner.app.borrow_mut().on_login_end(id, ok, &text);
            if ok {
                // The account (and its team) may see other models.
                self.reload_catalog();
            }
        }
        self.sync_auth();
    }

    async fn device_login(&self, id: u32, cancel: &Cancel) -> Ended {
        let agent = &self.inner.agent;
        let has_credential = self.inner.app.borrow().caps().credential;
        let config = match agent.auth_config() {
            Ok(config) => config.clone(),
            Err(error) => return Some((false, format!("sign-in is not possible here: {error}"))),
        };
        let host = agent.host();
        let login = match DeviceLogin::start(host, host, cancel, &config).await {
            _ if cancel.is_cancelled() => return None,
            Ok(login) => login,
            Err(error) => {
                return Some((false, failure(&PollOutcome::Failed(error), has_credential)));
            }
        };
        let code = login.code().clone();
        let interval_s = login.interval_ms() / 1000;
        self.inner.app.borrow_mut().on_login_code(
            id,
            &code.verification_uri,
            code.browser_url(),
            &code.user_code,
            interval_s,
        );
        self.flush();
        let opened = host.open_url(code.browser_url()).await;
        self.inner.app.borrow_mut().on_login_browser(id, opened);
        self.flush();
        let authorized = loop {
            // A timer that fired together with the cancel must not lead to one more request.
            if cancel.is_cancelled() {
                login.cancel();
                return None;
            }
            let outcome = login.poll(host, host, cancel).await;
            if cancel.is_cancelled() {
                login.cancel();
                return None;
            }
            match outcome {
                PollOutcome::NotDue { .. } => {}
                PollOutcome::Pending { .. } => self.inner.app.borrow_mut().on_login_poll(id, None),
                PollOutcome::SlowDown { interval_ms, .. } => self
                    .inner
                    .app
                    .borrow_mut()
                    .on_login_poll(id, Some(interval_ms / 1000)),
                PollOutcome::Authorized(authorized) => break authorized,
                PollOutcome::Cancelled | PollOutcome::AlreadyFinished => return None,
                other => return Some((false, failure(&other, has_credential))),
            }
            self.flush();
            let now = crate::caps::clock::now_ms_u64(host);
            let due = login.next_poll_at_ms().min(code.expires_at_ms);
            let wait = u32::try_from(due.saturating_sub(now).max(1)).unwrap_or(u32::MAX);
            if cancel.run(host.deadline(wait)).await.is_err() {
                login.cancel();
                return None;
            }
        };
        let team = match authorized.team_choice(host, host, cancel).await {
            _ if cancel.is_cancelled() => return None,
            TeamChoice::NoTeams => None,
            TeamChoice::Single(team) => Some(team),
            TeamChoice::Pick(teams) => {
                let (sender, receiver) = oneshot::channel();
                match self.inner.login.borrow_mut().as_mut() {
                    Some(running) if running.id == id => running.team = Some(sender),
                    _ => return None,
                }
                let names = teams
                    .iter()
                    .map(|t| format!("{} ({})", t.name, t.slug))
                    .collect();
                self.inner.app.borrow_mut().on_login_teams(id, names);
                self.flush();
                match cancel.run(receiver).await {
                    Ok(Ok(Some(index))) => teams.get(index).cloned(),
                    Ok(Ok(None)) => None,
                    Ok(Err(_)) | Err(_) => return None,
                }
            }
        };
        self.inner.app.borrow_mut().on_login_saving(id);
        self.flush();
        let team_name = team.as_ref().map(|t| t.name.clone());
        let record = authorized.into_record(team.as_ref());
        match auth::save_login(host, &record).await {
            Ok(_) => {}
            Err(AuthError::RevisionConflict) => {
                let said = "Another tab changed the stored sign-in at the same moment, so this \
                            one was not saved; run /login again.";
                return Some((
                    false,
                    format!("{said}{}", credential_kept(has_credential, said)),
                ));
            }
            Err(error) => {
                let said = format!("The sign-in could not be saved ({error}).");
                let kept = credential_kept(has_credential, &said);
                return Some((false, format!("{said}{kept}")));
            }
        }
        agent.set_login(Credential::from_record(&record), LoginOrigin::SignedIn);
        Some((
            true,
            match team_name {
                Some(name) => format!(
                    "signed in to Vercel; AI Gateway requests now use this sign-in, billed to team {name}"
                ),
                None => {
                    "signed in to Vercel; AI Gateway requests now use this sign-in".to_owned()
                }
            },
        ))
    }

    async fn run_logout(&self) {
        let agent = &self.inner.agent;
        let config = match agent.auth_config() {
            Ok(config) => config.clone(),
            Err(error) => {
                let text = format!("sign-out is not possible here: {error}");
                self.inner.app.borrow_mut().on_logout(&text, None);
                return;
            }
        };
        let host = agent.host();
        let report = auth::logout(host, host, host, &config).await;
        agent.clear_login();
        if matches!(report.local, LocalLogout::Conflict | LocalLogout::Failed(_)) {
            // Another tab changed the record: use whatever is stored now.
            let _ = agent.restore_login().await;
        }
        let now_using = match agent.auth_status().source {
            AuthSource::None => "No credential is left (/login signs in again)",
            AuthSource::ApiKey => "Requests use env.AI_GATEWAY_API_KEY again",
            AuthSource::Login => "Requests use the sign-in another tab stored",
        };
        let text = format!("{} {now_using}.", report.local.message());
        self.inner
            .app
            .borrow_mut()
            .on_logout(&text, report.revocation.warning());
        self.sync_auth();
        self.reload_catalog();
    }
}
