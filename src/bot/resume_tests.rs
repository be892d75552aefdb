//! Tests of where a stream resumes: journal and replay combined, stale journals, and the
//! recorded live turn `tests/fixtures/fxbot/reconnect.json` (every reconnect cursor, with and
//! without the journal) that the client reducer's tests replay. `FX_BLESS=1` rewrites it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::*;
use crate::agent::acp::{ToolCallContent, ToolKind, ToolStatus, Update};
use crate::bot::cursor::MAX_K;
use crate::bot::replay::{load_with_stamps, replay, replay_view, tool_title};
use crate::bot::stream::{StopReason, TurnStart};
use crate::log::view::TurnView;

/// The `events.jsonl` of fixture `scenario`, cut after its `commits`-th committed turn.
fn prefix(scenario: &str, commits: usize) -> Vec<u8> {
    let bytes = crate::bot::replay::tests::fixture(scenario);
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

/// Where `part` starts as a suffix of `whole`.
fn suffix_start(whole: &[StreamLine], part: &[StreamLine]) -> usize {
    let start = whole.len() - part.len();
    assert_eq!(&whole[start..], part, "the resumed lines are a suffix");
    start
}

#[test]
fn the_recorded_live_turn_and_every_reconnect() {
    // Turn 1 was committed before the consumer came; turn 2 ran live in this process.
    let committed_log = prefix("multiturn", 2);
    let before_turn_2 = prefix("multiturn", 1);
    let committed = replay(&committed_log, &BTreeMap::new()).unwrap();
    let journal = live_journal(&committed_log, 2);
    let earlier = replay(&before_turn_2, &BTreeMap::new()).unwrap();

    // What a consumer from 0 saw while turn 2 ran: turn 1 replayed, then the journal.
    let seen = resume(&earlier, Some(&journal), Cursor::START).unwrap();
    let live: Vec<StreamLine> = seen.lines().cloned().collect();
    assert_eq!(live.len(), earlier.lines.len() + journal.lines().len());
    assert!(journal.lines().len() > committed.turn(2).unwrap().len as usize);

    let mut reconnects = Vec::new();
    let cursors = std::iter::once(Cursor::START).chain(live.iter().map(StreamLine::cursor));
    for cursor in cursors {
        // This process still has the journal (the turn is committed now).
        let with = resume(&committed, Some(&journal), cursor).unwrap();
        let with: Vec<StreamLine> = with.lines().cloned().collect();
        let journal_start = suffix_start(&live, &with);
        let after = live.partition_point(|l| l.cursor() <= cursor);
        if cursor.turn() == journal.turn() || cursor == Cursor::START {
            // Inside the journal's turn: exactly the lines after the cursor.
            assert_eq!(journal_start, after, "{cursor:?}");
        } else {
            // Inside turn 1 (committed): the turn again from its start, or after its end.
            let expected = if cursor.k() == MAX_K { after } else { 0 };
            assert_eq!(journal_start, expected, "{cursor:?}");
        }
        // Another tab, or this process after a restart: no journal, only the log.
        let without = resume(&committed, None, cursor).unwrap();
        let without: Vec<StreamLine> = without.lines().cloned().collect();
        let replay_start = suffix_start(&committed.lines, &without);
        reconnects.push(json!({
            "cursor": cursor.value(),
            "journal": journal_start,
            "replay": replay_start,
        }));
    }
    let recorded = json!({
        "about": "A chat whose turn 2 ran live: `live` is what a consumer streaming from 0 saw, `committed` the replay of the log after the turn. For each reconnect cursor, `journal` is where `live` continues when the process still has the journal, and `replay` where `committed` continues without it. Written by src/bot/resume_tests.rs (FX_BLESS=1).",
        "live": live,
        "committed": committed.lines,
        "reconnects": reconnects,
    });
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fxbot/reconnect.json");
    let text = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
    if std::env::var_os("FX_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
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
    for _ in 0..crate::bot::journal::MAX_BEHIND {
        journal.push_text("x");
    }
    assert!(resume(&earlier, Some(&journal), Cursor::START).is_err());
    assert!(resume(&earlier, Some(&journal), Cursor::new(2, 1).unwrap()).is_ok());
}
