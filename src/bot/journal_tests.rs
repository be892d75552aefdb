//! Tests of the live journal: ACP updates → lines, cursors, the end, queries after a cursor, the
//! 10,000-lines-behind rule and the cursor-space limit.

use serde_json::json;

use super::*;
use crate::bot::stream::StopReason;
use crate::caps::acp::{ToolCallContent, ToolKind};

pub(super) fn start(turn: u32) -> TurnStart {
    TurnStart {
        cursor: Cursor::default(),
        session_id: "s1".into(),
        turn,
        message_id: "m1".into(),
        at: "2026-12-01T00:00:00.000Z".into(),
        prompt: "run it".into(),
        input: None,
        files: None,
        skills: None,
    }
}

fn tool_call(id: &str, command: &str) -> Update {
    Update::ToolCall {
        tool_call_id: id.into(),
        tool_name: "terminal".into(),
        title: command.into(),
        kind: ToolKind::Execute,
        status: ToolStatus::Pending,
        raw_input: json!({"command": command, "action": "exec"}),
    }
}

fn tool_update(id: &str, status: ToolStatus, text: Option<&str>) -> Update {
    Update::ToolCallUpdate {
        tool_call_id: id.into(),
        status,
        content: text.map(ToolCallContent::text).into_iter().collect(),
        raw_output: None,
    }
}

#[test]
fn updates_become_lines() {
    let mut journal = Journal::start(start(2));
    assert_eq!(journal.turn(), 2);
    assert_eq!(journal.lines()[0].cursor(), Cursor::new(2, 1).unwrap());
    assert_eq!(
        journal.push_update(&Update::agent_text("Let me "), "terminal"),
        1
    );
    assert_eq!(
        journal.push_update(&Update::agent_text("run it."), "terminal"),
        1
    );
    assert_eq!(journal.push_update(&Update::agent_text(""), "terminal"), 0);
    assert_eq!(
        journal.push_update(&Update::user_text("run it"), "terminal"),
        0
    );
    assert_eq!(journal.push_update(&tool_call("c1", "ls"), "terminal"), 1);
    assert_eq!(
        journal.push_update(&tool_update("c1", ToolStatus::InProgress, None), "ignored"),
        1
    );
    assert_eq!(
        journal.push_update(
            &tool_update("c1", ToolStatus::Completed, Some("a\nb\n")),
            "x"
        ),
        1
    );
    assert!(journal.push_reasoning("thinking").is_some());
    assert!(journal.push_text("Done.").is_some());
    assert!(!journal.is_ended());
    let end = journal.end(
        StopReason::EndTurn,
        Usage {
            input_tokens: 30,
            output_tokens: 5,
        },
        None,
    );
    assert_eq!(end.cursor(), Cursor::new(2, MAX_K).unwrap());
    assert!(journal.is_ended());
    let value = serde_json::to_value(journal.lines()).unwrap();
    let base: u64 = 2 * 2_097_152;
    assert_eq!(
        value,
        json!([
            {"type":"turn_start","cursor":base + 1,"sessionId":"s1","turn":2,"messageId":"m1","at":"2026-12-01T00:00:00.000Z","prompt":"run it"},
            {"type":"text","cursor":base + 2,"turn":2,"text":"Let me "},
            {"type":"text","cursor":base + 3,"turn":2,"text":"run it."},
            {"type":"tool_call","cursor":base + 4,"turn":2,"toolCallId":"c1","name":"terminal","title":"ls","arguments":{"command":"ls","action":"exec"},"status":"pending"},
            {"type":"tool_call","cursor":base + 5,"turn":2,"toolCallId":"c1","name":"terminal","title":"ls","arguments":{"command":"ls","action":"exec"},"status":"in_progress"},
            {"type":"tool_result","cursor":base + 6,"turn":2,"toolCallId":"c1","status":"completed","output":"a\nb\n","truncated":false},
            {"type":"reasoning","cursor":base + 7,"turn":2,"text":"thinking"},
            {"type":"text","cursor":base + 8,"turn":2,"text":"Done."},
            {"type":"turn_end","cursor":base + u64::from(MAX_K),"turn":2,"stopReason":"end_turn","usage":{"inputTokens":30,"outputTokens":5}}
        ])
    );
}

