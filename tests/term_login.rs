//! `/login`, `/logout` and the stored sign-in in the terminal app, against a scripted OAuth fake
//! on the host's router, asserted on a `vt100` screen: the code panel and its clock, polling,
//! Esc and Ctrl+C, denied / expired / slow_down, the team picker, restore at start, `/status`,
//! and that no token is ever written to the terminal.
#![cfg(feature = "term")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/fake_oauth.rs"]
mod fake_oauth;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, FakeHost};
use fake_oauth::{store_login, FakeOAuth, ISSUER};
use fx_wasm::caps::HttpRequest;
use term_env::{Options, Term};

const NOW: i64 = 1_796_000_000_000;
const DEVICE_CODE: &str = "fxtest_device_code_secret";

fn options(api_key: Option<&'static str>) -> Options {
    Options {
        oauth: true,
        api_key,
        env: vec![("FX_E2E_OAUTH_ISSUER_URL", ISSUER.to_owned())],
        ..Options::default()
    }
}

fn setup(api_key: Option<&'static str>) -> (FakeHost, FakeOAuth, Term) {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    host.state.borrow_mut().park_sleeps = true;
    let term = Term::start(&host, options(api_key));
    (host, fake, term)
}

fn chats(host: &FakeHost) -> Vec<HttpRequest> {
    host.state
        .borrow()
        .requests
        .iter()
        .filter(|r| r.method == fx_wasm::caps::Method::Post)
        .cloned()
        .collect()
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Nothing secret in any byte the terminal was sent.
fn assert_no_tokens(t: &Term, fake: &FakeOAuth) {
    let written = t.written();
    let state = fake.state.borrow();
    assert!(!state.issued.is_empty() || state.polls == 0);
    for token in state.issued.iter().map(String::as_str).chain([DEVICE_CODE]) {
        assert!(
            !written.contains(token),
            "a token was written to the terminal"
        );
    }
}

/// The whole transcript with line wraps undone (for sentence checks).
fn flat(t: &mut Term) -> String {
    t.all_text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Polls until the login ends or `max` seconds pass.
fn wait_polls(t: &mut Term, seconds: u32) {
    for _ in 0..seconds {
        t.advance(1000);
    }
}

#[test]
fn login_shows_the_code_polls_and_signs_in() {
    let (host, fake, mut t) = setup(None);
    assert!(t.screen().lines().last().unwrap().starts_with("run /login"));
    t.type_str("/login\r");
    let screen = t.screen();
    assert!(screen.contains("Code  WXYZ-1234"), "{screen}");
    assert!(
        screen.contains(&format!("Open  {ISSUER}/oauth/device")),
        "{screen}"
    );
    assert!(screen.contains("Waiting for approval"), "{screen}");
    assert!(screen.contains("Esc cancels"), "{screen}");
    let all = flat(&mut t);
    assert!(
        all.contains("enter the code WXYZ-1234"),
        "the code stays in the transcript"
    );
    assert_eq!(
        host.state.borrow().opened,
        vec![format!("{ISSUER}/oauth/device?user_code=WXYZ-1234")]
    );
    assert_eq!(
        fake.state.borrow().polls,
        0,
        "the first poll waits one interval"
    );
    t.advance(1000);
    assert_eq!(fake.state.borrow().polls, 1);
    assert!(
        t.screen().contains("(1s · 1 check, every 1s)"),
        "{}",
        t.screen()
    );
    t.advance(1000);
    assert_eq!(fake.state.borrow().polls, 2);
    t.advance(1000);
    assert_eq!(fake.state.borrow().polls, 3);
    let all = flat(&mut t);
    assert!(all.contains("signed in to Vercel"), "{all}");
    assert!(!t.screen().contains("Waiting for approval"));
    assert_eq!(
        host.state.borrow().oauth_log,
        vec!["commit None".to_owned()]
    );
    assert!(!t.screen().lines().last().unwrap().contains("run /login"));

    host.reply(text_reply(&["hello back"]));
    t.type_str("hello\r");
    let access = fake.state.borrow().access.clone();
    assert_eq!(
        header(&chats(&host)[0], "authorization"),
        Some(format!("Bearer {access}").as_str())
    );
    t.type_str("/status\r");
    let screen = t.screen();
    assert!(screen.contains("fx login (renews itself)"), "{screen}");
    assert_no_tokens(&t, &fake);
}

#[test]
fn esc_and_ctrl_c_cancel_a_waiting_login() {
    let (host, fake, mut t) = setup(Some("test-key"));
    fake.state.borrow_mut().outcome = "wait";
    t.type_str("/login\r");
    t.advance(1000);
    t.type_str("\u{1b}");
    t.advance(100);
    assert!(flat(&mut t).contains("sign-in cancelled"), "{}", t.screen());
    assert!(!t.screen().contains("Waiting for approval"));
    let polls = fake.state.borrow().polls;
    wait_polls(&mut t, 5);
    assert_eq!(
        fake.state.borrow().polls,
        polls,
        "no polling after a cancel"
    );

    t.type_str("/login\r");
    assert!(t.screen().contains("Waiting for approval"));
    t.type_str("\u{3}");
    assert!(!t.screen().contains("Waiting for approval"));
    assert_eq!(
        t.env.exited.get(),
        None,
        "Ctrl+C cancelled the login, not the app"
    );
    fake.state.borrow_mut().outcome = "approve";
    wait_polls(&mut t, 3);
    assert!(host.state.borrow().oauth_log.is_empty(), "nothing saved");
    assert!(!flat(&mut t).contains("signed in to Vercel"));
}

#[test]
fn denied_expired_and_slow_down_are_explained() {
    for (outcome, text) in [("deny", "turned down"), ("expire", "timed out")] {
        let (host, fake, mut t) = setup(Some("test-key"));
        {
            let mut state = fake.state.borrow_mut();
            state.pending = 0;
            state.outcome = outcome;
        }
        t.type_str("/login\r");
        t.advance(1000);
        let all = flat(&mut t);
        assert!(all.contains(text), "{outcome}: {all}");
        assert!(all.contains("credential is untouched"), "{all}");
        assert!(host.state.borrow().oauth_log.is_empty());
        t.type_str("/status\r");
        assert!(t
            .screen()
            .contains("AI_GATEWAY_API_KEY from the environment"));
    }

    // With no credential at all there is none to keep: it is not mentioned.
    for outcome in ["deny", "expire"] {
        let (_host, fake, mut t) = setup(None);
        {
            let mut state = fake.state.borrow_mut();
            state.pending = 0;
            state.outcome = outcome;
        }
        t.type_str("/login\r");
        t.advance(1000);
        let all = flat(&mut t);
        assert!(!all.contains("credential"), "{outcome}: {all}");
        assert!(
            all.contains("Run /login to try again") || all.contains("run /login for a fresh code"),
            "{outcome}: {all}"
        );
        t.type_str("/login\r\u{1b}");
        t.advance(100);
        let all = flat(&mut t);
        assert!(all.contains("sign-in cancelled"), "{all}");
        assert!(!all.contains("credential is unchanged"), "{all}");
    }

    let (_host, fake, mut t) = setup(None);
    fake.state.borrow_mut().slow_down = 1;
    t.type_str("/login\r");
    t.advance(1000);
    assert!(flat(&mut t).contains("next check in 6s"), "{}", t.screen());
    assert!(t.screen().contains("every 6s"), "{}", t.screen());
    t.advance(1000);
    assert_eq!(
        fake.state.borrow().polls,
        1,
        "slow_down stretched the interval"
    );
    t.advance(5000);
    assert_eq!(fake.state.borrow().polls, 2);
}

#[test]
fn several_teams_open_a_picker_and_the_choice_is_sent() {
    let (host, fake, mut t) = setup(None);
    {
        let mut state = fake.state.borrow_mut();
        state.pending = 0;
        state.teams = vec![("team_a1", "alpha", "Alpha"), ("team_b2", "beta", "Beta")];
    }
    t.type_str("/login\r");
    t.advance(1000);
    let screen = t.screen();
    assert!(screen.contains("Which team"), "{screen}");
    assert!(screen.contains("❯ Alpha (alpha)"), "{screen}");
    t.type_str("\u{1b}[B");
    assert!(t.screen().contains("❯ Beta (beta)"));
    t.type_str("\r");
    assert!(
        flat(&mut t).contains("billed to team Beta"),
        "{}",
        t.screen()
    );
    let stored = String::from_utf8(host.state.borrow().oauth.clone().unwrap().0).unwrap();
    assert!(
        stored.contains("\"team_id\":\"team_b2\"") && stored.contains("\"team_slug\":\"beta\"")
    );
    // The catalog is not asked before it is needed (not by a plain turn either); the model
    // screen asks it with the login and its team.
    let catalogs = |host: &FakeHost| -> Vec<HttpRequest> {
        host.state
            .borrow()
            .requests
            .iter()
            .filter(|r| r.method == fx_wasm::caps::Method::Get)
            .cloned()
            .collect()
    };
    assert_eq!(catalogs(&host).len(), 0, "nothing needed the catalog yet");
    host.reply(text_reply(&["ok"]));
    t.type_str("hi\r");
    assert_eq!(
        header(&chats(&host)[0], "x-vercel-ai-gateway-team"),
        Some("team_b2")
    );
    assert_eq!(catalogs(&host).len(), 0, "a plain turn needs no catalog");
    t.type_str("/status\r");
    assert!(t
        .screen()
        .contains("fx login (renews itself) · team team_b2"));
    t.type_str("/models\r");
    let asked = catalogs(&host);
    assert_eq!(asked.len(), 1, "asked once, by the model screen");
    assert!(header(&asked[0], "authorization").is_some());
    assert_eq!(
        header(&asked[0], "x-vercel-ai-gateway-team"),
        Some("team_b2")
    );
    assert_no_tokens(&t, &fake);
}

#[test]
fn a_stored_login_is_restored_at_start_without_any_request() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_stored", "fxtest_refresh_stored");
    store_login(
        &host,
        "fxtest_access_stored",
        "fxtest_refresh_stored",
        NOW + 3_600_000,
        None,
        "r7",
    );
    let mut t = Term::start(&host, options(None));
    assert!(flat(&mut t).contains("signed in to Vercel (stored sign-in)"));
    assert!(
        fake.state.borrow().paths.is_empty(),
        "no OAuth request at start"
    );
    host.reply(text_reply(&["ok"]));
    t.type_str("hi\r");
    assert_eq!(
        header(&chats(&host)[0], "authorization"),
        Some("Bearer fxtest_access_stored")
    );

    // With an env key as well, the key wins and /status says a login is stored.
    let mut t = Term::start(&host, options(Some("test-key")));
    assert!(flat(&mut t).contains("env.AI_GATEWAY_API_KEY is used instead"));
    t.type_str("/status\r");
    let screen = t.screen();
    assert!(
        screen.contains("AI_GATEWAY_API_KEY from the environment"),
        "{screen}"
    );
    assert!(
        screen.contains("the key wins (/login to switch)"),
        "{screen}"
    );
    assert_no_tokens(&t, &fake);
}

#[test]
fn logout_removes_revokes_and_drops_the_credential() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.adopt("fxtest_access_stored", "fxtest_refresh_stored");
    store_login(
        &host,
        "fxtest_access_stored",
        "fxtest_refresh_stored",
        NOW + 3_600_000,
        None,
        "r7",
    );
    let mut t = Term::start(&host, options(None));
    t.type_str("/logout\r");
    let all = flat(&mut t);
    assert!(all.contains("Signed out"), "{all}");
    assert!(all.contains("No credential is left"), "{all}");
    assert_eq!(
        host.state.borrow().oauth_log,
        vec!["remove Some(\"r7\")".to_owned()]
    );
    assert!(host.state.borrow().oauth.is_none());
    assert_eq!(
        fake.state.borrow().revoked,
        vec![
            "fxtest_refresh_stored".to_owned(),
            "fxtest_access_stored".to_owned()
        ]
    );
    assert!(t.screen().lines().last().unwrap().starts_with("run /login"));
    t.type_str("/status\r");
    assert!(t
        .screen()
        .contains("none: /login signs in, or set AI_GATEWAY_API_KEY"));
    // Nothing stored any more: a second /logout says so.
    t.type_str("/logout\r");
    assert!(flat(&mut t).contains("no fx login session to sign out of"));
    assert_no_tokens(&t, &fake);
}

