//! The OAuth device authorization grant (RFC 8628) as a state machine the caller drives.
//!
//! [`DeviceLogin::start`] runs discovery and the device authorization request and returns the
//! code to show. The UI then calls [`DeviceLogin::poll`] on each tick: it sends at most one token
//! request, and only when one is due, so the screen stays live and Esc ([`DeviceLogin::cancel`])
//! works at any moment; a token that arrives after a cancel is dropped. On success the caller
//! gets an [`Authorized`], picks a team ([`Authorized::team_choice`]), builds the record
//! ([`Authorized::into_record`]) and saves it ([`super::login::save_login`]).

use std::cell::Cell;

use super::endpoints::{discover, AuthConfig, Issuer, PUBLIC_CLIENT_ID, SCOPE};
use super::error::{AuthError, Step};
use super::exchange::{exchange, oauth_error_code, post_form};
use super::json::{object, take, take_string};
use super::record::OAuthRecord;
use super::secret::{is_token_shaped, Secret};
use super::teams::{fetch_teams, Team, TeamChoice};
use super::token::{parse_grant, TokenGrant};
use crate::caps::clock::now_ms_u64;
use crate::caps::http::WholeBody;
use crate::caps::{Cancel, Clock, Http};

/// Polling interval when the server names none.
pub const DEFAULT_INTERVAL_MS: u64 = 5_000;
/// Shortest polling interval we accept from a server.
pub const MIN_INTERVAL_MS: u64 = 1_000;
/// What `slow_down` adds to the interval.
pub const SLOW_DOWN_STEP_MS: u64 = 5_000;
/// The device-code grant type.
pub const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// What the user needs to see: where to go and which code to type.
///
/// `user_code` and the URIs contain no control characters; the URIs follow the issuer's endpoint
/// rule (see [`super::endpoints`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceCode {
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: Option<String>,
    /// When the code stops working, epoch milliseconds.
    pub expires_at_ms: u64,
    /// The polling interval the server asked for (at least [`MIN_INTERVAL_MS`]).
    pub interval_ms: u64,
}

impl DeviceCode {
    /// The URL to open in a browser: the complete one (code filled in) when given.
    #[must_use]
    pub fn browser_url(&self) -> &str {
        self.verification_uri_complete
            .as_deref()
            .unwrap_or(&self.verification_uri)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Waiting,
    Polling,
    Cancelled,
    Finished,
}

/// A device login in progress.
#[derive(Debug)]
pub struct DeviceLogin {
    issuer: Issuer,
    client_id: String,
    token_endpoint: String,
    device_code: Secret,
    code: DeviceCode,
    interval_ms: Cell<u64>,
    next_poll_at_ms: Cell<u64>,
    phase: Cell<Phase>,
}

/// The result of one [`DeviceLogin::poll`].
#[derive(Debug)]
pub enum PollOutcome {
    /// No request was due (or one is already in flight).
    NotDue { next_poll_at_ms: u64 },
    /// `authorization_pending`: the user has not finished yet.
    Pending { next_poll_at_ms: u64 },
    /// `slow_down`: the interval grew by [`SLOW_DOWN_STEP_MS`].
    SlowDown {
        interval_ms: u64,
        next_poll_at_ms: u64,
    },
    /// The user approved; tokens are validated.
    Authorized(Box<Authorized>),
    /// `access_denied`.
    Denied,
    /// `expired_token`, or the code's lifetime ran out locally.
    Expired,
    /// Anything else (transport failure, other OAuth errors, an unusable token response).
    Failed(AuthError),
    /// [`DeviceLogin::cancel`] was called; any late token is discarded.
    Cancelled,
    /// The login already ended with one of the outcomes above.
    AlreadyFinished,
}

impl PollOutcome {
    /// True when polling should go on.
    #[must_use]
    pub fn is_waiting(&self) -> bool {
        matches!(
            self,
            PollOutcome::NotDue { .. } | PollOutcome::Pending { .. } | PollOutcome::SlowDown { .. }
        )
    }

    /// A sentence for the user about a login that ended without signing in (what it means for
    /// the credential in use is the caller's to add: there may be none).
    #[must_use]
    pub fn message(&self) -> Option<&'static str> {
        match self {
            PollOutcome::Denied => Some("Sign-in was turned down in the browser."),
            PollOutcome::Expired => Some(
                "The sign-in code timed out before it was approved; run /login for a fresh code.",
            ),
            PollOutcome::Failed(_) => Some("Signing in to Vercel did not work."),
            PollOutcome::Cancelled => Some("Sign-in cancelled."),
            PollOutcome::NotDue { .. }
            | PollOutcome::Pending { .. }
            | PollOutcome::SlowDown { .. }
            | PollOutcome::Authorized(_)
            | PollOutcome::AlreadyFinished => None,
        }
    }
}

