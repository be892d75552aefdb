//! What the login engine needs from its host: an HTTP exchange, a clock and a sleep.
//!
//! The host (`src/host/`) implements these over `fetch` and timers; tests implement them with
//! scripted fakes. Futures need not be `Send`: wasm is single-threaded.

use std::fmt;

use thiserror::Error;

use super::error::{AuthError, Step};
use super::secret::wipe;

/// Largest response body any OAuth request may return. The host should stop reading past it
/// (and answer [`TransportError::TooLarge`]); the engine checks it again.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// Deadline the host applies to each OAuth request.
pub const REQUEST_TIMEOUT_MS: u32 = 15_000;

/// The two methods OAuth needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    /// The method as `fetch` spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One request for the host to send.
///
/// The body (form fields with tokens) and the `authorization` header are secret: `Debug` shows
/// only the body length and the header names.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    /// Lowercase header names with their values, in sending order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The host aborts the request after this long and answers [`TransportError::TimedOut`].
    pub timeout_ms: u32,
}

impl HttpRequest {
    /// A `GET` asking for JSON, with an optional bearer token.
    #[must_use]
    pub fn get_json(url: String, bearer: Option<&str>) -> Self {
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        if let Some(token) = bearer {
            headers.push(("authorization".to_owned(), format!("Bearer {token}")));
        }
        Self {
            method: Method::Get,
            url,
            headers,
            body: Vec::new(),
            timeout_ms: REQUEST_TIMEOUT_MS,
        }
    }

    /// A `POST` of `application/x-www-form-urlencoded` fields.
    #[must_use]
    pub fn post_form(url: String, fields: &[(&str, &str)]) -> Self {
        Self {
            method: Method::Post,
            url,
            headers: vec![
                (
                    "content-type".to_owned(),
                    "application/x-www-form-urlencoded".to_owned(),
                ),
                ("accept".to_owned(), "application/json".to_owned()),
            ],
            body: super::endpoints::form_encode(fields).into_bytes(),
            timeout_ms: REQUEST_TIMEOUT_MS,
        }
    }
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("header_names", &names)
            .field("body_len", &self.body.len())
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl Drop for HttpRequest {
    fn drop(&mut self) {
        wipe(std::mem::take(&mut self.body));
        for (_, value) in std::mem::take(&mut self.headers) {
            wipe(value.into_bytes());
        }
    }
}

/// What came back: the status and the whole body (at most [`MAX_RESPONSE_BYTES`]).
#[derive(Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl Drop for HttpResponse {
    fn drop(&mut self) {
        wipe(std::mem::take(&mut self.body));
    }
}

/// Why the host could not deliver a response.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TransportError {
    /// `fetch` rejected or the body could not be read; the host's short description.
    #[error("network failure ({0})")]
    Failed(String),
    /// The request ran past its `timeout_ms`.
    #[error("no response within the deadline")]
    TimedOut,
    /// The body exceeded [`MAX_RESPONSE_BYTES`].
    #[error("response body larger than 64 KiB")]
    TooLarge,
}

/// Sends HTTP requests for the login engine.
#[allow(async_fn_in_trait)]
pub trait Transport {
    /// Sends `request` and reads the whole response body.
    ///
    /// # Errors
    ///
    /// [`TransportError`] when no complete response arrived. Any HTTP status, including 4xx and
    /// 5xx, is a response, not an error.
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError>;
}

/// Wall-clock time in milliseconds since the Unix epoch.
pub trait Clock {
    fn now_ms(&self) -> u64;
}

/// Any `Fn() -> u64` is a clock (the host can pass `|| js_sys::Date::now() as u64`).
impl<F: Fn() -> u64> Clock for F {
    fn now_ms(&self) -> u64 {
        self()
    }
}

/// Waits, for callers that drive the device flow without a UI tick of their own.
#[allow(async_fn_in_trait)]
pub trait Sleeper {
    async fn sleep(&self, ms: u64);
}

/// Sends one request for `step`, enforcing the body cap.
///
/// # Errors
///
/// [`AuthError::Transport`] or [`AuthError::ResponseTooLarge`].
pub(crate) async fn exchange<T: Transport + ?Sized>(
    transport: &T,
    step: Step,
    request: HttpRequest,
) -> Result<HttpResponse, AuthError> {
    match transport.send(request).await {
        Ok(response) if response.body.len() > MAX_RESPONSE_BYTES => {
            Err(AuthError::ResponseTooLarge { step })
        }
        Ok(response) => Ok(response),
        Err(TransportError::TooLarge) => Err(AuthError::ResponseTooLarge { step }),
        Err(source) => Err(AuthError::Transport { step, source }),
    }
}

/// OAuth error codes we recognise (RFC 6749, RFC 7009, RFC 8628).
const KNOWN_ERROR_CODES: [&str; 14] = [
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "access_denied",
    "server_error",
    "temporarily_unavailable",
    "unsupported_token_type",
    "invalid_token",
    "authorization_pending",
    "slow_down",
    "expired_token",
];

/// The `error` member of an OAuth error body when it is one of the codes we know. Anything else
/// is dropped, so server text (which could echo a token) never reaches our errors.
pub(crate) fn oauth_error_code(body: &[u8]) -> Option<&'static str> {
    let code = super::json::take_string(&mut super::json::object(body)?, "error").ok()??;
    KNOWN_ERROR_CODES.into_iter().find(|known| *known == code)
}