#[test]
fn a_revocation_failure_is_a_warning() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    store_login(
        &host,
        "fxtest_access_stored",
        "fxtest_refresh_stored",
        NOW + 3_600_000,
        None,
        "r7",
    );
    // Revocation needs discovery; a broken one makes revoking fail after the local removal.
    let router = host.state.borrow().router.clone().unwrap();
    host.state.borrow_mut().router = Some(std::rc::Rc::new(move |request: &HttpRequest| {
        if request.url.ends_with("/.well-known/openid-configuration") {
            return Some((500, b"{}".to_vec()));
        }
        router(request)
    }));
    let mut t = Term::start(&host, options(Some("test-key")));
    t.type_str("/logout\r");
    let all = flat(&mut t);
    assert!(all.contains("Signed out"), "{all}");
    assert!(all.contains("could not be reached to revoke"), "{all}");
    assert!(
        all.contains("Requests use env.AI_GATEWAY_API_KEY again"),
        "{all}"
    );
    assert!(fake.state.borrow().revoked.is_empty());
}

#[test]
fn a_refused_open_url_leaves_the_link_and_code() {
    let (host, fake, mut t) = setup(None);
    host.state.borrow_mut().open_refuses = true;
    fake.state.borrow_mut().outcome = "wait";
    t.type_str("/login\r");
    let all = flat(&mut t);
    assert!(all.contains("no browser page was opened"), "{all}");
    assert!(all.contains("WXYZ-1234"));
    // Enter on an empty draft asks the host again; /login does too.
    t.type_str("\r");
    t.type_str("/login\r");
    assert_eq!(host.state.borrow().opened.len(), 3);
}

