//! The fxbot engine natively (fxbot DESIGN §3.4, §8): bots, chat and library rows, a turn with
//! files over the fake gateway, idempotency across two engines on one store, replay
//! determinism, reconnects at every cursor, the bot tools, and the export of a bot chat.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use base64::Engine as _;
use futures::executor::block_on;
use fx_wasm::bot::engine::chat::PendingTurn;
use fx_wasm::bot::engine::Fxbot;
use fx_wasm::bot::ids::LibraryId;
use fx_wasm::bot::stream::StreamLine;
use fx_wasm::caps::{DocStore, MemoryDocStore};
use serde_json::{json, Value};
use std::cell::Cell;
use std::rc::Rc;
use support::bot_args::{arg, at, bid, bot_arg, cursor, engine_config, lid, send_json, SpyDocs};
use support::fake_host::{sse, text_reply, yield_now, FakeHost, Reply};

type Engine = Fxbot<FakeHost, MemoryDocStore>;

fn engine_on(host: &FakeHost, docs: &MemoryDocStore, owner: &str) -> Engine {
    Fxbot::new(host.clone(), docs.clone(), engine_config(owner))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn png(len: usize) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.resize(len, 7);
    bytes
}

fn status<T: std::fmt::Debug>(result: Result<T, fx_wasm::bot::FxbotError>) -> (u16, String) {
    let error = result.unwrap_err();
    (error.status(), error.code().as_str().to_owned())
}

/// An engine with a gateway provider whose default model is the demo model, and one bot.
fn setup() -> (FakeHost, MemoryDocStore, Engine, String) {
    let host = FakeHost::new();
    let docs = MemoryDocStore::new();
    let engine = engine_on(&host, &docs, "p1");
    let provider = block_on(engine.providers_add(arg(
        json!({"kind": "gateway", "apiKey": "test-key", "model": "fx-demo/scripted"}),
    )))
    .unwrap();
    block_on(engine.settings_update(arg(json!({"defaultProvider": provider["id"]})))).unwrap();
    let bot = block_on(engine.bots_create(arg(json!({"name": "Ada"})))).unwrap();
    (host, docs, engine, bot.id.to_string())
}

fn send(engine: &Engine, bot: &str, message: Value) -> (Value, Option<PendingTurn>) {
    let (sent, pending) = block_on(send_json(engine, bot, &message)).unwrap();
    (serde_json::to_value(sent).unwrap(), pending)
}

fn lines(engine: &Engine, bot: &str, cursor: u64) -> Vec<Value> {
    let batch = block_on(engine.stream(&bid(bot), at(json!(cursor)), None)).unwrap();
    batch
        .lines
        .iter()
        .map(|l| serde_json::to_value(l).unwrap())
        .collect()
}

#[test]
fn bots_rows() {
    let (_host, _docs, engine, bot) = setup();
    // The boundary's id check: 12 lowercase hex characters, and a string.
    for (value, message) in [
        (
            json!("0123456789abc"),
            "botId must be 12 lowercase hex characters (0-9, a-f); got \"0123456789abc\"",
        ),
        (
            json!(123_456_789_012_u64),
            "botId must be a string, not a number",
        ),
        (json!(null), "botId must be a string, not undefined"),
    ] {
        let error = fx_wasm::bot::FxbotError::from(bot_arg(value).unwrap_err());
        assert_eq!(
            (error.status(), error.to_string()),
            (400, message.to_owned())
        );
    }
    assert_eq!(
        status(block_on(engine.bots_get(&bid("0123456789ab")))),
        (404, "FXBOT_NOT_FOUND".into())
    );
    assert_eq!(
        status(block_on(
            engine.bots_create(arg(json!({"name": "x".repeat(65)})))
        )),
        (400, "FXBOT_BAD_REQUEST".into())
    );
    assert_eq!(
        status(block_on(
            engine.bots_create(arg(json!({"provider": "00000000000f"})))
        )),
        (400, "FXBOT_BAD_REQUEST".into())
    );
    // Other keys are ignored; the default provider is taken.
    let profile = block_on(engine.bots_get(&bid(&bot))).unwrap();
    assert_eq!(profile.fields.name, "Ada");
    assert!(profile.fields.provider.is_some());
    let mut ids = vec![bot.clone()];
    for n in 0..3 {
        let b = block_on(engine.bots_create(arg(
            json!({"name": format!("b{n}"), "color": "red", "extra": 1}),
        )))
        .unwrap();
        ids.push(b.id.to_string());
    }
    for id in &ids[..3] {
        assert!(
            block_on(engine.bots_update(&bid(id), arg(json!({"pinned": true}))))
                .unwrap()
                .pinned
        );
    }
    assert_eq!(
        status(block_on(
            engine.bots_update(&bid(&ids[3]), arg(json!({"pinned": true})))
        )),
        (400, "FXBOT_BAD_REQUEST".into())
    );
    let list = block_on(engine.bots_list()).unwrap();
    assert_eq!(list.len(), 4);
    assert!(list[..3].iter().all(|p| p.pinned) && !list[3].pinned);
    assert_eq!(list[3].id.as_str(), ids[3]);
    block_on(engine.bots_remove(&bid(&ids[3]))).unwrap();
    assert_eq!(status(block_on(engine.bots_get(&bid(&ids[3])))).0, 404);
    assert_eq!(status(block_on(engine.bots_remove(&bid(&ids[3])))).0, 404);
}

