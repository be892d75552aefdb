//! A scripted fake of Vercel's OAuth endpoints (discovery, device authorization, token, revoke,
//! teams) on a loopback issuer, answering through [`FakeHost`]'s router; and stored records for
//! restore and refresh tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fx_wasm::caps::HttpRequest;

use super::fake_host::FakeHost;

/// The `FX_E2E_OAUTH_ISSUER_URL` the fake answers for.
pub const ISSUER: &str = "http://127.0.0.1:7777";

#[derive(Debug, Default)]
pub struct OAuthState {
    /// Device-token polls answered "not yet" before `outcome` applies.
    pub pending: u32,
    /// How many of those answers are `slow_down` (they come first).
    pub slow_down: u32,
    /// `approve`, `deny`, `expire`, or `wait` (pending forever).
    pub outcome: &'static str,
    pub teams: Vec<(&'static str, &'static str, &'static str)>,
    /// `expires_in` of issued access tokens.
    pub ttl_s: u64,
    pub refresh_status: u16,
    pub polls: u32,
    pub refreshes: u32,
    pub revoked: Vec<String>,
    pub access: String,
    pub refresh: String,
    /// Every token issued (for leak checks).
    pub issued: Vec<String>,
    pub paths: Vec<String>,
    counter: u32,
}

#[derive(Clone)]
pub struct FakeOAuth {
    pub state: Rc<RefCell<OAuthState>>,
}

fn form(body: &[u8]) -> HashMap<String, String> {
    let text = String::from_utf8(body.to_vec()).unwrap();
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn json(status: u16, value: serde_json::Value) -> Option<(u16, Vec<u8>)> {
    Some((status, value.to_string().into_bytes()))
}

impl FakeOAuth {
    /// Installs the fake as `host`'s router, with an OAuth store on the host.
    pub fn install(host: &FakeHost) -> FakeOAuth {
        let fake = FakeOAuth {
            state: Rc::new(RefCell::new(OAuthState {
                pending: 2,
                outcome: "approve",
                ttl_s: 3600,
                refresh_status: 200,
                ..OAuthState::default()
            })),
        };
        let routed = fake.clone();
        let mut state = host.state.borrow_mut();
        state.oauth_store = true;
        state.router = Some(Rc::new(move |request: &HttpRequest| routed.answer(request)));
        drop(state);
        fake
    }

    fn token(&self, kind: &str) -> String {
        let mut state = self.state.borrow_mut();
        state.counter += 1;
        let token = format!("fxtest_{kind}_{:08}secret", state.counter);
        state.issued.push(token.clone());
        token
    }

    fn grant(&self, with_refresh: bool) -> serde_json::Value {
        let access = self.token("access");
        self.state.borrow_mut().access = access.clone();
        let ttl = self.state.borrow().ttl_s;
        let mut body = serde_json::json!({
            "access_token": access, "expires_in": ttl, "scope": "openid offline_access",
            "token_type": "Bearer",
        });
        if with_refresh {
            let refresh = self.token("refresh");
            self.state.borrow_mut().refresh = refresh.clone();
            body["refresh_token"] = refresh.into();
        }
        body
    }

    fn answer(&self, request: &HttpRequest) -> Option<(u16, Vec<u8>)> {
        let path = request.url.strip_prefix(ISSUER)?.to_owned();
        self.state.borrow_mut().paths.push(path.clone());
        let fields = form(&request.body);
        match (request.method.as_str(), path.as_str()) {
            ("GET", "/.well-known/openid-configuration") => json(
                200,
                serde_json::json!({
                    "issuer": ISSUER,
                    "device_authorization_endpoint": format!("{ISSUER}/login/oauth/device-authorization"),
                    "token_endpoint": format!("{ISSUER}/login/oauth/token"),
                    "revocation_endpoint": format!("{ISSUER}/login/oauth/revoke"),
                }),
            ),
            ("POST", "/login/oauth/device-authorization") => json(
                200,
                serde_json::json!({
                    "device_code": "fxtest_device_code_secret", "user_code": "WXYZ-1234",
                    "verification_uri": format!("{ISSUER}/oauth/device"),
                    "verification_uri_complete": format!("{ISSUER}/oauth/device?user_code=WXYZ-1234"),
                    "expires_in": 600, "interval": 1,
                }),
            ),
            ("POST", "/login/oauth/token") => match fields.get("grant_type").map(String::as_str) {
                Some("refresh_token") => {
                    let (status, current) = {
                        let mut state = self.state.borrow_mut();
                        state.refreshes += 1;
                        (state.refresh_status, state.refresh.clone())
                    };
                    if status != 200 || fields.get("refresh_token") != Some(&current) {
                        return json(
                            if status == 200 { 400 } else { status },
                            serde_json::json!({"error": "invalid_grant"}),
                        );
                    }
                    json(200, self.grant(true))
                }
                _ => {
                    let (polls, pending, slow, outcome) = {
                        let mut state = self.state.borrow_mut();
                        state.polls += 1;
                        (state.polls, state.pending, state.slow_down, state.outcome)
                    };
                    if polls <= pending || outcome == "wait" {
                        let error = if polls <= slow {
                            "slow_down"
                        } else {
                            "authorization_pending"
                        };
                        return json(400, serde_json::json!({ "error": error }));
                    }
                    match outcome {
                        "deny" => json(400, serde_json::json!({"error": "access_denied"})),
                        "expire" => json(400, serde_json::json!({"error": "expired_token"})),
                        _ => json(200, self.grant(true)),
                    }
                }
            },
            ("POST", "/login/oauth/revoke") => {
                if let Some(token) = fields.get("token") {
                    self.state.borrow_mut().revoked.push(token.clone());
                }
                json(200, serde_json::json!({}))
            }
            ("GET", "/v2/teams") => {
                let teams: Vec<serde_json::Value> = self
                    .state
                    .borrow()
                    .teams
                    .iter()
                    .map(|(id, slug, name)| serde_json::json!({"id": id, "slug": slug, "name": name}))
                    .collect();
                json(200, serde_json::json!({ "teams": teams }))
            }
            _ => json(404, serde_json::json!({"error": "not_found"})),
        }
    }

    /// Makes `access`/`refresh` the fake's current tokens (for a pre-seeded store).
    pub fn adopt(&self, access: &str, refresh: &str) {
        let mut state = self.state.borrow_mut();
        state.access = access.to_owned();
        state.refresh = refresh.to_owned();
        state.issued.push(access.to_owned());
        state.issued.push(refresh.to_owned());
    }
}

/// The bytes of a stored record for the fake issuer.
pub fn record(access: &str, refresh: &str, expires_at_ms: i64, team: Option<&str>) -> Vec<u8> {
    let mut value = serde_json::json!({
        "version": 1, "issuer": ISSUER, "client_id": "cl_zzh5hiOZbwJ9bfqEcYqPIJv3TaPaEYL0",
        "access_token": access, "refresh_token": refresh, "expires_at_ms": expires_at_ms,
        "scope": "openid offline_access", "token_type": "Bearer",
    });
    if let Some(team) = team {
        value["team_id"] = team.into();
    }
    let mut bytes = value.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// Puts a stored sign-in in the host's OAuth store, at `revision`.
pub fn store_login(
    host: &FakeHost,
    access: &str,
    refresh: &str,
    expires_at_ms: i64,
    team: Option<&str>,
    revision: &str,
) {
    host.state.borrow_mut().oauth = Some((
        record(access, refresh, expires_at_ms, team),
        revision.to_owned(),
    ));
}
