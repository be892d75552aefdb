//! The AI Gateway credential an agent sends, changeable while the agent lives: the
//! `AI_GATEWAY_API_KEY` from `env`, or a Vercel device login (access token, optional team) that
//! is refreshed before it expires. Also [`HostAuth`], which lends the agent's [`Host`] to the
//! login engine in [`crate::auth`] (HTTP, clock, sleep, `oauthSessionStore`).
//!
//! Precedence (agent-gateway-auth §6.3 and §7.2): at start an explicit `AI_GATEWAY_API_KEY`
//! wins over a stored login; a login completed in this runtime ([`LoginOrigin::SignedIn`], the
//! terminal's `/login`) wins over the key until it is cleared, and the key is used again after.
//!
//! Tokens never leave this module except into request headers: [`Credentials`] and
//! [`AuthStatus`] print no secret in `Debug`, and every event carries error codes and our own
//! sentences only.

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use crate::auth::transport::MAX_RESPONSE_BYTES;
use crate::auth::{
    self, AuthConfig, AuthError, LoadedSession, OAuthStore, RemoveOutcome, Secret,
    StoreError as OAuthStoreError, TransportError,
};

use super::cancel::Cancel;
use super::core::Agent;
use super::host::{FetchError, Host, HostEvent, HttpRequest};
use super::model::{read_capped, Reauth};

/// How a login reached the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginOrigin {
    /// Read from `oauthSessionStore` at start: used only when `env` has no API key.
    Restored,
    /// Completed in this runtime: used even when `env` has an API key.
    SignedIn,
}

/// Which credential the next gateway request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthSource {
    None,
    /// `AI_GATEWAY_API_KEY` from `env`.
    ApiKey,
    /// A Vercel device login.
    Login,
}

impl AuthSource {
    /// The label `/status` and events use: `none`, `AI_GATEWAY_API_KEY`, `fx login`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            AuthSource::None => "none",
            AuthSource::ApiKey => "AI_GATEWAY_API_KEY",
            AuthSource::Login => "fx login",
        }
    }
}

/// What can be shown about the credential (never a token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthStatus {
    pub source: AuthSource,
    /// The login's team (id, else slug), when the login is the active source.
    pub team: Option<String>,
    /// A login is held, active or not (an env key may win over a restored one).
    pub login_held: bool,
    /// When the held login's access token expires, epoch milliseconds.
    pub login_expires_at_ms: Option<u64>,
}

impl AuthStatus {
    /// True when the active credential can be refreshed (a login).
    #[must_use]
    pub fn refreshable(&self) -> bool {
        self.source == AuthSource::Login
    }
}

/// The credential selection: the env key, the login, and which one wins.
///
/// Invariant: `login_first` is only true while `login` is `Some`.
#[derive(Clone, Default)]
pub struct Credentials {
    api_key: Option<Secret>,
    login: Option<auth::Credential>,
    login_first: bool,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("login", &self.login)
            .field("login_first", &self.login_first)
            .finish()
    }
}

impl Credentials {
    /// The selection for an agent started with `api_key` (already trimmed, non-empty).
    #[must_use]
    pub fn new(api_key: Option<String>) -> Self {
        Self {
            api_key: api_key.map(Secret::new),
            login: None,
            login_first: false,
        }
    }

    /// Holds `login`. A [`LoginOrigin::SignedIn`] login becomes the active source; a
    /// [`LoginOrigin::Restored`] one keeps the current precedence.
    pub fn set_login(&mut self, login: auth::Credential, origin: LoginOrigin) {
        self.login = Some(login);
        if origin == LoginOrigin::SignedIn {
            self.login_first = true;
        }
    }

    /// Replaces the held login's token after a refresh (precedence unchanged).
    pub fn replace_login(&mut self, login: auth::Credential) {
        if self.login.is_some() {
            self.login = Some(login);
        }
    }

    /// Forgets the login (after `/logout`, or when the stored session is gone).
    pub fn clear_login(&mut self) {
        self.login = None;
        self.login_first = false;
    }

    /// The source the next request uses.
    #[must_use]
    pub fn source(&self) -> AuthSource {
        match (&self.api_key, &self.login) {
            (_, Some(_)) if self.login_first => AuthSource::Login,
            (Some(_), _) => AuthSource::ApiKey,
            (None, Some(_)) => AuthSource::Login,
            (None, None) => AuthSource::None,
        }
    }

