//! Where OAuth requests go: the issuer, its discovered endpoints, the teams URL, the client id,
//! and the rule every URL of the issuer follows.
//!
//! Endpoint policy (the reference fixes the issuer but takes production endpoints from discovery
//! unchecked; we pin them):
//!
//! - The issuer is `https://vercel.com`. `FX_E2E_OAUTH_ISSUER_URL` may replace it only with a
//!   loopback origin `http://127.0.0.1:<port>`, `http://localhost:<port>` or
//!   `http://[::1]:<port>` (for tests); anything else is refused.
//! - The discovery document's `issuer` must equal the issuer exactly.
//! - With the production issuer, every discovered endpoint must be `https://` on `vercel.com` or
//!   a subdomain of it (today they live on `api.vercel.com`), default port, no userinfo, no
//!   fragment. With a loopback issuer, every endpoint must be loopback `http` with an explicit
//!   port. A document breaking either rule is refused whole, including an optional
//!   `revocation_endpoint`.

use super::error::{AuthError, Step};
use super::exchange::{exchange, get_json};
use super::json::{object, take_string};
use crate::caps::{Cancel, Clock, Http};
use crate::net::url::{self, Host, Scheme, Url, UrlError};

/// The production issuer.
pub const PRODUCTION_ISSUER: &str = "https://vercel.com";
/// Environment key of the loopback-only issuer override.
pub const ISSUER_OVERRIDE_ENV: &str = "FX_E2E_OAUTH_ISSUER_URL";
/// Environment key of the client id override.
pub const CLIENT_ID_ENV: &str = "FX_OAUTH_CLIENT_ID";
/// fx's public device-flow client id (an identifier, not a secret).
pub const PUBLIC_CLIENT_ID: &str = "cl_zzh5hiOZbwJ9bfqEcYqPIJv3TaPaEYL0";
/// The scope every login asks for.
pub const SCOPE: &str = "openid offline_access";
/// The production teams listing.
pub const PRODUCTION_TEAMS_URL: &str = "https://api.vercel.com/v2/teams";

const DISCOVERY_PATH: &str = "/.well-known/openid-configuration";

/// The OAuth issuer.
///
/// Invariant: `origin` is [`PRODUCTION_ISSUER`] (and `loopback` is false), or a loopback `http`
/// origin with an explicit port and no trailing slash (and `loopback` is true).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer {
    origin: String,
    loopback: bool,
}

impl Issuer {
    /// `https://vercel.com`.
    #[must_use]
    pub fn production() -> Self {
        Self {
            origin: PRODUCTION_ISSUER.to_owned(),
            loopback: false,
        }
    }

    /// The issuer for the value of [`ISSUER_OVERRIDE_ENV`]: production when unset or blank,
    /// otherwise a loopback origin (one trailing `/` is dropped).
    ///
    /// # Errors
    ///
    /// [`AuthError::IssuerOverrideRejected`] for anything that is not a loopback origin.
    pub fn from_override(value: Option<&str>) -> Result<Self, AuthError> {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(Self::production());
        };
        let reject = |reason| AuthError::IssuerOverrideRejected { reason };
        let parts = read_url(value).map_err(reject)?;
        if let Some(problem) = loopback_problem(&parts) {
            return Err(reject(problem));
        }
        if !(parts.query.is_none() && (parts.path.is_empty() || parts.path == "/")) {
            return Err(reject("has a path or query; only an origin is allowed"));
        }
        let port = parts.port.unwrap_or_default();
        let host = parts.host.loopback_name().unwrap_or_default();
        Ok(Self {
            origin: format!("http://{host}:{port}"),
            loopback: true,
        })
    }

    /// The issuer string (`https://vercel.com` or `http://127.0.0.1:8123`).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.origin
    }

    /// True for a loopback test issuer.
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// `<issuer>/.well-known/openid-configuration`.
    #[must_use]
    pub fn discovery_url(&self) -> String {
        format!("{}{DISCOVERY_PATH}", self.origin)
    }

    /// The teams listing: [`PRODUCTION_TEAMS_URL`], or `<issuer>/v2/teams` for loopback.
    #[must_use]
    pub fn teams_url(&self) -> String {
        if self.loopback {
            format!("{}/v2/teams", self.origin)
        } else {
            PRODUCTION_TEAMS_URL.to_owned()
        }
    }

    /// Checks a discovered endpoint against this issuer's rule.
    fn check_endpoint(&self, field: &'static str, value: &str) -> Result<(), AuthError> {
        self.url_problem(value).map_or(Ok(()), |reason| {
            Err(AuthError::EndpointNotAllowed { field, reason })
        })
    }

    /// What is wrong with `value` as a URL of this issuer (a discovered endpoint, a verification
    /// page), or `None`.
    pub(crate) fn url_problem(&self, value: &str) -> Option<&'static str> {
        match read_url(value) {
            Err(problem) => Some(problem),
            Ok(parts) if self.loopback => loopback_problem(&parts),
            Ok(parts) => vercel_problem(&parts),
        }
    }
}

