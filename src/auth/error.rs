//! [`AuthError`]: every way device login, refresh, teams or logout can fail, and
//! [`RecordInvalid`], why stored bytes are no usable record.
//!
//! No variant carries a token, a device code or a response body: only our own words, HTTP
//! statuses, sanitized OAuth error codes and the host's short failure descriptions.

use std::fmt;

use thiserror::Error;

use crate::caps::http::ExchangeError;
use crate::caps::StoreError;
use crate::Code;

/// Why stored bytes are not a usable record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RecordInvalid {
    #[error("the record is larger than 64 KiB")]
    TooLarge,
    #[error("the record is not a JSON object")]
    NotJsonObject,
    #[error("the record's version is not 1")]
    Version,
    #[error("the record has no {0}")]
    Missing(&'static str),
    #[error("the record's {0} has the wrong type or an unusable value")]
    Invalid(&'static str),
    #[error("the record belongs to another issuer")]
    IssuerNotAllowed,
}

/// Which OAuth exchange an error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Discovery,
    DeviceAuthorization,
    DeviceToken,
    Refresh,
    Teams,
    Revocation,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Discovery => "OpenID discovery",
            Step::DeviceAuthorization => "device authorization",
            Step::DeviceToken => "device token",
            Step::Refresh => "token refresh",
            Step::Teams => "teams",
            Step::Revocation => "token revocation",
        })
    }
}

/// Which store call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOp {
    Load,
    Commit,
    Remove,
}

impl fmt::Display for StoreOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreOp::Load => "oauthSessionStore.load",
            StoreOp::Commit => "oauthSessionStore.commit",
            StoreOp::Remove => "oauthSessionStore.remove",
        })
    }
}

/// A failure of the login engine.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AuthError {
    /// `FX_E2E_OAUTH_ISSUER_URL` was set to something other than a loopback `http` origin.
    #[error(
        "FX_E2E_OAUTH_ISSUER_URL has to be an http:// origin on 127.0.0.1, localhost or [::1] \
         with an explicit port ({reason})"
    )]
    IssuerOverrideRejected { reason: &'static str },
    /// The host could not deliver a response.
    #[error("the {step} request got no response: {source}")]
    Transport {
        step: Step,
        #[source]
        source: ExchangeError,
    },
    /// The response body went past 64 KiB.
    #[error("the {step} response is larger than 64 KiB")]
    ResponseTooLarge { step: Step },
    /// A status other than 200, with the OAuth `error` code when the body had a standard one.
    #[error("the {step} request was refused with HTTP {status} ({})", error.unwrap_or("no recognised OAuth error code"))]
    Rejected {
        step: Step,
        status: u16,
        error: Option<&'static str>,
    },
    /// A 200 response that does not have the shape we need.
    #[error("the {step} response is unusable: {reason}")]
    MalformedResponse { step: Step, reason: &'static str },
    /// The discovery document names another issuer.
    #[error("the discovery document's issuer is not the issuer it was fetched from")]
    IssuerMismatch,
    /// A discovered endpoint is not on an allowed host (see [`super::endpoints`]).
    #[error("the discovery document's {field} is not an allowed endpoint ({reason})")]
    EndpointNotAllowed {
        field: &'static str,
        reason: &'static str,
    },
    /// Logout needs a `revocation_endpoint` and discovery had none.
    #[error("the discovery document has no revocation_endpoint")]
    NoRevocationEndpoint,
    /// A login token response without a refresh token: the session could not outlive the hour.
    #[error("the token response has no refresh_token")]
    NoRefreshToken,
    /// The OAuth store failed.
    #[error("{op} failed: {message}")]
    Store { op: StoreOp, message: String },
    /// The stored record changed (or vanished) under us: another tab signed in, refreshed or
    /// signed out.
    #[error("the stored fx login session changed while it was being updated")]
    RevisionConflict,
    /// Nothing is stored.
    #[error("there is no stored fx login session")]
    NoSession,
    /// What is stored cannot be used.
    #[error("the stored fx login session is unusable: {0}")]
    InvalidSession(RecordInvalid),
    /// A record would exceed the store's 64 KiB limit.
    #[error("the fx login session record would be larger than 64 KiB")]
    RecordTooLarge,
}

impl AuthError {
    /// Stable code for traces and the JS boundary.
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            AuthError::IssuerOverrideRejected { .. } => Code::OAuthIssuerOverrideRejected,
            AuthError::Transport { .. } => Code::OAuthTransport,
            AuthError::ResponseTooLarge { .. } => Code::OAuthResponseTooLarge,
            AuthError::Rejected { .. } => Code::OAuthRejected,
            AuthError::MalformedResponse { .. } => Code::OAuthMalformedResponse,
            AuthError::IssuerMismatch => Code::OAuthIssuerMismatch,
            AuthError::EndpointNotAllowed { .. } => Code::OAuthEndpointNotAllowed,
            AuthError::NoRevocationEndpoint => Code::OAuthNoRevocationEndpoint,
            AuthError::NoRefreshToken => Code::OAuthNoRefreshToken,
            AuthError::Store { .. } => Code::OAuthStoreFailed,
            AuthError::RevisionConflict => Code::OAuthSessionRevisionConflict,
            AuthError::NoSession => Code::OAuthNoSession,
            AuthError::InvalidSession(_) => Code::OAuthSessionInvalid,
            AuthError::RecordTooLarge => Code::OAuthRecordTooLarge,
        }
    }

    /// True when trying the same thing again later may succeed (network trouble, server errors).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            AuthError::Transport { .. } => true,
            AuthError::Rejected { status, .. } => *status >= 500 || *status == 429,
            AuthError::IssuerOverrideRejected { .. }
            | AuthError::ResponseTooLarge { .. }
            | AuthError::MalformedResponse { .. }
            | AuthError::IssuerMismatch
            | AuthError::EndpointNotAllowed { .. }
            | AuthError::NoRevocationEndpoint
            | AuthError::NoRefreshToken
            | AuthError::Store { .. }
            | AuthError::RevisionConflict
            | AuthError::NoSession
            | AuthError::InvalidSession(_)
            | AuthError::RecordTooLarge => false,
        }
    }

    pub(crate) fn from_store(op: StoreOp, error: &StoreError) -> Self {
        match error {
            StoreError::RevisionConflict { .. } => AuthError::RevisionConflict,
            StoreError::Failed { .. } => AuthError::Store {
                op,
                message: error.message().to_owned(),
            },
        }
    }
}
