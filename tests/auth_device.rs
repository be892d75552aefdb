//! Device login end to end against the scripted transport: discovery, device code, polling
//! outcomes, token validation, teams, and saving the record.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

#[path = "auth_fakes.rs"]
mod fakes;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use fakes::*;
use fx_wasm::auth::device::DEVICE_CODE_GRANT;
use fx_wasm::auth::endpoints::{PUBLIC_CLIENT_ID, SCOPE};
use fx_wasm::auth::{
    save_login, AuthConfig, AuthError, DeviceLogin, Issuer, OAuthRecord, PollOutcome, Step,
    TeamChoice,
};
use fx_wasm::caps::Method;

const T0: u64 = 1_700_000_000_000;

fn device_reply(expires_in: u64, interval: Option<u64>) -> Reply {
    let interval = interval.map_or(String::new(), |i| format!(r#","interval":{i}"#));
    ok(&format!(
        r#"{{"device_code":"{DEVICE_CODE}","user_code":"TEST-CODE","verification_uri":"https://vercel.com/oauth/device","verification_uri_complete":"https://vercel.com/oauth/device?user_code=TEST-CODE","expires_in":{expires_in}{interval}}}"#
    ))
}

fn token_reply() -> Reply {
    ok(&format!(
        r#"{{"access_token":"{ACCESS}","refresh_token":"{REFRESH}","expires_in":3600,"scope":"openid offline_access","token_type":"Bearer"}}"#
    ))
}

/// Transport with discovery and a device code (60 s, interval 1 s), and `token` replies.
fn scripted(token: Vec<Reply>) -> FakeTransport {
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(Method::Post, DEVICE_URL, vec![device_reply(60, Some(1))])
        .on(Method::Post, TOKEN_URL, token);
    transport
}

fn start(transport: &FakeTransport, clock: &FakeClock) -> DeviceLogin {
    block_on(DeviceLogin::start(
        transport,
        clock,
        &never(),
        &AuthConfig::production(),
    ))
    .unwrap()
}

/// Advances to the next due poll and polls.
fn tick(login: &DeviceLogin, transport: &FakeTransport, clock: &FakeClock) -> PollOutcome {
    clock.set(clock.now().max(login.next_poll_at_ms()));
    block_on(login.poll(transport, clock, &never()))
}

#[test]
fn full_sign_in_after_two_pending_polls() {
    let transport = scripted(vec![
        oauth_error("authorization_pending"),
        oauth_error("authorization_pending"),
        token_reply(),
    ]);
    transport.on(Method::Get, TEAMS_URL, vec![ok(r#"{"teams":[]}"#)]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);

    let code = login.code();
    assert_eq!(code.user_code, "TEST-CODE");
    assert_eq!(code.verification_uri, "https://vercel.com/oauth/device");
    assert_eq!(
        code.browser_url(),
        "https://vercel.com/oauth/device?user_code=TEST-CODE"
    );
    assert_eq!(code.expires_at_ms, T0 + 60_000);
    assert_eq!(code.interval_ms, 1_000);

    // Not due yet: nothing is sent.
    let early = block_on(login.poll(&transport, &clock, &never()));
    assert!(
        matches!(early, PollOutcome::NotDue { next_poll_at_ms } if next_poll_at_ms == T0 + 1_000)
    );
    assert_eq!(transport.count(TOKEN_URL), 0);

    for _ in 0..2 {
        let outcome = tick(&login, &transport, &clock);
        assert!(
            matches!(outcome, PollOutcome::Pending { .. }),
            "{outcome:?}"
        );
    }
    let PollOutcome::Authorized(authorized) = tick(&login, &transport, &clock) else {
        panic!("expected authorization");
    };
    assert_eq!(transport.count(TOKEN_URL), 3);
    assert!(matches!(
        block_on(login.poll(&transport, &clock, &never())),
        PollOutcome::AlreadyFinished
    ));
    assert_eq!(transport.count(TOKEN_URL), 3);

    // Requests: discovery GET, device request form, token polls form.
    let device = &transport.requests_to(DEVICE_URL)[0];
    assert_eq!(device.field("client_id"), Some(PUBLIC_CLIENT_ID));
    assert_eq!(device.field("scope"), Some(SCOPE));
    assert_eq!(
        device.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    for poll in transport.requests_to(TOKEN_URL) {
        assert_eq!(poll.field("grant_type"), Some(DEVICE_CODE_GRANT));
        assert_eq!(poll.field("device_code"), Some(DEVICE_CODE));
        assert_eq!(poll.field("client_id"), Some(PUBLIC_CLIENT_ID));
    }
    // Each request (discovery, device, three polls) runs within its 15 s deadline.
    assert_eq!(*clock.deadlines.borrow(), vec![15_000; 5]);

    assert_eq!(authorized.access_token().expose(), ACCESS);
    assert_eq!(authorized.granted_scope(), "openid offline_access");
    let now = clock.now();
    assert_eq!(authorized.expires_at_ms(), now + 3_600_000);
    assert_eq!(
        block_on(authorized.team_choice(&transport, &clock, &never())),
        TeamChoice::NoTeams
    );
    assert_eq!(
        transport.requests_to(TEAMS_URL)[0].header("authorization"),
        Some(format!("Bearer {ACCESS}").as_str())
    );

    let record = authorized.into_record(None);
    let store = FakeStore::new();
    let revision = block_on(save_login(&store, &record)).unwrap();
    assert_eq!(store.revision(), Some(revision));
    assert_eq!(
        *store.calls.borrow(),
        vec![("load", None), ("commit", None)],
        "first commit has no expected revision"
    );
    let bytes = store.bytes().unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert_eq!(text.matches('\n').count(), 1);
    assert!(text.ends_with('\n'));
    let stored = OAuthRecord::decode(&bytes, &Issuer::production()).unwrap();
    assert_eq!(stored, record);
    assert_eq!(stored.expires_at_ms, now + 3_600_000);
    assert_eq!(stored.team(), None);
}

#[test]
fn slow_down_adds_five_seconds() {
    let transport = scripted(vec![
        oauth_error("slow_down"),
        oauth_error("authorization_pending"),
    ]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    let outcome = tick(&login, &transport, &clock);
    assert!(
        matches!(outcome, PollOutcome::SlowDown { interval_ms: 6_000, next_poll_at_ms } if next_poll_at_ms == T0 + 7_000),
        "{outcome:?}"
    );
    assert_eq!(login.interval_ms(), 6_000);
    clock.set(T0 + 6_999);
    assert!(matches!(
        block_on(login.poll(&transport, &clock, &never())),
        PollOutcome::NotDue { .. }
    ));
    assert_eq!(transport.count(TOKEN_URL), 1);
    clock.set(T0 + 7_000);
    assert!(
        matches!(block_on(login.poll(&transport, &clock, &never())), PollOutcome::Pending { next_poll_at_ms } if next_poll_at_ms == T0 + 13_000)
    );
}

#[test]
fn access_denied_ends_the_login() {
    let transport = scripted(vec![oauth_error("access_denied")]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    let outcome = tick(&login, &transport, &clock);
    assert!(matches!(outcome, PollOutcome::Denied));
    assert!(outcome.message().is_some());
    assert!(matches!(
        tick(&login, &transport, &clock),
        PollOutcome::AlreadyFinished
    ));
    assert_eq!(transport.count(TOKEN_URL), 1);
}

#[test]
fn expired_token_from_the_server() {
    let transport = scripted(vec![oauth_error("expired_token")]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    assert!(matches!(
        tick(&login, &transport, &clock),
        PollOutcome::Expired
    ));
}

#[test]
fn local_expiry_stops_polling_without_a_request() {
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(Method::Post, DEVICE_URL, vec![device_reply(3, Some(1))])
        .always(
            Method::Post,
            TOKEN_URL,
            oauth_error("authorization_pending"),
        );
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    for _ in 0..2 {
        assert!(matches!(
            tick(&login, &transport, &clock),
            PollOutcome::Pending { .. }
        ));
    }
    clock.set(T0 + 3_000);
    assert!(matches!(
        block_on(login.poll(&transport, &clock, &never())),
        PollOutcome::Expired
    ));
    assert_eq!(transport.count(TOKEN_URL), 2);
}

#[test]
fn pending_after_the_code_lifetime_counts_as_expired() {
    let transport = scripted(vec![oauth_error("authorization_pending")]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    clock.set(T0 + 59_999);
    // The request goes out just before expiry; the answer arrives after it.
    struct LateClock<'a>(&'a FakeClock);
    impl fx_wasm::caps::Clock for LateClock<'_> {
        fn now_ms(&self) -> i64 {
            let now = self.0.now();
            self.0.set(now + 1);
            now as i64
        }
        async fn sleep(&self, ms: u32) {
            self.0.sleep(ms).await;
        }
        async fn deadline(&self, ms: u32) {
            self.0.deadline(ms).await;
        }
    }
    assert!(matches!(
        block_on(login.poll(&transport, &LateClock(&clock), &never())),
        PollOutcome::Expired
    ));
}

#[test]
fn other_oauth_errors_and_transport_failures_fail() {
    for reply in [
        oauth_error("invalid_client"),
        status(500, "<html>oops</html>"),
        Reply::Hang,
        Reply::Bytes(200, vec![b' '; 64 * 1024 + 1]),
    ] {
        // A request that never answers ends at its deadline.
        let times_out = matches!(reply, Reply::Hang);
        let transport = scripted(vec![reply]);
        let clock = FakeClock::at(T0);
        let login = start(&transport, &clock);
        clock.expire.set(times_out);
        let outcome = tick(&login, &transport, &clock);
        assert!(matches!(outcome, PollOutcome::Failed(_)), "{outcome:?}");
    }
}

#[test]
fn invalid_token_responses_are_refused() {
    type Check = fn(&AuthError) -> bool;
    let cases: [(&str, Check); 9] = [
        (
            r#"{"access_token":"a","refresh_token":"r","expires_in":3600}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("token_type")),
        ),
        (
            r#"{"token_type":"mac","access_token":"a","refresh_token":"r","expires_in":3600}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("Bearer")),
        ),
        (
            r#"{"token_type":"Bearer","refresh_token":"r","expires_in":3600}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("access_token")),
        ),
        (
            r#"{"token_type":"Bearer","access_token":"has space","refresh_token":"r","expires_in":3600}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("access_token")),
        ),
        (
            r#"{"token_type":"Bearer","access_token":"a","refresh_token":"r","expires_in":0}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("zero")),
        ),
        (
            r#"{"token_type":"Bearer","access_token":"a","refresh_token":"r","expires_in":"3600"}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("expires_in")),
        ),
        (
            r#"{"token_type":"Bearer","access_token":"a","refresh_token":"r"}"#,
            |e| matches!(e, AuthError::MalformedResponse { reason, .. } if reason.contains("expires_in")),
        ),
        (
            r#"{"token_type":"Bearer","access_token":"a","expires_in":3600}"#,
            |e| matches!(e, AuthError::NoRefreshToken),
        ),
        ("[1,2]", |e| {
            matches!(
                e,
                AuthError::MalformedResponse {
                    step: Step::DeviceToken,
                    ..
                }
            )
        }),
    ];
    for (body, expected) in cases {
        let transport = scripted(vec![ok(body)]);
        let clock = FakeClock::at(T0);
        let login = start(&transport, &clock);
        match tick(&login, &transport, &clock) {
            PollOutcome::Failed(error) => assert!(expected(&error), "{body}: {error:?}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn bearer_is_case_insensitive_and_scope_optional() {
    let transport = scripted(vec![ok(&format!(
        r#"{{"token_type":"bearer","access_token":"{ACCESS}","refresh_token":"{REFRESH}","expires_in":60}}"#
    ))]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    let PollOutcome::Authorized(authorized) = tick(&login, &transport, &clock) else {
        panic!("expected authorization");
    };
    assert_eq!(authorized.granted_scope(), SCOPE);
    let record = authorized.into_record(None);
    assert_eq!(record.token_type, "Bearer");
    assert_eq!(record.scope, SCOPE);
}

#[test]
fn teams_zero_one_many_and_failure() {
    let clock = FakeClock::at(T0);
    let cases = [
        (ok(r#"{"teams":[]}"#), 0usize),
        (
            ok(r#"{"teams":[{"id":"team_1","slug":"one","name":"One"}]}"#),
            1,
        ),
        (
            ok(
                r#"{"teams":[{"id":"team_1","slug":"one"},{"id":"team_2","slug":"two","name":"Two\u001b[31m"},{"slug":"no-id"},{"id":"bad id","slug":"x"}]}"#,
            ),
            2,
        ),
        (status(403, r#"{"error":"forbidden"}"#), 0),
        (ok(r#"{"nope":1}"#), 0),
    ];
    for (reply, expected) in cases {
        let transport = scripted(vec![token_reply()]);
        transport.on(Method::Get, TEAMS_URL, vec![reply]);
        let login = start(&transport, &clock);
        let PollOutcome::Authorized(authorized) = tick(&login, &transport, &clock) else {
            panic!("expected authorization");
        };
        let choice = block_on(authorized.team_choice(&transport, &clock, &never()));
        match (expected, &choice) {
            (0, TeamChoice::NoTeams) => {}
            (1, TeamChoice::Single(team)) => {
                assert_eq!(
                    (team.id.as_str(), team.slug.as_str(), team.name.as_str()),
                    ("team_1", "one", "One")
                );
                let record = authorized.into_record(Some(team));
                assert_eq!(record.team_id.as_deref(), Some("team_1"));
                assert_eq!(record.team_slug.as_deref(), Some("one"));
                assert_eq!(record.team(), Some("team_1"));
            }
            (2, TeamChoice::Pick(teams)) => {
                assert_eq!(teams.len(), 2);
                assert_eq!(teams[0].name, "one", "name defaults to the slug");
                assert_eq!(
                    teams[1].name, "Two\u{1b}[31m",
                    "kept as listed: the terminal sanitizes what it draws"
                );
            }
            _ => panic!("expected {expected} teams, got {choice:?}"),
        }
    }
}

#[test]
fn custom_client_id_falls_back_once_on_invalid_client() {
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on_form(
            DEVICE_URL,
            "client_id",
            "cl_custom",
            vec![oauth_error("invalid_client")],
        )
        .on_form(
            DEVICE_URL,
            "client_id",
            PUBLIC_CLIENT_ID,
            vec![device_reply(60, None)],
        );
    let clock = FakeClock::at(T0);
    let config = AuthConfig::from_env(None, Some(" cl_custom ")).unwrap();
    assert_eq!(config.client_id, "cl_custom");
    let login = block_on(DeviceLogin::start(&transport, &clock, &never(), &config)).unwrap();
    assert_eq!(login.client_id(), PUBLIC_CLIENT_ID);
    assert_eq!(login.code().interval_ms, 5_000, "interval defaults to 5 s");
    assert_eq!(transport.count(DEVICE_URL), 2);

    // The public id is not retried.
    let transport = FakeTransport::new();
    transport.with_discovery().on(
        Method::Post,
        DEVICE_URL,
        vec![oauth_error("invalid_client")],
    );
    let error = block_on(DeviceLogin::start(
        &transport,
        &clock,
        &never(),
        &AuthConfig::production(),
    ))
    .unwrap_err();
    assert!(matches!(
        &error,
        AuthError::Rejected {
            step: Step::DeviceAuthorization,
            status: 400,
            error: Some("invalid_client")
        }
    ));
    assert_eq!(transport.count(DEVICE_URL), 1);
}

#[test]
fn device_responses_are_checked() {
    let clock = FakeClock::at(T0);
    let bad = [
        r#"{"user_code":"A","verification_uri":"https://vercel.com/d","expires_in":60}"#,
        r#"{"device_code":"d","verification_uri":"https://vercel.com/d","expires_in":60}"#,
        r#"{"device_code":"d","user_code":"A","expires_in":60}"#,
        r#"{"device_code":"d","user_code":"A","verification_uri":"https://vercel.com/d"}"#,
        r#"{"device_code":"d","user_code":"A","verification_uri":"https://vercel.com/d","expires_in":0}"#,
        r#"{"device_code":"d","user_code":"A","verification_uri":"https://evil.example/d","expires_in":60}"#,
        r#"{"device_code":"d","user_code":"A","verification_uri":"https://vercel.com/d","verification_uri_complete":"javascript:alert(1)","expires_in":60}"#,
        r#"{"device_code":"d","user_code":"A\u001b[2J","verification_uri":"https://vercel.com/d","expires_in":60}"#,
        r#"{"device_code":"d","user_code":"A","verification_uri":"https://vercel.com/d","expires_in":60,"interval":-1}"#,
    ];
    for body in bad {
        let transport = FakeTransport::new();
        transport
            .with_discovery()
            .on(Method::Post, DEVICE_URL, vec![ok(body)]);
        let error = block_on(DeviceLogin::start(
            &transport,
            &clock,
            &never(),
            &AuthConfig::production(),
        ))
        .unwrap_err();
        assert!(
            matches!(
                error,
                AuthError::MalformedResponse {
                    step: Step::DeviceAuthorization,
                    ..
                }
            ),
            "{body}: {error:?}"
        );
    }
    // interval 0 is raised to the 1 s minimum
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(Method::Post, DEVICE_URL, vec![device_reply(60, Some(0))]);
    let login = start(&transport, &clock);
    assert_eq!(login.code().interval_ms, 1_000);
}

#[test]
fn cancel_discards_a_token_that_arrives_later() {
    let transport = scripted(vec![token_reply()]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    transport.yield_once.set(true);
    clock.set(login.next_poll_at_ms());
    let cancel = never();
    let mut poll = pin!(login.poll(&transport, &clock, &cancel));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(
        poll.as_mut().poll(&mut cx).is_pending(),
        "the request is in flight"
    );
    assert!(
        matches!(
            block_on(login.poll(&transport, &clock, &never())),
            PollOutcome::NotDue { .. }
        ),
        "no second request while one is in flight"
    );
    login.cancel();
    match poll.as_mut().poll(&mut cx) {
        Poll::Ready(PollOutcome::Cancelled) => {}
        other => panic!(
            "expected Cancelled, got {:?}",
            other.map(|o| format!("{o:?}"))
        ),
    }
    assert!(matches!(
        tick(&login, &transport, &clock),
        PollOutcome::Cancelled
    ));
    assert_eq!(transport.count(TOKEN_URL), 1);
}

#[test]
fn dropping_a_poll_mid_request_lets_the_next_tick_poll_again() {
    let transport = scripted(vec![oauth_error("authorization_pending"), token_reply()]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    transport.yield_once.set(true);
    clock.set(login.next_poll_at_ms());
    {
        let cancel = never();
        let mut poll = pin!(login.poll(&transport, &clock, &cancel));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(poll.as_mut().poll(&mut cx).is_pending());
    }
    assert!(matches!(
        tick(&login, &transport, &clock),
        PollOutcome::Authorized(_)
    ));
    assert_eq!(transport.count(TOKEN_URL), 2);
}

#[test]
fn cancel_before_polling_sends_nothing() {
    let transport = scripted(vec![token_reply()]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    login.cancel();
    let outcome = tick(&login, &transport, &clock);
    assert!(matches!(outcome, PollOutcome::Cancelled));
    assert_eq!(outcome.message(), Some("Sign-in cancelled."));
    assert_eq!(transport.count(TOKEN_URL), 0);
}

#[test]
fn wait_drives_the_flow_with_a_sleeper() {
    let transport = scripted(vec![
        oauth_error("authorization_pending"),
        oauth_error("slow_down"),
        token_reply(),
    ]);
    let clock = FakeClock::at(T0);
    let login = start(&transport, &clock);
    let outcome = block_on(login.wait(&transport, &clock, &never()));
    assert!(matches!(outcome, PollOutcome::Authorized(_)));
    assert_eq!(clock.now(), T0 + 1_000 + 1_000 + 6_000);
}

#[test]
fn discovery_failures_stop_the_start() {
    let clock = FakeClock::at(T0);
    let transport = FakeTransport::new();
    transport.on(Method::Get, DISCOVERY, vec![ok("not json")]);
    assert!(matches!(
        block_on(DeviceLogin::start(
            &transport,
            &clock,
            &never(),
            &AuthConfig::production()
        )),
        Err(AuthError::MalformedResponse {
            step: Step::Discovery,
            ..
        })
    ));
    let transport = FakeTransport::new();
    transport.on(Method::Get, DISCOVERY, vec![status(404, "{}")]);
    assert!(matches!(
        block_on(DeviceLogin::start(
            &transport,
            &clock,
            &never(),
            &AuthConfig::production()
        )),
        Err(AuthError::Rejected {
            step: Step::Discovery,
            status: 404,
            ..
        })
    ));
    let transport = FakeTransport::new();
    transport.on(
        Method::Get,
        DISCOVERY,
        vec![ok(r#"{"issuer":"https://vercel.com","device_authorization_endpoint":"https://evil.example/device","token_endpoint":"https://api.vercel.com/token"}"#)],
    );
    let error = block_on(DeviceLogin::start(
        &transport,
        &clock,
        &never(),
        &AuthConfig::production(),
    ))
    .unwrap_err();
    assert!(matches!(
        error,
        AuthError::EndpointNotAllowed {
            field: "device_authorization_endpoint",
            ..
        }
    ));
    assert_eq!(
        transport.seen.borrow().len(),
        1,
        "nothing is sent to a refused endpoint"
    );
}

#[test]
fn loopback_issuer_runs_the_whole_flow() {
    let issuer = "http://127.0.0.1:4100";
    let transport = FakeTransport::new();
    transport
        .on(
            Method::Get,
            "http://127.0.0.1:4100/.well-known/openid-configuration",
            vec![ok(&format!(
                r#"{{"issuer":"{issuer}","device_authorization_endpoint":"{issuer}/device","token_endpoint":"http://localhost:4100/token","revocation_endpoint":"http://[::1]:4100/revoke"}}"#
            ))],
        )
        .on(
            Method::Post,
            "http://127.0.0.1:4100/device",
            vec![ok(&format!(
                r#"{{"device_code":"{DEVICE_CODE}","user_code":"TEST-CODE","verification_uri":"{issuer}/activate","expires_in":60,"interval":1}}"#
            ))],
        )
        .on(Method::Post, "http://localhost:4100/token", vec![token_reply()])
        .on(Method::Get, "http://127.0.0.1:4100/v2/teams", vec![ok(r#"{"teams":[{"id":"t","slug":"s"}]}"#)]);
    let config = AuthConfig::from_env(Some("http://127.0.0.1:4100/"), None).unwrap();
    let clock = FakeClock::at(T0);
    let login = block_on(DeviceLogin::start(&transport, &clock, &never(), &config)).unwrap();
    let PollOutcome::Authorized(authorized) = tick(&login, &transport, &clock) else {
        panic!("expected authorization");
    };
    let TeamChoice::Single(team) = block_on(authorized.team_choice(&transport, &clock, &never()))
    else {
        panic!("expected one team");
    };
    let record = authorized.into_record(Some(&team));
    assert_eq!(record.issuer, issuer);
    let bytes = record.encode().unwrap();
    assert!(OAuthRecord::decode(&bytes, &config.issuer).is_ok());
    assert!(
        OAuthRecord::decode(&bytes, &Issuer::production()).is_err(),
        "a loopback record is not a production record"
    );
}
