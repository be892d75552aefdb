//! A live turn of the real agent (scripted host): its ACP updates fed to the bots layer's live
//! journal, checked against the replay of the log the agent committed, and recorded with every
//! reconnect cursor in `tests/fixtures/fxbot/reconnect-agent.json` for the client reducer's
//! tests (`FX_BLESS=1` rewrites it).
#![cfg(feature = "bot")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use futures::executor::block_on;
use fx_wasm::agent::acp::{StopReason as AgentStop, Update};
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::bot::cursor::{Cursor, MAX_K};
use fx_wasm::bot::journal::Journal;
use fx_wasm::bot::replay::{replay, Replay};
use fx_wasm::bot::resume::resume;
use fx_wasm::bot::stream::{StopReason, StreamLine};
use fx_wasm::tools::workspace::RawWorkspace;
use serde_json::{json, Value};
use support::fake_host::{text_reply, FakeHost, Reply};

/// An SSE body whose events arrive one network read each.
fn reply_in_reads(events: &[Value]) -> Reply {
    let mut chunks: Vec<Vec<u8>> = events
        .iter()
        .map(|e| format!("data: {e}\n\n").into_bytes())
        .collect();
    chunks.push(b"data: [DONE]\n\n".to_vec());
    Reply::Body {
        status: 200,
        chunks,
        retry_after: None,
    }
}

/// The agent's second turn: text in three reads, a terminal call; then the answer in two reads.
fn script(host: &FakeHost) {
    host.reply(text_reply(&["Hel", "lo."]));
    host.reply(reply_in_reads(&[
        json!({"type": "text-delta", "delta": "Let me "}),
        json!({"type": "text-delta", "delta": "look"}),
        json!({"type": "text-delta", "delta": "."}),
        json!({"type": "tool-call", "toolCallId": "call_1", "toolName": "terminal",
               "input": json!({"action": "exec", "command": "ls -la"}).to_string()}),
        json!({"type": "finish", "finishReason": {"unified": "tool-calls", "raw": "tool_calls"},
               "usage": {"inputTokens": {"total": 20}, "outputTokens": {"total": 5}}}),
    ]));
    host.exec_exits(0, "a.txt\nb.txt\n", "");
    host.reply(reply_in_reads(&[
        json!({"type": "text-delta", "delta": "Two "}),
        json!({"type": "text-delta", "delta": "files."}),
        json!({"type": "finish", "finishReason": {"unified": "stop", "raw": "stop"},
               "usage": {"inputTokens": {"total": 30}, "outputTokens": {"total": 4}}}),
    ]));
}

struct Run {
    before: Vec<u8>,
    after: Vec<u8>,
    updates: Vec<Update>,
}

fn run_agent() -> Run {
    let host = FakeHost::new();
    script(&host);
    let workspace: RawWorkspace = serde_json::from_value(json!({
        "info": {"version": 1, "root": "/workspace", "cwd": "/workspace", "home": "/home/visitor",
                 "gitAvailable": false, "ephemeral": true},
        "permission": "allow-sandboxed",
    }))
    .unwrap();
    let env = HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())]);
    let agent = Agent::new(
        host.clone(),
        AgentConfig::from_env(&env, Some(&workspace)).unwrap(),
    );
    let id = block_on(agent.create_session()).unwrap().session_id;
    let end = block_on(agent.prompt(&id, 1, "say hello".into())).unwrap();
    assert_eq!(end.stop_reason, AgentStop::EndTurn);
    let before = host.stored(&id);
    let end = block_on(agent.prompt(&id, 2, "what is here?".into())).unwrap();
    assert_eq!(end.stop_reason, AgentStop::EndTurn);
    let updates = host
        .state
        .borrow()
        .updates
        .iter()
        .filter(|(turn, _)| *turn == 2)
        .map(|(_, u)| u.clone())
        .collect();
    Run {
        before,
        after: host.stored(&id),
        updates,
    }
}

/// The journal the engine would have kept for turn 2: its turn_start (as the replay writes it,
/// since the engine writes both from the same record), then every update.
fn journal_of(run: &Run, committed: &Replay) -> Journal {
    let t2 = committed.turn(2).unwrap();
    let (StreamLine::TurnStart(start), StreamLine::TurnEnd(end)) = (
        committed.lines[t2.first].clone(),
        committed.lines[t2.first + t2.len as usize - 1].clone(),
    ) else {
        panic!("turn 2 starts and ends")
    };
    let mut journal = Journal::start(start);
    for update in &run.updates {
        // The agent has one tool; ACP's tool_call carries no name.
        journal.push_update(update, "terminal");
    }
    journal.end(StopReason::from_agent(AgentStop::EndTurn), end.usage, None);
    journal
}

