//! Endpoint rules, the record format, form encoding, and the promise that tokens never show up
//! in any `Debug` or `Display` output.

#[path = "auth_fakes.rs"]
mod fakes;

use fakes::*;
use fx_wasm::auth::endpoints::{client_id_from_env, PUBLIC_CLIENT_ID};
use fx_wasm::auth::exchange::{form_encode, get_json, post_form};
use fx_wasm::auth::{
    logout, resolve_credential, AuthConfig, AuthError, Credential, DeviceLogin, Endpoints, Issuer,
    OAuthRecord, PollOutcome, RecordInvalid, Secret, Step, StoreOp, Team, TeamChoice,
};
use fx_wasm::caps::http::ExchangeError;
use fx_wasm::caps::http::WholeBody;
use fx_wasm::caps::{HttpResponse, Method};
use proptest::prelude::*;

#[test]
fn issuer_override_accepts_only_loopback_origins() {
    assert_eq!(Issuer::from_override(None).unwrap(), Issuer::production());
    assert_eq!(
        Issuer::from_override(Some("  ")).unwrap(),
        Issuer::production()
    );
    for (value, normalized) in [
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
        ("http://127.0.0.1:8123/", "http://127.0.0.1:8123"),
        ("http://LOCALHOST:1", "http://localhost:1"),
        ("http://[::1]:65535", "http://[::1]:65535"),
    ] {
        let issuer = Issuer::from_override(Some(value)).unwrap();
        assert_eq!(issuer.as_str(), normalized);
        assert!(issuer.is_loopback());
        assert_eq!(issuer.teams_url(), format!("{normalized}/v2/teams"));
        assert_eq!(
            issuer.discovery_url(),
            format!("{normalized}/.well-known/openid-configuration")
        );
    }
    for value in [
        "https://vercel.com",
        "https://127.0.0.1:8123",
        "http://127.0.0.1",
        "http://127.0.0.1:0",
        "http://127.0.0.1:99999",
        "http://127.0.0.1:8123/path",
        "http://127.0.0.1:8123?x=1",
        "http://127.0.0.1:8123#frag",
        "http://user@127.0.0.1:8123",
        "http://127.0.0.2:8123",
        "http://[::2]:8123",
        "http://localhost.evil.com:8123",
        "http://example.com:8123",
        "ftp://127.0.0.1:21",
        "http://127.0.0.1: 80",
        "127.0.0.1:8123",
    ] {
        let error = Issuer::from_override(Some(value)).unwrap_err();
        assert!(
            matches!(error, AuthError::IssuerOverrideRejected { .. }),
            "{value}: {error:?}"
        );
        assert_eq!(error.code(), "FX_OAUTH_ISSUER_OVERRIDE_REJECTED");
    }
    let production = Issuer::production();
    assert_eq!(production.as_str(), "https://vercel.com");
    assert_eq!(production.teams_url(), "https://api.vercel.com/v2/teams");
    assert!(!production.is_loopback());
}

#[test]
fn client_id_comes_from_env_unless_blank() {
    assert_eq!(client_id_from_env(None), PUBLIC_CLIENT_ID);
    assert_eq!(client_id_from_env(Some("")), PUBLIC_CLIENT_ID);
    assert_eq!(client_id_from_env(Some(" \t")), PUBLIC_CLIENT_ID);
    assert_eq!(client_id_from_env(Some("cl_mine")), "cl_mine");
    assert_eq!(AuthConfig::production().client_id, PUBLIC_CLIENT_ID);
}

