//! OAuth for remote MCP servers (fxbot DESIGN §9.3, the MCP authorization spec): the
//! protected-resource metadata (RFC 9728) and the authorization server's (RFC 8414, else OpenID
//! discovery), dynamic client registration (RFC 7591) or a client-id metadata document, PKCE
//! S256, `state`, the `resource` parameter (RFC 8707), the code exchange and refresh.
//!
//! The flows go through the host's `fetch` and clock like the rest of the client; every answer is
//! outside input (sizes capped, shapes checked) and no token or server text reaches a message.

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::auth::exchange::{form_encode, get_json, post_form, MAX_RESPONSE_BYTES};
use crate::caps::http::{fetch_whole, HttpRequest, Method};
use crate::caps::{Cancel, Clock, Http};

/// Where the authorization server sends the browser back, under the page's origin.
pub const REDIRECT_PATH: &str = "/oauth/callback";
/// How long a sign-in started by `oauth()` waits for its callback.
pub const PENDING_TTL_MS: i64 = 10 * 60 * 1000;
/// Deadline of each request of the flow.
pub const REQUEST_TIMEOUT_MS: u32 = 15_000;
/// A token this close to its expiry is refreshed before use.
pub const REFRESH_MARGIN_MS: i64 = 60_000;

/// Why a sign-in step failed. Messages carry no token and no text the server chose.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    #[error("the MCP server's OAuth metadata could not be read: {0}")]
    Discovery(String),
    #[error("the MCP server's authorization server does not offer PKCE with S256")]
    NoS256,
    #[error("this server needs a pre-registered client: it offers neither dynamic client registration nor client-id metadata documents")]
    NoClient,
    #[error("the client registration failed: {0}")]
    Registration(String),
    #[error("the token request failed: {0}")]
    Token(String),
    #[error("the callback URL is not a sign-in answer: {0}")]
    Callback(String),
    #[error("the authorization server refused the sign-in ({0})")]
    Refused(String),
}

/// What discovery found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// The canonical server URL, the `resource` of every request.
    pub resource: String,
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub client_id_metadata: bool,
    /// The scopes the resource says it supports (space-separated), if any.
    pub scope: Option<String>,
}

/// Tokens of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    pub access: String,
    pub refresh: Option<String>,
    /// Absolute expiry (ms), when the server said.
    pub expires_at_ms: Option<i64>,
}

/// `scheme://host[:port]` and the path of an absolute URL (checked by the caller).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url.get(after_scheme..).and_then(|rest| rest.find('/')) {
        Some(slash) => {
            let at = after_scheme + slash;
            (url.get(..at).unwrap_or(url), url.get(at..).unwrap_or(""))
        }
        None => (url, ""),
    }
}

/// The `resource_metadata` URL of a `WWW-Authenticate: Bearer …` header.
#[must_use]
pub fn resource_metadata_url(www_authenticate: &str) -> Option<String> {
    let at = www_authenticate.find("resource_metadata=")?;
    let rest = www_authenticate.get(at + "resource_metadata=".len()..)?;
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    (value.starts_with("https://") || value.starts_with("http://")).then(|| value.to_owned())
}

/// Where the protected-resource metadata may be: under the server's path, then at the root.
#[must_use]
pub fn resource_metadata_urls(server_url: &str) -> Vec<String> {
    let (origin, path) = split_origin(server_url);
    let path = path.trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// Where an issuer's metadata may be: RFC 8414 (path-inserted), then OpenID discovery (both
/// forms).
#[must_use]
pub fn authorization_server_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = split_origin(issuer.trim_end_matches('/'));
    let mut out = vec![format!(
        "{origin}/.well-known/oauth-authorization-server{path}"
    )];
    out.push(format!("{origin}/.well-known/openid-configuration{path}"));
    if !path.is_empty() {
        out.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    out
}

fn text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && s.len() <= 2048 && !s.chars().any(char::is_control))
        .map(str::to_owned)
}

fn endpoint(map: &Map<String, Value>, key: &str) -> Option<String> {
    text(map, key).filter(|u| is_web_url(u))
}

