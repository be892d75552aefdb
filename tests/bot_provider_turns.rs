//! A bot turn on a non-gateway provider through the engine (issue 20): a `custom` provider
//! speaking Chat Completions whose first answer is cut (no `finish_reason`, nothing shown) is
//! retried exactly like a cut gateway stream, and the turn completes; an `anthropic` turn goes
//! to `/messages` with its key headers. The key check runs against the fake's model list.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/bot_args.rs"]
mod bot_args;
#[path = "support/fake_host.rs"]
mod fake_host;

use bot_args::{arg, at, bid, engine_config, send_json};
use fake_host::{FakeHost, Reply};
use futures::executor::block_on;
use fx_wasm::bot::engine::Fxbot;
use fx_wasm::bot::stream::StreamLine;
use fx_wasm::caps::{MemoryDocStore, Method};
use serde_json::{json, Value};

fn body(text: &str) -> Reply {
    Reply::Body {
        status: 200,
        chunks: vec![text.as_bytes().to_vec()],
        retry_after: None,
    }
}

fn chat_chunk(delta: Value, finish: Value) -> String {
    let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

fn texts(lines: &[StreamLine]) -> String {
    lines
        .iter()
        .filter_map(|l| {
            let v = serde_json::to_value(l).unwrap();
            (v["type"] == "text").then(|| v["text"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn a_cut_chat_completions_stream_is_retried() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(br#"{"object":"list","data":[{"id":"m"}]}"#.to_vec());
    let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
    let provider = block_on(fxbot.providers_add(arg(json!({
        "kind": "custom", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "sk-1", "model": "m"
    }))))
    .unwrap();
    assert_eq!(provider["baseUrl"], "http://127.0.0.1:9/v1");
    let check = host.state.borrow().requests.last().unwrap().clone();
    assert_eq!(
        (check.method, check.url.as_str()),
        (Method::Get, "http://127.0.0.1:9/v1/models")
    );
    let bot = block_on(fxbot.bots_create(arg(json!({"provider": provider["id"], "name": "Ada"}))))
        .unwrap();
    let id = bot.id.to_string();
    // Cut: the role chunk only, then the body ends (no finish_reason, no [DONE]).
    host.reply(body(&chat_chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )));
    let whole = [
        chat_chunk(json!({"content": "Hel"}), Value::Null),
        chat_chunk(json!({"content": "lo."}), Value::Null),
        chat_chunk(json!({}), json!("stop")),
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\n"
            .to_owned(),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    host.reply(body(&whole));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m1"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    let lines = block_on(fxbot.stream(&bid(&id), at(json!(0)), None))
        .unwrap()
        .lines;
    assert_eq!(texts(&lines), "Hello.");
    let end = serde_json::to_value(lines.last().unwrap()).unwrap();
    assert_eq!(end["type"], "turn_end");
    assert_eq!(end["stopReason"], "end_turn");
    assert_eq!(end["usage"], json!({"inputTokens": 7, "outputTokens": 2}));
    let posts: Vec<_> = host
        .state
        .borrow()
        .requests
        .iter()
        .filter(|r| r.method == Method::Post)
        .cloned()
        .collect();
    assert_eq!(posts.len(), 2, "the cut answer was retried once");
    for post in &posts {
        assert_eq!(post.url, "http://127.0.0.1:9/v1/chat/completions");
        assert!(post
            .headers
            .iter()
            .any(|(n, v)| n == "authorization" && v == "Bearer sk-1"));
        let sent: Value = serde_json::from_slice(&post.body).unwrap();
        assert_eq!(sent["model"], "m");
        assert_eq!(sent["stream"], true);
        assert!(
            sent["tools"].as_array().is_some_and(|t| !t.is_empty()),
            "the bot's tools are offered"
        );
    }
    assert!(
        host.state
            .borrow()
            .events
            .iter()
            .any(|e| format!("{e:?}").contains("RequestRetry")),
        "the retry was reported as the gateway's are"
    );
}

#[test]
fn an_anthropic_turn() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog =
        Some(br#"{"data":[{"type":"model","id":"claude-x","display_name":"Claude X"}],"has_more":false}"#.to_vec());
    let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
    let provider =
        block_on(fxbot.providers_add(arg(json!({"kind": "anthropic", "apiKey": "sk-ant"}))))
            .unwrap();
    assert_eq!(provider["name"], "Anthropic");
    let models =
        block_on(fxbot.providers_models(&bot_args::pid(provider["id"].as_str().unwrap()), false))
            .unwrap();
    assert_eq!(models, json!([{"id": "claude-x", "contextWindow": null}]));
    let bot = block_on(fxbot.bots_create(arg(
        json!({"provider": provider["id"], "model": "claude-x"}),
    )))
    .unwrap();
    let id = bot.id.to_string();
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 11, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Bonjour."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    let text: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    host.reply(body(&text));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m1"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    let lines = block_on(fxbot.stream(&bid(&id), at(json!(0)), None))
        .unwrap()
        .lines;
    assert_eq!(texts(&lines), "Bonjour.");
    let end = serde_json::to_value(lines.last().unwrap()).unwrap();
    assert_eq!(end["usage"], json!({"inputTokens": 11, "outputTokens": 3}));
    let post = host
        .state
        .borrow()
        .requests
        .iter()
        .rfind(|r| r.method == Method::Post)
        .cloned()
        .unwrap();
    assert_eq!(post.url, "https://api.anthropic.com/v1/messages");
    for (name, value) in [
        ("x-api-key", "sk-ant"),
        ("anthropic-version", "2023-06-01"),
        ("anthropic-dangerous-direct-browser-access", "true"),
    ] {
        assert!(
            post.headers.iter().any(|(n, v)| n == name && v == value),
            "{name}"
        );
    }
    let sent: Value = serde_json::from_slice(&post.body).unwrap();
    assert_eq!(sent["model"], "claude-x");
    // The system prompt goes in `system`; the messages start with the user's.
    assert!(!sent["system"].as_str().unwrap().is_empty());
    assert_eq!(sent["messages"][0]["role"], "user");
    assert_eq!(sent["max_tokens"], 8192);
}

/// `Provider.error`: a key refused at use (401) says so; the next turn that works clears it; a
/// model list that fails says why.
#[test]
fn provider_error_when_its_agent_does_not_start() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(br#"{"data":[{"id":"m"}]}"#.to_vec());
    let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
    let provider =
        block_on(fxbot.providers_add(arg(json!({"kind": "xai", "apiKey": "sk-1", "model": "m"}))))
            .unwrap();
    let pid = bot_args::pid(provider["id"].as_str().unwrap());
    let bot = block_on(fxbot.bots_create(arg(json!({"provider": provider["id"]})))).unwrap();
    let id = bot.id.to_string();
    host.reply(Reply::Body {
        status: 401,
        chunks: vec![br#"{"error":{"message":"Incorrect API key provided"}}"#.to_vec()],
        retry_after: None,
    });
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "hi", "messageId": "m1"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    let error = block_on(fxbot.providers_get(&pid)).unwrap()["error"].clone();
    assert_eq!(error, "The provider rejected this key.");
    host.reply(body(
        &[
            chat_chunk(json!({"content": "ok"}), json!("stop")),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat(),
    ));
    let (_, pending) = block_on(send_json(
        &fxbot,
        &id,
        &json!({"text": "again", "messageId": "m2"}),
    ))
    .unwrap();
    block_on(fxbot.run(pending.unwrap()));
    assert_eq!(
        block_on(fxbot.providers_get(&pid)).unwrap()["error"],
        Value::Null
    );
    // The model list answers 500: 502, and the error says why.
    host.state.borrow_mut().catalog = None;
    let failed = block_on(fxbot.providers_models(&pid, true)).unwrap_err();
    assert_eq!(failed.status(), 502);
    let error = block_on(fxbot.providers_get(&pid)).unwrap()["error"].clone();
    assert!(error.as_str().unwrap().contains("answered 500"), "{error}");
}

/// The key check: 401 and 403 are 400 "The provider rejected this key."; so is Gemini's 400
/// `API_KEY_INVALID`; a 404 passes with no list; 500 and a 400 about something else are 502.
#[test]
fn key_check_statuses() {
    for (kind, status, answer, expected) in [
        (
            "openai",
            401,
            r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
            400,
        ),
        ("mistral", 403, "{}", 400),
        (
            "google",
            400,
            r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#,
            400,
        ),
        ("groq", 404, "", 200),
        ("deepseek", 500, "", 502),
        ("xai", 400, r#"{"error":"bad request: unknown field"}"#, 502),
    ] {
        let host = FakeHost::new();
        let answer = answer.as_bytes().to_vec();
        host.state.borrow_mut().router =
            Some(std::rc::Rc::new(move |_: &fx_wasm::caps::HttpRequest| {
                Some((status, answer.clone()))
            }));
        let fxbot = Fxbot::new(host.clone(), MemoryDocStore::new(), engine_config("p1"));
        let added = block_on(fxbot.providers_add(arg(json!({"kind": kind, "apiKey": "sk-x"}))));
        match (expected, added) {
            (200, Ok(provider)) => {
                let models = block_on(
                    fxbot.providers_models(&bot_args::pid(provider["id"].as_str().unwrap()), false),
                );
                assert_eq!(models.unwrap(), json!([]), "{kind}: a 404 keeps no list");
            }
            (_, Err(error)) => {
                assert_eq!(error.status(), expected, "{kind} {status}: {error}");
                if expected == 400 {
                    assert_eq!(error.to_string(), "The provider rejected this key.");
                }
            }
            (_, Ok(_)) => panic!("{kind} {status} was added"),
        }
    }
}