fn doc(issuer: &str, device: &str, token: &str, revocation: Option<&str>) -> String {
    let revocation = revocation.map_or(String::new(), |r| {
        format!(r#","revocation_endpoint":"{r}""#)
    });
    format!(
        r#"{{"issuer":"{issuer}","device_authorization_endpoint":"{device}","token_endpoint":"{token}"{revocation}}}"#
    )
}

#[test]
fn production_discovery_is_pinned_to_vercel_https() {
    let issuer = Issuer::production();
    let good = doc(ISSUER, DEVICE_URL, TOKEN_URL, Some(REVOKE_URL));
    let endpoints = Endpoints::parse(&issuer, good.as_bytes()).unwrap();
    assert_eq!(endpoints.device_authorization, DEVICE_URL);
    assert_eq!(endpoints.token, TOKEN_URL);
    assert_eq!(endpoints.revocation.as_deref(), Some(REVOKE_URL));
    let apex = doc(
        ISSUER,
        "https://vercel.com/device",
        "https://VERCEL.com:443/token",
        None,
    );
    assert_eq!(
        Endpoints::parse(&issuer, apex.as_bytes())
            .unwrap()
            .revocation,
        None
    );

    for bad_issuer in [
        "https://vercel.com/",
        "http://vercel.com",
        "https://api.vercel.com",
    ] {
        let body = doc(bad_issuer, DEVICE_URL, TOKEN_URL, None);
        assert_eq!(
            Endpoints::parse(&issuer, body.as_bytes()),
            Err(AuthError::IssuerMismatch)
        );
    }
    for bad in [
        "http://api.vercel.com/token",
        "https://evil.example/token",
        "https://api.vercel.com.evil.example/token",
        "https://evilvercel.com/token",
        "https://vercel.com.evil/token",
        "https://api.vercel.com:8443/token",
        "https://user:pw@api.vercel.com/token",
        "https://api.vercel.com/token#x",
        "https://.vercel.com/token",
        "https://a..vercel.com/token",
        "https://[::1]/token",
        "http://127.0.0.1:80/token",
        "//api.vercel.com/token",
        "https://api.vercel.com/tok en",
    ] {
        for (device, token, revocation, field) in [
            (bad, TOKEN_URL, None, "device_authorization_endpoint"),
            (DEVICE_URL, bad, None, "token_endpoint"),
            (DEVICE_URL, TOKEN_URL, Some(bad), "revocation_endpoint"),
        ] {
            let body = doc(ISSUER, device, token, revocation);
            match Endpoints::parse(&issuer, body.as_bytes()) {
                Err(AuthError::EndpointNotAllowed { field: f, .. }) => {
                    assert_eq!(f, field, "{bad}")
                }
                other => panic!("{bad} as {field}: {other:?}"),
            }
        }
    }
    for missing in [
        r#"{"device_authorization_endpoint":"https://vercel.com/d","token_endpoint":"https://vercel.com/t"}"#,
        r#"{"issuer":"https://vercel.com","token_endpoint":"https://vercel.com/t"}"#,
        r#"{"issuer":"https://vercel.com","device_authorization_endpoint":"https://vercel.com/d"}"#,
        r#"{"issuer":"https://vercel.com","device_authorization_endpoint":1,"token_endpoint":"https://vercel.com/t"}"#,
        "null",
    ] {
        assert!(
            matches!(
                Endpoints::parse(&issuer, missing.as_bytes()),
                Err(AuthError::MalformedResponse {
                    step: Step::Discovery,
                    ..
                })
            ),
            "{missing}"
        );
    }
}

#[test]
fn loopback_discovery_must_stay_on_loopback() {
    let issuer = Issuer::from_override(Some("http://127.0.0.1:9000")).unwrap();
    let good = doc(
        "http://127.0.0.1:9000",
        "http://127.0.0.1:9000/device",
        "http://localhost:9001/token",
        Some("http://[::1]:9002/revoke"),
    );
    assert!(Endpoints::parse(&issuer, good.as_bytes()).is_ok());
    for bad in [
        TOKEN_URL,
        "http://127.0.0.1/token",
        "https://127.0.0.1:9000/token",
        "http://10.0.0.1:9000/token",
    ] {
        let body = doc(
            "http://127.0.0.1:9000",
            "http://127.0.0.1:9000/device",
            bad,
            None,
        );
        assert!(
            matches!(
                Endpoints::parse(&issuer, body.as_bytes()),
                Err(AuthError::EndpointNotAllowed {
                    field: "token_endpoint",
                    ..
                })
            ),
            "{bad}"
        );
    }
    // A production document served by the loopback issuer is refused too.
    let production = doc(ISSUER, DEVICE_URL, TOKEN_URL, None);
    assert_eq!(
        Endpoints::parse(&issuer, production.as_bytes()),
        Err(AuthError::IssuerMismatch)
    );
}

#[test]
fn form_encoding_escapes_everything_but_unreserved() {
    assert_eq!(
        form_encode(&[("grant_type", "urn:ietf:params:oauth:grant-type:device_code")]),
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"
    );
    assert_eq!(
        form_encode(&[("scope", "openid offline_access")]),
        "scope=openid%20offline_access"
    );
    assert_eq!(
        form_encode(&[("a", "AZaz09-_.~"), ("b", "&=+%")]),
        "a=AZaz09-_.~&b=%26%3D%2B%25"
    );
    assert_eq!(form_encode(&[]), "");
}

fn sample_record() -> OAuthRecord {
    OAuthRecord {
        issuer: ISSUER.into(),
        client_id: PUBLIC_CLIENT_ID.into(),
        access_token: Secret::new(ACCESS.into()),
        refresh_token: Secret::new(REFRESH.into()),
        expires_at_ms: 1_700_003_600_000,
        scope: "openid offline_access".into(),
        token_type: "Bearer".into(),
        team_slug: Some("acme".into()),
        team_id: Some("team_123".into()),
    }
}

#[test]
fn record_bytes_are_one_line_in_a_fixed_order() {
    let bytes = sample_record().encode().unwrap();
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        format!(
            "{{\"version\":1,\"issuer\":\"https://vercel.com\",\"client_id\":\"{PUBLIC_CLIENT_ID}\",\
             \"access_token\":\"{ACCESS}\",\"refresh_token\":\"{REFRESH}\",\
             \"expires_at_ms\":1700003600000,\"scope\":\"openid offline_access\",\
             \"token_type\":\"Bearer\",\"team_slug\":\"acme\",\"team_id\":\"team_123\"}}\n"
        )
    );
    assert_eq!(
        OAuthRecord::decode(&bytes, &Issuer::production()).unwrap(),
        sample_record()
    );
    let mut no_team = sample_record();
    no_team.team_slug = None;
    no_team.team_id = None;
    let text = String::from_utf8(no_team.encode().unwrap()).unwrap();
    assert!(!text.contains("team"));
    assert_eq!(
        record_json(ACCESS, REFRESH, 1).as_bytes().last(),
        Some(&b'\n')
    );
}