#[test]
fn the_agents_live_turn_and_every_reconnect() {
    let run = run_agent();
    let earlier = replay(&run.before, &BTreeMap::new()).unwrap();
    let committed = replay(&run.after, &BTreeMap::new()).unwrap();
    assert_eq!(earlier.last_turn(), 1);
    assert_eq!(committed.last_turn(), 2);
    let journal = journal_of(&run, &committed);
    let kinds: Vec<&str> = journal.lines().iter().map(StreamLine::kind).collect();
    assert_eq!(
        kinds,
        [
            "turn_start",
            "text",
            "text",
            "text",
            "tool_call",
            "tool_call",
            "tool_result",
            "text",
            "text",
            "turn_end"
        ],
        "one text line per network read"
    );
    let live: Vec<StreamLine> = resume(&earlier, Some(&journal), Cursor::START)
        .unwrap()
        .lines()
        .cloned()
        .collect();
    let mut reconnects = Vec::new();
    for cursor in std::iter::once(Cursor::START).chain(live.iter().map(StreamLine::cursor)) {
        let with: Vec<StreamLine> = resume(&committed, Some(&journal), cursor)
            .unwrap()
            .lines()
            .cloned()
            .collect();
        let without: Vec<StreamLine> = resume(&committed, None, cursor)
            .unwrap()
            .lines()
            .cloned()
            .collect();
        let journal_start = live.len() - with.len();
        assert_eq!(&live[journal_start..], with.as_slice(), "{cursor:?}");
        let replay_start = committed.lines.len() - without.len();
        assert_eq!(&committed.lines[replay_start..], without.as_slice());
        if cursor.turn() == 2 {
            assert_eq!(
                journal_start,
                live.partition_point(|l| l.cursor() <= cursor),
                "exact continuation in the journal's turn"
            );
            let expected = if cursor.k() == MAX_K {
                committed.lines.len()
            } else {
                committed.turn(2).unwrap().first
            };
            assert_eq!(replay_start, expected, "restart from the log");
        }
        reconnects.push(
            json!({"cursor": cursor.value(), "journal": journal_start, "replay": replay_start}),
        );
    }
    let recorded = json!({
        "about": "A bot chat run by the real agent loop (scripted gateway): turn 2 ran live. `live` is what a consumer streaming from 0 saw (turn 1 replayed, turn 2 from the journal fed the agent's ACP updates), `committed` the replay of the log after the turn. For each reconnect cursor, `journal` is where `live` continues when the process still has the journal, and `replay` where `committed` continues without it. Written by tests/bot_live_turn.rs (FX_BLESS=1).",
        "live": live,
        "committed": committed.lines,
        "reconnects": reconnects,
    });
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fxbot/reconnect-agent.json");
    let text = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
    if std::env::var_os("FX_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let stored = std::fs::read_to_string(&path).expect("run with FX_BLESS=1 to write the fixture");
    assert_eq!(
        serde_json::from_str::<Value>(&stored).unwrap(),
        recorded,
        "{} is stale; FX_BLESS=1 rewrites it",
        path.display()
    );
}

#[test]
fn the_committed_turn_replays_the_same_twice() {
    let a = run_agent();
    let b = run_agent();
    assert_eq!(a.after, b.after, "the scripted run is deterministic");
    let first = replay(&a.after, &BTreeMap::new()).unwrap();
    let second = replay(&b.after, &BTreeMap::new()).unwrap();
    assert_eq!(first, second);
    let t2 = first.turn(2).unwrap();
    let lines = serde_json::to_value(&first.lines[t2.first..]).unwrap();
    assert_eq!(lines[1]["text"], "Let me look.");
    assert_eq!(lines[2]["title"], "ls -la");
    assert_eq!(
        lines[3]["output"],
        "exit_code=0\n<stdout>\na.txt\nb.txt\n</stdout>\n"
    );
    assert_eq!(lines[4]["text"], "Two files.");
    assert_eq!(
        lines[5]["usage"],
        json!({"inputTokens": 50, "outputTokens": 9})
    );
}
