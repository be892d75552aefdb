//! Provider errors: non-200 bodies, retryability, and the retry schedule.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use fx_wasm::gateway::error::{
    backoff_delay, clip_utf8, parse_retry_after, ProviderError, RetryCause, RetryDecision,
    RetryState, MAX_ERROR_BODY_BYTES,
};

#[test]
fn error_body_table() {
    let cases: [(u16, &str, &str); 12] = [
        (
            429,
            r#"{"error":{"code":"rate_limit_exceeded","message":"  Too many requests  ","provider":"openai"}}"#,
            "HTTP 429: Too many requests (provider openai, code rate_limit_exceeded)",
        ),
        (
            400,
            r#"{"error":{"type":"invalid_request_error","message":"bad tool schema","param":{"x":1}}}"#,
            "HTTP 400: bad tool schema (code invalid_request_error)",
        ),
        (
            401,
            r#"{"error":{"message":"Invalid API key"}}"#,
            "HTTP 401: Invalid API key",
        ),
        (
            403,
            r#"{"error":"forbidden for team"}"#,
            "HTTP 403: forbidden for team",
        ),
        (
            404,
            r#"{"message":"model not found","code":"model_not_found"}"#,
            "HTTP 404: model not found (code model_not_found)",
        ),
        (
            502,
            "<html>Bad Gateway</html>\n",
            "HTTP 502: <html>Bad Gateway</html>",
        ),
        (503, "", "HTTP 503: service unavailable"),
        (504, "   \n ", "HTTP 504: gateway timeout"),
        (500, r#"{"error":{}}"#, "HTTP 500: internal server error"),
        (418, "{}", "HTTP 418: request failed"),
        (422, r#"{"detail":[1,2]}"#, r#"HTTP 422: {"detail":[1,2]}"#),
        (409, "\u{fffd}bytes", "HTTP 409: \u{fffd}bytes"),
    ];
    for (status, body, expected) in cases {
        let error = ProviderError::from_http(status, body.as_bytes());
        assert_eq!(error.to_string(), expected, "{status} {body}");
        assert_eq!(error.status(), Some(status));
    }
    let invalid_utf8 = ProviderError::from_http(500, b"\xff\xfeoops");
    assert_eq!(invalid_utf8.to_string(), "HTTP 500: \u{fffd}\u{fffd}oops");
}

#[test]
fn long_bodies_are_clipped_and_huge_ones_refused() {
    let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "ü".repeat(5000));
    let ProviderError::Http { detail, .. } = ProviderError::from_http(400, long.as_bytes()) else {
        panic!()
    };
    assert!(
        detail.len() <= 4096 && detail.len() >= 4094,
        "{}",
        detail.len()
    );
    let huge = vec![b'x'; MAX_ERROR_BODY_BYTES + 1];
    let error = ProviderError::from_http(500, &huge);
    assert_eq!(error, ProviderError::ErrorBodyTooLarge { status: 500 });
    assert_eq!(error.code(), "FX_GATEWAY_ERROR_BODY_TOO_LARGE");
    assert_eq!(clip_utf8("aé", 2), "a");
    assert_eq!(clip_utf8("aé", 3), "aé");
    assert_eq!(clip_utf8("", 0), "");
}

#[test]
fn retryable_statuses() {
    for status in 100..600u16 {
        let error = ProviderError::from_http(status, b"");
        let expected = match status {
            429 => Some(RetryCause::RateLimited),
            408 | 409 | 500 | 502 | 503 | 504 => Some(RetryCause::ProviderUnavailable),
            _ => None,
        };
        assert_eq!(error.retry_cause(), expected, "{status}");
        assert_eq!(error.is_retryable(), expected.is_some(), "{status}");
    }
    let dropped = ProviderError::ConnectionDropped {
        detail: "reset".into(),
    };
    assert!(dropped.is_retryable());
    assert_eq!(dropped.status(), None);
    assert_eq!(dropped.code(), "FX_GATEWAY_CONNECTION");
}

#[test]
fn backoff_schedule() {
    let expected_ms = [
        250, 250, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ];
    for (n, ms) in expected_ms.iter().enumerate() {
        assert_eq!(
            backoff_delay(n as u32),
            Duration::from_millis(*ms),
            "failure {n}"
        );
    }
    assert_eq!(backoff_delay(u32::MAX), Duration::from_secs(30));
}

#[test]
fn retry_after_values() {
    let now = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT
    let cases: [(&str, Option<u64>, Option<Duration>); 12] = [
        ("0", None, Some(Duration::ZERO)),
        ("5", None, Some(Duration::from_secs(5))),
        (" 12 ", None, Some(Duration::from_secs(12))),
        ("31", None, Some(Duration::from_secs(30))),
        (
            "999999999999999999999999",
            None,
            Some(Duration::from_secs(30)),
        ),
        ("-1", None, None),
        ("1.5", None, None),
        ("", None, None),
        (
            "Sun, 06 Nov 1994 08:49:47 GMT",
            Some(now),
            Some(Duration::from_secs(10)),
        ),
        ("Sun, 06 Nov 1994 08:49:47 GMT", None, None),
        (
            "Sun, 06 Nov 1994 08:40:00 GMT",
            Some(now),
            Some(Duration::ZERO),
        ),
        (
            "Sun, 06 Nov 1994 09:49:37 GMT",
            Some(now),
            Some(Duration::from_secs(30)),
        ),
    ];
    for (value, clock, expected) in cases {
        assert_eq!(parse_retry_after(value, clock), expected, "{value:?}");
    }
    for bad in [
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC",
    ] {
        assert_eq!(parse_retry_after(bad, Some(now)), None, "{bad}");
    }
    // A leap-year date after February, checked against a known Unix time.
    assert_eq!(
        parse_retry_after("Fri, 01 Mar 2024 00:00:30 GMT", Some(1_709_251_200)),
        Some(Duration::from_secs(30))
    );
}

#[test]
fn retry_state_table() {
    let mut state = RetryState::new(4);
    assert_eq!(state.attempts(), 1);
    assert_eq!(
        state.on_failure(Some(RetryCause::RateLimited), None),
        RetryDecision::Retry(Duration::from_millis(250))
    );
    assert_eq!(
        state.on_failure(Some(RetryCause::RateLimited), None),
        RetryDecision::Retry(Duration::from_secs(1))
    );
    // A different cause restarts the backoff; Retry-After wins and is capped.
    assert_eq!(
        state.on_failure(
            Some(RetryCause::ProviderUnavailable),
            Some(Duration::from_secs(90))
        ),
        RetryDecision::Retry(Duration::from_secs(30))
    );
    assert_eq!(state.attempts(), 4);
    assert_eq!(
        state.on_failure(Some(RetryCause::ProviderUnavailable), None),
        RetryDecision::Exhausted
    );
    assert_eq!(state.on_failure(None, None), RetryDecision::GiveUp);

    let mut same = RetryState::default();
    let delays: Vec<RetryDecision> = (0..10)
        .map(|_| same.on_failure(Some(RetryCause::ResponseInterrupted), None))
        .collect();
    let ms = |ms: u64| RetryDecision::Retry(Duration::from_millis(ms));
    assert_eq!(
        delays,
        [
            ms(250),
            ms(1_000),
            ms(2_000),
            ms(4_000),
            ms(8_000),
            ms(16_000),
            ms(30_000),
            ms(30_000),
            ms(30_000),
            RetryDecision::Exhausted
        ]
    );
    let mut single = RetryState::new(0);
    assert_eq!(
        single.on_failure(Some(RetryCause::ConnectionDropped), None),
        RetryDecision::Exhausted
    );
}

#[test]
fn prompt_too_long_detail() {
    let error = ProviderError::from_http(413, br#"{"error":{"message":"prompt is too long"}}"#)
        .with_prompt_limits("openai/gpt-5", Some(256_000), Some(32_000));
    assert_eq!(
        error.to_string(),
        "HTTP 413: prompt is too long prompt_too_long=true model=openai/gpt-5 context_window=256000 max_output_tokens=32000"
    );
    let other = ProviderError::from_http(400, b"x").with_prompt_limits("m", None, None);
    assert_eq!(other.to_string(), "HTTP 400: x");
}