#[test]
fn record_rejections_name_the_field() {
    let base: serde_json::Value =
        serde_json::from_slice(&sample_record().encode().unwrap()).unwrap();
    let with = |key: &str, value: serde_json::Value| {
        let mut v = base.clone();
        v[key] = value;
        serde_json::to_vec(&v).unwrap()
    };
    let without = |key: &str| {
        let mut v = base.clone();
        v.as_object_mut().unwrap().remove(key);
        serde_json::to_vec(&v).unwrap()
    };
    let issuer = Issuer::production();
    let cases: Vec<(Vec<u8>, RecordInvalid)> = vec![
        (b"not json".to_vec(), RecordInvalid::NotJsonObject),
        (b"[]".to_vec(), RecordInvalid::NotJsonObject),
        (vec![b' '; 64 * 1024 + 1], RecordInvalid::TooLarge),
        (with("version", 2.into()), RecordInvalid::Version),
        (with("version", "1".into()), RecordInvalid::Version),
        (without("version"), RecordInvalid::Missing("version")),
        (
            with("issuer", "https://evil.example".into()),
            RecordInvalid::IssuerNotAllowed,
        ),
        (without("issuer"), RecordInvalid::Missing("issuer")),
        (without("client_id"), RecordInvalid::Missing("client_id")),
        (
            with("client_id", "".into()),
            RecordInvalid::Invalid("client_id"),
        ),
        (
            without("access_token"),
            RecordInvalid::Missing("access_token"),
        ),
        (
            with("access_token", "a b".into()),
            RecordInvalid::Invalid("access_token"),
        ),
        (
            with("access_token", 5.into()),
            RecordInvalid::Invalid("access_token"),
        ),
        (
            with("refresh_token", serde_json::Value::Null),
            RecordInvalid::Missing("refresh_token"),
        ),
        (
            with("refresh_token", "x\ny".into()),
            RecordInvalid::Invalid("refresh_token"),
        ),
        (
            with("expires_at_ms", (-1).into()),
            RecordInvalid::Invalid("expires_at_ms"),
        ),
        (
            with("expires_at_ms", 1.5.into()),
            RecordInvalid::Invalid("expires_at_ms"),
        ),
        (
            without("expires_at_ms"),
            RecordInvalid::Missing("expires_at_ms"),
        ),
        (without("scope"), RecordInvalid::Missing("scope")),
        (
            with("scope", "a\u{7}".into()),
            RecordInvalid::Invalid("scope"),
        ),
        (
            with("token_type", "MAC".into()),
            RecordInvalid::Invalid("token_type"),
        ),
        (without("token_type"), RecordInvalid::Missing("token_type")),
        (with("team_id", 7.into()), RecordInvalid::Invalid("team_id")),
        (
            with("team_slug", "a b".into()),
            RecordInvalid::Invalid("team_slug"),
        ),
    ];
    for (bytes, expected) in cases {
        assert_eq!(
            OAuthRecord::decode(&bytes, &issuer),
            Err(expected),
            "{}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        );
    }
    // Empty or null team members mean no team; unknown members are ignored.
    let mut v = base.clone();
    v["team_id"] = "".into();
    v["team_slug"] = serde_json::Value::Null;
    v["future_member"] = true.into();
    let record = OAuthRecord::decode(&serde_json::to_vec(&v).unwrap(), &issuer).unwrap();
    assert_eq!((record.team_id, record.team_slug), (None, None));
    // The slug is the team when there is no id.
    let record = OAuthRecord::decode(&without("team_id"), &issuer).unwrap();
    assert_eq!(record.team(), Some("acme"));
    // Lowercase bearer is read back as Bearer.
    let record = OAuthRecord::decode(&with("token_type", "bearer".into()), &issuer).unwrap();
    assert_eq!(record.token_type, "Bearer");
}

#[test]
fn records_too_large_to_store_are_refused() {
    let mut record = sample_record();
    record.scope = "s".repeat(64 * 1024);
    assert_eq!(record.encode(), Err(AuthError::RecordTooLarge));
}

#[test]
fn expiry_margin_is_one_minute() {
    let record = sample_record();
    assert_eq!(record.refresh_after_ms(), record.expires_at_ms - 60_000);
    assert!(!record.is_expired(record.expires_at_ms - 60_001));
    assert!(record.is_expired(record.expires_at_ms - 60_000));
    let mut early = sample_record();
    early.expires_at_ms = 10;
    assert!(early.is_expired(0), "no underflow near zero");
}

/// Every error variant, every value type that can hold a token, and everything a full sign-in,
/// refresh and logout produce: formatted with `{:?}` and (where implemented) `{}`, none may
/// contain a token.
#[test]
fn tokens_never_appear_in_debug_or_display() {
    let mut texts: Vec<String> = Vec::new();
    let errors = [
        AuthError::IssuerOverrideRejected { reason: "x" },
        AuthError::Transport {
            step: Step::Refresh,
            source: ExchangeError::Failed("net".into()),
        },
        AuthError::Transport {
            step: Step::Teams,
            source: ExchangeError::TimedOut,
        },
        AuthError::ResponseTooLarge {
            step: Step::DeviceToken,
        },
        AuthError::Rejected {
            step: Step::Revocation,
            status: 400,
            error: Some("invalid_grant"),
        },
        AuthError::Rejected {
            step: Step::Discovery,
            status: 500,
            error: None,
        },
        AuthError::MalformedResponse {
            step: Step::DeviceAuthorization,
            reason: "x",
        },
        AuthError::IssuerMismatch,
        AuthError::EndpointNotAllowed {
            field: "token_endpoint",
            reason: "x",
        },
        AuthError::NoRevocationEndpoint,
        AuthError::NoRefreshToken,
        AuthError::Store {
            op: StoreOp::Commit,
            message: "m".into(),
        },
        AuthError::RevisionConflict,
        AuthError::NoSession,
        AuthError::InvalidSession(RecordInvalid::Missing("access_token")),
        AuthError::RecordTooLarge,
    ];
    let mut codes = std::collections::HashSet::new();
    for error in &errors {
        texts.push(format!("{error:?} {error} {}", error.code()));
        assert!(error.code().as_str().starts_with("FX_OAUTH_"));
        codes.insert(error.code());
        let _ = error.is_retryable();
    }
    assert_eq!(codes.len(), 14, "one code per variant");
    texts.push(format!("{CONFLICT:?} {CONFLICT}"));

    let record = sample_record();
    texts.push(format!("{record:?} {record:#?}"));
    let credential = Credential::from_record(&record);
    texts.push(format!("{credential:?}"));
    texts.push(format!("{:?}", Secret::new(ACCESS.into())));
    let request = post_form(
        TOKEN_URL.into(),
        &[("refresh_token", REFRESH), ("device_code", DEVICE_CODE)],
    );
    texts.push(format!("{request:?}"));
    texts.push(format!("{:?}", get_json(TEAMS_URL.into(), Some(ACCESS))));
    texts.push(format!(
        "{:?}",
        HttpResponse {
            status: 200,
            retry_after: None,
            content_type: None,
            mcp_session_id: None,
            www_authenticate: None,
            body: WholeBody::new(format!(r#"{{"access_token":"{ACCESS}"}}"#).into_bytes())
        }
    ));

    // A whole sign-in: the login, every poll outcome, the authorization, the record.
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(
            Method::Post,
            DEVICE_URL,
            vec![ok(&format!(
                r#"{{"device_code":"{DEVICE_CODE}","user_code":"TEST-CODE","verification_uri":"https://vercel.com/oauth/device","expires_in":60,"interval":1}}"#
            ))],
        )
        .on(
            Method::Post,
            TOKEN_URL,
            vec![
                oauth_error("authorization_pending"),
                ok(&format!(
                    r#"{{"access_token":"{ACCESS}","refresh_token":"{REFRESH}","expires_in":3600,"token_type":"Bearer"}}"#
                )),
                ok(&format!(
                    r#"{{"access_token":"{ACCESS2}","refresh_token":"{REFRESH2}","expires_in":3600,"token_type":"Bearer"}}"#
                )),
            ],
        )
        .on(Method::Get, TEAMS_URL, vec![ok(r#"{"teams":[{"id":"t1","slug":"a"},{"id":"t2","slug":"b"}]}"#)])
        .always(Method::Post, REVOKE_URL, status(400, r#"{"error":"unsupported_token_type"}"#));
    let clock = FakeClock::at(1_700_000_000_000);
    let config = AuthConfig::production();
    let login = block_on(DeviceLogin::start(&transport, &clock, &never(), &config)).unwrap();
    texts.push(format!("{login:?} {:?}", login.code()));
    let authorized = loop {
        clock.set(login.next_poll_at_ms());
        let outcome = block_on(login.poll(&transport, &clock, &never()));
        texts.push(format!("{outcome:?} {:?}", outcome.message()));
        if let PollOutcome::Authorized(authorized) = outcome {
            break authorized;
        }
    };
    texts.push(format!("{authorized:?}"));
    let choice = block_on(authorized.team_choice(&transport, &clock, &never()));
    texts.push(format!("{choice:?}"));
    let TeamChoice::Pick(teams) = choice else {
        panic!("expected a pick")
    };
    let team: &Team = &teams[1];
    let record = authorized.into_record(Some(team));
    texts.push(format!("{record:?}"));
    let store = FakeStore::new();
    block_on(fx_wasm::auth::save_login(&store, &record)).unwrap();

    clock.set(record.expires_at_ms);
    let resolution = block_on(resolve_credential(&store, &transport, &clock, &config)).unwrap();
    texts.push(format!("{resolution:?}"));
    let loaded = block_on(fx_wasm::auth::load_login(&store, &config.issuer)).unwrap();
    texts.push(format!("{loaded:?}"));
    let report = block_on(logout(&store, &transport, &clock, &config));
    texts.push(format!(
        "{report:?} {} {:?}",
        report.local.message(),
        report.revocation.warning()
    ));

    // Failures carrying server bodies must not echo them either.
    let leaky = FakeTransport::new();
    leaky.with_discovery().on(
        Method::Post,
        DEVICE_URL,
        vec![status(
            400,
            &format!(r#"{{"error":"{ACCESS}","error_description":"{REFRESH}"}}"#),
        )],
    );
    let error = block_on(DeviceLogin::start(&leaky, &clock, &never(), &config)).unwrap_err();
    texts.push(format!("{error:?} {error}"));

    for text in &texts {
        assert_no_secret(text);
    }
    assert!(texts.iter().any(|t| t.contains("[redacted]")));
}

proptest! {
    #[test]
    fn record_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = OAuthRecord::decode(&bytes, &Issuer::production());
    }

    #[test]
    fn urls_never_panic(text in "\\PC{0,80}") {
        let _ = Issuer::from_override(Some(&text));
        let body = doc(ISSUER, &text.replace(['"', '\\'], ""), TOKEN_URL, None);
        let _ = Endpoints::parse(&Issuer::production(), body.as_bytes());
    }

    #[test]
    fn form_encoding_round_trips(a in "\\PC{0,40}", b in "\\PC{0,40}") {
        let encoded = form_encode(&[(&a, &b)]);
        prop_assert_eq!(decode_form(&encoded), vec![(a, b)]);
    }
}