#[test]
fn the_end_is_kept_once_and_nothing_follows_it() {
    let mut journal = Journal::start(start(1));
    let first = journal.end(StopReason::Cancelled, Usage::default(), None);
    let again = journal.end(
        StopReason::EndTurn,
        Usage {
            input_tokens: 1,
            output_tokens: 1,
        },
        None,
    );
    assert_eq!(first, again);
    assert!(journal.push_text("late").is_none());
    assert_eq!(journal.push_update(&Update::agent_text("late"), "t"), 0);
    assert_eq!(journal.lines().len(), 2);
    assert_eq!(journal.last_cursor(), Cursor::new(1, MAX_K).unwrap());
}

#[test]
fn failures_and_calls_without_a_tool_call_update() {
    let mut journal = Journal::start(start(1));
    // A tool_call that arrives already finished gives the call and its result.
    let done = Update::ToolCall {
        tool_call_id: "c9".into(),
        tool_name: "library_read".into(),
        title: String::new(),
        kind: ToolKind::Other,
        status: ToolStatus::Failed,
        raw_input: json!({"id": "x"}),
    };
    assert_eq!(journal.push_update(&done, "library_read"), 2);
    // An update for a call the journal never saw still becomes a result.
    assert_eq!(
        journal.push_update(&tool_update("zz", ToolStatus::Failed, Some("no")), "t"),
        1
    );
    let value = serde_json::to_value(journal.lines()).unwrap();
    assert_eq!(value[1]["title"], "library_read");
    assert_eq!(value[1]["status"], "in_progress");
    assert_eq!(value[2]["status"], "failed");
    assert_eq!(value[3]["toolCallId"], "zz");
    assert_eq!(value[3]["output"], "no");
    let error = LineError {
        cause: None,
        status: 502,
        code: "FX_GATEWAY_HTTP_ERROR".into(),
        message: "the gateway answered 500".into(),
    };
    let end = journal.end(Ending::Error, Usage::default(), Some(error.clone()));
    let StreamLine::TurnEnd(end) = end else {
        panic!("turn_end")
    };
    assert_eq!(end.error, Some(error));
}

#[test]
fn lines_after_a_cursor() {
    let mut journal = Journal::start(start(3));
    for i in 0..5 {
        journal.push_text(&format!("t{i}"));
    }
    let all = journal.lines().to_vec();
    assert_eq!(journal.after(Cursor::START).unwrap(), all.as_slice());
    assert_eq!(
        journal.after(Cursor::before_turn(3)).unwrap(),
        all.as_slice()
    );
    for (i, line) in all.iter().enumerate() {
        assert_eq!(journal.after(line.cursor()).unwrap(), &all[i + 1..]);
    }
    assert!(journal
        .after(Cursor::new(3, 99).unwrap())
        .unwrap()
        .is_empty());
    assert!(journal.after(Cursor::before_turn(4)).unwrap().is_empty());
}

#[test]
fn more_than_ten_thousand_lines_behind_ends_the_consumer() {
    let mut journal = Journal::start(start(1));
    for _ in 0..MAX_BEHIND {
        journal.push_text("x");
    }
    // 10,001 lines in all: from before the turn that is one too many.
    assert_eq!(
        journal.after(Cursor::START),
        Err(TooFarBehind { behind: 10_001 })
    );
    assert_eq!(
        TooFarBehind { behind: 10_001 }.to_string(),
        "the stream fell 10001 lines behind (more than 10,000); start again from the last cursor"
    );
    // From the turn_start on, exactly 10,000 are owed: served.
    assert_eq!(
        journal.after(Cursor::new(1, 1).unwrap()).unwrap().len(),
        MAX_BEHIND
    );
}

#[test]
fn the_cursor_space_of_a_turn_is_never_exceeded() {
    // A turn of 2^21 lines is far beyond any real turn; a small space shows the rule.
    let mut journal = Journal::start(start(1));
    journal.max_k = 4;
    assert!(journal.push_text("a").is_some());
    assert!(journal.push_text("b").is_some());
    assert!(journal
        .push_text("no room: the last slot is the turn_end's")
        .is_none());
    assert_eq!(journal.dropped(), 1);
    let end = journal.end(StopReason::EndTurn, Usage::default(), None);
    assert_eq!(end.cursor().k(), 4);
    assert_eq!(Journal::start(start(1)).max_k, MAX_K);
}
