//! Where a chat's stream resumes (src/bot/resume.rs, src/bot/journal.rs): the replay of the
//! committed turns and the live journal combined, stale journals, the 10,000-lines-behind rule,
//! and two recorded live turns with every reconnect cursor, for the client reducer's tests
//! (tests/node/fxbot-client.test.mjs; `FX_BLESS=1` rewrites them):
//!
//! - `tests/fixtures/fxbot/reconnect.json`: turn 2 of a real fx CLI log (`multiturn`) streamed
//!   live, its text in small chunks;
//! - `tests/fixtures/fxbot/reconnect-agent.json`: the real agent loop's turn (scripted gateway
//!   and workspace), its ACP updates fed to the journal.
#![cfg(feature = "bot")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod log_common;
mod support;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use futures::executor::block_on;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::bot::cursor::{Cursor, MAX_K};
use fx_wasm::bot::journal::{Journal, MAX_BEHIND};
use fx_wasm::bot::replay::{load_with_stamps, replay, replay_view, tool_title, Replay};
use fx_wasm::bot::resume::{journal_applies, resume};
use fx_wasm::bot::stream::{StopReason, StreamLine, TurnStart};
use fx_wasm::caps::acp::{StopReason as AgentStop, ToolCallContent, ToolKind, ToolStatus, Update};
use fx_wasm::log::view::TurnView;
use fx_wasm::tools::workspace::RawWorkspace;
use serde_json::{json, Value};
use support::fake_host::{text_reply, FakeHost, Reply};

/// The `events.jsonl` of fixture `scenario`, cut after its `commits`-th committed turn.
fn prefix(scenario: &str, commits: usize) -> Vec<u8> {
    let bytes = log_common::events(scenario);
    let text = String::from_utf8(bytes).unwrap();
    let mut out = String::new();
    let mut seen = 0;
    for line in text.split_inclusive('\n') {
        out.push_str(line);
        if line.contains("\"kind\":\"history_turn_committed\"") {
            seen += 1;
            if seen == commits {
                break;
            }
        }
    }
    out.into_bytes()
}

/// Splits `text` into chunks of `n` characters, as a stream delivers it.
fn chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// The live journal of turn `turn` of `committed`, fed the ACP updates the agent sends for it:
/// text in small chunks, each call pending → in progress → finished with its output.
fn live_journal(committed: &[u8], turn: u32) -> Journal {
    let (view, stamps) = load_with_stamps(committed).unwrap();
    let replayed = replay_view(&view, &stamps, &BTreeMap::new());
    let t = replayed.turn(turn).unwrap();
    let StreamLine::TurnStart(start) = replayed.lines[t.first].clone() else {
        panic!("turn_start")
    };
    let StreamLine::TurnEnd(end) = replayed.lines[t.first + t.len as usize - 1].clone() else {
        panic!("turn_end")
    };
    let TurnView::Assistant(entry) = &view.turns[turn as usize - 1] else {
        panic!("an assistant turn")
    };
    let mut journal = Journal::start(TurnStart { ..start });
    for step in &entry.steps {
        for piece in chunks(step.assistant.as_deref().unwrap_or_default(), 4) {
            journal.push_update(&Update::agent_text(piece), "");
        }
        for call in &step.tool_calls {
            let raw_input: Value = serde_json::from_str(&call.arguments_json).unwrap();
            let update = Update::ToolCall {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                title: tool_title(&call.name, &raw_input),
                kind: ToolKind::Execute,
                status: ToolStatus::Pending,
                raw_input,
            };
            journal.push_update(&update, &call.name);
            let progress = Update::ToolCallUpdate {
                tool_call_id: call.id.clone(),
                status: ToolStatus::InProgress,
                content: Vec::new(),
                raw_output: None,
            };
            journal.push_update(&progress, &call.name);
            let result = step
                .tool_results
                .iter()
                .find(|r| r.tool_call_id == call.id)
                .unwrap();
            let done = Update::ToolCallUpdate {
                tool_call_id: call.id.clone(),
                status: if result.status == "success" {
                    ToolStatus::Completed
                } else {
                    ToolStatus::Failed
                },
                content: vec![ToolCallContent::text(result.output.clone())],
                raw_output: None,
            };
            journal.push_update(&done, &call.name);
        }
    }
    for piece in chunks(&entry.assistant, 4) {
        journal.push_update(&Update::agent_text(piece), "");
    }
    journal.end(StopReason::EndTurn, end.usage, None);
    journal
}

