//! The bots layer's replay of committed turns (src/bot/replay.rs): every real fx fixture twice
//! (identical lines and cursors), the line shapes of each kind of turn, saved metadata, stamps
//! across state replacements, and the cursor rule of a consumer with no live journal.
#![cfg(feature = "bot")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod log_common;

use std::collections::BTreeMap;

use fx_wasm::agent::time::rfc3339_ms;
use fx_wasm::bot::cursor::{Cursor, MAX_K};
use fx_wasm::bot::replay::{load_with_stamps, replay, replay_view, Replay, SavedInput, TurnMeta};
use fx_wasm::bot::stream::{Ending, LineError, SavedFile, StopReason, StreamLine, Usage};
use fx_wasm::log::appender::TurnCommit;
use fx_wasm::log::bench::FixedEnv;
use fx_wasm::log::execution::Execution;
use fx_wasm::log::turn::{AssistantTurn, HistoryTurn, InterruptedTurn, TerminalReason, UserTurn};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::log::{NewSession, SessionLog};
use log_common::SCENARIOS;
use serde_json::{json, Value};

/// The `events.jsonl` of a real fx fixture.
fn fixture(scenario: &str) -> Vec<u8> {
    log_common::events(scenario)
}

fn lines_of(scenario: &str) -> Replay {
    replay(&fixture(scenario), &BTreeMap::new()).unwrap()
}

fn json_of(lines: &[StreamLine]) -> Value {
    serde_json::to_value(lines).unwrap()
}

#[test]
fn every_fixture_replays_twice_the_same() {
    for scenario in SCENARIOS {
        let bytes = fixture(scenario);
        let first = replay(&bytes, &BTreeMap::new()).unwrap();
        let second = replay(&bytes, &BTreeMap::new()).unwrap();
        assert_eq!(first, second, "{scenario}");
        assert_eq!(
            serde_json::to_string(&first.lines).unwrap(),
            serde_json::to_string(&second.lines).unwrap(),
            "{scenario}"
        );
        let view = fx_wasm::log::read_session(&bytes).unwrap();
        assert_eq!(first.session_id, view.id);
        check_structure(scenario, &first);
    }
}

/// Cursors increase, each turn's body k runs 1..len, turn_start first, turn_end last at MAX_K.
fn check_structure(scenario: &str, replay: &Replay) {
    let cursors: Vec<u64> = replay.lines.iter().map(|l| l.cursor().value()).collect();
    assert!(
        cursors.windows(2).all(|w| w[0] < w[1]),
        "{scenario}: cursors increase"
    );
    let mut expected_first = 0;
    for t in &replay.turns {
        assert_eq!(t.first, expected_first, "{scenario}");
        let lines = &replay.lines[t.first..t.first + t.len as usize];
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line.cursor().turn(), t.turn, "{scenario}");
            let k = if i + 1 == lines.len() {
                MAX_K as usize
            } else {
                i + 1
            };
            assert_eq!(line.cursor().k() as usize, k, "{scenario}");
        }
        assert_eq!(lines.first().unwrap().kind(), "turn_start", "{scenario}");
        assert_eq!(lines.last().unwrap().kind(), "turn_end", "{scenario}");
        assert!(
            lines[1..lines.len() - 1]
                .iter()
                .all(|l| !matches!(l.kind(), "turn_start" | "turn_end")),
            "{scenario}"
        );
        expected_first += t.len as usize;
    }
    assert_eq!(expected_first, replay.lines.len(), "{scenario}");
}

#[test]
fn a_text_turn() {
    let replay = lines_of("simple");
    let session = replay.session_id.clone();
    assert_eq!(
        json_of(&replay.lines),
        json!([
            {"type":"turn_start","cursor":2097153,"sessionId":session,"turn":1,"messageId":"","at":"2026-11-30T02:13:07.971Z","prompt":"say hello"},
            {"type":"text","cursor":2097154,"turn":1,"text":"Hello world."},
            {"type":"turn_end","cursor":4194303,"turn":1,"stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":2}}
        ])
    );
}

