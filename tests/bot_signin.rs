//! `signIns` of part 1 natively: a Vercel account through the device login against the fake
//! OAuth issuer; one team is taken, several leave `teamId` null; denied and cancelled sign-ins;
//! a signed-in provider's token refreshed before a turn once it expires.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/fake_oauth.rs"]
mod fake_oauth;

use fake_host::FakeHost;
use fake_oauth::{FakeOAuth, ISSUER};
use futures::executor::block_on;
use fx_wasm::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use fx_wasm::auth::AuthConfig;
use fx_wasm::bot::args::Arg;
use fx_wasm::bot::engine::{default_library_url, EngineConfig, Fxbot};
use fx_wasm::caps::MemoryDocStore;
use fx_wasm::gateway::ChatEndpoint;
use serde_json::json;

fn engine(host: &FakeHost) -> Fxbot<FakeHost, MemoryDocStore> {
    Fxbot::new(
        host.clone(),
        MemoryDocStore::new(),
        EngineConfig {
            owner: "p1".into(),
            endpoint: ChatEndpoint::canonical(),
            library_url: Box::new(default_library_url),
            auth: auth(),
            model_idle_timeout_ms: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
            embedder: None,
        },
    )
}

fn auth() -> AuthConfig {
    AuthConfig::from_env(Some(ISSUER), None).unwrap()
}

#[test]
fn one_team_is_taken_and_several_leave_team_id_null() {
    for (teams, want) in [
        (vec![("team_a", "a", "A")], json!("team_a")),
        (
            vec![
                ("team_a", "a", "A"),
                ("team_b", "b", "B"),
                ("team_c", "c", "C"),
            ],
            json!(null),
        ),
        (vec![], json!(null)),
    ] {
        let host = FakeHost::new();
        let fake = FakeOAuth::install(&host);
        fake.state.borrow_mut().teams = teams;
        let fxbot = engine(&host);
        let (pending, task) =
            block_on(fxbot.signin_start(Arg::Given("vercel".to_owned()))).unwrap();
        assert_eq!(pending["status"], "pending");
        assert_eq!(pending["kind"], "vercel");
        assert!(!pending["userCode"].as_str().unwrap().is_empty());
        // The verification page was opened through the host.
        assert_eq!(host.state.borrow().opened.len(), 1);
        let id = pending["id"].as_str().unwrap().to_owned();
        let (_, done) = block_on(futures::future::join(
            fxbot.signin_run(task),
            fxbot.signin_wait(&id),
        ));
        let done = done.unwrap();
        assert_eq!(done["status"], "complete", "{done}");
        let provider = &done["provider"];
        assert_eq!(provider["kind"], "vercel");
        assert_eq!(provider["signedIn"], true);
        assert_eq!(provider["hasKey"], false);
        assert_eq!(provider["teamId"], want);
        // The provider is stored; its token is not in its public view.
        let listed = block_on(fxbot.providers_list()).unwrap();
        assert_eq!(listed.len(), 1);
        let token = fake.state.borrow().access.clone();
        assert!(!listed[0].to_string().contains(&token));
        assert!(!token.is_empty());
    }
}

#[test]
fn denied_cancelled_and_other_kinds() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    fake.state.borrow_mut().outcome = "deny";
    let fxbot = engine(&host);
    let (pending, task) = block_on(fxbot.signin_start(Arg::Given("vercel".to_owned()))).unwrap();
    block_on(fxbot.signin_run(task));
    let id = pending["id"].as_str().unwrap();
    assert_eq!(fxbot.signin_get(id).unwrap()["status"], "denied");
    assert!(block_on(fxbot.providers_list()).unwrap().is_empty());

    fake.state.borrow_mut().outcome = "wait";
    let (pending, task) = block_on(fxbot.signin_start(Arg::Given("vercel".to_owned()))).unwrap();
    let id = pending["id"].as_str().unwrap().to_owned();
    fxbot.signin_cancel(&id).unwrap();
    block_on(fxbot.signin_run(task));
    assert_eq!(fxbot.signin_get(&id).unwrap()["status"], "cancelled");

    for kind in [json!("chatgpt"), json!("openai"), json!(3)] {
        let error =
            block_on(fxbot.signin_start(serde_json::from_value(kind).unwrap())).unwrap_err();
        assert_eq!(error.status(), 400, "{error}");
    }
    assert_eq!(fxbot.signin_get("nope").unwrap_err().status(), 404);
}

#[test]
fn an_expiring_sign_in_is_refreshed_before_the_turn() {
    let host = FakeHost::new();
    let fake = FakeOAuth::install(&host);
    // 30 s tokens: within the one-minute margin at once, so each turn refreshes first.
    fake.state.borrow_mut().ttl_s = 30;
    fake.state.borrow_mut().teams = vec![("team_a", "a", "A")];
    let fxbot = engine(&host);
    let (_, task) = block_on(fxbot.signin_start(Arg::Given("vercel".to_owned()))).unwrap();
    block_on(fxbot.signin_run(task));
    let provider = block_on(fxbot.providers_list()).unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let first = fake.state.borrow().access.clone();
    let bot = block_on(fxbot.bots_create(
        serde_json::from_value(json!({"provider": provider, "model": "openai/gpt-5"})).unwrap(),
    ))
    .unwrap();
    for (n, message) in ["m1", "m2"].into_iter().enumerate() {
        host.reply(fake_host::text_reply(&["hi"]));
        let outgoing = fx_wasm::bot::engine::chat::Outgoing::from_json(
            &json!({"text": "hi", "messageId": message}),
        )
        .unwrap();
        let (_, pending) = block_on(fxbot.send(bot.id.as_str(), outgoing)).unwrap();
        block_on(fxbot.run(pending.unwrap()));
        let state = fake.state.borrow();
        assert_eq!(state.refreshes as usize, n + 1, "one refresh per turn");
        let sent = host
            .state
            .borrow()
            .requests
            .iter()
            .rev()
            .find(|r| r.url.contains("language-model"))
            .map(|r| r.headers.clone())
            .unwrap();
        let bearer = format!("Bearer {}", state.access);
        assert!(
            sent.iter()
                .any(|(k, v)| k == "authorization" && *v == bearer),
            "the turn used the refreshed token: {sent:?}"
        );
        assert!(!sent.iter().any(|(_, v)| v.contains(&first)));
        assert!(sent
            .iter()
            .any(|(k, v)| k == "x-vercel-ai-gateway-team" && v == "team_a"));
    }
}
