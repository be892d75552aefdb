//! The stored OAuth record: the bytes handed to `oauthSessionStore`.
//!
//! One JSON object on one line plus a trailing newline, at most 64 KiB, members in this order:
//! `version` (1), `issuer`, `client_id`, `access_token`, `refresh_token`, `expires_at_ms`,
//! `scope`, `token_type` (`Bearer`), then optional `team_slug` and `team_id`. Unknown members
//! are ignored on load; a missing or invalid member makes the whole record unusable, with a
//! [`RecordInvalid`] reason that names the member but never its value.

use std::fmt;

use serde::Serialize;

use super::endpoints::Issuer;
use super::error::AuthError;
pub use super::error::RecordInvalid;
use super::json::{object, take};
use super::secret::{is_token_shaped, Secret};
use super::token::is_scope_shaped;

/// The record format version we write and read.
pub const RECORD_VERSION: u64 = 1;
/// A credential counts as expired this long before its `expires_at_ms`.
pub const EXPIRY_MARGIN_MS: u64 = 60_000;
/// Largest record the store may hold.
pub const MAX_RECORD_BYTES: usize = 64 * 1024;

/// A signed-in Vercel session.
///
/// Invariant for records that came from [`OAuthRecord::decode`] or the login engine: tokens are
/// token-shaped (visible ASCII), `token_type` is `Bearer`, team members are non-empty when
/// present.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthRecord {
    pub issuer: String,
    pub client_id: String,
    pub access_token: Secret,
    pub refresh_token: Secret,
    /// Absolute expiry of the access token, epoch milliseconds.
    pub expires_at_ms: u64,
    pub scope: String,
    pub token_type: String,
    pub team_slug: Option<String>,
    pub team_id: Option<String>,
}

impl fmt::Debug for OAuthRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthRecord")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("access_token", &self.access_token)
            .field("refresh_token", &self.refresh_token)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("scope", &self.scope)
            .field("token_type", &self.token_type)
            .field("team_slug", &self.team_slug)
            .field("team_id", &self.team_id)
            .finish()
    }
}

#[derive(Serialize)]
struct Wire<'a> {
    version: u64,
    issuer: &'a str,
    client_id: &'a str,
    access_token: &'a str,
    refresh_token: &'a str,
    expires_at_ms: u64,
    scope: &'a str,
    token_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    team_slug: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    team_id: Option<&'a str>,
}

struct Raw {
    version: Option<serde_json::Value>,
    issuer: Option<serde_json::Value>,
    client_id: Option<serde_json::Value>,
    access_token: Option<serde_json::Value>,
    refresh_token: Option<serde_json::Value>,
    expires_at_ms: Option<serde_json::Value>,
    scope: Option<serde_json::Value>,
    token_type: Option<serde_json::Value>,
    team_slug: Option<serde_json::Value>,
    team_id: Option<serde_json::Value>,
}

impl OAuthRecord {
    /// The bytes to commit: one line of JSON and a newline.
    ///
    /// # Errors
    ///
    /// [`AuthError::RecordTooLarge`] past 64 KiB.
    pub fn encode(&self) -> Result<Vec<u8>, AuthError> {
        let wire = Wire {
            version: RECORD_VERSION,
            issuer: &self.issuer,
            client_id: &self.client_id,
            access_token: self.access_token.expose(),
            refresh_token: self.refresh_token.expose(),
            expires_at_ms: self.expires_at_ms,
            scope: &self.scope,
            token_type: &self.token_type,
            team_slug: self.team_slug.as_deref(),
            team_id: self.team_id.as_deref(),
        };
        // Serializing a struct of strings and integers cannot fail; map it anyway.
        let mut bytes = serde_json::to_vec(&wire).map_err(|_| AuthError::RecordTooLarge)?;
        bytes.push(b'\n');
        if bytes.len() > MAX_RECORD_BYTES {
            super::secret::wipe(bytes);
            return Err(AuthError::RecordTooLarge);
        }
        Ok(bytes)
    }