/// https, or http on a loopback host (the baseUrl rule, as the issuer and its endpoints must
/// follow it).
fn is_web_url(url: &str) -> bool {
    match crate::net::url::parse(url) {
        Ok(parsed) => {
            !parsed.userinfo
                && !parsed.fragment
                && (parsed.scheme == crate::net::url::Scheme::Https || parsed.host.is_loopback())
        }
        Err(_) => false,
    }
}

async fn get_object<H: Http + Clock + ?Sized>(
    host: &H,
    url: &str,
    cancel: &Cancel,
) -> Result<Option<Map<String, Value>>, OAuthError> {
    let response = fetch_whole(
        host,
        host,
        get_json(url.to_owned(), None),
        MAX_RESPONSE_BYTES,
        REQUEST_TIMEOUT_MS,
        cancel,
    )
    .await
    .map_err(|e| OAuthError::Discovery(e.to_string()))?;
    if !(200..300).contains(&response.status) {
        return Ok(None);
    }
    match serde_json::from_slice::<Value>(&response.body) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        _ => Err(OAuthError::Discovery(format!("{url} is not a JSON object"))),
    }
}

/// Finds the resource's authorization server and its endpoints.
///
/// # Errors
/// [`OAuthError::Discovery`] when no metadata answers, [`OAuthError::NoS256`] when the server
/// does not offer S256.
pub async fn discover<H: Http + Clock + ?Sized>(
    host: &H,
    server_url: &str,
    metadata_url: Option<&str>,
    cancel: &Cancel,
) -> Result<Discovered, OAuthError> {
    let mut candidates: Vec<String> = metadata_url.map(str::to_owned).into_iter().collect();
    candidates.extend(resource_metadata_urls(server_url));
    let mut resource_doc = None;
    for url in &candidates {
        if let Some(map) = get_object(host, url, cancel).await? {
            resource_doc = Some(map);
            break;
        }
    }
    let resource_doc = resource_doc.ok_or_else(|| {
        OAuthError::Discovery("the server publishes no protected-resource metadata".into())
    })?;
    let issuer = resource_doc
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|list| list.first())
        .and_then(Value::as_str)
        .filter(|u| is_web_url(u))
        .map(str::to_owned)
        .ok_or_else(|| OAuthError::Discovery("it names no authorization server".into()))?;
    let resource = text(&resource_doc, "resource").unwrap_or_else(|| server_url.to_owned());
    let scope = resource_doc
        .get("scopes_supported")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .filter(|s| crate::auth::token::is_scope_shaped(s) && !s.contains(' '))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty());
    let mut server_doc = None;
    for url in authorization_server_urls(&issuer) {
        if let Some(map) = get_object(host, &url, cancel).await? {
            server_doc = Some(map);
            break;
        }
    }
    let server_doc = server_doc.ok_or_else(|| {
        OAuthError::Discovery("the authorization server publishes no metadata".into())
    })?;
    let s256 = server_doc
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|v| v.as_str() == Some("S256")));
    if !s256 {
        return Err(OAuthError::NoS256);
    }
    let missing = |what: &str| OAuthError::Discovery(format!("it gives no {what}"));
    Ok(Discovered {
        resource,
        issuer,
        authorization_endpoint: endpoint(&server_doc, "authorization_endpoint")
            .ok_or_else(|| missing("authorization_endpoint"))?,
        token_endpoint: endpoint(&server_doc, "token_endpoint")
            .ok_or_else(|| missing("token_endpoint"))?,
        registration_endpoint: endpoint(&server_doc, "registration_endpoint"),
        client_id_metadata: server_doc
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            == Some(true),
        scope,
    })
}

/// Registers a public client for `redirect_uri` (RFC 7591); resolves to its `client_id`.
///
/// # Errors
/// [`OAuthError::Registration`].
pub async fn register<H: Http + Clock + ?Sized>(
    host: &H,
    registration_endpoint: &str,
    redirect_uri: &str,
    cancel: &Cancel,
) -> Result<String, OAuthError> {
    let body = serde_json::json!({
        "client_name": "fxbot",
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    let request = HttpRequest {
        method: Method::Post,
        url: registration_endpoint.to_owned(),
        headers: vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "application/json".to_owned()),
        ],
        body: body.to_string().into_bytes(),
    };
    let response = fetch_whole(
        host,
        host,
        request,
        MAX_RESPONSE_BYTES,
        REQUEST_TIMEOUT_MS,
        cancel,
    )
    .await
    .map_err(|e| OAuthError::Registration(e.to_string()))?;
    if !(200..300).contains(&response.status) {
        return Err(OAuthError::Registration(format!(
            "HTTP {}",
            response.status
        )));
    }
    match serde_json::from_slice::<Value>(&response.body) {
        Ok(Value::Object(map)) => text(&map, "client_id")
            .ok_or_else(|| OAuthError::Registration("the answer has no client_id".into())),
        _ => Err(OAuthError::Registration(
            "the answer is not a JSON object".into(),
        )),
    }
}