    fn active_login(&self) -> Option<&auth::Credential> {
        match self.source() {
            AuthSource::Login => self.login.as_ref(),
            AuthSource::ApiKey | AuthSource::None => None,
        }
    }

    /// The bearer token and team header for a chat request.
    #[must_use]
    pub fn chat(&self) -> (Option<&str>, Option<&str>) {
        match self.source() {
            AuthSource::ApiKey => (self.api_key.as_ref().map(Secret::expose), None),
            AuthSource::Login => self
                .login
                .as_ref()
                .map_or((None, None), |l| (Some(l.access_token()), l.team())),
            AuthSource::None => (None, None),
        }
    }

    /// The bearer token and team for the model catalog: a login without a team, or one that
    /// needs a refresh, asks for the public catalog (agent-gateway-auth §3.1).
    #[must_use]
    pub fn catalog(&self, now_ms: u64) -> (Option<&str>, Option<&str>) {
        match self.source() {
            AuthSource::Login => match &self.login {
                Some(login) if login.team().is_some() && !login.is_expired(now_ms) => {
                    (Some(login.access_token()), login.team())
                }
                _ => (None, None),
            },
            AuthSource::ApiKey | AuthSource::None => self.chat(),
        }
    }

    /// True when the active credential is a login within a minute of expiry.
    #[must_use]
    pub fn needs_refresh(&self, now_ms: u64) -> bool {
        self.active_login().is_some_and(|l| l.is_expired(now_ms))
    }

    /// What `/status` shows.
    #[must_use]
    pub fn status(&self) -> AuthStatus {
        let source = self.source();
        AuthStatus {
            source,
            team: self
                .active_login()
                .and_then(|l| l.team())
                .map(str::to_owned),
            login_held: self.login.is_some(),
            login_expires_at_ms: self.login.as_ref().map(auth::Credential::expires_at_ms),
        }
    }
}

/// The agent's [`Host`] as the login engine's [`auth::Transport`], [`auth::Clock`],
/// [`auth::Sleeper`] and [`OAuthStore`]. Requests are whole-body (capped at 64 KiB), carry
/// their deadline, and stop when `cancel` is set (the host's fetch is aborted).
pub struct HostAuth<'a, H: Host> {
    host: &'a H,
    cancel: Cancel,
}

impl<'a, H: Host> HostAuth<'a, H> {
    /// Lends `host`; `cancel` stops every request in flight (a cancelled login).
    pub fn new(host: &'a H, cancel: Cancel) -> Self {
        Self { host, cancel }
    }
}

/// Runs `exchange` until it finishes, or cancels `call` when the deadline or the outer cancel
/// comes first and waits for `exchange` to notice. True in `.1` when the deadline fired.
async fn with_deadline<T>(
    exchange: impl Future<Output = T>,
    deadline: impl Future<Output = ()>,
    outer: &Cancel,
    call: &Cancel,
) -> (T, bool) {
    let mut exchange = pin!(exchange);
    let mut deadline = pin!(deadline);
    let mut stop = pin!(outer.cancelled());
    let mut timed_out = false;
    let value = std::future::poll_fn(|cx| {
        if let Poll::Ready(value) = exchange.as_mut().poll(cx) {
            return Poll::Ready(value);
        }
        if !call.is_cancelled() {
            if deadline.as_mut().poll(cx).is_ready() {
                timed_out = true;
                call.cancel();
                cx.waker().wake_by_ref();
            } else if stop.as_mut().poll(cx).is_ready() {
                call.cancel();
                cx.waker().wake_by_ref();
            }
        }
        Poll::Pending
    })
    .await;
    (value, timed_out)
}

impl<H: Host> auth::Transport for HostAuth<'_, H> {
    async fn send(
        &self,
        mut request: auth::HttpRequest,
    ) -> Result<auth::HttpResponse, TransportError> {
        let call = Cancel::new();
        let outgoing = HttpRequest {
            method: request.method.as_str(),
            url: std::mem::take(&mut request.url),
            headers: std::mem::take(&mut request.headers),
            body: std::mem::take(&mut request.body),
        };
        let exchange = async {
            let mut response = self.host.fetch(outgoing, &call).await?;
            // One byte past the cap tells "too large" from "exactly at the cap".
            let body = read_capped(&mut response.body, &call, MAX_RESPONSE_BYTES + 1).await?;
            Ok::<_, FetchError>((response.status, body))
        };
        let (result, timed_out) = with_deadline(
            exchange,
            self.host.deadline(request.timeout_ms),
            &self.cancel,
            &call,
        )
        .await;
        match result {
            Ok((_, body)) if body.len() > MAX_RESPONSE_BYTES => Err(TransportError::TooLarge),
            Ok((status, body)) => Ok(auth::HttpResponse { status, body }),
            Err(_) if timed_out => Err(TransportError::TimedOut),
            Err(FetchError::Cancelled) => Err(TransportError::Failed("cancelled".to_owned())),
            Err(FetchError::Network(message)) => Err(TransportError::Failed(message)),
        }
    }
}