/// Issuer and client id for one host configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthConfig {
    pub issuer: Issuer,
    pub client_id: String,
}

impl AuthConfig {
    /// The production issuer with the public client id.
    #[must_use]
    pub fn production() -> Self {
        Self {
            issuer: Issuer::production(),
            client_id: PUBLIC_CLIENT_ID.to_owned(),
        }
    }

    /// The configuration for the values of [`ISSUER_OVERRIDE_ENV`] and [`CLIENT_ID_ENV`].
    ///
    /// # Errors
    ///
    /// [`AuthError::IssuerOverrideRejected`] when the issuer override is not loopback.
    pub fn from_env(
        issuer_override: Option<&str>,
        client_id: Option<&str>,
    ) -> Result<Self, AuthError> {
        Ok(Self {
            issuer: Issuer::from_override(issuer_override)?,
            client_id: client_id_from_env(client_id),
        })
    }
}

/// The value of [`CLIENT_ID_ENV`] (trimmed) when it is not blank, else [`PUBLIC_CLIENT_ID`].
#[must_use]
pub fn client_id_from_env(value: Option<&str>) -> String {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or(PUBLIC_CLIENT_ID)
        .to_owned()
}

/// The endpoints a discovery document named, checked against the issuer's rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub device_authorization: String,
    pub token: String,
    pub revocation: Option<String>,
}

impl Endpoints {
    /// Reads a discovery document fetched from `issuer`.
    ///
    /// # Errors
    ///
    /// [`AuthError::MalformedResponse`] for a body without the required string members,
    /// [`AuthError::IssuerMismatch`], or [`AuthError::EndpointNotAllowed`].
    pub fn parse(issuer: &Issuer, body: &[u8]) -> Result<Self, AuthError> {
        struct Document {
            issuer: Option<String>,
            device_authorization_endpoint: Option<String>,
            token_endpoint: Option<String>,
            revocation_endpoint: Option<String>,
        }
        let malformed = |reason| AuthError::MalformedResponse {
            step: Step::Discovery,
            reason,
        };
        let not_strings = || malformed("not a JSON object with string endpoint members");
        let mut map = object(body).ok_or_else(not_strings)?;
        let mut member = |key| take_string(&mut map, key).map_err(|()| not_strings());
        let doc = Document {
            issuer: member("issuer")?,
            device_authorization_endpoint: member("device_authorization_endpoint")?,
            token_endpoint: member("token_endpoint")?,
            revocation_endpoint: member("revocation_endpoint")?,
        };
        let named = doc.issuer.ok_or(malformed("issuer is missing"))?;
        if named != issuer.as_str() {
            return Err(AuthError::IssuerMismatch);
        }
        let device_authorization = doc
            .device_authorization_endpoint
            .ok_or(malformed("device_authorization_endpoint is missing"))?;
        let token = doc
            .token_endpoint
            .ok_or(malformed("token_endpoint is missing"))?;
        issuer.check_endpoint("device_authorization_endpoint", &device_authorization)?;
        issuer.check_endpoint("token_endpoint", &token)?;
        if let Some(revocation) = &doc.revocation_endpoint {
            issuer.check_endpoint("revocation_endpoint", revocation)?;
        }
        Ok(Self {
            device_authorization,
            token,
            revocation: doc.revocation_endpoint,
        })
    }
}