/// Checks where the stream resumes at every cursor a consumer saw while `journal`'s turn ran
/// (turns before it replayed from `earlier`), with the journal and without it (only the log,
/// `committed`), and compares the recording with `tests/fixtures/fxbot/<file>`.
fn record(file: &str, about: &str, earlier: &Replay, committed: &Replay, journal: &Journal) {
    let live: Vec<StreamLine> = resume(earlier, Some(journal), Cursor::START)
        .unwrap()
        .lines()
        .cloned()
        .collect();
    assert_eq!(live.len(), earlier.lines.len() + journal.lines().len());
    assert!(journal.lines().len() > committed.turn(journal.turn()).unwrap().len as usize);
    let mut reconnects = Vec::new();
    for cursor in std::iter::once(Cursor::START).chain(live.iter().map(StreamLine::cursor)) {
        let with: Vec<StreamLine> = resume(committed, Some(journal), cursor)
            .unwrap()
            .lines()
            .cloned()
            .collect();
        let without: Vec<StreamLine> = resume(committed, None, cursor)
            .unwrap()
            .lines()
            .cloned()
            .collect();
        // Both are suffixes: of what the consumer saw, and of the log's replay.
        let journal_start = live.len() - with.len();
        assert_eq!(&live[journal_start..], with.as_slice(), "{cursor:?}");
        let replay_start = committed.lines.len() - without.len();
        assert_eq!(
            &committed.lines[replay_start..],
            without.as_slice(),
            "{cursor:?}"
        );
        // In the journal's turn, exact continuation; in a committed turn, the turn from its
        // start unless the cursor is its turn_end.
        let restart = |lines: &[StreamLine], replayed: &Replay| match replayed.turn(cursor.turn()) {
            Some(t) if cursor.k() != MAX_K => lines
                .iter()
                .position(|l| l.cursor() == Cursor::new(t.turn, 1).unwrap())
                .unwrap(),
            _ => lines.partition_point(|l| l.cursor() <= cursor),
        };
        let expected = if cursor.turn() == journal.turn() {
            live.partition_point(|l| l.cursor() <= cursor)
        } else {
            restart(&live, earlier)
        };
        assert_eq!(journal_start, expected, "{cursor:?} with the journal");
        assert_eq!(
            replay_start,
            restart(&committed.lines, committed),
            "{cursor:?} from the log"
        );
        reconnects.push(
            json!({"cursor": cursor.value(), "journal": journal_start, "replay": replay_start}),
        );
    }
    let recorded = json!({
        "about": about,
        "live": live,
        "committed": committed.lines,
        "reconnects": reconnects,
    });
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fxbot")
        .join(file);
    if std::env::var_os("FX_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    let stored = std::fs::read_to_string(&path).expect("run with FX_BLESS=1 to write the fixture");
    assert_eq!(
        serde_json::from_str::<Value>(&stored).unwrap(),
        recorded,
        "{} is stale; FX_BLESS=1 rewrites it",
        path.display()
    );
}

const ABOUT: &str = "`live` is what a consumer streaming from 0 saw while turn 2 ran (turn 1 replayed, turn 2 from the live journal), `committed` the replay of the log after the turn. For each reconnect cursor, `journal` is where `live` continues when the process still has the journal, and `replay` where `committed` continues without it.";

#[test]
fn a_fx_cli_turn_streamed_live_and_every_reconnect() {
    let committed_log = prefix("multiturn", 2);
    let earlier = replay(&prefix("multiturn", 1), &BTreeMap::new()).unwrap();
    let committed = replay(&committed_log, &BTreeMap::new()).unwrap();
    let journal = live_journal(&committed_log, 2);
    let about = format!("Turn 2 of the fx CLI fixture multiturn, its text streamed in chunks of 4 characters. {ABOUT} Written by tests/bot_stream.rs (FX_BLESS=1).");
    record("reconnect.json", &about, &earlier, &committed, &journal);
}

#[test]
fn the_agents_live_turn_and_every_reconnect() {
    let run = run_agent();
    let earlier = replay(&run.before, &BTreeMap::new()).unwrap();
    let committed = replay(&run.after, &BTreeMap::new()).unwrap();
    assert_eq!((earlier.last_turn(), committed.last_turn()), (1, 2));
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
    let about = format!("A bot chat run by the real agent loop (scripted gateway and workspace), its ACP updates fed to the journal. {ABOUT} Written by tests/bot_stream.rs (FX_BLESS=1).");
    record(
        "reconnect-agent.json",
        &about,
        &earlier,
        &committed,
        &journal,
    );
}

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
        // ACP's tool_call carries no name on the wire; the agent's update does, for us.
        let name = update.tool_name().unwrap_or_default();
        assert!(name.is_empty() || name == "terminal", "{name}");
        journal.push_update(update, name);
    }
    journal.end(AgentStop::EndTurn, end.usage, None);
    journal
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

