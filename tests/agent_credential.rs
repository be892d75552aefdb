//! The agent's gateway credential: which one wins (env key, restored login, a fresh login), the
//! headers chat and catalog requests carry, refresh before a request, revision conflicts during
//! a refresh, and that no token shows in `Debug` output or events.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![cfg(feature = "login")]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/fake_oauth.rs"]
mod fake_oauth;

use std::collections::HashMap;

use futures::executor::block_on;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::auth::credentials::{AuthSource, Credentials, LoginOrigin};
use fx_wasm::auth::{Credential, Issuer, OAuthRecord};
use fx_wasm::caps::HostEvent;

use fake_host::{text_reply, FakeHost};
use fake_oauth::{record, store_login, FakeOAuth, ISSUER};

const NOW: i64 = 1_796_000_000_000;

fn login_credential(access: &str, team: Option<&str>, expires_at_ms: i64) -> Credential {
    let issuer = Issuer::from_override(Some(ISSUER)).unwrap();
    let bytes = record(access, "fxtest_refresh_old", expires_at_ms, team);
    Credential::from_record(&OAuthRecord::decode(&bytes, &issuer).unwrap())
}

fn agent(host: &FakeHost, api_key: Option<&str>) -> Agent<FakeHost> {
    let mut env = HashMap::from([("FX_E2E_OAUTH_ISSUER_URL".to_owned(), ISSUER.to_owned())]);
    if let Some(key) = api_key {
        env.insert("AI_GATEWAY_API_KEY".to_owned(), key.to_owned());
    }
    Agent::new(host.clone(), AgentConfig::from_env(&env, None).unwrap())
}

fn header<'a>(request: &'a fx_wasm::caps::HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn chat_requests(host: &FakeHost) -> Vec<fx_wasm::caps::HttpRequest> {
    host.state
        .borrow()
        .requests
        .iter()
        .filter(|r| r.method == fx_wasm::caps::Method::Post)
        .cloned()
        .collect()
}

#[test]
fn precedence_env_key_restored_login_and_fresh_login() {
    let far = NOW + 3_600_000;
    let mut c = Credentials::new(Some("env-key".into()));
    assert_eq!(c.source(), AuthSource::ApiKey);
    c.set_login(login_credential("tok_a", None, far), LoginOrigin::Restored);
    assert_eq!(
        c.source(),
        AuthSource::ApiKey,
        "an env key wins over a stored login"
    );
    assert_eq!(c.chat(), (Some("env-key"), None));
    assert!(c.status().login_held);
    c.set_login(
        login_credential("tok_b", Some("team_1"), far),
        LoginOrigin::SignedIn,
    );
    assert_eq!(
        c.source(),
        AuthSource::Login,
        "a login made now wins over the env key"
    );
    assert_eq!(c.chat(), (Some("tok_b"), Some("team_1")));
    c.replace_login(login_credential("tok_c", Some("team_1"), far));
    assert_eq!(
        c.source(),
        AuthSource::Login,
        "a refresh keeps the precedence"
    );
    c.clear_login();
    assert_eq!(c.source(), AuthSource::ApiKey);
    assert_eq!(c.chat(), (Some("env-key"), None));

    let mut no_key = Credentials::new(None);
    assert_eq!(no_key.source(), AuthSource::None);
    assert_eq!(no_key.chat(), (None, None));
    no_key.set_login(login_credential("tok_d", None, far), LoginOrigin::Restored);
    assert_eq!(no_key.source(), AuthSource::Login);
    assert_eq!(no_key.status().source.label(), "fx login");
}

#[test]
fn catalog_is_public_for_a_login_without_team_or_due_for_refresh() {
    let now = u64::try_from(NOW).unwrap();
    let mut c = Credentials::new(None);
    c.set_login(
        login_credential("tok_a", None, NOW + 3_600_000),
        LoginOrigin::SignedIn,
    );
    assert_eq!(c.catalog(now), (None, None));
    c.set_login(
        login_credential("tok_b", Some("team_1"), NOW + 3_600_000),
        LoginOrigin::SignedIn,
    );
    assert_eq!(c.catalog(now), (Some("tok_b"), Some("team_1")));
    c.set_login(
        login_credential("tok_c", Some("team_1"), NOW + 30_000),
        LoginOrigin::SignedIn,
    );
    assert_eq!(c.catalog(now), (None, None), "inside the one-minute margin");
    assert!(c.needs_refresh(now));
    let key = Credentials::new(Some("env-key".into()));
    assert_eq!(key.catalog(now), (Some("env-key"), None));
    assert!(!key.needs_refresh(now));
}

#[test]
fn debug_output_never_shows_a_token() {
    let mut c = Credentials::new(Some("env-key-secret".into()));
    c.set_login(
        login_credential("tok_secret_value", Some("team_1"), NOW),
        LoginOrigin::SignedIn,
    );
    let text = format!("{c:?} {:?}", c.status());
    assert!(
        !text.contains("env-key-secret") && !text.contains("tok_secret_value"),
        "{text}"
    );
    let env = HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "env-key-secret".to_owned())]);
    let config = AgentConfig::from_env(&env, None).unwrap();
    assert!(!format!("{config:?}").contains("env-key-secret"));
}