impl DeviceLogin {
    /// Runs discovery and the device authorization request. A custom client id refused with
    /// `invalid_client` is retried once with [`PUBLIC_CLIENT_ID`].
    ///
    /// # Errors
    ///
    /// Discovery failures, a refused device request, or a response without a usable
    /// `device_code`, `user_code`, `verification_uri` and `expires_in`.
    /// `cancel` stops a request in flight (here and in later polls when the caller passes it
    /// again).
    pub async fn start<H, C>(
        http: &H,
        clock: &C,
        cancel: &Cancel,
        config: &AuthConfig,
    ) -> Result<Self, AuthError>
    where
        H: Http + ?Sized,
        C: Clock + ?Sized,
    {
        let endpoints = discover(http, clock, cancel, &config.issuer).await?;
        let url = endpoints.device_authorization;
        let mut client_id = config.client_id.clone();
        let mut response = request_code(http, clock, cancel, &url, &client_id).await;
        let custom_refused = matches!(
            &response,
            Err(AuthError::Rejected {
                error: Some("invalid_client"),
                ..
            })
        );
        if custom_refused && client_id != PUBLIC_CLIENT_ID {
            client_id = PUBLIC_CLIENT_ID.to_owned();
            response = request_code(http, clock, cancel, &url, &client_id).await;
        }
        let body = response?;
        // `body` is wiped when it is dropped.
        let parsed = parse_device_response(&config.issuer, &body, now_ms_u64(clock));
        drop(body);
        let (device_code, code) = parsed?;
        Ok(Self {
            issuer: config.issuer.clone(),
            client_id,
            token_endpoint: endpoints.token,
            device_code,
            interval_ms: Cell::new(code.interval_ms),
            next_poll_at_ms: Cell::new(now_ms_u64(clock).saturating_add(code.interval_ms)),
            phase: Cell::new(Phase::Waiting),
            code,
        })
    }

    /// What to show the user.
    #[must_use]
    pub fn code(&self) -> &DeviceCode {
        &self.code
    }

    /// The client id in use (the public one after an `invalid_client` fallback).
    #[must_use]
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The current polling interval.
    #[must_use]
    pub fn interval_ms(&self) -> u64 {
        self.interval_ms.get()
    }

    /// When the next token request is due.
    #[must_use]
    pub fn next_poll_at_ms(&self) -> u64 {
        self.next_poll_at_ms.get()
    }

    /// Stops the login. A poll in flight finishes with [`PollOutcome::Cancelled`] and drops its
    /// token; later polls send nothing.
    pub fn cancel(&self) {
        if self.phase.get() != Phase::Finished {
            self.phase.set(Phase::Cancelled);
        }
    }

    /// Sends one token request if one is due, and says where the login stands. `cancel` stops
    /// the request in flight (the poll then ends as [`PollOutcome::Failed`], or
    /// [`PollOutcome::Cancelled`] after [`DeviceLogin::cancel`]).
    pub async fn poll<H, C>(&self, http: &H, clock: &C, cancel: &Cancel) -> PollOutcome
    where
        H: Http + ?Sized,
        C: Clock + ?Sized,
    {
        match self.phase.get() {
            Phase::Cancelled => return PollOutcome::Cancelled,
            Phase::Finished => return PollOutcome::AlreadyFinished,
            Phase::Polling => {
                return PollOutcome::NotDue {
                    next_poll_at_ms: self.next_poll_at_ms.get(),
                }
            }
            Phase::Waiting => {}
        }
        let now = now_ms_u64(clock);
        if now >= self.code.expires_at_ms {
            return self.finish(PollOutcome::Expired);
        }
        if now < self.next_poll_at_ms.get() {
            return PollOutcome::NotDue {
                next_poll_at_ms: self.next_poll_at_ms.get(),
            };
        }
        let in_flight = InFlight::begin(&self.phase);
        let request = post_form(
            self.token_endpoint.clone(),
            &[
                ("client_id", &self.client_id),
                ("grant_type", DEVICE_CODE_GRANT),
                ("device_code", self.device_code.expose()),
            ],
        );
        let result = exchange(http, clock, cancel, Step::DeviceToken, request).await;
        drop(in_flight);
        if self.phase.get() == Phase::Cancelled {
            return PollOutcome::Cancelled;
        }
        let now = now_ms_u64(clock);
        let response = match result {
            Ok(response) => response,
            Err(error) => return self.finish(PollOutcome::Failed(error)),
        };
        if response.status == 200 {
            let outcome = match parse_grant(Step::DeviceToken, &response.body, true) {
                Ok(grant) => self.authorized(grant, now),
                Err(error) => PollOutcome::Failed(error),
            };
            return self.finish(outcome);
        }
        let error = oauth_error_code(&response.body);
        match error {
            Some("authorization_pending") if now < self.code.expires_at_ms => {
                let next = now.saturating_add(self.interval_ms.get());
                self.next_poll_at_ms.set(next);
                PollOutcome::Pending {
                    next_poll_at_ms: next,
                }
            }
            Some("slow_down") if now < self.code.expires_at_ms => {
                let interval = self.interval_ms.get().saturating_add(SLOW_DOWN_STEP_MS);
                self.interval_ms.set(interval);
                let next = now.saturating_add(interval);
                self.next_poll_at_ms.set(next);
                PollOutcome::SlowDown {
                    interval_ms: interval,
                    next_poll_at_ms: next,
                }
            }
            Some("authorization_pending" | "slow_down" | "expired_token") => {
                self.finish(PollOutcome::Expired)
            }
            Some("access_denied") => self.finish(PollOutcome::Denied),
            _ => self.finish(PollOutcome::Failed(AuthError::Rejected {
                step: Step::DeviceToken,
                status: response.status,
                error,
            })),
        }
    }