#[test]
fn tool_steps_give_text_then_each_call_and_its_result() {
    let replay = lines_of("multiturn");
    assert_eq!(replay.turns.len(), 4);
    let t2 = replay.turn(2).unwrap();
    let lines = json_of(&replay.lines[t2.first..t2.first + t2.len as usize]);
    let kinds: Vec<&str> = lines
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "turn_start",
            "text",
            "tool_call",
            "tool_result",
            "text",
            "turn_end"
        ]
    );
    assert_eq!(lines[1]["text"], "Let me run it.");
    assert_eq!(
        lines[2],
        json!({"type":"tool_call","cursor":4194307,"turn":2,"toolCallId":"call_1","name":"terminal","title":"echo hello-from-tool","arguments":{"command":"echo hello-from-tool","action":"exec"},"status":"pending"})
    );
    assert_eq!(
        lines[3],
        json!({"type":"tool_result","cursor":4194308,"turn":2,"toolCallId":"call_1","status":"completed","output":"exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n","truncated":false})
    );

    let twotools = lines_of("twotools");
    let kinds: Vec<&str> = twotools.lines.iter().map(StreamLine::kind).collect();
    let calls = kinds.iter().filter(|k| **k == "tool_call").count();
    assert_eq!(calls, 2);
    // Interleaved as they ran: call, result, call, result.
    let first_call = kinds.iter().position(|k| *k == "tool_call").unwrap();
    assert_eq!(
        &kinds[first_call..first_call + 4],
        ["tool_call", "tool_result", "tool_call", "tool_result"]
    );
}