impl<H: Host> auth::Clock for HostAuth<'_, H> {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.host.now_ms()).unwrap_or(0)
    }
}

impl<H: Host> auth::Sleeper for HostAuth<'_, H> {
    async fn sleep(&self, ms: u64) {
        let ms = u32::try_from(ms).unwrap_or(u32::MAX);
        let _ = self.cancel.run(self.host.sleep(ms)).await;
    }
}

impl<H: Host> OAuthStore for HostAuth<'_, H> {
    async fn load(&self) -> Result<Option<(Vec<u8>, String)>, OAuthStoreError> {
        self.host.oauth_load().await
    }
    async fn commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, OAuthStoreError> {
        self.host.oauth_commit(bytes, expected).await
    }
    async fn remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, OAuthStoreError> {
        self.host.oauth_remove(expected).await
    }
}

impl<H: Host> Agent<H> {
    /// The OAuth issuer and client id from `env`, or why the issuer override was refused.
    ///
    /// # Errors
    /// [`AuthError::IssuerOverrideRejected`] for a non-loopback `FX_E2E_OAUTH_ISSUER_URL`.
    pub fn auth_config(&self) -> Result<&AuthConfig, &AuthError> {
        self.config().auth.as_ref()
    }

    /// Where the credential stands (no token).
    pub fn auth_status(&self) -> AuthStatus {
        self.credentials.borrow().status()
    }

    /// Holds a login (see [`LoginOrigin`]) and tells the host the source changed.
    pub fn set_login(&self, login: auth::Credential, origin: LoginOrigin) {
        self.credentials.borrow_mut().set_login(login, origin);
        self.auth_changed();
    }

    /// Forgets the login; the env key, if any, is used again.
    pub fn clear_login(&self) {
        self.credentials.borrow_mut().clear_login();
        self.auth_changed();
    }

    fn auth_changed(&self) {
        let status = self.auth_status();
        self.host().event(HostEvent::AuthChanged {
            source: status.source.label(),
            team: status.team,
        });
    }

    /// Reads `oauthSessionStore` once (no device flow, no refresh) and holds a stored login as
    /// [`LoginOrigin::Restored`]. Returns whether a usable record was found.
    ///
    /// # Errors
    /// A refused issuer override, or a store failure.
    pub async fn restore_login(&self) -> Result<bool, AuthError> {
        let config = self.auth_config().map_err(Clone::clone)?.clone();
        let auth = HostAuth::new(self.host(), Cancel::new());
        match auth::load_session(&auth, &config.issuer).await? {
            LoadedSession::Present(session) => {
                self.set_login(
                    auth::Credential::from_record(&session.record),
                    LoginOrigin::Restored,
                );
                Ok(true)
            }
            LoadedSession::Absent | LoadedSession::Unusable { .. } => Ok(false),
        }
    }

    /// Without feature `login` no login is ever set (fx-core), so there is nothing to refresh.
    #[cfg(not(feature = "login"))]
    #[allow(clippy::unused_async)]
    pub(super) async fn refresh_if_due(&self) {}

    /// Without feature `login` no login is ever set (fx-core): a 401 is final.
    #[cfg(not(feature = "login"))]
    pub(super) fn reauth(&self) -> Option<&dyn Reauth> {
        None
    }

    /// Renews a refused device login for a step's one retry (see [`Reauth`]).
    #[cfg(feature = "login")]
    pub(super) fn reauth(&self) -> Option<&dyn Reauth> {
        Some(self)
    }

    /// Refreshes the active login when it is within a minute of expiry, before a request.
    #[cfg(feature = "login")]
    pub(super) async fn refresh_if_due(&self) {
        let now = u64::try_from(self.host().now_ms()).unwrap_or(0);
        if self.credentials.borrow().needs_refresh(now) {
            self.renew_login(false).await;
        }
    }