#[test]
fn chat_rows() {
    let (_host, _docs, engine, bot) = setup();
    let bad = |message: Value| status(block_on(send_json(&engine, &bot, &message)));
    let big = b64(&png(4 * 1024 * 1024));
    let three = b64(&png(3 * 1024 * 1024 + 512 * 1024));
    for message in [
        json!({"text": "hi", "messageId": "a/b"}),
        json!({"text": "", "messageId": "m"}),
        json!({"text": "hi", "messageId": "m", "files": [{"name": "a.png", "type": "image/png", "data": big}]}),
        json!({"text": "hi", "messageId": "m", "files": [
            {"name": "a.png", "type": "image/png", "data": three},
            {"name": "b.png", "type": "image/png", "data": three}]}),
        json!({"text": "hi", "messageId": "m", "files": [{"name": "a.txt", "type": "text/plain", "data": b64(b"a\0b")}]}),
    ] {
        assert_eq!(bad(message), (400, "FXBOT_BAD_REQUEST".into()));
    }
    assert_eq!(
        status(block_on(send_json(
            &engine,
            "0123456789abc",
            &json!({"text": "hi", "messageId": "m"})
        ))),
        (400, "FXBOT_BAD_REQUEST".into())
    );
    assert_eq!(
        status(block_on(send_json(
            &engine,
            "0123456789ab",
            &json!({"text": "hi", "messageId": "m"})
        ))),
        (404, "FXBOT_NOT_FOUND".into())
    );
    // No provider, and a provider without a default model and a bot without a model.
    let lone = block_on(engine.bots_create(arg(json!({"provider": ""})))).unwrap();
    let error = block_on(send_json(
        &engine,
        lone.id.as_str(),
        &json!({"text": "hi", "messageId": "m"}),
    ))
    .unwrap_err();
    assert_eq!(error.status(), 400);
    assert!(error.to_string().contains("no provider"), "{error}");
    let p2 =
        block_on(engine.providers_add(arg(json!({"kind": "gateway", "apiKey": "k"})))).unwrap();
    let modelless = block_on(engine.bots_create(arg(json!({"provider": p2["id"]})))).unwrap();
    let error = block_on(send_json(
        &engine,
        modelless.id.as_str(),
        &json!({"text": "hi", "messageId": "m"}),
    ))
    .unwrap_err();
    assert_eq!(error.status(), 400);
    assert!(error.to_string().contains("no model"), "{error}");
    // A stream of a bot without a chat ends at once; a cursor must be a whole number.
    let batch = block_on(engine.stream(&bid(&bot), at(json!(0)), None)).unwrap();
    assert!(batch.end && batch.lines.is_empty());
    for value in [json!(1.5), json!("0"), json!(-1), json!(null)] {
        let error = fx_wasm::bot::FxbotError::from(cursor(value).unwrap_err());
        assert_eq!(error.status(), 400);
    }
    // After close every call is 409.
    engine.close();
    assert_eq!(
        status(block_on(engine.bots_list())),
        (409, "FXBOT_CLOSED".into())
    );
}