#[test]
fn failed_commands_truncation_and_interruptions() {
    let failing = json_of(&lines_of("failing").lines);
    let result = failing
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["type"] == "tool_result")
        .unwrap();
    // fx records a command that exits non-zero as a failed call.
    assert_eq!(result["status"], "failed");
    let bigout = json_of(&lines_of("bigout").lines);
    assert!(bigout
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["type"] == "tool_result"));
    let interrupted = lines_of("interrupted");
    let ends: Vec<&str> = interrupted
        .lines
        .iter()
        .filter_map(|l| match l {
            StreamLine::TurnEnd(e) => Some(e.stop_reason.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["end_turn", "cancelled", "end_turn"]);
    // The cancelled turn keeps its partial text.
    let t2 = interrupted.turn(2).unwrap();
    let StreamLine::Text(partial) = &interrupted.lines[t2.first + 1] else {
        panic!("partial text")
    };
    assert_eq!(partial.text, "partial ");
}

#[test]
fn a_state_replacement_keeps_the_stamps_of_the_turns_before_it() {
    let bytes = fixture("interactive");
    let (view, stamps) = load_with_stamps(&bytes).unwrap();
    assert_eq!(view.turns.len(), 4);
    assert!(stamps.iter().all(Option::is_some), "{stamps:?}");
    // The commit after /compact has unknown totals before it.
    assert_eq!(stamps[3].unwrap().usage, None);
    assert!(stamps[0].unwrap().usage.is_some());
    let replay = replay_view(&view, &stamps, &BTreeMap::new());
    let StreamLine::TurnEnd(end) =
        &replay.lines[replay.turn(4).unwrap().first + replay.turn(4).unwrap().len as usize - 1]
    else {
        panic!("turn_end");
    };
    assert_eq!(end.usage, Usage::default());
}

fn session_with(turns: usize) -> (FixedEnv, SessionLog) {
    let mut env = FixedEnv::new(3, 1_790_000_000_000);
    let mut session = SessionLog::create(
        &mut env,
        NewSession {
            workspace_root: "/fxbot/0123456789ab".into(),
            preferences: Preferences {
                model: "openai/gpt-5".into(),
                effort: "auto".into(),
                fast_mode: false,
                provider: Provider::Gateway,
            },
            conversation_language: None,
            id: None,
        },
    )
    .unwrap();
    for i in 0..turns {
        commit(&mut env, &mut session, i);
    }
    (env, session)
}

fn commit(env: &mut FixedEnv, session: &mut SessionLog, i: usize) {
    let total = session.state().total_input_tokens;
    session
        .commit_turn(
            env,
            TurnCommit {
                turn: HistoryTurn::Assistant(AssistantTurn {
                    user: UserTurn {
                        text: format!("question {i}").as_str().into(),
                        images: Vec::new(),
                        work_id: None,
                    },
                    assistant: format!("answer {i}").as_str().into(),
                    execution: Execution::default(),
                }),
                conversation_language: None,
                total_input_tokens: total + 100,
                total_output_tokens: session.state().total_output_tokens + 7,
                work_id: None,
            },
        )
        .unwrap();
}

#[test]
fn log_compaction_loses_the_old_stamps_not_the_turns() {
    let (mut env, mut session) = session_with(2);
    let (_, stamps) = load_with_stamps(session.bytes()).unwrap();
    assert_eq!(
        stamps.iter().map(|s| s.unwrap().usage).collect::<Vec<_>>(),
        vec![
            Some(Usage {
                input_tokens: 100,
                output_tokens: 7
            });
            2
        ]
    );
    session.compact_log(&mut env).unwrap();
    commit(&mut env, &mut session, 2);
    let (view, stamps) = load_with_stamps(session.bytes()).unwrap();
    assert_eq!(view.turns.len(), 3);
    assert_eq!(stamps[0], None);
    assert_eq!(stamps[1], None);
    assert!(stamps[2].is_some());
    // Saved records fill in what the stamps no longer know.
    let mut meta = BTreeMap::new();
    meta.insert(
        1,
        TurnMeta {
            message_id: "m1".into(),
            at: Some("2026-12-01T00:00:00.000Z".into()),
            usage: Some(Usage {
                input_tokens: 100,
                output_tokens: 7,
            }),
            ..TurnMeta::default()
        },
    );
    let replay = replay_view(&view, &stamps, &meta);
    check_structure("compacted", &replay);
    let StreamLine::TurnStart(start) = &replay.lines[0] else {
        panic!()
    };
    assert_eq!(
        (start.message_id.as_str(), start.at.as_str()),
        ("m1", "2026-12-01T00:00:00.000Z")
    );
    let StreamLine::TurnStart(second) = &replay.lines[replay.turn(2).unwrap().first] else {
        panic!()
    };
    assert_eq!(
        second.at,
        rfc3339_ms(view.created_at_ms),
        "no stamp: the session's start"
    );
}

#[test]
fn saved_metadata_fills_the_lines() {
    let bytes = fixture("simple");
    let saved = SavedInput {
        input: "say hello".into(),
        files: vec![SavedFile {
            name: "a.txt".into(),
            media_type: "text/plain".into(),
            url: "/api/library/0123456789ab/file".into(),
        }],
        skills: vec!["review".into()],
    };
    let mut meta = BTreeMap::new();
    meta.insert(
        1,
        TurnMeta {
            message_id: "m1".into(),
            at: Some("2026-12-01T00:00:00.000Z".into()),
            saved: Some(saved),
            usage: None,
            stop_reason: Some(StopReason::MaxTokens.into()),
            error: Some(LineError {
                status: 502,
                code: "X".into(),
                cause: None,
                message: "ignored on a completed turn".into(),
            }),
        },
    );
    let replayed = replay(&bytes, &meta).unwrap();
    let lines = json_of(&replayed.lines);
    assert_eq!(lines[0]["messageId"], "m1");
    assert_eq!(lines[0]["input"], "say hello");
    assert_eq!(
        lines[0]["files"][0]["url"],
        "/api/library/0123456789ab/file"
    );
    assert_eq!(lines[0]["skills"], json!(["review"]));
    assert_eq!(lines[2]["stopReason"], "max_tokens");
    assert_eq!(lines[2].get("error"), None);
    assert_eq!(
        lines[2]["usage"],
        json!({"inputTokens":12,"outputTokens":2})
    );

    // A saved "cancelled" cannot turn a completed turn into a cancelled one.
    meta.get_mut(&1).unwrap().stop_reason = Some(StopReason::Cancelled.into());
    let replay2 = replay(&bytes, &meta).unwrap();
    assert_eq!(json_of(&replay2.lines)[2]["stopReason"], "end_turn");
}

#[test]
fn a_failed_turn_carries_its_saved_error() {
    let (mut env, mut session) = session_with(1);
    let failed = HistoryTurn::Interrupted(InterruptedTurn {
        user: UserTurn {
            text: "again".into(),
            images: Vec::new(),
            work_id: None,
        },
        assistant: None,
        tool_call: None,
        completed_tool_names: Vec::new(),
        terminal_reason: TerminalReason::Failed,
        execution: Execution::default(),
        cancelled_command: None,
    });
    let totals = (
        session.state().total_input_tokens,
        session.state().total_output_tokens,
    );
    session
        .commit_turn(
            &mut env,
            TurnCommit {
                turn: failed,
                conversation_language: None,
                total_input_tokens: totals.0,
                total_output_tokens: totals.1,
                work_id: None,
            },
        )
        .unwrap();
    let error = LineError {
        status: 502,
        code: "FX_GATEWAY_HTTP_ERROR".into(),
        cause: None,
        message: "the gateway answered 500".into(),
    };
    let mut meta = BTreeMap::new();
    meta.insert(
        2,
        TurnMeta {
            error: Some(error.clone()),
            ..TurnMeta::default()
        },
    );
    let replayed = replay(session.bytes(), &meta).unwrap();
    let lines = json_of(&replayed.lines);
    let end = &lines[replayed.lines.len() - 1];
    assert_eq!(end["stopReason"], "error");
    assert_eq!(end["error"], serde_json::to_value(&error).unwrap());
    assert_eq!(end["usage"], json!({"inputTokens": 0, "outputTokens": 0}));
    // Without a saved error the line has none (the log keeps no cause).
    let bare = replay(session.bytes(), &BTreeMap::new()).unwrap();
    let StreamLine::TurnEnd(end) = bare.lines.last().unwrap() else {
        panic!()
    };
    assert_eq!((end.stop_reason, &end.error), (Ending::Error, &None));
    // The first turn's error is ignored: it completed.
    meta.insert(
        1,
        TurnMeta {
            error: Some(error),
            stop_reason: Some(Ending::Error),
            ..TurnMeta::default()
        },
    );
    let replayed = replay(session.bytes(), &meta).unwrap();
    assert_eq!(json_of(&replayed.lines)[2]["stopReason"], "end_turn");
    assert_eq!(json_of(&replayed.lines)[2].get("error"), None);
}

#[test]
fn the_cursor_rule_without_a_journal() {
    for scenario in SCENARIOS {
        let replay = lines_of(scenario);
        assert_eq!(replay.after(Cursor::START), replay.lines.as_slice());
        for t in &replay.turns {
            let turn_lines = &replay.lines[t.first..];
            // Before the turn, and inside it at any k but the turn_end's, whether the k is one
            // of the replay's or a live journal's (more lines than the replay): the turn from
            // its start.
            for k in (0..t.len + 40).chain([MAX_K - 1]) {
                let cursor = Cursor::new(t.turn, k).unwrap();
                assert_eq!(replay.after(cursor), turn_lines, "{scenario} {cursor:?}");
            }
            // At its turn_end: on after the turn.
            let end = Cursor::new(t.turn, MAX_K).unwrap();
            assert_eq!(replay.after(end), &replay.lines[t.first + t.len as usize..]);
        }
        // A cursor past the end waits for new lines.
        let past = Cursor::before_turn(replay.last_turn() + 1);
        assert!(replay.after(past).is_empty());
        assert!(replay
            .after(Cursor::new(u32::MAX, MAX_K).unwrap())
            .is_empty());
    }
}

#[test]
fn a_turn_number_without_lines_gives_the_lines_after_it() {
    // Turn 2 has no lines (as a compacted summary would): a cursor in it gets turn 3 on.
    let replay = lines_of("multiturn");
    let mut sparse = replay.clone();
    let t2 = *sparse.turn(2).unwrap();
    sparse.lines.drain(t2.first..t2.first + t2.len as usize);
    sparse.turns.remove(1);
    for t in sparse.turns.iter_mut().skip(1) {
        t.first -= t2.len as usize;
    }
    let t3 = *sparse.turn(3).unwrap();
    assert_eq!(
        sparse.after(Cursor::new(2, 5).unwrap()),
        &sparse.lines[t3.first..]
    );
    assert_eq!(
        sparse.after(Cursor::new(2, MAX_K).unwrap()),
        &sparse.lines[t3.first..]
    );
}
