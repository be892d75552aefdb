//! The stored login's lifecycle over the OAuth store: load, hand the gateway a credential,
//! refresh before expiry, save a new login, log out.
//!
//! Revision rule: every write names the revision it read. A refresh that loses the race reloads
//! and adopts the other writer's credential when it is newer and still valid, so a newer
//! credential is never overwritten or forgotten.

use std::fmt;

use super::endpoints::{discover, AuthConfig, Issuer};
use super::error::{AuthError, Step, StoreOp};
use super::exchange::{exchange, oauth_error_code, post_form};
use super::record::{OAuthRecord, RecordInvalid, EXPIRY_MARGIN_MS};
use super::secret::{wipe, Secret};
use super::token::parse_grant;
use crate::caps::clock::now_ms_u64;
use crate::caps::{Cancel, Clock, Http, OAuthStore, RemoveOutcome, StoreError, StoredRecord};

/// What the gateway sends: `authorization: Bearer <access_token>` and, when present,
/// `x-vercel-ai-gateway-team: <team>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    access_token: Secret,
    team: Option<String>,
    expires_at_ms: u64,
}

impl Credential {
    /// The credential a record carries.
    #[must_use]
    pub fn from_record(record: &OAuthRecord) -> Self {
        Self {
            access_token: record.access_token.clone(),
            team: record.team().map(str::to_owned),
            expires_at_ms: record.expires_at_ms,
        }
    }

    /// The bearer token.
    #[must_use]
    pub fn access_token(&self) -> &str {
        self.access_token.expose()
    }

    /// The team id (else slug) for `x-vercel-ai-gateway-team`.
    #[must_use]
    pub fn team(&self) -> Option<&str> {
        self.team.as_deref()
    }

    /// Access token expiry, epoch milliseconds.
    #[must_use]
    pub fn expires_at_ms(&self) -> u64 {
        self.expires_at_ms
    }

    /// One minute before expiry: from then on the credential counts as expired.
    #[must_use]
    pub fn refresh_after_ms(&self) -> u64 {
        self.expires_at_ms.saturating_sub(EXPIRY_MARGIN_MS)
    }

    /// True once `now_ms` reaches [`Credential::refresh_after_ms`].
    #[must_use]
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.refresh_after_ms() <= now_ms
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("access_token", &self.access_token)
            .field("team", &self.team)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish()
    }
}

/// A usable record and the revision it was read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLogin {
    pub record: OAuthRecord,
    pub revision: String,
}

/// What the store holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadedLogin {
    /// Nothing.
    Absent,
    /// Bytes that are not a usable record (treated as signed out).
    Unusable {
        reason: RecordInvalid,
        revision: String,
    },
    /// A usable record.
    Present(StoredLogin),
}

/// Reads the store.
///
/// # Errors
///
/// [`AuthError::Store`] when the store fails.
pub async fn load_login<S: OAuthStore + ?Sized>(
    store: &S,
    issuer: &Issuer,
) -> Result<LoadedLogin, AuthError> {
    let Some(StoredRecord { bytes, revision }) = store
        .oauth_load()
        .await
        .map_err(|e| AuthError::from_store(StoreOp::Load, &e))?
    else {
        return Ok(LoadedLogin::Absent);
    };
    let decoded = OAuthRecord::decode(&bytes, issuer);
    wipe(bytes);
    Ok(match decoded {
        Ok(record) => LoadedLogin::Present(StoredLogin { record, revision }),
        Err(reason) => LoadedLogin::Unusable { reason, revision },
    })
}

/// Saves the record of a fresh login over whatever is stored: loads to learn the current
/// revision (none when empty), then commits against it. Returns the new revision.
///
/// # Errors
///
/// [`AuthError::RevisionConflict`] when another writer got in between (the login fails and the
/// stored credential stays as it is), [`AuthError::Store`], [`AuthError::RecordTooLarge`].
pub async fn save_login<S: OAuthStore + ?Sized>(
    store: &S,
    record: &OAuthRecord,
) -> Result<String, AuthError> {
    let expected = match store.oauth_load().await {
        Ok(Some(StoredRecord { bytes, revision })) => {
            wipe(bytes);
            Some(revision)
        }
        Ok(None) => None,
        Err(error) => return Err(AuthError::from_store(StoreOp::Load, &error)),
    };
    commit(store, record, expected.as_deref()).await
}

/// How the gateway's credential was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// No login session.
    Absent,
    /// Stored bytes that cannot be used (treated as signed out).
    Unusable(RecordInvalid),
    /// The stored credential, still valid.
    Current(Credential),
    /// The stored credential had expired and was refreshed.
    Refreshed(Credential),
    /// It had expired; while refreshing, another writer stored a newer one, which is used.
    Adopted(Credential),
}