    /// Polls until the login ends, sleeping on `clock` between requests: for callers without a
    /// UI tick. `cancel` also ends a sleep (the next poll then reports where the login stands).
    pub async fn wait<H, C>(&self, http: &H, clock: &C, cancel: &Cancel) -> PollOutcome
    where
        H: Http + ?Sized,
        C: Clock + ?Sized,
    {
        loop {
            let outcome = self.poll(http, clock, cancel).await;
            if !outcome.is_waiting() {
                return outcome;
            }
            let due = self.next_poll_at_ms.get().min(self.code.expires_at_ms);
            let wait = due.saturating_sub(now_ms_u64(clock)).max(1);
            let _ = cancel
                .run(clock.sleep(u32::try_from(wait).unwrap_or(u32::MAX)))
                .await;
        }
    }

    fn authorized(&self, grant: TokenGrant, now_ms: u64) -> PollOutcome {
        let expires_at_ms = grant.expires_at_ms(now_ms);
        let TokenGrant {
            access_token,
            refresh_token,
            scope,
            ..
        } = grant;
        let Some(refresh_token) = refresh_token else {
            return PollOutcome::Failed(AuthError::NoRefreshToken);
        };
        PollOutcome::Authorized(Box::new(Authorized {
            issuer: self.issuer.clone(),
            client_id: self.client_id.clone(),
            access_token,
            refresh_token,
            expires_at_ms,
            scope,
        }))
    }

    fn finish(&self, outcome: PollOutcome) -> PollOutcome {
        self.phase.set(Phase::Finished);
        outcome
    }
}

/// Marks a token request in flight; if the caller drops the poll future mid-request, dropping
/// this puts the login back to waiting so the next tick can poll again.
struct InFlight<'a>(&'a Cell<Phase>);

impl<'a> InFlight<'a> {
    fn begin(phase: &'a Cell<Phase>) -> Self {
        phase.set(Phase::Polling);
        Self(phase)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.0.get() == Phase::Polling {
            self.0.set(Phase::Waiting);
        }
    }
}

/// A completed login, before its team is chosen and it is saved.
#[derive(Debug)]
pub struct Authorized {
    issuer: Issuer,
    client_id: String,
    access_token: Secret,
    refresh_token: Secret,
    expires_at_ms: u64,
    scope: Option<String>,
}

impl Authorized {
    /// The new access token (for the teams request).
    #[must_use]
    pub fn access_token(&self) -> &Secret {
        &self.access_token
    }

    /// The scope granted: the response's `scope`, else the one requested.
    #[must_use]
    pub fn granted_scope(&self) -> &str {
        self.scope.as_deref().unwrap_or(SCOPE)
    }

    /// When the access token expires, epoch milliseconds.
    #[must_use]
    pub fn expires_at_ms(&self) -> u64 {
        self.expires_at_ms
    }

    /// Lists the user's teams and decides whether to ask; a failed listing means no teams.
    pub async fn team_choice<H, C>(&self, http: &H, clock: &C, cancel: &Cancel) -> TeamChoice
    where
        H: Http + ?Sized,
        C: Clock + ?Sized,
    {
        let teams = fetch_teams(http, clock, cancel, &self.issuer, &self.access_token).await;
        TeamChoice::from_teams(teams.unwrap_or_default())
    }