/// Fetches and checks the issuer's discovery document.
///
/// # Errors
///
/// Transport failures, a status other than 200, or anything [`Endpoints::parse`] refuses.
pub async fn discover<H, C>(
    http: &H,
    clock: &C,
    cancel: &Cancel,
    issuer: &Issuer,
) -> Result<Endpoints, AuthError>
where
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let request = get_json(issuer.discovery_url(), None);
    let response = exchange(http, clock, cancel, Step::Discovery, request).await?;
    if response.status != 200 {
        return Err(AuthError::Rejected {
            step: Step::Discovery,
            status: response.status,
            error: None,
        });
    }
    Endpoints::parse(issuer, &response.body)
}

/// Reads an OAuth URL with [`crate::net::url`], stricter up front: at most 2048 bytes of
/// visible ASCII, no `#fragment` at all, the scheme spelled `http://` or `https://`; hosts are
/// names of letters, digits, `-` and `.`, or `[::1]`; ports are 1-65535.
fn read_url(text: &str) -> Result<Url<'_>, &'static str> {
    if text.len() > 2048 {
        return Err("longer than 2048 bytes");
    }
    if !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("contains spaces, control or non-ASCII characters");
    }
    if text.contains('#') {
        return Err("has a #fragment");
    }
    if !(text.starts_with("https://") || text.starts_with("http://")) {
        return Err("is not an http:// or https:// URL");
    }
    let parts = url::parse(text).map_err(|error| match error {
        UrlError::Backslash => "contains a backslash",
        UrlError::UnclosedBracket => "has an unclosed [ in its host",
        UrlError::TextAfterBracket => "has text after its bracketed host",
        UrlError::MalformedIpv6 => "uses an IPv6 host other than [::1]",
        UrlError::EmptyHost | UrlError::MalformedHost => "has an empty or malformed host",
        UrlError::PortNotNumber => "has a malformed port",
        UrlError::PortTooLarge => "has a port outside 1-65535",
        UrlError::Empty
        | UrlError::SpaceOrControl
        | UrlError::NoScheme
        | UrlError::MalformedScheme
        | UrlError::OtherScheme
        | UrlError::NoSlashes => "is not an http:// or https:// URL",
    })?;
    if parts.userinfo {
        return Err("carries a user name or password");
    }
    match &parts.host {
        Host::Ipv6(_) if !parts.host.is_loopback() => {
            return Err("uses an IPv6 host other than [::1]")
        }
        Host::Name(name) if name.contains(['_', '~']) => {
            return Err("has an empty or malformed host")
        }
        _ => {}
    }
    if parts.port == Some(0) {
        return Err("has a port outside 1-65535");
    }
    Ok(parts)
}

/// `http://` on 127.0.0.1, localhost or [::1] with an explicit port.
fn loopback_problem(url: &Url<'_>) -> Option<&'static str> {
    if url.scheme == Scheme::Https {
        Some("is https, not plain loopback http")
    } else if !url.host.is_loopback() {
        Some("is not on 127.0.0.1, localhost or [::1]")
    } else if url.port.is_none() {
        Some("has no explicit port")
    } else {
        None
    }
}

/// `https://` on vercel.com or a subdomain of it, on the default port.
fn vercel_problem(url: &Url<'_>) -> Option<&'static str> {
    let on_vercel = match &url.host {
        Host::Name(host) => {
            host == "vercel.com"
                || host.strip_suffix(".vercel.com").is_some_and(|sub| {
                    !sub.is_empty()
                        && sub
                            .split('.')
                            .all(|label| !label.is_empty() && !label.starts_with('-'))
                })
        }
        Host::Ipv6(_) => false,
    };
    if url.scheme != Scheme::Https {
        Some("is not https")
    } else if !on_vercel {
        Some("is not on vercel.com or one of its subdomains")
    } else if url.port.is_some_and(|port| port != 443) {
        Some("uses a port other than 443")
    } else {
        None
    }
}
