//! Provider failures: non-200 responses turned into clear messages, which failures are worth
//! retrying, and the retry schedule (bounded attempts, 250 ms / 1 s / doubling backoff capped at
//! 30 s, `Retry-After` honoured and capped). Pure functions; the caller sleeps.

use std::time::Duration;

use serde_json::Value;
use thiserror::Error;

use crate::Code;

/// Largest non-200 body read as an error body.
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;
/// Longest error detail shown, in bytes.
pub const MAX_ERROR_DETAIL_BYTES: usize = 4096;
/// Attempts per model step (the first try included).
pub const DEFAULT_MAX_ATTEMPTS: u32 = 10;
/// Upper bound of any wait between attempts.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
#[must_use]
pub fn clip_utf8(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while cut > 0 && !text.is_char_boundary(cut) {
        cut = cut.saturating_sub(1);
    }
    text.get(..cut).unwrap_or_default()
}

/// A failed model request.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// A non-200 response.
    #[error("HTTP {status}: {detail}")]
    Http {
        /// Status code.
        status: u16,
        /// Readable detail: message plus provider/code when known (≤ 4096 bytes).
        detail: String,
        /// `error.code` or `error.type`.
        code: Option<String>,
        /// `error.provider`.
        provider: Option<String>,
    },
    /// The error body was larger than [`MAX_ERROR_BODY_BYTES`].
    #[error("HTTP {status}: the error response is larger than 1 MiB")]
    ErrorBodyTooLarge {
        /// Status code.
        status: u16,
    },
    /// The connection failed or dropped before a complete response.
    #[error("the connection to the AI Gateway failed: {detail}")]
    ConnectionDropped {
        /// What the transport reported.
        detail: String,
    },
}

impl ProviderError {
    /// Turns a non-200 response into an error. JSON bodies of the shape
    /// `{"error":{"code"|"type","message","provider"?}}` (or a top-level `message`/`error`
    /// string) give `message (provider P, code C)`; other bodies are shown as trimmed text; an
    /// empty body gives the status's reason phrase.
    #[must_use]
    pub fn from_http(status: u16, body: &[u8]) -> Self {
        if body.len() > MAX_ERROR_BODY_BYTES {
            return Self::ErrorBodyTooLarge { status };
        }
        let (message, code, provider) = match serde_json::from_slice::<Value>(body) {
            Ok(value) => describe_json_error(&value),
            Err(_) => (
                Some(String::from_utf8_lossy(body).trim().to_owned()).filter(|t| !t.is_empty()),
                None,
                None,
            ),
        };
        let mut detail = message.unwrap_or_else(|| reason_phrase(status).to_owned());
        let mut extra = Vec::new();
        if let Some(provider) = &provider {
            extra.push(format!("provider {provider}"));
        }
        if let Some(code) = &code {
            extra.push(format!("code {code}"));
        }
        if !extra.is_empty() {
            detail.push_str(" (");
            detail.push_str(&extra.join(", "));
            detail.push(')');
        }
        Self::Http {
            status,
            detail: clip_utf8(&detail, MAX_ERROR_DETAIL_BYTES).to_owned(),
            code,
            provider,
        }
    }

    /// For HTTP 413, appends `prompt_too_long=true`, the model id and the known limits to the
    /// detail (no automatic shrink-and-retry happens). Other errors are returned unchanged.
    #[must_use]
    pub fn with_prompt_limits(
        self,
        model_id: &str,
        context_window: Option<u64>,
        max_output_tokens: Option<u64>,
    ) -> Self {
        match self {
            Self::Http {
                status: 413,
                detail,
                code,
                provider,
            } => {
                let mut detail = format!("{detail} prompt_too_long=true model={model_id}");
                if let Some(window) = context_window {
                    detail.push_str(&format!(" context_window={window}"));
                }
                if let Some(max) = max_output_tokens {
                    detail.push_str(&format!(" max_output_tokens={max}"));
                }
                Self::Http {
                    status: 413,
                    detail: clip_utf8(&detail, MAX_ERROR_DETAIL_BYTES).to_owned(),
                    code,
                    provider,
                }
            }
            other => other,
        }
    }

    /// The HTTP status, when there was a response.
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Http { status, .. } | Self::ErrorBodyTooLarge { status } => Some(*status),
            Self::ConnectionDropped { .. } => None,
        }
    }

    /// Why a retry would happen, or `None` when it must not be retried (4xx other than
    /// 408/409/429, and anything else not listed).
    #[must_use]
    pub fn retry_cause(&self) -> Option<RetryCause> {
        match self {
            Self::ConnectionDropped { .. } => Some(RetryCause::ConnectionDropped),
            Self::Http { status, .. } | Self::ErrorBodyTooLarge { status } => match status {
                429 => Some(RetryCause::RateLimited),
                408 | 409 | 500 | 502 | 503 | 504 => Some(RetryCause::ProviderUnavailable),
                _ => None,
            },
        }
    }

    /// Whether the failure is worth retrying (408/409/429/500/502/503/504, dropped connections).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        self.retry_cause().is_some()
    }

    /// Stable error code (a failed step reports all three as `FX_GATEWAY_HTTP_ERROR` or
    /// `FX_GATEWAY_NETWORK_ERROR`, see `agent::model::StepError`).
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::Http { .. } => Code::GatewayHttpError,
            Self::ErrorBodyTooLarge { .. } => Code::GatewayErrorBodyTooLarge,
            Self::ConnectionDropped { .. } => Code::GatewayConnection,
        }
    }
}