    /// Reads stored bytes, accepting only records for `issuer`.
    ///
    /// # Errors
    ///
    /// [`RecordInvalid`] naming the first member that is missing or unusable.
    pub fn decode(bytes: &[u8], issuer: &Issuer) -> Result<Self, RecordInvalid> {
        if bytes.len() > MAX_RECORD_BYTES {
            return Err(RecordInvalid::TooLarge);
        }
        let mut map = object(bytes).ok_or(RecordInvalid::NotJsonObject)?;
        let mut member = |key| take(&mut map, key);
        let raw = Raw {
            version: member("version"),
            issuer: member("issuer"),
            client_id: member("client_id"),
            access_token: member("access_token"),
            refresh_token: member("refresh_token"),
            expires_at_ms: member("expires_at_ms"),
            scope: member("scope"),
            token_type: member("token_type"),
            team_slug: member("team_slug"),
            team_id: member("team_id"),
        };
        if required(raw.version, "version")?.as_u64() != Some(RECORD_VERSION) {
            return Err(RecordInvalid::Version);
        }
        let record_issuer = string(raw.issuer, "issuer")?;
        if record_issuer != issuer.as_str() {
            return Err(RecordInvalid::IssuerNotAllowed);
        }
        let client_id = string(raw.client_id, "client_id")?;
        if !is_token_shaped(&client_id) || client_id.len() > 256 {
            return Err(RecordInvalid::Invalid("client_id"));
        }
        let access_token = token(raw.access_token, "access_token")?;
        let refresh_token = token(raw.refresh_token, "refresh_token")?;
        let expires_at_ms = required(raw.expires_at_ms, "expires_at_ms")?
            .as_u64()
            .ok_or(RecordInvalid::Invalid("expires_at_ms"))?;
        let scope = string(raw.scope, "scope")?;
        if !is_scope_shaped(&scope) {
            return Err(RecordInvalid::Invalid("scope"));
        }
        let token_type = string(raw.token_type, "token_type")?;
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(RecordInvalid::Invalid("token_type"));
        }
        Ok(Self {
            issuer: record_issuer,
            client_id,
            access_token,
            refresh_token,
            expires_at_ms,
            scope,
            token_type: "Bearer".to_owned(),
            team_slug: team(raw.team_slug, "team_slug")?,
            team_id: team(raw.team_id, "team_id")?,
        })
    }

    /// The `x-vercel-ai-gateway-team` value: the team id, else the slug.
    #[must_use]
    pub fn team(&self) -> Option<&str> {
        self.team_id.as_deref().or(self.team_slug.as_deref())
    }

    /// When the access token should be refreshed: one minute before it expires.
    #[must_use]
    pub fn refresh_after_ms(&self) -> u64 {
        self.expires_at_ms.saturating_sub(EXPIRY_MARGIN_MS)
    }

    /// True once `now_ms` reaches [`OAuthRecord::refresh_after_ms`].
    #[must_use]
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.refresh_after_ms() <= now_ms
    }
}

fn required(
    value: Option<serde_json::Value>,
    field: &'static str,
) -> Result<serde_json::Value, RecordInvalid> {
    match value {
        None | Some(serde_json::Value::Null) => Err(RecordInvalid::Missing(field)),
        Some(value) => Ok(value),
    }
}

fn string(value: Option<serde_json::Value>, field: &'static str) -> Result<String, RecordInvalid> {
    match required(value, field)? {
        serde_json::Value::String(text) => Ok(text),
        _ => Err(RecordInvalid::Invalid(field)),
    }
}

fn token(value: Option<serde_json::Value>, field: &'static str) -> Result<Secret, RecordInvalid> {
    let secret = Secret::new(string(value, field)?);
    if is_token_shaped(secret.expose()) {
        Ok(secret)
    } else {
        Err(RecordInvalid::Invalid(field))
    }
}

/// An optional team member: absent, `null` or `""` mean no team; otherwise at most 256 bytes of
/// visible ASCII (it becomes a header value).
fn team(
    value: Option<serde_json::Value>,
    field: &'static str,
) -> Result<Option<String>, RecordInvalid> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(text)) if text.is_empty() => Ok(None),
        Some(serde_json::Value::String(text)) if is_token_shaped(&text) && text.len() <= 256 => {
            Ok(Some(text))
        }
        Some(_) => Err(RecordInvalid::Invalid(field)),
    }
}
