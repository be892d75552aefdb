//! Token endpoint responses: the checks shared by device login and refresh.

use super::error::{AuthError, Step};
use super::json::{object, take};
use super::secret::{is_token_shaped, Secret};

/// Longest `expires_in` we believe: ten years. Longer values are clamped, never overflowed.
const MAX_EXPIRES_IN_S: u64 = 10 * 365 * 24 * 3600;
/// Longest scope string we keep.
const MAX_SCOPE_BYTES: usize = 4096;

/// A validated successful token response.
#[derive(Debug)]
pub(crate) struct TokenGrant {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    /// Seconds, 1 ..= ten years.
    pub expires_in_s: u64,
    pub scope: Option<String>,
}

impl TokenGrant {
    /// Absolute expiry for a response received at `now_ms`.
    pub fn expires_at_ms(&self, now_ms: u64) -> u64 {
        now_ms.saturating_add(self.expires_in_s.saturating_mul(1000))
    }
}

/// Checks a 200 token response: `token_type` Bearer (any case), a token-shaped `access_token`,
/// integer `expires_in` > 0, an optional token-shaped `refresh_token`, an optional `scope`.
/// `refresh_token` is required when `require_refresh` (login).
pub(crate) fn parse_grant(
    step: Step,
    body: &[u8],
    require_refresh: bool,
) -> Result<TokenGrant, AuthError> {
    struct Raw {
        token_type: Option<serde_json::Value>,
        access_token: Option<serde_json::Value>,
        refresh_token: Option<serde_json::Value>,
        expires_in: Option<serde_json::Value>,
        scope: Option<serde_json::Value>,
    }
    let malformed = |reason| AuthError::MalformedResponse { step, reason };
    let mut map = object(body).ok_or_else(|| malformed("not a JSON object"))?;
    let raw = Raw {
        token_type: take(&mut map, "token_type"),
        access_token: take(&mut map, "access_token"),
        refresh_token: take(&mut map, "refresh_token"),
        expires_in: take(&mut map, "expires_in"),
        scope: take(&mut map, "scope"),
    };
    drop(map);

    match raw.token_type {
        Some(serde_json::Value::String(kind)) if kind.eq_ignore_ascii_case("bearer") => {}
        Some(_) => return Err(malformed("token_type is not Bearer")),
        None => return Err(malformed("token_type is missing")),
    }
    let access_token = match raw.access_token {
        Some(serde_json::Value::String(token)) if is_token_shaped(&token) => Secret::new(token),
        Some(serde_json::Value::String(token)) => {
            let _ = Secret::new(token);
            return Err(malformed(
                "access_token is empty or has characters a header cannot carry",
            ));
        }
        Some(_) => return Err(malformed("access_token is not a string")),
        None => return Err(malformed("access_token is missing")),
    };
    let expires_in_s = match raw.expires_in.as_ref().and_then(serde_json::Value::as_u64) {
        Some(0) => return Err(malformed("expires_in is zero")),
        Some(seconds) => seconds.min(MAX_EXPIRES_IN_S),
        None if raw.expires_in.is_none() => return Err(malformed("expires_in is missing")),
        None => return Err(malformed("expires_in is not a positive integer")),
    };
    let refresh_token = match raw.refresh_token {
        Some(serde_json::Value::String(token)) if is_token_shaped(&token) => {
            Some(Secret::new(token))
        }
        Some(serde_json::Value::String(token)) => {
            let _ = Secret::new(token);
            return Err(malformed(
                "refresh_token is empty or has characters a form cannot carry",
            ));
        }
        None | Some(serde_json::Value::Null) => None,
        Some(_) => return Err(malformed("refresh_token is not a string")),
    };
    if require_refresh && refresh_token.is_none() {
        return Err(AuthError::NoRefreshToken);
    }
    let scope = match raw.scope {
        Some(serde_json::Value::String(scope)) if is_scope_shaped(&scope) => Some(scope),
        Some(serde_json::Value::String(_)) => {
            return Err(malformed("scope is too long or has control characters"))
        }
        None | Some(serde_json::Value::Null) => None,
        Some(_) => return Err(malformed("scope is not a string")),
    };
    Ok(TokenGrant {
        access_token,
        refresh_token,
        expires_in_s,
        scope,
    })
}

/// Space-separated visible ASCII, at most 4 KiB.
pub(crate) fn is_scope_shaped(scope: &str) -> bool {
    scope.len() <= MAX_SCOPE_BYTES && scope.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
}