    /// The record to save, with the chosen team if any.
    #[must_use]
    pub fn into_record(self, team: Option<&Team>) -> OAuthRecord {
        let scope = self.granted_scope().to_owned();
        OAuthRecord {
            issuer: self.issuer.as_str().to_owned(),
            client_id: self.client_id,
            access_token: self.access_token,
            refresh_token: self.refresh_token,
            expires_at_ms: self.expires_at_ms,
            scope,
            token_type: "Bearer".to_owned(),
            team_slug: team.map(|t| t.slug.clone()),
            team_id: team.map(|t| t.id.clone()),
        }
    }
}

async fn request_code<H, C>(
    http: &H,
    clock: &C,
    cancel: &Cancel,
    url: &str,
    client_id: &str,
) -> Result<WholeBody, AuthError>
where
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let request = post_form(
        url.to_owned(),
        &[("client_id", client_id), ("scope", SCOPE)],
    );
    let response = exchange(http, clock, cancel, Step::DeviceAuthorization, request).await?;
    if response.status != 200 {
        return Err(AuthError::Rejected {
            step: Step::DeviceAuthorization,
            status: response.status,
            error: oauth_error_code(&response.body),
        });
    }
    Ok(response.body)
}

fn parse_device_response(
    issuer: &Issuer,
    body: &[u8],
    now_ms: u64,
) -> Result<(Secret, DeviceCode), AuthError> {
    struct Raw {
        device_code: Option<String>,
        user_code: Option<String>,
        verification_uri: Option<String>,
        verification_uri_complete: Option<String>,
        expires_in: Option<serde_json::Value>,
        interval: Option<serde_json::Value>,
    }
    let malformed = |reason| AuthError::MalformedResponse {
        step: Step::DeviceAuthorization,
        reason,
    };
    let not_strings = || malformed("not a JSON object with string members");
    let mut map = object(body).ok_or_else(not_strings)?;
    let mut string = |key| take_string(&mut map, key).map_err(|()| not_strings());
    let (device_code, user_code, verification_uri, verification_uri_complete) = (
        string("device_code")?,
        string("user_code")?,
        string("verification_uri")?,
        string("verification_uri_complete")?,
    );
    let raw = Raw {
        device_code,
        user_code,
        verification_uri,
        verification_uri_complete,
        expires_in: take(&mut map, "expires_in"),
        interval: take(&mut map, "interval"),
    };
    let device_code = Secret::new(raw.device_code.ok_or(malformed("device_code is missing"))?);
    if !is_token_shaped(device_code.expose()) {
        return Err(malformed("device_code has characters a form cannot carry"));
    }
    let user_code = raw.user_code.ok_or(malformed("user_code is missing"))?;
    if user_code.trim().is_empty()
        || user_code.len() > 64
        || user_code.chars().any(char::is_control)
    {
        return Err(malformed(
            "user_code is empty, too long or has control characters",
        ));
    }
    let verification_uri = raw
        .verification_uri
        .ok_or(malformed("verification_uri is missing"))?;
    check_verification_uri(issuer, &verification_uri)
        .map_err(|()| malformed("verification_uri is not an allowed URL"))?;
    if let Some(complete) = &raw.verification_uri_complete {
        check_verification_uri(issuer, complete)
            .map_err(|()| malformed("verification_uri_complete is not an allowed URL"))?;
    }
    let expires_in_s = match raw.expires_in.as_ref().map(serde_json::Value::as_u64) {
        None => return Err(malformed("expires_in is missing")),
        Some(Some(seconds)) if seconds > 0 => seconds,
        Some(_) => return Err(malformed("expires_in is not a positive integer")),
    };
    let interval_ms = match raw.interval.as_ref().map(serde_json::Value::as_u64) {
        None => DEFAULT_INTERVAL_MS,
        Some(Some(seconds)) => seconds.saturating_mul(1000).max(MIN_INTERVAL_MS),
        Some(None) => return Err(malformed("interval is not a non-negative integer")),
    };
    let code = DeviceCode {
        user_code,
        verification_uri,
        verification_uri_complete: raw.verification_uri_complete,
        expires_at_ms: now_ms.saturating_add(expires_in_s.saturating_mul(1000)),
        interval_ms,
    };
    Ok((device_code, code))
}

/// Verification URIs are shown and opened: they follow the same host rule as the endpoints.
fn check_verification_uri(issuer: &Issuer, uri: &str) -> Result<(), ()> {
    issuer.url_problem(uri).map_or(Ok(()), |_| Err(()))
}