    /// The gateway answered 401 to the login's token: force a refresh and return the new
    /// token (`None` for an API key, or when the refresh gave nothing new).
    #[cfg(feature = "login")]
    async fn renew_after_rejection(&self) -> Option<String> {
        let before = {
            let credentials = self.credentials.borrow();
            if credentials.source() != AuthSource::Login {
                return None;
            }
            credentials.chat().0.map(str::to_owned)
        };
        self.renew_login(true).await;
        let credentials = self.credentials.borrow();
        let after = credentials.chat().0.map(str::to_owned);
        (credentials.source() == AuthSource::Login && after != before)
            .then_some(after)
            .flatten()
    }

    /// Renews the login (`force`: even when the stored token looks valid). A refresh that loses
    /// a revision race adopts the credential the other writer stored; a session removed
    /// elsewhere is forgotten; a transient failure keeps the current token.
    #[cfg(feature = "login")]
    async fn renew_login(&self, force: bool) {
        use crate::auth::Resolution;
        let now = u64::try_from(self.host().now_ms()).unwrap_or(0);
        let Ok(config) = self.auth_config().cloned() else {
            return;
        };
        let auth = HostAuth::new(self.host(), Cancel::new());
        let renewed = if force {
            auth::refresh(&auth, &auth, &auth, &config).await
        } else {
            auth::resolve_credential(&auth, &auth, &auth, &config).await
        };
        let outcome = match renewed {
            Ok(resolution) => Ok(resolution),
            // Someone else wrote in between and what they left is not usable by the engine's
            // rule: read the store once more and take whatever valid login it holds.
            Err(AuthError::RevisionConflict) => {
                match auth::load_session(&auth, &config.issuer).await {
                    Ok(LoadedSession::Present(s)) if !s.record.is_expired(now) => Ok(
                        Resolution::Adopted(auth::Credential::from_record(&s.record)),
                    ),
                    Ok(LoadedSession::Present(_)) => Err(AuthError::RevisionConflict),
                    Ok(LoadedSession::Absent | LoadedSession::Unusable { .. }) => {
                        Ok(Resolution::Absent)
                    }
                    Err(error) => Err(error),
                }
            }
            Err(error) => Err(error),
        };
        match outcome {
            Ok(resolution) => match resolution.credential() {
                Some(credential) => {
                    self.credentials
                        .borrow_mut()
                        .replace_login(credential.clone());
                    let how = match resolution {
                        Resolution::Adopted(_) | Resolution::Current(_) => "adopted",
                        _ => "refreshed",
                    };
                    self.host().event(HostEvent::AuthRefreshed { outcome: how });
                }
                None => {
                    self.host().event(HostEvent::AuthRefreshFailed {
                        code: AuthError::NoSession.code().as_str(),
                        message: "the stored fx login session is gone; signed out".to_owned(),
                        signed_out: true,
                    });
                    self.clear_login();
                }
            },
            Err(error) => {
                let signed_out = !error.is_retryable();
                self.host().event(HostEvent::AuthRefreshFailed {
                    code: error.code().as_str(),
                    message: error.to_string(),
                    signed_out,
                });
                if signed_out {
                    self.clear_login();
                }
            }
        }
    }

    /// The chat request's bearer token and team, refreshed first when due.
    pub(super) async fn chat_credential(&self) -> (Option<String>, Option<String>) {
        // Boxed: the refresh is rare, and inlined it would grow every prompt future (and the
        // wasm) by its whole state machine.
        let refresh: std::pin::Pin<Box<dyn Future<Output = ()> + '_>> =
            Box::pin(self.refresh_if_due());
        refresh.await;
        let credentials = self.credentials.borrow();
        let (token, team) = credentials.chat();
        (token.map(str::to_owned), team.map(str::to_owned))
    }

    /// The catalog request's bearer token and team (see [`Credentials::catalog`]).
    pub(super) fn catalog_credential(&self) -> (Option<String>, Option<String>) {
        let now = u64::try_from(self.host().now_ms()).unwrap_or(0);
        let credentials = self.credentials.borrow();
        let (token, team) = credentials.catalog(now);
        (token.map(str::to_owned), team.map(str::to_owned))
    }
}

#[cfg(feature = "login")]
impl<H: Host> Reauth for Agent<H> {
    fn renew(&self) -> std::pin::Pin<Box<dyn Future<Output = Option<String>> + '_>> {
        Box::pin(self.renew_after_rejection())
    }
}
