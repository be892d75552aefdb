//! Following a bot's turn natively (src/bot/engine/stream.rs): one consumer of a 2,000-chunk
//! reply reads the store a handful of times, not once per chunk, whatever the chat's length;
//! its lines are the turn's, in order; a consumer whose kept replay misses another process's
//! turn reads the store again.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use futures::executor::block_on;
use fx_wasm::bot::engine::Fxbot;
use fx_wasm::bot::stream::StreamLine;
use serde_json::json;
use support::bot_args::{arg, at, bid, engine_config, SpyDocs};
use support::fake_host::{sse, text_reply, FakeHost, Reply};

type Engine = Fxbot<FakeHost, SpyDocs>;

fn engine(host: &FakeHost, docs: &SpyDocs, owner: &str) -> Engine {
    Fxbot::new(host.clone(), docs.clone(), engine_config(owner))
}

/// An engine with one bot whose chat has `earlier` finished turns.
fn bot_with_turns(earlier: usize) -> (FakeHost, SpyDocs, Engine, String) {
    let host = FakeHost::new();
    let docs = SpyDocs::default();
    let engine = engine(&host, &docs, "p1");
    let provider = block_on(engine.providers_add(arg(
        json!({"kind": "gateway", "apiKey": "test-key", "model": "fx-demo/scripted"}),
    )))
    .unwrap();
    let bot = block_on(engine.bots_create(arg(json!({"provider": provider["id"]})))).unwrap();
    let bot = bot.id.to_string();
    for t in 0..earlier {
        host.reply(text_reply(&["earlier ", "reply"]));
        let message = json!({"text": format!("earlier {t}"), "messageId": format!("e{t}")});
        let (_, pending) = block_on(engine.send(&bot, &message)).unwrap();
        block_on(engine.run(pending.unwrap()));
    }
    (host, docs, engine, bot)
}

/// A reply of `n` text deltas, each its own chunk.
fn long_reply(n: usize) -> Reply {
    let mut chunks: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let delta =
                json!({"type": "text-delta", "id": "t", "delta": format!("{:03} ", i % 1000)});
            format!("data: {delta}\n\n").into_bytes()
        })
        .collect();
    chunks.push(sse(&[
        r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":10},"outputTokens":{"total":3}}}"#,
    ]));
    Reply::Body {
        status: 200,
        chunks,
        retry_after: None,
    }
}

/// What the JS iterator does: the first batch from `stream`, then `wait` and `follow` until the
/// first `turn_end`. Returns the lines and how many batches it took.
async fn consume(engine: &Engine, bot: &str, from: u64) -> (Vec<StreamLine>, usize) {
    let mut lines = Vec::new();
    let id = bid(bot);
    let mut pos = from;
    let mut batch = engine.stream(&id, at(json!(pos)), None).await.unwrap();
    let mut batches = 1;
    loop {
        for line in &batch.lines {
            pos = line.cursor().value();
            lines.push(line.clone());
            if matches!(line, StreamLine::TurnEnd(_)) {
                return (lines, batches);
            }
        }
        assert!(!batch.end, "the stream ended before the turn did");
        assert!(engine.wait(&id, at(json!(pos)), batch.epoch).await);
        batch = engine
            .follow(&id, at(json!(pos)), batch.epoch)
            .await
            .unwrap();
        batches += 1;
    }
}