#[test]
fn a_running_turn_and_the_turns_before_it() {
    let before = prefix("multiturn", 1);
    let earlier = replay(&before, &BTreeMap::new()).unwrap();
    let journal = live_journal(&prefix("multiturn", 2), 2);
    // Inside turn 1 (not its last line): turn 1 restarts, then the whole journal.
    let inside = resume(&earlier, Some(&journal), Cursor::new(1, 1).unwrap()).unwrap();
    assert_eq!(inside.replayed, earlier.lines.as_slice());
    assert_eq!(inside.live, journal.lines());
    // At turn 1's end: only the journal.
    let at_end = resume(&earlier, Some(&journal), Cursor::new(1, MAX_K).unwrap()).unwrap();
    assert!(at_end.replayed.is_empty());
    assert_eq!(at_end.live, journal.lines());
    // Sent.cursor of turn 2 (k = 0): the whole journal.
    let sent = resume(&earlier, Some(&journal), Cursor::before_turn(2)).unwrap();
    assert_eq!(sent.live, journal.lines());
    assert!(sent.replayed.is_empty());
    // Past the journal's turn: nothing yet.
    assert!(resume(&earlier, Some(&journal), Cursor::before_turn(3))
        .unwrap()
        .is_empty());
}

#[test]
fn a_journal_the_log_has_moved_past_is_not_used() {
    // The journal of turn 2, but the log already holds four turns (another tab ran 3 and 4).
    let journal = live_journal(&prefix("multiturn", 2), 2);
    let newer = replay(&prefix("multiturn", 4), &BTreeMap::new()).unwrap();
    assert!(!journal_applies(&newer, &journal));
    let resumed = resume(&newer, Some(&journal), Cursor::new(2, 3).unwrap()).unwrap();
    assert!(resumed.live.is_empty());
    assert_eq!(resumed.replayed, newer.after(Cursor::new(2, 3).unwrap()));
    // A journal of another session is not used either.
    let mut other = journal.clone();
    let start = match &other.lines()[0] {
        StreamLine::TurnStart(s) => TurnStart {
            session_id: "another".into(),
            ..s.clone()
        },
        _ => panic!(),
    };
    other = Journal::start(start);
    let same_turns = replay(&prefix("multiturn", 2), &BTreeMap::new()).unwrap();
    assert!(!journal_applies(&same_turns, &other));
}

#[test]
fn too_far_behind_is_reported() {
    let before = prefix("multiturn", 1);
    let earlier = replay(&before, &BTreeMap::new()).unwrap();
    let mut journal = live_journal(&prefix("multiturn", 2), 2);
    // Rebuild an open journal with more than 10,000 lines.
    let start = match &journal.lines()[0] {
        StreamLine::TurnStart(s) => s.clone(),
        _ => panic!(),
    };
    journal = Journal::start(start);
    for _ in 0..MAX_BEHIND {
        journal.push_text("x");
    }
    assert!(resume(&earlier, Some(&journal), Cursor::START).is_err());
    assert!(resume(&earlier, Some(&journal), Cursor::new(2, 1).unwrap()).is_ok());
}
