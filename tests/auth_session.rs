//! The credential lifecycle against the fake store and transport: resolve, refresh (including
//! revision conflicts), saving a new session, and logout with revocation.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

#[path = "auth_fakes.rs"]
mod fakes;

use fakes::*;
use fx_wasm::auth::endpoints::PUBLIC_CLIENT_ID;
use fx_wasm::auth::{
    load_login, logout, refresh, resolve_credential, save_login, AuthConfig, AuthError, Issuer,
    LoadedLogin, LocalLogout, OAuthRecord, RecordInvalid, Resolution, Revocation, StoreOp,
};
use fx_wasm::caps::Method;

const NOW: u64 = 1_700_000_000_000;
const HOUR: u64 = 3_600_000;

fn config() -> AuthConfig {
    AuthConfig::production()
}

fn refreshed_reply(access: &str, refresh: Option<&str>, scope: Option<&str>) -> Reply {
    let refresh = refresh.map_or(String::new(), |r| format!(r#","refresh_token":"{r}""#));
    let scope = scope.map_or(String::new(), |s| format!(r#","scope":"{s}""#));
    ok(&format!(
        r#"{{"token_type":"Bearer","access_token":"{access}","expires_in":3600{refresh}{scope}}}"#
    ))
}

fn seeded(expires_at_ms: u64) -> (FakeStore, String) {
    let store = FakeStore::new();
    let revision = store.put(record_json(ACCESS, REFRESH, expires_at_ms).as_bytes());
    (store, revision)
}

fn stored_record(store: &FakeStore) -> OAuthRecord {
    OAuthRecord::decode(&store.bytes().unwrap(), &Issuer::production()).unwrap()
}

#[test]
fn a_valid_credential_is_used_without_any_request() {
    let (store, _) = seeded(NOW + HOUR);
    let transport = FakeTransport::new();
    let clock = FakeClock::at(NOW);
    let resolution = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap();
    let Resolution::Current(credential) = &resolution else {
        panic!("{resolution:?}");
    };
    assert_eq!(credential.access_token(), ACCESS);
    assert_eq!(
        credential.team(),
        Some("team_123"),
        "team id wins over slug"
    );
    assert_eq!(credential.refresh_after_ms(), NOW + HOUR - 60_000);
    assert!(!credential.is_expired(NOW + HOUR - 60_001));
    assert!(credential.is_expired(NOW + HOUR - 60_000));
    assert!(transport.seen.borrow().is_empty());
}

#[test]
fn nothing_stored_or_unusable_bytes_resolve_to_no_credential() {
    let transport = FakeTransport::new();
    let clock = FakeClock::at(NOW);
    let store = FakeStore::new();
    assert_eq!(
        block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap(),
        Resolution::Absent
    );
    store.put(b"{\"version\":2}\n");
    assert_eq!(
        block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap(),
        Resolution::Unusable(RecordInvalid::Version)
    );
    assert!(matches!(
        block_on(refresh(&store, &transport, &clock, &config())),
        Err(AuthError::InvalidSession(RecordInvalid::Version))
    ));
}

#[test]
fn refresh_happens_a_minute_before_expiry() {
    let (store, revision) = seeded(NOW + 60_000);
    let transport = FakeTransport::new();
    transport.with_discovery().on(
        Method::Post,
        TOKEN_URL,
        vec![refreshed_reply(ACCESS2, Some(REFRESH2), None)],
    );
    let clock = FakeClock::at(NOW);
    let resolution = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap();
    let Resolution::Refreshed(credential) = &resolution else {
        panic!("{resolution:?}");
    };
    assert_eq!(credential.access_token(), ACCESS2);
    assert_eq!(credential.expires_at_ms(), NOW + HOUR);

    let request = &transport.requests_to(TOKEN_URL)[0];
    assert_eq!(request.field("grant_type"), Some("refresh_token"));
    assert_eq!(request.field("refresh_token"), Some(REFRESH));
    assert_eq!(request.field("client_id"), Some(PUBLIC_CLIENT_ID));

    let calls = store.calls.borrow().clone();
    assert_eq!(
        calls.last(),
        Some(&("commit", Some(revision))),
        "commit names the revision read"
    );
    let record = stored_record(&store);
    assert_eq!(record.access_token.expose(), ACCESS2);
    assert_eq!(
        record.refresh_token.expose(),
        REFRESH2,
        "a rotated refresh token is kept"
    );
    assert_eq!(
        record.scope, "openid offline_access",
        "scope kept when the response has none"
    );
    assert_eq!(
        record.team_id.as_deref(),
        Some("team_123"),
        "team survives a refresh"
    );
}

#[test]
fn refresh_without_rotation_keeps_the_refresh_token() {
    let (store, _) = seeded(NOW + HOUR);
    let transport = FakeTransport::new();
    transport.with_discovery().on(
        Method::Post,
        TOKEN_URL,
        vec![refreshed_reply(ACCESS2, None, Some("openid"))],
    );
    let clock = FakeClock::at(NOW);
    // Forced: the credential is still valid (a gateway 401).
    let resolution = block_on(refresh(&store, &transport, &clock, &config())).unwrap();
    assert!(matches!(resolution, Resolution::Refreshed(_)));
    let record = stored_record(&store);
    assert_eq!(record.refresh_token.expose(), REFRESH);
    assert_eq!(record.scope, "openid");
}

#[test]
fn refresh_conflict_adopts_a_newer_stored_credential() {
    let (store, _) = seeded(NOW);
    let transport = FakeTransport::new();
    transport.with_discovery().on(
        Method::Post,
        TOKEN_URL,
        vec![refreshed_reply("vca_OURS", Some("vcr_OURS"), None)],
    );
    // Another tab refreshes first and stores ACCESS2.
    *store.before_write.borrow_mut() = Some(Box::new(|s: &FakeStore| {
        s.put(record_json(ACCESS2, REFRESH2, NOW + HOUR).as_bytes());
    }));
    let clock = FakeClock::at(NOW);
    let resolution = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap();
    let Resolution::Adopted(credential) = &resolution else {
        panic!("{resolution:?}");
    };
    assert_eq!(credential.access_token(), ACCESS2);
    let record = stored_record(&store);
    assert_eq!(
        record.access_token.expose(),
        ACCESS2,
        "the newer credential is not overwritten"
    );
    assert_eq!(record.refresh_token.expose(), REFRESH2);
}

#[test]
fn refresh_conflict_without_a_better_credential_fails() {
    // The other writer signed out.
    let (store, _) = seeded(NOW);
    let transport = FakeTransport::new();
    transport.with_discovery().always(
        Method::Post,
        TOKEN_URL,
        refreshed_reply(ACCESS2, None, None),
    );
    *store.before_write.borrow_mut() = Some(Box::new(|s: &FakeStore| {
        s.slot.borrow_mut().take();
    }));
    let clock = FakeClock::at(NOW);
    let error = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap_err();
    assert_eq!(error, AuthError::RevisionConflict);
    assert_eq!(error.code(), "FX_OAUTH_SESSION_REVISION_CONFLICT");
    assert_eq!(
        store.bytes(),
        None,
        "a signed-out session is not resurrected"
    );

    // The other writer stored something that is itself expired.
    let (store, _) = seeded(NOW);
    *store.before_write.borrow_mut() = Some(Box::new(|s: &FakeStore| {
        s.put(record_json(ACCESS2, REFRESH2, NOW).as_bytes());
    }));
    let error = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap_err();
    assert_eq!(error, AuthError::RevisionConflict);
}

#[test]
fn refresh_failures_are_typed() {
    let clock = FakeClock::at(NOW);
    let (store, revision) = seeded(NOW);
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(Method::Post, TOKEN_URL, vec![oauth_error("invalid_grant")]);
    let error = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap_err();
    assert!(matches!(
        &error,
        AuthError::Rejected {
            status: 400,
            error: Some("invalid_grant"),
            ..
        }
    ));
    assert_eq!(store.revision(), Some(revision), "nothing written");

    let store = FakeStore::new();
    assert_eq!(
        block_on(refresh(&store, &transport, &clock, &config())),
        Err(AuthError::NoSession)
    );

    let (store, _) = seeded(NOW);
    *store.fail_next.borrow_mut() = Some(("commit", store_failed("commit", "quota")));
    let transport = FakeTransport::new();
    transport.with_discovery().on(
        Method::Post,
        TOKEN_URL,
        vec![refreshed_reply(ACCESS2, None, None)],
    );
    let error = block_on(resolve_credential(&store, &transport, &clock, &config())).unwrap_err();
    assert_eq!(
        error,
        AuthError::Store {
            op: StoreOp::Commit,
            message: "quota".into()
        }
    );
}

#[test]
fn save_new_session_commits_against_the_current_revision() {
    let (store, revision) = seeded(NOW);
    let record = {
        let mut r = stored_record(&store);
        r.access_token = fx_wasm::auth::Secret::new(ACCESS2.into());
        r
    };
    block_on(save_login(&store, &record)).unwrap();
    assert_eq!(
        store.calls.borrow().last(),
        Some(&("commit", Some(revision)))
    );
    assert_eq!(stored_record(&store), record);
}

#[test]
fn save_new_session_conflict_leaves_the_store_alone() {
    let store = FakeStore::new();
    let record = OAuthRecord::decode(
        record_json(ACCESS, REFRESH, NOW).as_bytes(),
        &Issuer::production(),
    )
    .unwrap();
    *store.before_write.borrow_mut() = Some(Box::new(|s: &FakeStore| {
        s.put(record_json(ACCESS2, REFRESH2, NOW).as_bytes());
    }));
    assert_eq!(
        block_on(save_login(&store, &record)),
        Err(AuthError::RevisionConflict)
    );
    assert_eq!(stored_record(&store).access_token.expose(), ACCESS2);
}

fn revoke_ok() -> FakeTransport {
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .always(Method::Post, REVOKE_URL, ok("{}"));
    transport
}

#[test]
fn logout_removes_then_revokes_both_tokens() {
    let (store, revision) = seeded(NOW + HOUR);
    let transport = revoke_ok();
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Deleted);
    assert_eq!(report.revocation, Revocation::Revoked);
    assert!(report.local.message().contains("Signed out"));
    assert_eq!(report.revocation.warning(), None);
    assert_eq!(store.bytes(), None);
    assert_eq!(
        store.calls.borrow().last(),
        Some(&("remove", Some(revision)))
    );

    let revokes = transport.requests_to(REVOKE_URL);
    assert_eq!(revokes.len(), 2);
    assert_eq!(revokes[0].field("token"), Some(REFRESH));
    assert_eq!(revokes[0].field("token_type_hint"), Some("refresh_token"));
    assert_eq!(revokes[1].field("token"), Some(ACCESS));
    assert_eq!(revokes[1].field("token_type_hint"), Some("access_token"));
    for request in &revokes {
        assert_eq!(request.field("client_id"), Some(PUBLIC_CLIENT_ID));
    }
}

#[test]
fn logout_with_nothing_stored_is_missing() {
    let store = FakeStore::new();
    let transport = revoke_ok();
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Missing);
    assert_eq!(report.revocation, Revocation::Skipped);
    assert!(transport.seen.borrow().is_empty());
    assert_eq!(store.calls.borrow().last(), Some(&("remove", None)));
}

#[test]
fn logout_conflict_keeps_the_other_writers_record() {
    let (store, _) = seeded(NOW + HOUR);
    let transport = revoke_ok();
    // Another tab re-signs in between our load and remove.
    *store.before_write.borrow_mut() = Some(Box::new(|s: &FakeStore| {
        s.put(record_json(ACCESS2, REFRESH2, NOW + HOUR).as_bytes());
    }));
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Conflict);
    assert_eq!(report.revocation, Revocation::Skipped);
    assert_eq!(stored_record(&store).access_token.expose(), ACCESS2);
    assert!(
        transport.seen.borrow().is_empty(),
        "nothing revoked when nothing was removed"
    );
}

#[test]
fn logout_store_failures_are_reported() {
    let (store, _) = seeded(NOW + HOUR);
    let transport = revoke_ok();
    *store.fail_next.borrow_mut() = Some(("remove", store_failed("remove", "disk")));
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert!(matches!(
        report.local,
        LocalLogout::Failed(AuthError::Store {
            op: StoreOp::Remove,
            ..
        })
    ));
    *store.fail_next.borrow_mut() = Some(("load", store_failed("load", "disk")));
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert!(matches!(
        report.local,
        LocalLogout::Failed(AuthError::Store {
            op: StoreOp::Load,
            ..
        })
    ));
    assert_eq!(report.local.message(), LocalLogout::Conflict.message());
}

#[test]
fn revocation_failure_is_only_a_warning() {
    let (store, _) = seeded(NOW + HOUR);
    let transport = FakeTransport::new();
    transport
        .with_discovery()
        .on(Method::Post, REVOKE_URL, vec![status(503, "{}"), ok("{}")]);
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Deleted);
    assert!(matches!(
        &report.revocation,
        Revocation::Failed(AuthError::Rejected { status: 503, .. })
    ));
    assert!(report.revocation.warning().is_some());
    assert_eq!(
        transport.count(REVOKE_URL),
        2,
        "the access token is still revoked"
    );

    // No revocation endpoint in discovery.
    let (store, _) = seeded(NOW + HOUR);
    let transport = FakeTransport::new();
    transport.on(
        Method::Get,
        DISCOVERY,
        vec![ok(&format!(
            r#"{{"issuer":"{ISSUER}","device_authorization_endpoint":"{DEVICE_URL}","token_endpoint":"{TOKEN_URL}"}}"#
        ))],
    );
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Deleted);
    assert_eq!(
        report.revocation,
        Revocation::Failed(AuthError::NoRevocationEndpoint)
    );
}

#[test]
fn logout_of_an_unreadable_record_removes_it_and_warns() {
    let store = FakeStore::new();
    let revision = store.put(b"garbage");
    let transport = revoke_ok();
    let report = block_on(logout(&store, &transport, &FakeClock::at(NOW), &config()));
    assert_eq!(report.local, LocalLogout::Deleted);
    assert_eq!(
        report.revocation,
        Revocation::Failed(AuthError::InvalidSession(RecordInvalid::NotJsonObject))
    );
    assert_eq!(
        store.calls.borrow().last(),
        Some(&("remove", Some(revision)))
    );
    assert!(matches!(
        block_on(load_login(&store, &Issuer::production())).unwrap(),
        LoadedLogin::Absent
    ));
}