fn text_of(lines: &[StreamLine]) -> String {
    lines
        .iter()
        .filter_map(|l| match l {
            StreamLine::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn following_a_turn_reads_the_store_a_handful_of_times_whatever_the_chat_length() {
    const DELTAS: usize = 2000;
    let expected: String = (0..DELTAS).map(|i| format!("{:03} ", i % 1000)).collect();
    let mut costs = Vec::new();
    for earlier in [0, 40] {
        let (host, docs, engine, bot) = bot_with_turns(earlier);
        host.reply(long_reply(DELTAS));
        host.state.borrow_mut().pace_chunks = true;
        let (sent, pending) =
            block_on(engine.send(&bot, &json!({"text": "long", "messageId": "long"}))).unwrap();
        let loads_before = host.state.borrow().session_loads;
        let reads_before = docs.reads.get();
        let ((lines, batches), ()) = block_on(async {
            futures::join!(
                consume(&engine, &bot, sent.cursor.value()),
                engine.run(pending.unwrap())
            )
        });
        let loads = host.state.borrow().session_loads - loads_before;
        let reads = docs.reads.get() - reads_before;
        assert_eq!(text_of(&lines), expected, "after {earlier} turns");
        assert!(
            batches > DELTAS / 2,
            "the consumer followed chunk by chunk: {batches} batches"
        );
        assert_eq!(lines.first().map(StreamLine::kind), Some("turn_start"));
        // Opening the stream loads the chat once; nothing per chunk; the turn's end reads the
        // chat document it wrote (and the bot's).
        assert_eq!(loads, 1, "session loads after {earlier} turns");
        assert!(reads <= 8, "document reads after {earlier} turns: {reads}");
        costs.push((loads, reads));
        // A later stream of the whole chat is served from the kept replay: the store is read
        // (it is the truth) but not parsed again; the lines are the committed turns'.
        let all = block_on(engine.stream(&bid(&bot), at(json!(0)), None)).unwrap();
        assert_eq!(
            all.lines
                .iter()
                .filter(|l| l.kind() == "turn_start")
                .count(),
            earlier + 1
        );
    }
    assert_eq!(
        costs[0], costs[1],
        "the same cost after 0 and 40 earlier turns"
    );
}

#[test]
fn a_kept_replay_that_misses_another_process_turn_reads_the_store_again() {
    let (host, docs, engine, bot) = bot_with_turns(1);
    // This process keeps the chat (one turn), then another process runs turn 2.
    let opened = block_on(engine.stream(&bid(&bot), at(json!(0)), None)).unwrap();
    let other = Fxbot::new(host.clone(), docs.clone(), engine_config("p2"));
    host.reply(text_reply(&["from ", "the other tab"]));
    let (_, pending) =
        block_on(other.send(&bot, &json!({"text": "x", "messageId": "o1"}))).unwrap();
    block_on(other.run(pending.unwrap()));
    // This process starts turn 3. The consumer opened before follows on from the end of turn
    // 1: its kept replay lacks turn 2, so it is read again, and turn 2 comes before turn 3.
    host.reply(text_reply(&["mine"]));
    let end_of_1 = (1u64 << 21) + (1 << 21) - 1;
    let (sent, pending) =
        block_on(engine.send(&bot, &json!({"text": "y", "messageId": "m3"}))).unwrap();
    assert_eq!(sent.turn, 3);
    let loads = host.state.borrow().session_loads;
    let batch = block_on(engine.follow(&bid(&bot), at(json!(end_of_1)), opened.epoch)).unwrap();
    assert_eq!(
        host.state.borrow().session_loads,
        loads + 1,
        "the store was read"
    );
    assert!(batch.live);
    let starts: Vec<(u32, String)> = batch
        .lines
        .iter()
        .filter_map(|l| match l {
            StreamLine::TurnStart(s) => Some((s.turn, s.message_id.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [(2, "o1".to_owned()), (3, "m3".to_owned())]);
    // Now kept whole: the next follow is from memory.
    block_on(engine.run(pending.unwrap()));
    let loads = host.state.borrow().session_loads;
    let rest =
        block_on(engine.follow(&bid(&bot), at(json!(sent.cursor.value())), opened.epoch)).unwrap();
    assert_eq!(
        host.state.borrow().session_loads,
        loads,
        "served from memory"
    );
    assert_eq!(rest.lines.last().map(StreamLine::kind), Some("turn_end"));
}
