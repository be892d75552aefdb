//! Which credential a gateway request carries, and how a login is kept fresh: the policy the
//! agent applies over the login engine.
//!
//! Precedence (agent-gateway-auth §6.3 and §7.2): at start an explicit `AI_GATEWAY_API_KEY`
//! wins over a stored login; a login completed in this runtime ([`LoginOrigin::SignedIn`], the
//! terminal's `/login`) wins over the key until it is cleared, and the key is used again after.
//!
//! Refresh: a login within a minute of expiry is renewed before a request ([`renew`]); a refresh
//! that loses a revision race adopts the credential the other writer stored; a session removed
//! elsewhere is gone; a transient failure keeps the current token. A gateway 401 to the login's
//! token forces one renewal and one retry of the step with the new token
//! ([`Credentials::token_after_renewal`]).
//!
//! Tokens never leave here except into request headers: [`Credentials`] and [`AuthStatus`]
//! print no secret in `Debug`.

use std::fmt;

use crate::caps::clock::now_ms_u64;
use crate::caps::{Clock, Http, OAuthStore};

use super::endpoints::AuthConfig;
use super::error::AuthError;
use super::login::{load_login, refresh, resolve_credential, Credential, LoadedLogin, Resolution};
use super::secret::Secret;

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
    login: Option<Credential>,
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
    pub fn set_login(&mut self, login: Credential, origin: LoginOrigin) {
        self.login = Some(login);
        if origin == LoginOrigin::SignedIn {
            self.login_first = true;
        }
    }

    /// Replaces the held login's token after a refresh (precedence unchanged).
    pub fn replace_login(&mut self, login: Credential) {
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

    fn active_login(&self) -> Option<&Credential> {
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

    /// The login's bearer token while the login is the active source (what a 401 refused).
    #[must_use]
    pub fn login_token(&self) -> Option<&str> {
        self.active_login().map(Credential::access_token)
    }

    /// After a 401 to the login's token `before` and a forced [`renew`]: the token to retry the
    /// step with, when the login is still the source and its token changed (`None` for an API
    /// key, or when the renewal gave nothing new).
    #[must_use]
    pub fn token_after_renewal(&self, before: Option<&str>) -> Option<String> {
        let after = self.login_token()?;
        (before != Some(after)).then(|| after.to_owned())
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
            login_expires_at_ms: self.login.as_ref().map(Credential::expires_at_ms),
        }
    }
}

/// How a [`renew`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Renewal {
    /// The login's tokens were refreshed.
    Refreshed(Credential),
    /// Another writer's newer, valid credential was taken.
    Adopted(Credential),
    /// The stored login is gone (or unusable): the user is signed out.
    Gone,
    /// The renewal failed; [`AuthError::is_retryable`] says whether the login stays.
    Failed(AuthError),
}

/// Renews the stored login (`force`: even when the stored token looks valid, after a 401). A
/// refresh that loses a revision race and finds what the other writer left unusable by the
/// engine's rule reads the store once more and takes whatever valid login it holds.
pub async fn renew<S, H, C>(
    store: &S,
    http: &H,
    clock: &C,
    config: &AuthConfig,
    force: bool,
) -> Renewal
where
    S: OAuthStore + ?Sized,
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let renewed = if force {
        refresh(store, http, clock, config).await
    } else {
        resolve_credential(store, http, clock, config).await
    };
    let outcome = match renewed {
        Err(AuthError::RevisionConflict) => match load_login(store, &config.issuer).await {
            Ok(LoadedLogin::Present(s)) if !s.record.is_expired(now_ms_u64(clock)) => {
                Ok(Resolution::Adopted(Credential::from_record(&s.record)))
            }
            Ok(LoadedLogin::Present(_)) => Err(AuthError::RevisionConflict),
            Ok(LoadedLogin::Absent | LoadedLogin::Unusable { .. }) => Ok(Resolution::Absent),
            Err(error) => Err(error),
        },
        other => other,
    };
    match outcome {
        Ok(Resolution::Refreshed(credential)) => Renewal::Refreshed(credential),
        Ok(Resolution::Adopted(credential) | Resolution::Current(credential)) => {
            Renewal::Adopted(credential)
        }
        Ok(Resolution::Absent | Resolution::Unusable(_)) => Renewal::Gone,
        Err(error) => Renewal::Failed(error),
    }
}