impl Resolution {
    /// The credential to use, if any.
    #[must_use]
    pub fn credential(&self) -> Option<&Credential> {
        match self {
            Resolution::Current(c) | Resolution::Refreshed(c) | Resolution::Adopted(c) => Some(c),
            Resolution::Absent | Resolution::Unusable(_) => None,
        }
    }
}

/// The credential for the next gateway request: loads the session and refreshes it when it is
/// within a minute of expiry.
///
/// # Errors
///
/// Store failures, and every refresh failure (see [`refresh`]).
pub async fn resolve_credential<S, H, C>(
    store: &S,
    http: &H,
    clock: &C,
    config: &AuthConfig,
) -> Result<Resolution, AuthError>
where
    S: OAuthStore + ?Sized,
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    match load_login(store, &config.issuer).await? {
        LoadedLogin::Absent => Ok(Resolution::Absent),
        LoadedLogin::Unusable { reason, .. } => Ok(Resolution::Unusable(reason)),
        LoadedLogin::Present(session) if !session.record.is_expired(now_ms_u64(clock)) => Ok(
            Resolution::Current(Credential::from_record(&session.record)),
        ),
        LoadedLogin::Present(session) => refresh_loaded(store, http, clock, config, session).await,
    }
}

/// Refreshes now, whatever the expiry says (after the gateway answered 401). The result is
/// [`Resolution::Refreshed`] or [`Resolution::Adopted`].
///
/// # Errors
///
/// [`AuthError::NoSession`], [`AuthError::InvalidSession`], discovery and token endpoint
/// failures, [`AuthError::RevisionConflict`] when another writer removed the session or stored
/// one that is no better, and store failures.
pub async fn refresh<S, H, C>(
    store: &S,
    http: &H,
    clock: &C,
    config: &AuthConfig,
) -> Result<Resolution, AuthError>
where
    S: OAuthStore + ?Sized,
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    match load_login(store, &config.issuer).await? {
        LoadedLogin::Absent => Err(AuthError::NoSession),
        LoadedLogin::Unusable { reason, .. } => Err(AuthError::InvalidSession(reason)),
        LoadedLogin::Present(session) => refresh_loaded(store, http, clock, config, session).await,
    }
}

async fn refresh_loaded<S, H, C>(
    store: &S,
    http: &H,
    clock: &C,
    config: &AuthConfig,
    session: StoredLogin,
) -> Result<Resolution, AuthError>
where
    S: OAuthStore + ?Sized,
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    // A refresh is not cancelled: it runs to its answer or its deadline.
    let never = Cancel::new();
    let StoredLogin { record, revision } = session;
    let endpoints = discover(http, clock, &never, &config.issuer).await?;
    let request = post_form(
        endpoints.token,
        &[
            ("client_id", &record.client_id),
            ("grant_type", "refresh_token"),
            ("refresh_token", record.refresh_token.expose()),
        ],
    );
    let response = exchange(http, clock, &never, Step::Refresh, request).await?;
    if response.status != 200 {
        return Err(AuthError::Rejected {
            step: Step::Refresh,
            status: response.status,
            error: oauth_error_code(&response.body),
        });
    }
    let grant = parse_grant(Step::Refresh, &response.body, false)?;
    drop(response);
    let mut updated = record.clone();
    updated.expires_at_ms = grant.expires_at_ms(now_ms_u64(clock));
    updated.access_token = grant.access_token;
    if let Some(rotated) = grant.refresh_token {
        updated.refresh_token = rotated;
    }
    if let Some(scope) = grant.scope {
        updated.scope = scope;
    }
    match commit(store, &updated, Some(&revision)).await {
        Ok(_) => Ok(Resolution::Refreshed(Credential::from_record(&updated))),
        Err(AuthError::RevisionConflict) => match load_login(store, &config.issuer).await? {
            LoadedLogin::Present(newer)
                if (newer.revision != revision || newer.record != record)
                    && !newer.record.is_expired(now_ms_u64(clock)) =>
            {
                Ok(Resolution::Adopted(Credential::from_record(&newer.record)))
            }
            _ => Err(AuthError::RevisionConflict),
        },
        Err(error) => Err(error),
    }
}

/// What happened to the stored session on logout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalLogout {
    /// The record was removed.
    Deleted,
    /// Nothing was stored.
    Missing,
    /// Another writer changed the record first; nothing was removed.
    Conflict,
    /// The store failed.
    Failed(AuthError),
}