#[test]
fn a_stored_login_is_restored_and_used_with_its_team() {
    let host = FakeHost::new();
    let _fake = FakeOAuth::install(&host);
    store_login(
        &host,
        "fxtest_access_stored",
        "fxtest_refresh_stored",
        NOW + 3_600_000,
        Some("team_9"),
        "r1",
    );
    host.reply(text_reply(&["ok"]));
    let agent = agent(&host, None);
    assert!(block_on(agent.restore_login()).unwrap());
    assert_eq!(agent.auth_status().source, AuthSource::Login);
    assert_eq!(agent.auth_status().team.as_deref(), Some("team_9"));
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    let chats = chat_requests(&host);
    assert_eq!(
        header(&chats[0], "authorization"),
        Some("Bearer fxtest_access_stored")
    );
    assert_eq!(
        header(&chats[0], "x-vercel-ai-gateway-team"),
        Some("team_9")
    );
    // With a team and a fresh token, the catalog is asked with the login too.
    let _ = block_on(agent.load_catalog_result());
    let catalog = host
        .state
        .borrow()
        .requests
        .iter()
        .find(|r| r.method == fx_wasm::caps::Method::Get)
        .cloned()
        .unwrap();
    assert_eq!(
        header(&catalog, "authorization"),
        Some("Bearer fxtest_access_stored")
    );
    assert_eq!(header(&catalog, "x-vercel-ai-gateway-team"), Some("team_9"));
}

#[test]
fn an_env_key_wins_over_a_restored_login() {
    let host = FakeHost::new();
    let _fake = FakeOAuth::install(&host);
    store_login(
        &host,
        "fxtest_access_stored",
        "fxtest_refresh_stored",
        NOW + 3_600_000,
        None,
        "r1",
    );
    host.reply(text_reply(&["ok"]));
    let agent = agent(&host, Some("env-key"));
    assert!(block_on(agent.restore_login()).unwrap());
    let status = agent.auth_status();
    assert_eq!(status.source, AuthSource::ApiKey);
    assert!(status.login_held);
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    assert_eq!(
        header(&chat_requests(&host)[0], "authorization"),
        Some("Bearer env-key")
    );
}

#[test]
fn a_token_due_for_refresh_is_refreshed_before_the_request() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_old", "fxtest_refresh_old");
    store_login(
        &host,
        "fxtest_access_old",
        "fxtest_refresh_old",
        NOW + 30_000,
        None,
        "r1",
    );
    host.reply(text_reply(&["ok"]))
        .reply(text_reply(&["again"]));
    let agent = agent(&host, Some("env-key"));
    agent.set_login(
        login_credential("fxtest_access_old", None, NOW + 30_000),
        LoginOrigin::SignedIn,
    );
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    let new_access = fake.state.borrow().access.clone();
    assert_ne!(new_access, "fxtest_access_old");
    assert_eq!(fake.state.borrow().refreshes, 1);
    assert_eq!(
        header(&chat_requests(&host)[0], "authorization"),
        Some(format!("Bearer {new_access}").as_str())
    );
    assert_eq!(
        host.state.borrow().oauth_log,
        vec!["commit Some(\"r1\")".to_owned()]
    );
    // The refreshed token is good for an hour: the next request does not refresh again.
    block_on(agent.prompt(&opened.session_id, 2, "again".into())).unwrap();
    assert_eq!(fake.state.borrow().refreshes, 1);
    let events = format!("{:?}", host.state.borrow().events);
    assert!(
        events.contains("AuthRefreshed { outcome: \"refreshed\" }"),
        "{events}"
    );
    for token in fake.state.borrow().issued.iter() {
        assert!(!events.contains(token.as_str()));
    }
}

#[test]
fn a_refresh_that_loses_the_race_uses_the_newer_stored_token() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_old", "fxtest_refresh_old");
    store_login(
        &host,
        "fxtest_access_old",
        "fxtest_refresh_old",
        NOW + 30_000,
        None,
        "r1",
    );
    // Another tab refreshes first: its record is in the store when our commit arrives.
    host.state.borrow_mut().oauth_interfere = Some(Some(record(
        "fxtest_access_other_tab",
        "fxtest_refresh_other_tab",
        NOW + 3_600_000,
        None,
    )));
    host.reply(text_reply(&["ok"]));
    let agent = agent(&host, None);
    assert!(block_on(agent.restore_login()).unwrap());
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    assert_eq!(
        header(&chat_requests(&host)[0], "authorization"),
        Some("Bearer fxtest_access_other_tab")
    );
    let state = host.state.borrow();
    let stored = String::from_utf8(state.oauth.as_ref().unwrap().0.clone()).unwrap();
    assert!(
        stored.contains("fxtest_access_other_tab"),
        "the newer record is kept"
    );
    assert!(state
        .events
        .iter()
        .any(|e| matches!(e, HostEvent::AuthRefreshed { outcome: "adopted" })));
}

