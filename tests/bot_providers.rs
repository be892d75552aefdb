//! Provider and settings rows of part 1 (fxbot DESIGN §3.4): a removed provider is "gone" (the
//! stream ends at once, send is 400, the default setting resets), `provider: ""` for a bot with a
//! chat is 400, and a provider switch neither provider can summarize for is 502.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/bot_args.rs"]
mod bot_args;
#[path = "support/fake_host.rs"]
mod fake_host;

use bot_args::{arg, at, bid, engine_config, pid, send_json};
use fake_host::{text_reply, FakeHost};
use futures::executor::block_on;
use fx_wasm::bot::engine::Fxbot;
use fx_wasm::bot::ids::ProviderId;
use fx_wasm::caps::MemoryDocStore;
use serde_json::json;

#[test]
fn a_removed_provider_is_gone() {
    let host = FakeHost::new();
    let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
    let p1 =
        block_on(fxbot.providers_add(arg(json!({"kind": "gateway", "apiKey": "k", "model": "m"}))))
            .unwrap();
    let p2 = block_on(fxbot.providers_add(arg(
        json!({"kind": "gateway", "apiKey": "k2", "model": "m"}),
    )))
    .unwrap();
    assert_eq!(
        block_on(fxbot.providers_get(&pid(p1["id"].as_str().unwrap()))).unwrap(),
        p1
    );
    assert!(
        !p1.to_string().contains("\"k\""),
        "the key is not in the provider's view"
    );
    block_on(fxbot.settings_update(arg(json!({"defaultProvider": p1["id"]})))).unwrap();
    let bot = block_on(fxbot.bots_create(arg(json!({})))).unwrap();
    let id = bot.id.to_string();
    host.reply(text_reply(&["hi"]));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m1"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    assert!(!block_on(fxbot.stream(&bid(&id), at(json!(0)), None))
        .unwrap()
        .lines
        .is_empty());

    // With a chat: provider "" is 400; a switch neither provider can summarize for (both
    // refuse) is 502 and changes nothing (tests/bot_switch.rs has the switches); the model may
    // change.
    let empty = block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": ""})))).unwrap_err();
    assert_eq!(empty.status(), 400);
    for _ in 0..2 {
        host.reply(fake_host::Reply::Body {
            status: 400,
            chunks: vec![b"{}".to_vec()],
            retry_after: None,
        });
    }
    let switch =
        block_on(fxbot.bots_update(&bid(&id), arg(json!({"provider": p2["id"]})))).unwrap_err();
    assert_eq!(switch.status(), 502, "{switch}");
    let changed =
        block_on(fxbot.bots_update(&bid(&id), arg(json!({"model": "other/model"})))).unwrap();
    assert_eq!(changed.fields.model, "other/model");
    host.reply(text_reply(&["two"]));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "again", "messageId": "m0"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    let last = host.state.borrow().requests.last().unwrap().clone();
    assert!(
        last.headers.iter().any(|(_, v)| v == "other/model"),
        "the next turn uses the new model: {:?}",
        last.headers
    );

    block_on(fxbot.providers_remove(&pid(p1["id"].as_str().unwrap()))).unwrap();
    assert_eq!(
        block_on(fxbot.settings_get()).unwrap()["defaultProvider"],
        ""
    );
    let batch = block_on(fxbot.stream(&bid(&id), at(json!(0)), None)).unwrap();
    assert!(
        batch.end && batch.lines.is_empty(),
        "the stream of a bot whose provider is gone ends at once"
    );
    // A retry of m1 still reaches its turn; a new message is 400.
    let (again, none) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m1"}),
    ))
    .unwrap();
    assert!(again.duplicate && none.is_none());
    let error = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m2"}),
    ))
    .unwrap_err();
    assert_eq!(error.status(), 400);
    assert_eq!(
        block_on(fxbot.providers_get(&pid(p1["id"].as_str().unwrap())))
            .unwrap_err()
            .status(),
        404
    );
    assert_eq!(
        fx_wasm::bot::FxbotError::from(ProviderId::parse("xyz").unwrap_err()).status(),
        400
    );
    // The default provider must exist.
    assert_eq!(
        block_on(fxbot.settings_update(arg(json!({"defaultProvider": "0123456789ab"}))))
            .unwrap_err()
            .status(),
        400
    );
}