impl LocalLogout {
    /// A sentence for the user.
    #[must_use]
    pub fn message(&self) -> &'static str {
        match self {
            LocalLogout::Deleted => "Signed out: the fx login session is gone from this browser.",
            LocalLogout::Missing => "There was no fx login session to sign out of.",
            LocalLogout::Conflict | LocalLogout::Failed(_) => {
                "The sign-out could not be confirmed in storage; the credential in use has been \
                 looked up again."
            }
        }
    }
}

/// What happened at Vercel on logout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revocation {
    /// Both tokens were revoked.
    Revoked,
    /// Nothing was removed locally, so nothing was revoked.
    Skipped,
    /// Revocation failed (or the removed record could not be read); a warning, not an error.
    Failed(AuthError),
}

impl Revocation {
    /// A warning for the user, when there is one.
    #[must_use]
    pub fn warning(&self) -> Option<&'static str> {
        match self {
            Revocation::Failed(_) => Some(
                "Warning: the session is gone from this browser, but Vercel could not be reached \
                 to revoke it.",
            ),
            Revocation::Revoked | Revocation::Skipped => None,
        }
    }
}

/// Both halves of a logout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogoutReport {
    pub local: LocalLogout,
    pub revocation: Revocation,
}

/// Removes the stored session (at the revision just read), then asks Vercel to revoke its
/// refresh token and access token.
pub async fn logout<S, H, C>(store: &S, http: &H, clock: &C, config: &AuthConfig) -> LogoutReport
where
    S: OAuthStore + ?Sized,
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let failed = |error| LogoutReport {
        local: LocalLogout::Failed(error),
        revocation: Revocation::Skipped,
    };
    let (revision, record) = match load_login(store, &config.issuer).await {
        Ok(LoadedLogin::Absent) => (None, Err(AuthError::NoSession)),
        Ok(LoadedLogin::Unusable { reason, revision }) => {
            (Some(revision), Err(AuthError::InvalidSession(reason)))
        }
        Ok(LoadedLogin::Present(StoredLogin { record, revision })) => (Some(revision), Ok(record)),
        Err(error) => return failed(error),
    };
    let local = match store.oauth_remove(revision.as_deref()).await {
        Ok(RemoveOutcome::Deleted) => LocalLogout::Deleted,
        Ok(RemoveOutcome::Missing) => LocalLogout::Missing,
        Err(StoreError::RevisionConflict { .. }) => LocalLogout::Conflict,
        Err(error) => LocalLogout::Failed(AuthError::from_store(StoreOp::Remove, &error)),
    };
    let revocation = match (&local, record) {
        (LocalLogout::Deleted, Ok(record)) => match revoke(http, clock, config, &record).await {
            Ok(()) => Revocation::Revoked,
            Err(error) => Revocation::Failed(error),
        },
        (LocalLogout::Deleted, Err(error)) => Revocation::Failed(error),
        _ => Revocation::Skipped,
    };
    LogoutReport { local, revocation }
}

/// Revokes the refresh token, then the access token. Both are attempted; the first failure is
/// returned.
async fn revoke<H, C>(
    http: &H,
    clock: &C,
    config: &AuthConfig,
    record: &OAuthRecord,
) -> Result<(), AuthError>
where
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let never = Cancel::new();
    let endpoints = discover(http, clock, &never, &config.issuer).await?;
    let url = endpoints
        .revocation
        .ok_or(AuthError::NoRevocationEndpoint)?;
    let mut first_error = None;
    for (hint, token) in [
        ("refresh_token", &record.refresh_token),
        ("access_token", &record.access_token),
    ] {
        let request = post_form(
            url.clone(),
            &[
                ("client_id", &record.client_id),
                ("token", token.expose()),
                ("token_type_hint", hint),
            ],
        );
        let outcome = match exchange(http, clock, &never, Step::Revocation, request).await {
            Ok(response) if response.status == 200 => Ok(()),
            Ok(response) => Err(AuthError::Rejected {
                step: Step::Revocation,
                status: response.status,
                error: oauth_error_code(&response.body),
            }),
            Err(error) => Err(error),
        };
        if let Err(error) = outcome {
            first_error.get_or_insert(error);
        }
    }
    first_error.map_or(Ok(()), Err)
}

async fn commit<S: OAuthStore + ?Sized>(
    store: &S,
    record: &OAuthRecord,
    expected: Option<&str>,
) -> Result<String, AuthError> {
    let bytes = record.encode()?;
    store
        .oauth_commit(bytes, expected)
        .await
        .map_err(|e| AuthError::from_store(StoreOp::Commit, &e))
}