#[test]
fn without_the_host_options_login_says_what_is_missing() {
    let host = FakeHost::new();
    let mut t = Term::start(&host, Options::default());
    t.type_str("/login\r");
    assert!(t.screen().contains("oauthSessionStore and openUrl"));
    t.type_str("/logout\r");
    assert!(t
        .screen()
        .contains("sign-out needs the host's oauthSessionStore"));
    assert!(chats(&host).is_empty());
}

#[test]
fn a_prompt_without_any_credential_points_to_login() {
    let (host, _fake, mut t) = setup(None);
    t.type_str("hello\r");
    let all = flat(&mut t);
    assert!(all.contains("run /login to sign in with Vercel"), "{all}");
    assert!(chats(&host).is_empty());
}

#[test]
fn exit_and_abort_stop_a_waiting_login() {
    for abort in [false, true] {
        let (_host, fake, mut t) = setup(None);
        fake.state.borrow_mut().outcome = "wait";
        t.type_str("/login\r");
        t.advance(1000);
        assert_eq!(fake.state.borrow().polls, 1);
        if abort {
            t.shell.abort();
        } else {
            t.type_str("/exit\r");
            assert_eq!(t.env.exited.get(), Some(0));
        }
        wait_polls(&mut t, 5);
        assert_eq!(
            fake.state.borrow().polls,
            1,
            "no polling once the terminal is gone"
        );
        assert!(!t.shell.tick(), "nothing keeps the ticker running");
    }
}
