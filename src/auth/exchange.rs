//! The OAuth requests: how they are built (a JSON `GET`, a form `POST`), the one exchange every
//! step sends them through (the whole body, at most 64 KiB, within 15 s, over the host's
//! [`Http`] and [`Clock`]), and the OAuth error codes we recognise.

use crate::caps::http::{fetch_whole, ExchangeError, HttpRequest, HttpResponse, Method, WholeBody};
use crate::caps::{Cancel, Clock, Http};

use super::error::{AuthError, Step};

/// Largest response body any OAuth request may return.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// Deadline of each OAuth request.
pub const REQUEST_TIMEOUT_MS: u32 = 15_000;

/// A `GET` asking for JSON, with an optional bearer token.
#[must_use]
pub fn get_json(url: String, bearer: Option<&str>) -> HttpRequest {
    let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
    if let Some(token) = bearer {
        headers.push(("authorization".to_owned(), format!("Bearer {token}")));
    }
    HttpRequest {
        method: Method::Get,
        url,
        headers,
        body: Vec::new(),
    }
}

/// A `POST` of `application/x-www-form-urlencoded` fields.
#[must_use]
pub fn post_form(url: String, fields: &[(&str, &str)]) -> HttpRequest {
    HttpRequest {
        method: Method::Post,
        url,
        headers: vec![
            (
                "content-type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
            ("accept".to_owned(), "application/json".to_owned()),
        ],
        body: form_encode(fields).into_bytes(),
    }
}

/// `application/x-www-form-urlencoded` body: every byte except ASCII letters, digits and
/// `-_.~` is percent-encoded (a space becomes `%20`).
#[must_use]
pub fn form_encode(fields: &[(&str, &str)]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::new();
    for (index, (name, value)) in fields.iter().enumerate() {
        if index > 0 {
            out.push('&');
        }
        for (part_index, part) in [name, value].into_iter().enumerate() {
            if part_index == 1 {
                out.push('=');
            }
            for byte in part.bytes() {
                if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
                    out.push(char::from(byte));
                } else {
                    out.push('%');
                    out.push(char::from(HEX[usize::from(byte >> 4)]));
                    out.push(char::from(HEX[usize::from(byte & 0x0f)]));
                }
            }
        }
    }
    out
}

/// Sends one request for `step`: the whole body within the deadline, at most
/// [`MAX_RESPONSE_BYTES`]; `cancel` stops it (the host's fetch is aborted).
///
/// # Errors
///
/// [`AuthError::Transport`] or [`AuthError::ResponseTooLarge`].
pub(crate) async fn exchange<H, C>(
    http: &H,
    clock: &C,
    cancel: &Cancel,
    step: Step,
    request: HttpRequest,
) -> Result<HttpResponse<WholeBody>, AuthError>
where
    H: Http + ?Sized,
    C: Clock + ?Sized,
{
    let sent = fetch_whole(
        http,
        clock,
        request,
        MAX_RESPONSE_BYTES,
        REQUEST_TIMEOUT_MS,
        cancel,
    )
    .await;
    match sent {
        Ok(response) => Ok(response),
        Err(ExchangeError::TooLarge) => Err(AuthError::ResponseTooLarge { step }),
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