#[test]
fn a_turn_with_files_streams_and_a_repeated_message_id_runs_nothing() {
    let (host, _docs, engine, bot) = setup();
    host.reply(text_reply(&["Hello", " there"]));
    let image = png(64);
    let gif = b"GIF89a\x01\x00\x01\x00rest".to_vec();
    let message = json!({"text": "look", "messageId": "m1", "files": [
        {"name": "dot.png", "type": "image/png", "data": b64(&image)},
        {"name": "notes.txt", "type": "text/plain", "data": b64(b"alpha beta")},
        {"name": "a.txt", "type": "text/plain", "data": b64(&gif)}]});
    let (sent, pending) = send(&engine, &bot, message.clone());
    assert_eq!(sent["duplicate"], false);
    assert_eq!(sent["turn"], 1);
    assert_eq!(sent["cursor"], 1u64 << 21);
    assert!(engine.busy(&bid(&bot)));
    // While it runs: the same id is the same turn; another id is 409.
    let (again, none) = send(&engine, &bot, message.clone());
    assert!(none.is_none());
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["sessionId"], sent["sessionId"]);
    assert_eq!(
        status(block_on(send_json(
            &engine,
            &bot,
            &json!({"text": "x", "messageId": "m2"})
        ))),
        (409, "FXBOT_BUSY".into())
    );
    block_on(engine.run(pending.unwrap()));
    assert!(!engine.busy(&bid(&bot)));

    let got = lines(&engine, &bot, 0);
    let kinds: Vec<&str> = got.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"turn_start"));
    assert_eq!(kinds.last(), Some(&"turn_end"));
    assert!(kinds.contains(&"text"));
    let start = &got[0];
    assert_eq!(start["messageId"], "m1");
    assert_eq!(start["input"], "look");
    let files = start["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert!(files[0]["url"]
        .as_str()
        .unwrap()
        .starts_with("/api/library/"));
    // The GIF named a.txt was sniffed as an image.
    assert_eq!(files[2]["type"], "image/gif");
    assert!(start["prompt"]
        .as_str()
        .unwrap()
        .contains("<file name=\"notes.txt\" type=\"text/plain\">\nalpha beta\n</file>"));
    let text: String = got
        .iter()
        .filter(|l| l["type"] == "text")
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hello there");
    assert_eq!(got.last().unwrap()["stopReason"], "end_turn");

    // One model request, with the text file inline and the images as parts.
    let requests = host.chat_requests();
    assert_eq!(requests.len(), 1);
    let user = requests[0]["prompt"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(user["content"][1]["mediaType"], "image/png");
    assert_eq!(user["content"][2]["mediaType"], "image/gif");
    // Sending m1 again after the end: duplicate, nothing sent.
    let (again, none) = send(&engine, &bot, message);
    assert!(none.is_none() && again["duplicate"] == true);
    assert_eq!(host.chat_requests().len(), 1);

    // The library has the three files, tagged.
    let items = block_on(engine.library_list(arg(json!({"botId": bot})))).unwrap();
    assert_eq!(items.len(), 3);
    for item in &items {
        let tags: Vec<&str> = item["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(tags[0], format!("bot:{bot}"));
        assert_eq!(
            tags[1],
            format!("chat:{}", sent["sessionId"].as_str().unwrap())
        );
        assert_eq!(tags[2], "message:m1");
    }
    let txt = items.iter().find(|i| i["name"] == "notes.txt").unwrap();
    let read = block_on(engine.library_read(&lid(txt["id"].as_str().unwrap()))).unwrap();
    assert_eq!(read.bytes, b"alpha beta");
    // The profile shows the reply's start and the chat.
    let profile = block_on(engine.bots_get(&bid(&bot))).unwrap();
    assert_eq!(profile.preview.as_deref(), Some("Hello there"));
    assert_eq!(profile.session_id.as_deref(), sent["sessionId"].as_str());
}

#[test]
fn two_engines_on_one_store_run_one_turn_per_message_id() {
    let (host, docs, first, bot) = setup();
    let shared = SpyDocs {
        inner: docs.clone(),
        yields: true,
        ..SpyDocs::default()
    };
    let a = Fxbot::new(host.clone(), shared.clone(), engine_config("tab-a"));
    let b = Fxbot::new(host.clone(), shared, engine_config("tab-b"));
    drop(first);
    host.reply(text_reply(&["once"]));
    let message = json!({"text": "hi", "messageId": "m1"});
    let (ra, rb) = block_on(futures::future::join(
        send_json(&a, &bot, &message),
        send_json(&b, &bot, &message),
    ));
    let (sa, pa) = ra.unwrap();
    let (sb, pb) = rb.unwrap();
    assert_eq!(
        pa.is_some() as u8 + pb.is_some() as u8,
        1,
        "exactly one engine runs m1"
    );
    assert_eq!(sa.session_id, sb.session_id);
    assert_eq!((sa.turn, sb.turn), (1, 1));
    assert!(sa.duplicate != sb.duplicate);
    // The other engine, with another message while m1 runs: 409 (by the claim).
    let other = if pa.is_some() { &b } else { &a };
    let error = block_on(send_json(
        other,
        &bot,
        &json!({"text": "x", "messageId": "m2"}),
    ))
    .unwrap_err();
    assert_eq!((error.status(), error.code().as_str()), (409, "FXBOT_BUSY"));
    let runner = if pa.is_some() { &a } else { &b };
    block_on(runner.run(pa.or(pb).unwrap()));
    assert_eq!(host.chat_requests().len(), 1);
    // Either engine replays the same lines.
    let la = block_on(a.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    let lb = block_on(b.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    assert_eq!(la, lb);
    // And m2 can run now.
    host.reply(text_reply(&["two"]));
    let (s2, p2) = block_on(send_json(
        other,
        &bot,
        &json!({"text": "x", "messageId": "m2"}),
    ))
    .unwrap();
    assert_eq!(s2.turn, 2);
    block_on(other.run(p2.unwrap()));
    assert_eq!(host.chat_requests().len(), 2);
}

fn tool_call(id: &str, name: &str, input: Value) -> Reply {
    let call = json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": input.to_string()}).to_string();
    let finish = r#"{"type":"finish","finishReason":{"unified":"tool-calls","raw":"tool_calls"},"usage":{"inputTokens":{"total":20},"outputTokens":{"total":5}}}"#;
    Reply::Body {
        status: 200,
        chunks: vec![sse(&[&call, finish])],
        retry_after: None,
    }
}

/// A minimal reducer (the client's rule): a `turn_start` resets its turn; text appends.
fn reduce(lines: &[StreamLine]) -> Vec<(u32, String, Vec<String>, bool)> {
    let mut turns: Vec<(u32, String, Vec<String>, bool)> = Vec::new();
    for line in lines {
        let v = serde_json::to_value(line).unwrap();
        let turn = v["turn"].as_u64().unwrap() as u32;
        match v["type"].as_str().unwrap() {
            "turn_start" => {
                turns.retain(|t| t.0 != turn);
                turns.push((turn, String::new(), Vec::new(), false));
            }
            kind => {
                let t = turns.iter_mut().find(|t| t.0 == turn).unwrap();
                match kind {
                    "text" => t.1.push_str(v["text"].as_str().unwrap()),
                    "tool_result" => t.2.push(v["output"].as_str().unwrap().to_owned()),
                    "turn_end" => t.3 = true,
                    _ => {}
                }
            }
        }
    }
    turns
}

#[test]
fn bot_tools_replay_reconnects_and_the_export() {
    let (host, docs, engine, bot) = setup();
    host.reply(text_reply(&["Noted."]));
    let message = json!({"text": "keep this", "messageId": "m1", "files": [
        {"name": "notes.txt", "type": "text/plain", "data": b64("the secret word is heliotrope".as_bytes())},
        {"name": "dot.png", "type": "image/png", "data": b64(&png(64))}]});
    let (_, pending) = send(&engine, &bot, message);
    block_on(engine.run(pending.unwrap()));
    let items = block_on(engine.library_list(arg(json!({})))).unwrap();
    let item = items.iter().find(|i| i["name"] == "notes.txt").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Turn 2 lists the library, reads the file and searches the chat.
    let (sent, pending) = send(
        &engine,
        &bot,
        json!({"text": "what was the word?", "messageId": "m2"}),
    );
    host.reply(tool_call("c1", "library_list", json!({})));
    host.reply(tool_call("c2", "library_read", json!({"id": item})));
    host.reply(tool_call("c3", "chat_history", json!({"query": "keep"})));
    host.reply(text_reply(&["It was ", "heliotrope."]));
    block_on(engine.run(pending.unwrap()));
    let requests = host.chat_requests();
    assert_eq!(requests.len(), 5);
    let tools: Vec<&str> = requests[1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, fx_wasm::bot::tools::OWN_TOOLS);
    let system = requests[1]["prompt"][0]["content"].as_str().unwrap();
    assert!(system.contains("Your name is Ada."));

    // The live journal of turn 2 and its replay.
    let live = block_on(engine.stream(&bid(&bot), at(sent["cursor"].clone()), None))
        .unwrap()
        .lines;
    let outputs: Vec<String> = live
        .iter()
        .filter_map(|l| match l {
            StreamLine::ToolResult(r) => Some(r.output.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(outputs.len(), 3);
    assert!(outputs[0].contains("notes.txt"));
    assert!(outputs[1].contains("heliotrope"), "{outputs:?}");
    assert!(outputs[2].contains("msg:m1") && outputs[2].contains("keep this"));
    let fresh = engine_on(&host, &docs, "p2");
    let replayed = block_on(fresh.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    assert_eq!(
        replayed,
        block_on(fresh.stream(&bid(&bot), at(json!(0)), None))
            .unwrap()
            .lines,
        "replay is deterministic"
    );
    let whole = reduce(&replayed);
    assert_eq!(whole.len(), 2);
    assert_eq!(whole[1].1, "It was heliotrope.");
    assert!(whole.iter().all(|t| t.3));

    // Every cursor of the live turn: the live engine continues exactly, a fresh one restarts
    // the turn; through the reducer both rebuild the same turns.
    let before: Vec<StreamLine> = block_on(engine.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    let full = reduce(&before);
    for (i, line) in before.iter().enumerate() {
        let cursor = line.cursor().value();
        for e in [&engine, &fresh] {
            let mut seen: Vec<StreamLine> = before[..=i].to_vec();
            seen.extend(
                block_on(e.stream(&bid(&bot), at(json!(cursor)), None))
                    .unwrap()
                    .lines,
            );
            assert_eq!(reduce(&seen), full, "reconnect at line {i} ({cursor})");
        }
    }

    // The chat is an fx session: it loads, and exports with its tool calls.
    let session = sent["sessionId"].as_str().unwrap().to_owned();
    let bytes = host.stored(&session);
    let log = fx_wasm::log::SessionLog::load(bytes.clone()).unwrap();
    assert_eq!(log.state().history.len(), 2);
    let files = fx_wasm::log::export_native(&bytes).unwrap();
    let events = files.iter().find(|(p, _)| p == "events.jsonl").unwrap();
    let events = String::from_utf8_lossy(&events.1);
    assert!(events.contains("library_read"));
    assert!(
        files
            .iter()
            .any(|(p, data)| p.starts_with("images/image-1-") && *data == png(64)),
        "the image is exported"
    );
    if let Ok(fx) = std::env::var("FX_NATIVE") {
        let home = std::env::temp_dir().join(format!("fxbot-native-{}", std::process::id()));
        let dir = home.join(".fx").join("sessions").join(&session);
        std::fs::create_dir_all(&dir).unwrap();
        use std::os::unix::fs::PermissionsExt;
        for d in [
            home.join(".fx"),
            home.join(".fx").join("sessions"),
            dir.clone(),
        ] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
        for (path, data) in &files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, data).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
            if let Some(parent) = file.parent() {
                std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700)).unwrap();
            }
        }
        let out = std::process::Command::new(fx)
            .args(["session", "--id", &session, "--json"])
            .env("HOME", &home)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&home);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let detail: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(detail["kind"], "session_detail", "{detail}");
        assert_eq!(detail["history_len"], 2);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("library_read"),
            "{detail}"
        );
    }
}

#[test]
fn stop_cancels_the_running_turn() {
    let (host, _docs, engine, bot) = setup();
    host.reply(Reply::Stall {
        chunks: vec![b"data: {\"type\":\"text-delta\",\"delta\":\"par\"}\n\n".to_vec()],
    });
    let (_, pending) = send(&engine, &bot, json!({"text": "hi", "messageId": "m1"}));
    let stopped = block_on(async {
        let run = engine.run(pending.unwrap());
        let stop = async {
            host.until_waiting().await;
            engine.stop(&bot).await.unwrap()
        };
        futures::future::join(run, stop).await.1
    });
    assert!(stopped);
    let got = lines(&engine, &bot, 0);
    assert_eq!(got.last().unwrap()["stopReason"], "cancelled");
    assert!(!block_on(engine.stop(&bot)).unwrap());
    // A new message runs after a stopped one.
    host.reply(text_reply(&["ok"]));
    let (sent, pending) = send(&engine, &bot, json!({"text": "again", "messageId": "m2"}));
    assert_eq!(sent["turn"], 2);
    block_on(engine.run(pending.unwrap()));
}

#[test]
fn release_ends_waits_and_library_rows() {
    let (_host, _docs, engine, bot) = setup();
    let batch = block_on(engine.stream(&bid(&bot), at(json!(0)), None)).unwrap();
    engine.release(Some(&bid(&bot)));
    assert!(!block_on(engine.wait(
        &bid(&bot),
        at(json!(0)),
        batch.epoch
    )));
    let added = block_on(engine.library_add(
        arg(json!({"name": "a.md", "type": "text/markdown", "data": b64(b"# hi")})),
        arg(json!(["notes"])),
    ))
    .unwrap();
    assert_eq!(added["tags"], json!(["notes"]));
    assert_eq!(added["type"], "text/markdown");
    let id = added["id"].as_str().unwrap();
    assert_eq!(block_on(engine.library_get(&lid(id))).unwrap()["size"], 4);
    assert_eq!(
        block_on(engine.library_list(arg(json!({"tag": "notes"}))))
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        fx_wasm::bot::FxbotError::from(LibraryId::parse("nothex").unwrap_err()).status(),
        400
    );
    assert_eq!(
        status(block_on(engine.library_get(&lid("0123456789ab")))).0,
        404
    );
    assert_eq!(
        status(block_on(engine.library_add(
            arg(json!({"name": "a.txt", "type": "text/plain", "data": b64(b"\0")})),
            arg(Value::Null)
        )))
        .0,
        400
    );
    block_on(engine.library_remove(&lid(id))).unwrap();
    assert_eq!(status(block_on(engine.library_get(&lid(id)))).0, 404);
}

#[test]
fn pins_of_a_store_written_before_the_pins_document() {
    let (_host, docs, engine, bot) = setup();
    // An older version kept `pinned` in the bot's own document.
    let key = format!("bot/{bot}");
    let stored = block_on(docs.doc_load(&key)).unwrap().unwrap();
    let mut old: Value = serde_json::from_slice(&stored.bytes).unwrap();
    old["pinned"] = json!(true);
    block_on(docs.doc_commit(
        &key,
        &serde_json::to_vec(&old).unwrap(),
        Some(&stored.revision),
    ))
    .unwrap();
    assert!(block_on(docs.doc_load("pins")).unwrap().is_none());
    let other = block_on(engine.bots_create(arg(json!({"name": "Other"})))).unwrap();
    let list = block_on(engine.bots_list()).unwrap();
    assert_eq!(
        list.iter()
            .map(|p| (p.id.to_string(), p.pinned))
            .collect::<Vec<_>>(),
        [(bot.clone(), true), (other.id.to_string(), false)]
    );
    // The pins document is written once; from then on it is the truth.
    let pins: Value =
        serde_json::from_slice(&block_on(docs.doc_load("pins")).unwrap().unwrap().bytes).unwrap();
    assert_eq!(pins["bots"], json!([bot]));
    block_on(engine.bots_update(&bid(&bot), arg(json!({"pinned": false})))).unwrap();
    assert!(!block_on(engine.bots_get(&bid(&bot))).unwrap().pinned);
}

/// A [`MemoryDocStore`] (shared with other engines) whose `nth` load of `key` waits until `open`
/// is set, saying so in `waiting`: one engine's step held while another engine runs.
#[derive(Clone)]
struct GateDocs {
    inner: MemoryDocStore,
    key: String,
    nth: usize,
    loads: Rc<Cell<usize>>,
    waiting: Rc<Cell<bool>>,
    open: Rc<Cell<bool>>,
}

impl DocStore for GateDocs {
    async fn doc_load(
        &self,
        key: &str,
    ) -> Result<Option<fx_wasm::caps::StoredRecord>, fx_wasm::caps::StoreError> {
        if key == self.key {
            self.loads.set(self.loads.get() + 1);
            if self.loads.get() == self.nth {
                self.waiting.set(true);
                while !self.open.get() {
                    yield_now().await;
                }
            }
        }
        self.inner.doc_load(key).await
    }
    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, fx_wasm::caps::StoreError> {
        self.inner.doc_commit(key, bytes, expected).await
    }
    async fn doc_list(
        &self,
        prefix: &str,
    ) -> Result<Vec<fx_wasm::caps::ListedDoc>, fx_wasm::caps::StoreError> {
        self.inner.doc_list(prefix).await
    }
    async fn doc_remove(
        &self,
        key: &str,
        expected: Option<&str>,
    ) -> Result<fx_wasm::caps::RemoveOutcome, fx_wasm::caps::StoreError> {
        self.inner.doc_remove(key, expected).await
    }
}

/// Each turn of a replay: (turn, messageId, stopReason, sessionId).
fn turn_rows(lines: &[StreamLine]) -> Vec<(u64, String, String, String)> {
    let values: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::to_value(l).unwrap())
        .collect();
    let mut rows = Vec::new();
    for start in values.iter().filter(|l| l["type"] == "turn_start") {
        let turn = start["turn"].as_u64().unwrap();
        let end = values
            .iter()
            .find(|l| l["type"] == "turn_end" && l["turn"].as_u64() == Some(turn))
            .unwrap();
        rows.push((
            turn,
            start["messageId"].as_str().unwrap().to_owned(),
            end["stopReason"].to_string(),
            start["sessionId"].as_str().unwrap().to_owned(),
        ));
    }
    rows
}

#[test]
fn a_turn_another_engine_ran_after_this_one_opened_the_session_stays_in_the_chat() {
    // Engine B opens the chat's session, then (before its claim) engine A runs a whole turn of
    // the bot: B's claim finds A's turn number taken. A's turn is in the stored log, so B must
    // read the session again and claim the next turn, not settle A's turn a second time (as
    // interrupted, into its stale copy, which forks the chat and leaves A's turn out).
    let (host, docs, first, bot) = setup();
    let a = engine_on(&host, &docs, "proc-a");
    let gate = GateDocs {
        inner: docs.clone(),
        key: format!("chat/{bot}"),
        // The first load is send's duplicate check; the second is the claim's.
        nth: 2,
        loads: Rc::default(),
        waiting: Rc::default(),
        open: Rc::default(),
    };
    let b = Fxbot::new(host.clone(), gate.clone(), engine_config("proc-b"));
    drop(first);
    host.reply(text_reply(&["one"]));
    let (_, p1) = send(&a, &bot, json!({"text": "first", "messageId": "m1"}));
    block_on(a.run(p1.unwrap()));
    host.reply(text_reply(&["two"]));
    host.reply(text_reply(&["three"]));
    let (rb, s2) = block_on(futures::future::join(
        send_json(&b, &bot, &json!({"text": "third", "messageId": "m3"})),
        async {
            for _ in 0..10_000 {
                if gate.waiting.get() {
                    break;
                }
                yield_now().await;
            }
            assert!(gate.waiting.get(), "B reached its claim");
            let (s2, p2) = send_json(&a, &bot, &json!({"text": "second", "messageId": "m2"}))
                .await
                .unwrap();
            a.run(p2.unwrap()).await;
            gate.open.set(true);
            s2
        },
    ));
    assert_eq!(s2.turn, 2);
    let (s3, p3) = rb.unwrap();
    assert_eq!(s3.turn, 3, "B's message takes the turn after A's");
    assert_eq!(s3.session_id, s2.session_id, "the chat did not fork");
    block_on(b.run(p3.unwrap()));
    assert_eq!(host.chat_requests().len(), 3);
    let end_turn = json!("end_turn").to_string();
    let la = block_on(a.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    let lb = block_on(b.stream(&bid(&bot), at(json!(0)), None))
        .unwrap()
        .lines;
    assert_eq!(la, lb, "both engines replay the same chat");
    let rows = turn_rows(&lb);
    let expected: Vec<(u64, String, String, String)> = [(1, "m1"), (2, "m2"), (3, "m3")]
        .into_iter()
        .map(|(t, m)| (t, m.to_owned(), end_turn.clone(), s2.session_id.clone()))
        .collect();
    assert_eq!(rows, expected);
    // A new model of the bot goes on in the same chat (set once the turn is claimed).
    block_on(a.bots_update(&bid(&bot), arg(json!({"model": "fx-demo/other"})))).unwrap();
    host.reply(text_reply(&["four"]));
    let (s4, p4) = block_on(send_json(
        &b,
        &bot,
        &json!({"text": "4", "messageId": "m4"}),
    ))
    .unwrap();
    assert_eq!(
        (s4.turn, s4.session_id.as_str()),
        (4, s2.session_id.as_str())
    );
    block_on(b.run(p4.unwrap()));
    let model = host
        .state
        .borrow()
        .requests
        .iter()
        .rfind(|r| r.method == fx_wasm::caps::Method::Post)
        .and_then(|r| {
            r.headers
                .iter()
                .find(|(n, _)| n == "ai-language-model-id")
                .map(|(_, v)| v.clone())
        });
    assert_eq!(model.as_deref(), Some("fx-demo/other"));
    let rows = turn_rows(
        &block_on(a.stream(&bid(&bot), at(json!(0)), None))
            .unwrap()
            .lines,
    );
    assert_eq!(rows.len(), 4);
    assert_eq!(
        rows[3],
        (4, "m4".to_owned(), end_turn, s2.session_id.clone())
    );
}

#[test]
fn a_chat_another_engine_started_after_this_one_read_the_bot_stays_the_chat() {
    // Engine B reads the bot (no chat yet); before its claim, engine A runs the bot's first
    // turn in a new chat. B must not start a chat of its own (the bot's chat would become it,
    // and A's turn would be left out): its send is 409 and a retry goes on in A's chat.
    let (host, docs, first, bot) = setup();
    let a = engine_on(&host, &docs, "proc-a");
    let gate = GateDocs {
        inner: docs.clone(),
        key: format!("chat/{bot}"),
        // The first load of the chat is send's duplicate check, after the bot is read.
        nth: 1,
        loads: Rc::default(),
        waiting: Rc::default(),
        open: Rc::default(),
    };
    let b = Fxbot::new(host.clone(), gate.clone(), engine_config("proc-b"));
    drop(first);
    host.reply(text_reply(&["one"]));
    host.reply(text_reply(&["two"]));
    let m2 = json!({"text": "second", "messageId": "m2"});
    let (rb, s1) = block_on(futures::future::join(send_json(&b, &bot, &m2), async {
        for _ in 0..10_000 {
            if gate.waiting.get() {
                break;
            }
            yield_now().await;
        }
        assert!(gate.waiting.get(), "B read the bot");
        let (s1, p1) = send_json(&a, &bot, &json!({"text": "first", "messageId": "m1"}))
            .await
            .unwrap();
        a.run(p1.unwrap()).await;
        gate.open.set(true);
        s1
    }));
    let error = rb.unwrap_err();
    assert_eq!((error.status(), error.code().as_str()), (409, "FXBOT_BUSY"));
    // The claim was taken back: the same message goes on in A's chat.
    let (s2, p2) = block_on(send_json(&b, &bot, &m2)).unwrap();
    assert_eq!(
        (s2.turn, s2.session_id.as_str()),
        (2, s1.session_id.as_str())
    );
    block_on(b.run(p2.unwrap()));
    let end_turn = json!("end_turn").to_string();
    let rows = turn_rows(
        &block_on(a.stream(&bid(&bot), at(json!(0)), None))
            .unwrap()
            .lines,
    );
    let expected: Vec<(u64, String, String, String)> = [(1, "m1"), (2, "m2")]
        .into_iter()
        .map(|(t, m)| (t, m.to_owned(), end_turn.clone(), s1.session_id.clone()))
        .collect();
    assert_eq!(rows, expected);
    assert_eq!(host.chat_requests().len(), 2);
}