#[test]
fn a_login_removed_elsewhere_is_dropped_and_the_env_key_used() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_old", "fxtest_refresh_old");
    store_login(
        &host,
        "fxtest_access_old",
        "fxtest_refresh_old",
        NOW + 30_000,
        None,
        "r1",
    );
    host.state.borrow_mut().oauth_interfere = Some(None);
    host.reply(text_reply(&["ok"]));
    let agent = agent(&host, Some("env-key"));
    agent.set_login(
        login_credential("fxtest_access_old", None, NOW + 30_000),
        LoginOrigin::SignedIn,
    );
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    assert_eq!(
        header(&chat_requests(&host)[0], "authorization"),
        Some("Bearer env-key")
    );
    assert_eq!(agent.auth_status().source, AuthSource::ApiKey);
    assert!(host.state.borrow().events.iter().any(|e| matches!(
        e,
        HostEvent::AuthRefreshFailed {
            signed_out: true,
            ..
        }
    )));
}

#[test]
fn a_transient_refresh_failure_keeps_the_login() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_old", "fxtest_refresh_old");
    fake.state.borrow_mut().refresh_status = 503;
    store_login(
        &host,
        "fxtest_access_old",
        "fxtest_refresh_old",
        NOW + 30_000,
        None,
        "r1",
    );
    host.reply(text_reply(&["ok"]));
    let agent = agent(&host, None);
    assert!(block_on(agent.restore_login()).unwrap());
    let opened = block_on(agent.create_session()).unwrap();
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    assert_eq!(
        header(&chat_requests(&host)[0], "authorization"),
        Some("Bearer fxtest_access_old"),
        "the token may still work for up to a minute"
    );
    assert_eq!(agent.auth_status().source, AuthSource::Login);
    assert!(host.state.borrow().events.iter().any(|e| matches!(
        e,
        HostEvent::AuthRefreshFailed {
            signed_out: false,
            code: "FX_OAUTH_REJECTED",
            ..
        }
    )));
}

#[test]
fn without_any_credential_the_prompt_is_refused() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let opened = block_on(agent.create_session()).unwrap();
    let error = block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap_err();
    assert_eq!(error.code(), "FX_AUTH_REQUIRED");
    agent.set_login(
        login_credential("tok", None, NOW + 3_600_000),
        LoginOrigin::SignedIn,
    );
    assert_eq!(agent.auth_status().source, AuthSource::Login);
    agent.clear_login();
    assert_eq!(agent.auth_status().source, AuthSource::None);
    let changes: Vec<_> = host
        .state
        .borrow()
        .events
        .iter()
        .filter_map(|e| match e {
            HostEvent::AuthChanged { source, .. } => Some(*source),
            _ => None,
        })
        .collect();
    assert_eq!(changes, vec!["fx login", "none"]);
}

fn unauthorized() -> fake_host::Reply {
    fake_host::Reply::Body {
        status: 401,
        chunks: vec![
            br#"{"error":{"message":"token revoked","type":"authentication_error"}}"#.to_vec(),
        ],
        retry_after: None,
    }
}

#[test]
fn a_401_for_the_login_is_refreshed_and_the_step_retried_once() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_old", "fxtest_refresh_old");
    store_login(
        &host,
        "fxtest_access_old",
        "fxtest_refresh_old",
        NOW + 3_600_000,
        None,
        "r1",
    );
    host.reply(unauthorized()).reply(text_reply(&["ok"]));
    let agent = agent(&host, None);
    assert!(block_on(agent.restore_login()).unwrap());
    let opened = block_on(agent.create_session()).unwrap();
    // The same prompt succeeds: the step was retried with the refreshed token.
    block_on(agent.prompt(&opened.session_id, 1, "hi".into())).unwrap();
    assert_eq!(fake.state.borrow().refreshes, 1, "the 401 forced a refresh");
    let new_access = fake.state.borrow().access.clone();
    let chats = chat_requests(&host);
    assert_eq!(chats.len(), 2);
    assert_eq!(
        header(&chats[0], "authorization"),
        Some("Bearer fxtest_access_old")
    );
    assert_eq!(
        header(&chats[1], "authorization"),
        Some(format!("Bearer {new_access}").as_str())
    );
    assert_eq!(
        chats[1]
            .headers
            .iter()
            .filter(|(n, _)| n == "authorization")
            .count(),
        1
    );
    // A second 401 in one step is final: one refresh per step.
    host.reply(unauthorized()).reply(unauthorized());
    let error = block_on(agent.prompt(&opened.session_id, 2, "again".into())).unwrap_err();
    assert_eq!(error.code(), "FX_GATEWAY_HTTP_ERROR");
    assert_eq!(fake.state.borrow().refreshes, 2);
    assert_eq!(chat_requests(&host).len(), 4);
}

#[test]
fn a_401_for_an_api_key_is_final() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    host.reply(unauthorized())
        .reply(text_reply(&["never sent"]));
    let agent = agent(&host, Some("env-key"));
    let opened = block_on(agent.create_session()).unwrap();
    assert!(block_on(agent.prompt(&opened.session_id, 1, "hi".into())).is_err());
    assert_eq!(chat_requests(&host).len(), 1);
    assert_eq!(fake.state.borrow().refreshes, 0);
}