/// 32 random bytes as base64url (a PKCE verifier, a `state`).
#[must_use]
pub fn random_token(bytes: &[u8; 32]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The S256 challenge of a verifier.
#[must_use]
pub fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The URL the owner opens to sign in.
#[must_use]
pub fn authorize_url(
    found: &Discovered,
    client_id: &str,
    redirect_uri: &str,
    verifier: &str,
    state: &str,
) -> String {
    let challenge = challenge(verifier);
    let mut fields: Vec<(&str, &str)> = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", redirect_uri),
        ("code_challenge", &challenge),
        ("code_challenge_method", "S256"),
        ("state", state),
        ("resource", &found.resource),
    ];
    if let Some(scope) = &found.scope {
        fields.push(("scope", scope));
    }
    let join = if found.authorization_endpoint.contains('?') {
        '&'
    } else {
        '?'
    };
    format!(
        "{}{join}{}",
        found.authorization_endpoint,
        form_encode(&fields)
    )
}

/// `%XX` and `+` decoded (invalid escapes kept as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(value) = hex {
                    out.push(value);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A callback's `code` and `state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    pub code: String,
    pub state: String,
}

/// Reads the URL the authorization server sent the browser back to.
///
/// # Errors
/// [`OAuthError::Refused`] for an `error` answer (its code when it is one of OAuth's),
/// [`OAuthError::Callback`] without `code` and `state`.
pub fn read_callback(url: &str) -> Result<Callback, OAuthError> {
    let query = url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(q))
        .ok_or_else(|| OAuthError::Callback("it has no query".into()))?;
    let mut code = None;
    let mut state = None;
    let mut error = None;
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        match name {
            "code" => code = Some(value),
            "state" => state = Some(value),
            "error" => error = Some(value),
            _ => {}
        }
    }
    if let Some(error) = error {
        let known = error
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_')
            .then_some(error)
            .filter(|e| e.len() <= 64)
            .unwrap_or_else(|| "an unknown error".to_owned());
        return Err(OAuthError::Refused(known));
    }
    match (code, state) {
        (Some(code), Some(state)) if !code.is_empty() && !state.is_empty() => {
            Ok(Callback { code, state })
        }
        _ => Err(OAuthError::Callback("it lacks code or state".into())),
    }
}

async fn token_request<H: Http + Clock + ?Sized>(
    host: &H,
    token_endpoint: &str,
    fields: &[(&str, &str)],
    now_ms: i64,
    cancel: &Cancel,
) -> Result<Tokens, OAuthError> {
    let response = fetch_whole(
        host,
        host,
        post_form(token_endpoint.to_owned(), fields),
        MAX_RESPONSE_BYTES,
        REQUEST_TIMEOUT_MS,
        cancel,
    )
    .await
    .map_err(|e| OAuthError::Token(e.to_string()))?;
    if !(200..300).contains(&response.status) {
        let code = crate::auth::exchange::oauth_error_code(&response.body).map_or_else(
            || format!("HTTP {}", response.status),
            |c| format!("HTTP {}, {c}", response.status),
        );
        return Err(OAuthError::Token(code));
    }
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&response.body) else {
        return Err(OAuthError::Token("the answer is not a JSON object".into()));
    };
    let kind = map.get("token_type").and_then(Value::as_str).unwrap_or("");
    if !kind.eq_ignore_ascii_case("bearer") {
        return Err(OAuthError::Token("the token is not a Bearer token".into()));
    }
    let token = |key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .filter(|t| crate::auth::secret::is_token_shaped(t))
            .map(str::to_owned)
    };
    let access = token("access_token")
        .ok_or_else(|| OAuthError::Token("the answer has no usable access_token".into()))?;
    let expires_at_ms = map
        .get("expires_in")
        .and_then(Value::as_u64)
        .filter(|s| *s > 0)
        .map(|s| {
            now_ms.saturating_add(i64::try_from(s.min(10 * 365 * 86_400)).unwrap_or(0) * 1000)
        });
    Ok(Tokens {
        access,
        refresh: token("refresh_token"),
        expires_at_ms,
    })
}

