//! The agent's gateway credential, changeable while the agent lives: the `AI_GATEWAY_API_KEY`
//! from `env`, or a Vercel device login, chosen and kept fresh by the policy of
//! [`crate::auth::credentials`]; this file applies it to the agent and tells the host.
//!
//! Every event carries error codes and our own sentences only, never a token.

use std::future::Future;

#[cfg(feature = "login")]
use crate::auth::credentials::AuthSource;
use crate::auth::credentials::{AuthStatus, LoginOrigin};
use crate::auth::{self, AuthConfig, AuthError, LoadedLogin};
use crate::caps::clock::now_ms_u64;
use crate::caps::{Host, HostEvent};

use super::core::Agent;
use super::model::Reauth;

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
        match auth::load_login(self.host(), &config.issuer).await? {
            LoadedLogin::Present(session) => {
                self.set_login(
                    auth::Credential::from_record(&session.record),
                    LoginOrigin::Restored,
                );
                Ok(true)
            }
            LoadedLogin::Absent | LoadedLogin::Unusable { .. } => Ok(false),
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
        let now = now_ms_u64(self.host());
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
            credentials.login_token().map(str::to_owned)
        };
        self.renew_login(true).await;
        self.credentials
            .borrow()
            .token_after_renewal(before.as_deref())
    }

    /// Renews the login (see [`auth::credentials::renew`]) and tells the host how it went; a
    /// login that is gone, or failed for good, is dropped.
    #[cfg(feature = "login")]
    async fn renew_login(&self, force: bool) {
        use crate::auth::credentials::{renew, Renewal};
        let Ok(config) = self.auth_config().cloned() else {
            return;
        };
        let host = self.host();
        match renew(host, host, host, &config, force).await {
            Renewal::Refreshed(credential) => self.renewed(credential, "refreshed"),
            Renewal::Adopted(credential) => self.renewed(credential, "adopted"),
            Renewal::Gone => {
                self.host().event(HostEvent::AuthRefreshFailed {
                    code: AuthError::NoSession.code().as_str(),
                    message: "the stored fx login session is gone; signed out".to_owned(),
                    signed_out: true,
                });
                self.clear_login();
            }
            Renewal::Failed(error) => {
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

    #[cfg(feature = "login")]
    fn renewed(&self, credential: auth::Credential, outcome: &'static str) {
        self.credentials.borrow_mut().replace_login(credential);
        self.host().event(HostEvent::AuthRefreshed { outcome });
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
        let now = now_ms_u64(self.host());
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