fn non_empty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn describe_json_error(value: &Value) -> (Option<String>, Option<String>, Option<String>) {
    match value.get("error") {
        Some(inner @ Value::Object(_)) => (
            non_empty(inner.get("message")).or_else(|| non_empty(value.get("message"))),
            non_empty(inner.get("code")).or_else(|| non_empty(inner.get("type"))),
            non_empty(inner.get("provider")),
        ),
        Some(Value::String(text)) => (
            non_empty(value.get("message")).or_else(|| Some(text.trim().to_owned())),
            non_empty(value.get("code")),
            None,
        ),
        _ => (
            non_empty(value.get("message")).or_else(|| {
                let text = value.to_string();
                (text != "null" && text != "{}").then_some(text)
            }),
            non_empty(value.get("code")),
            None,
        ),
    }
}

/// A short reason phrase for statuses the gateway commonly returns.
#[must_use]
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        400 => "bad request",
        401 => "unauthorized",
        402 => "payment required",
        403 => "forbidden",
        404 => "not found",
        408 => "request timeout",
        409 => "conflict",
        413 => "request too large",
        422 => "unprocessable request",
        429 => "rate limited",
        500 => "internal server error",
        502 => "bad gateway",
        503 => "service unavailable",
        504 => "gateway timeout",
        _ => "request failed",
    }
}

/// What kind of failure a retry answers; a change of cause restarts the backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryCause {
    /// HTTP 429.
    RateLimited,
    /// HTTP 408/409/5xx, or `finish` with `error`.
    ProviderUnavailable,
    /// The response stream ended without `finish`.
    ResponseInterrupted,
    /// The connection failed or dropped.
    ConnectionDropped,
}

/// The implicit backoff for the `n`th consecutive failure of one cause (1-based): 250 ms, 1 s,
/// then doubling (2, 4, 8, 16 s) capped at 30 s.
#[must_use]
pub fn backoff_delay(consecutive_failures: u32) -> Duration {
    match consecutive_failures {
        0 | 1 => Duration::from_millis(250),
        n => {
            let exponent = n.saturating_sub(2).min(16);
            let seconds = 1u64.checked_shl(exponent).unwrap_or(u64::MAX);
            Duration::from_secs(seconds).min(MAX_RETRY_DELAY)
        }
    }
}

/// Parses a `Retry-After` value: delay seconds, or an IMF-fixdate HTTP-date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) relative to `now_unix_seconds`. The result is capped at
/// 30 s; a date in the past gives zero. `None` when unreadable (or a date without a clock).
#[must_use]
pub fn parse_retry_after(value: &str, now_unix_seconds: Option<u64>) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value.parse::<u64>().unwrap_or(u64::MAX);
        return Some(Duration::from_secs(seconds).min(MAX_RETRY_DELAY));
    }
    let target = parse_http_date(value)?;
    let now = now_unix_seconds?;
    Some(Duration::from_secs(target.saturating_sub(now)).min(MAX_RETRY_DELAY))
}

/// Parses an IMF-fixdate into Unix seconds.
fn parse_http_date(text: &str) -> Option<u64> {
    let rest = text.split_once(", ")?.1;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: u64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = u64::try_from(MONTHS.iter().position(|m| m == month)?)
        .ok()?
        .checked_add(1)?;
    let year: u64 = year.parse().ok().filter(|y| *y >= 1970 && *y < 10_000)?;
    let clock: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    let [hour, minute, second] = clock.as_slice() else {
        return None;
    };
    if *hour > 23 || *minute > 59 || *second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day)?;
    days.checked_mul(86_400)?
        .checked_add(hour * 3600 + minute * 60 + second)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (year ≥ 1970).
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let y = if month <= 2 {
        year.checked_sub(1)?
    } else {
        year
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let shifted_month = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * shifted_month + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Stop: the failure is not retryable.
    GiveUp,
    /// Stop: the attempt budget is spent (the turn pauses; "continue later").
    Exhausted,
}

/// Per-step retry bookkeeping.
///
/// Invariant: `attempts` counts attempts made so far (≥ 1 once the first request is sent);
/// `streak` counts consecutive failures of `last_cause`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryState {
    max_attempts: u32,
    attempts: u32,
    streak: u32,
    last_cause: Option<RetryCause>,
}

impl Default for RetryState {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_ATTEMPTS)
    }
}

impl RetryState {
    /// A fresh state allowing `max_attempts` attempts (0 is treated as 1).
    #[must_use]
    pub fn new(max_attempts: u32) -> Self {
        Self {
            max_attempts: max_attempts.max(1),
            attempts: 1,
            streak: 0,
            last_cause: None,
        }
    }

    /// Attempts made so far, the first included.
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Records a failed attempt and decides. `cause` is `None` for a failure that must not be
    /// retried; `retry_after` (already parsed) replaces the implicit backoff when present.
    pub fn on_failure(
        &mut self,
        cause: Option<RetryCause>,
        retry_after: Option<Duration>,
    ) -> RetryDecision {
        let Some(cause) = cause else {
            return RetryDecision::GiveUp;
        };
        if self.attempts >= self.max_attempts {
            return RetryDecision::Exhausted;
        }
        self.streak = if self.last_cause == Some(cause) {
            self.streak.saturating_add(1)
        } else {
            1
        };
        self.last_cause = Some(cause);
        self.attempts = self.attempts.saturating_add(1);
        let delay =
            retry_after.map_or_else(|| backoff_delay(self.streak), |d| d.min(MAX_RETRY_DELAY));
        RetryDecision::Retry(delay)
    }
}