/// Exchanges an authorization code (with its PKCE verifier and the `resource`).
///
/// # Errors
/// [`OAuthError::Token`].
#[allow(clippy::too_many_arguments)]
pub async fn exchange_code<H: Http + Clock + ?Sized>(
    host: &H,
    token_endpoint: &str,
    client_id: &str,
    code: &str,
    verifier: &str,
    redirect_uri: &str,
    resource: &str,
    cancel: &Cancel,
) -> Result<Tokens, OAuthError> {
    let fields = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("client_id", client_id),
        ("code_verifier", verifier),
        ("resource", resource),
    ];
    token_request(host, token_endpoint, &fields, host.now_ms(), cancel).await
}

/// Refreshes the tokens (a server that gives no new refresh token keeps the old one).
///
/// # Errors
/// [`OAuthError::Token`].
pub async fn refresh<H: Http + Clock + ?Sized>(
    host: &H,
    token_endpoint: &str,
    client_id: &str,
    refresh_token: &str,
    resource: &str,
    cancel: &Cancel,
) -> Result<Tokens, OAuthError> {
    let fields = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
        ("resource", resource),
    ];
    let mut tokens = token_request(host, token_endpoint, &fields, host.now_ms(), cancel).await?;
    if tokens.refresh.is_none() {
        tokens.refresh = Some(refresh_token.to_owned());
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_locations() {
        assert_eq!(
            resource_metadata_urls("https://mcp.example/v1/mcp"),
            [
                "https://mcp.example/.well-known/oauth-protected-resource/v1/mcp",
                "https://mcp.example/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://127.0.0.1:9"),
            ["http://127.0.0.1:9/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            authorization_server_urls("https://auth.example/tenant"),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant",
                "https://auth.example/.well-known/openid-configuration/tenant",
                "https://auth.example/tenant/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            resource_metadata_url(
                r#"Bearer error="invalid_token", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource""#
            )
            .as_deref(),
            Some("https://mcp.example/.well-known/oauth-protected-resource")
        );
        assert_eq!(resource_metadata_url("Bearer realm=x"), None);
        assert_eq!(
            resource_metadata_url("Bearer resource_metadata=file:///x"),
            None
        );
    }

    #[test]
    fn pkce_is_s256_of_the_verifier() {
        // RFC 7636 appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(random_token(&[0u8; 32]).len(), 43);
    }

    #[test]
    fn the_authorize_url_carries_s256_state_and_resource() {
        let found = Discovered {
            resource: "https://mcp.example/mcp".into(),
            issuer: "https://auth.example".into(),
            authorization_endpoint: "https://auth.example/authorize".into(),
            token_endpoint: "https://auth.example/token".into(),
            registration_endpoint: None,
            client_id_metadata: false,
            scope: Some("issues:read".into()),
        };
        let url = authorize_url(&found, "c1", "http://127.0.0.1:8/oauth/callback", "v", "s1");
        assert!(url.starts_with("https://auth.example/authorize?response_type=code&client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%3A8%2Foauth%2Fcallback&code_challenge="));
        assert!(url.contains("&code_challenge_method=S256&state=s1&resource=https%3A%2F%2Fmcp.example%2Fmcp&scope=issues%3Aread"));
    }

    #[test]
    fn callbacks_are_read_or_refused() {
        assert_eq!(
            read_callback("http://127.0.0.1:8/oauth/callback?code=a%2Bb&state=s1#x"),
            Ok(Callback {
                code: "a+b".into(),
                state: "s1".into()
            })
        );
        assert_eq!(
            read_callback("http://x/cb?error=access_denied&state=s"),
            Err(OAuthError::Refused("access_denied".into()))
        );
        assert_eq!(
            read_callback("http://x/cb?error=%3Cscript%3E"),
            Err(OAuthError::Refused("an unknown error".into()))
        );
        assert!(read_callback("http://x/cb").is_err());
        assert!(read_callback("http://x/cb?code=&state=s").is_err());
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
