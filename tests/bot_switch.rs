//! The provider switch (fxbot DESIGN §10) with scripted fakes: the old provider summarizes;
//! the old one fails (500, retried as a model step is) and the new one summarizes; the old one
//! is gone and the new one has no model (400); neither can (502) and nothing changes. After a
//! switch the bot's `sessionId` is new, `earlier` holds the old chat, `handoff` is set and the
//! next turn's system message holds it.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/bot_args.rs"]
mod bot_args;
#[path = "support/fake_host.rs"]
mod fake_host;

use bot_args::{arg, bid, engine_config, pid, send_json};
use fake_host::{text_reply, FakeHost, Reply};
use futures::executor::block_on;
use fx_wasm::bot::engine::Fxbot;
use fx_wasm::caps::{MemoryDocStore, Method};
use serde_json::{json, Value};

type Bot = Fxbot<FakeHost, MemoryDocStore>;

fn status(code: u16) -> Reply {
    Reply::Body {
        status: code,
        chunks: vec![br#"{"error":{"message":"down"}}"#.to_vec()],
        retry_after: None,
    }
}

/// A Chat Completions answer of `text`.
fn chat_reply(text: &str) -> Reply {
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    );
    Reply::Body {
        status: 200,
        chunks: vec![body.into_bytes()],
        retry_after: None,
    }
}

/// A gateway provider (model `m1`) with a bot that has a chat of one turn, and a `custom`
/// provider (Chat Completions, default model `new_model`).
fn setup(new_model: &str) -> (FakeHost, Bot, String, String, String) {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(br#"{"data":[{"id":"m2"}]}"#.to_vec());
    let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
    let p1 = block_on(fxbot.providers_add(arg(
        json!({"kind": "gateway", "apiKey": "k1", "model": "m1"}),
    )))
    .unwrap();
    let p2 = block_on(fxbot.providers_add(arg(json!({
        "kind": "custom", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k2", "model": new_model
    }))))
    .unwrap();
    let bot =
        block_on(fxbot.bots_create(arg(json!({"provider": p1["id"], "name": "Ada"})))).unwrap();
    let id = bot.id.to_string();
    host.reply(text_reply(&["I am ", "Ada."]));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "I like tea.", "messageId": "m1"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    let p1 = p1["id"].as_str().unwrap().to_owned();
    let p2 = p2["id"].as_str().unwrap().to_owned();
    (host, fxbot, id, p1, p2)
}

fn posts(host: &FakeHost) -> Vec<(String, Value)> {
    host.state
        .borrow()
        .requests
        .iter()
        .filter(|r| r.method == Method::Post)
        .map(|r| (r.url.clone(), serde_json::from_slice(&r.body).unwrap()))
        .collect()
}

/// After a switch: a new chat, the old one in `earlier`, the handoff in the next turn's system
/// message (sent to the new provider).
fn check_switched(
    host: &FakeHost,
    fxbot: &Bot,
    id: &str,
    old_session: &str,
    p1: &str,
    summary: &str,
) {
    let bot = block_on(fxbot.bots_get(&bid(id))).unwrap();
    assert_eq!(bot.handoff.as_deref(), Some(summary));
    let new_session = bot.session_id.clone().unwrap();
    assert_ne!(new_session, old_session);
    assert_eq!(
        bot.fields.model, "",
        "a new provider without a new model sets model to \"\""
    );
    let earlier = block_on(fxbot.chat_earlier(&bid(id))).unwrap();
    assert_eq!(earlier.len(), 1);
    assert_eq!(earlier[0].session_id, old_session);
    assert_eq!(earlier[0].provider, p1);
    assert_eq!(earlier[0].model, "m1");
    host.reply(chat_reply("Tea it is."));
    let (sent, pending) = block_on(send_json(
        fxbot,
        id,
        &json!({"text": "What do I like?", "messageId": "m2"}),
    ))
    .unwrap();
    assert_eq!(sent.session_id, new_session);
    block_on(fxbot.run(pending.unwrap()));
    let (url, body) = posts(host).pop().unwrap();
    assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
    assert_eq!(body["model"], "m2");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains(summary), "{system}");
    // The new chat starts empty: the old turn is not in it.
    assert!(!body.to_string().contains("I like tea."), "{body}");
}

#[test]
fn the_old_provider_summarizes() {
    let (host, fxbot, id, p1, p2) = setup("m2");
    let old_session = block_on(fxbot.bots_get(&bid(&id)))
        .unwrap()
        .session_id
        .unwrap();
    host.reply(text_reply(&["They like tea."]));
    let updated = block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2})))).unwrap();
    assert_eq!(updated.fields.provider, Some(pid(&p2)));
    // The summary request went to the old provider (the gateway), with the chat and no tools.
    let (url, body) = posts(&host).pop().unwrap();
    assert!(url.ends_with("/v3/ai/language-model"), "{url}");
    assert!(body.to_string().contains("I like tea."));
    assert!(body["tools"].as_array().is_none_or(Vec::is_empty), "{body}");
    check_switched(&host, &fxbot, &id, &old_session, &p1, "They like tea.");
}

#[test]
fn the_new_provider_summarizes_when_the_old_fails() {
    let (host, fxbot, id, p1, p2) = setup("m2");
    let old_session = block_on(fxbot.bots_get(&bid(&id)))
        .unwrap()
        .session_id
        .unwrap();
    for _ in 0..5 {
        host.reply(status(500));
    }
    host.reply(chat_reply("Likes tea."));
    block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2})))).unwrap();
    let (url, body) = posts(&host).pop().unwrap();
    assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(
        body.to_string().contains("I like tea."),
        "the stored messages: {body}"
    );
    check_switched(&host, &fxbot, &id, &old_session, &p1, "Likes tea.");
}

#[test]
fn old_gone_and_new_without_a_model_is_400() {
    let (host, fxbot, id, p1, p2) = setup("");
    block_on(fxbot.providers_remove(&pid(&p1))).unwrap();
    let before = block_on(fxbot.bots_get(&bid(&id))).unwrap();
    let requests = host.state.borrow().requests.len();
    let error = block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2})))).unwrap_err();
    assert_eq!(error.status(), 400, "{error}");
    assert!(
        error.to_string().contains("has no default model"),
        "{error}"
    );
    assert_eq!(
        host.state.borrow().requests.len(),
        requests,
        "nothing was sent"
    );
    assert_eq!(block_on(fxbot.bots_get(&bid(&id))).unwrap(), before);
    // With a model it goes to the new provider.
    host.reply(chat_reply("Tea."));
    let updated =
        block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2, "model": "m2"}))))
            .unwrap();
    assert_eq!(
        (updated.fields.model.as_str(), updated.handoff.as_deref()),
        ("m2", Some("Tea."))
    );
}

#[test]
fn neither_can_summarize_is_502_and_nothing_changes() {
    let (host, fxbot, id, _p1, p2) = setup("m2");
    let before = block_on(fxbot.bots_get(&bid(&id))).unwrap();
    host.reply(status(400));
    host.reply(status(400));
    let error = block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2})))).unwrap_err();
    assert_eq!(error.status(), 502, "{error}");
    assert!(
        error
            .to_string()
            .contains("neither provider could summarize"),
        "{error}"
    );
    assert_eq!(block_on(fxbot.bots_get(&bid(&id))).unwrap(), before);
    assert!(block_on(fxbot.chat_earlier(&bid(&id))).unwrap().is_empty());
}
