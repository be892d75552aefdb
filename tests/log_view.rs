//! `read_session` on every real fx fixture, asserting the content a user would see.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod log_common;

use fx_wasm::log::read_session;
use log_common::{events, join, lines, SCENARIOS};
use serde_json::{json, Value};

fn view(bytes: &[u8]) -> Value {
    serde_json::to_value(read_session(bytes).unwrap()).unwrap()
}

/// The log cut after frame `seq`.
fn prefix(scenario: &str, seq: usize) -> Vec<u8> {
    join(&lines(&events(scenario))[..seq])
}

#[test]
fn every_fixture_has_the_common_shape() {
    for scenario in SCENARIOS {
        let v = view(&events(scenario));
        assert_eq!(v["workspaceRoot"], "/home/user/project", "{scenario}");
        assert_eq!(v["originWorkspaceRoot"], "/home/user/project", "{scenario}");
        assert_eq!(v["conversationLanguage"], "und-Latn", "{scenario}");
        assert_eq!(
            v["preferences"]["model"], "moonshotai/kimi-k3",
            "{scenario}"
        );
        assert_eq!(v["preferences"]["provider"], "gateway", "{scenario}");
        assert_eq!(v["preferences"]["effort"], "auto", "{scenario}");
        assert_eq!(v["usage"]["billing"], "incomplete", "{scenario}");
        assert_eq!(v["recovery"], Value::Null, "{scenario}");
        let display: Value = serde_json::from_slice(
            &std::fs::read(log_common::session_dir(scenario).join("display.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(v["title"], display["title"], "{scenario}");
        assert_eq!(v["preview"], display["preview"], "{scenario}");
    }
}

#[test]
fn simple() {
    let v = view(&events("simple"));
    assert_eq!(
        v["id"],
        "1796004787807-1796004787807100283-5a7c3606642b8401"
    );
    assert_eq!(v["title"], "say hello");
    assert_eq!(v["preferences"]["fastMode"], true);
    assert_eq!(v["totalInputTokens"], 12);
    assert_eq!(v["totalOutputTokens"], 2);
    assert_eq!(
        v["turns"],
        json!([{"kind":"assistant","user":{"text":"say hello","images":[]},"steps":[],"assistant":"Hello world.","files":[]}])
    );
}

#[test]
fn multiturn_tool_calls_and_results() {
    let v = view(&events("multiturn"));
    let turns = v["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 4);
    let step = &turns[1]["steps"][0];
    assert_eq!(step["assistant"], "Let me run it.");
    assert_eq!(
        step["toolCalls"][0],
        json!({"id":"call_1","name":"terminal","argumentsJson":"{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}"})
    );
    assert_eq!(
        step["toolResults"][0],
        json!({"toolCallId":"call_1","toolName":"terminal","status":"success","output":"exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n","outputBytes":47,"truncated":false,"exitCode":null})
    );
    assert_eq!(turns[2]["steps"][0]["assistant"], Value::Null);
    assert_eq!(
        turns[2]["files"],
        json!([{"path":"hello.txt","action":"read","status":"success","toolName":"read_file"}])
    );
    assert_eq!(turns[3]["user"]["text"], "and once more");
}

#[test]
fn failing_command_has_failure_status_and_exit_code() {
    let v = view(&events("failing"));
    let result = &v["turns"][0]["steps"][0]["toolResults"][0];
    assert_eq!(result["status"], "failure");
    assert_eq!(result["exitCode"], 2);
    assert!(result["output"]
        .as_str()
        .unwrap()
        .contains("No such file or directory"));
    assert_eq!(v["turns"][1]["user"]["text"], "thanks");
}

#[test]
fn bigout_keeps_the_preview_output() {
    let v = view(&events("bigout"));
    let result = &v["turns"][0]["steps"][0]["toolResults"][0];
    assert_eq!(
        v["turns"][0]["steps"][0]["toolCalls"][0]["argumentsJson"],
        "{\"action\":\"exec\",\"command\":\"seq 1 40000\"}"
    );
    assert!(result["output"]
        .as_str()
        .unwrap()
        .starts_with("<tool_result_preview handle="));
    assert_eq!(result["status"], "success");
}

#[test]
fn twotools_has_two_calls_in_one_step() {
    let v = view(&events("twotools"));
    let step = &v["turns"][0]["steps"][0];
    assert_eq!(step["assistant"], "Two at once.");
    assert_eq!(step["toolCalls"].as_array().unwrap().len(), 2);
    assert_eq!(
        step["toolResults"][1]["output"],
        "exit_code=0\n<stdout>\nunié☃\n</stdout>\n"
    );
}

#[test]
fn files_have_write_and_edit_evidence() {
    let v = view(&events("files"));
    assert_eq!(
        v["turns"][0]["files"][0],
        json!({"path":"notes.md","action":"write","status":"success","toolName":"write_file"})
    );
    assert_eq!(v["turns"][1]["files"][0]["action"], "edit");
    assert_eq!(
        v["turns"][1]["steps"][0]["toolResults"][0]["output"],
        "edited notes.md (29 bytes)"
    );
}

#[test]
fn markdown_keeps_unicode_and_control_characters() {
    let v = view(&events("markdown"));
    assert_eq!(
        v["turns"][0]["assistant"],
        "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconsole.log(\"x\")\n```\néè emoji 🚀 tab\tend"
    );
    assert_eq!(
        v["turns"][1]["user"]["text"],
        "unicode é ☃ 🚀 \"quotes\" \\ backslash\nnewline\ttab"
    );
}

#[test]
fn interrupted_turn() {
    let v = view(&events("interrupted"));
    assert_eq!(
        v["turns"][1],
        json!({"kind":"interrupted","user":{"text":"STALL forever","images":[]},"steps":[],"assistant":"partial ","reason":"cancelled","toolCall":null,"completedToolNames":[]})
    );
    assert_eq!(v["turns"][2]["user"]["text"], "after interrupt");
}

#[test]
fn image_turn_lives_in_the_recovery_checkpoint() {
    // fx replaced the image turn's checkpoint before committing it: the image is visible in
    // the pending recovery checkpoint of a prefix of the log.
    let v = view(&prefix("image", 2));
    let recovery = &v["recovery"];
    assert_eq!(recovery["turnId"], 1);
    assert_eq!(recovery["cause"], "network_interrupted");
    assert_eq!(recovery["action"], "retrying_request");
    assert_eq!(recovery["assistant"], "");
    assert_eq!(
        recovery["user"],
        json!({"text":"describe this image","images":[{"id":1,"path":"/home/user/project/red.png","mediaType":"image/png","snapshotPath":"images/image-1-3fd6e6be528c182d.bin","snapshotSha256":"3fd6e6be528c182d768563a63b65ac5a70d022149a01eeeaaa30396d75f426e0"}]})
    );
    assert_eq!(v["turns"], json!([]));
    assert_eq!(v["title"], "Untitled session");
    let v = view(&prefix("image", 6));
    assert_eq!(v["recovery"]["assistant"], "Hello world.");
    // Committing the next turn clears the checkpoint.
    assert_eq!(view(&events("image"))["recovery"], Value::Null);
}

#[test]
fn long_has_twelve_turns() {
    let v = view(&events("long"));
    let turns = v["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 12);
    assert_eq!(turns[11]["user"]["text"], "done");
    assert_eq!(
        turns[4]["steps"][0]["toolCalls"].as_array().unwrap().len(),
        2
    );
}

#[test]
fn interactive_preferences_and_state_replacement() {
    let before_fast = view(&prefix("interactive", 21));
    assert_eq!(before_fast["preferences"]["fastMode"], true);
    let after_fast = view(&prefix("interactive", 22));
    assert_eq!(after_fast["preferences"]["fastMode"], false);
    assert_eq!(after_fast["updatedAtMs"], 1796006429693_i64);

    let before_compact = view(&prefix("interactive", 33));
    assert_eq!(before_compact["contextHistoryStart"], 0);
    assert_eq!(before_compact["turns"].as_array().unwrap().len(), 3);
    let after_compact = view(&prefix("interactive", 36));
    assert_eq!(after_compact["contextHistoryStart"], 2);
    assert_eq!(after_compact["turns"], before_compact["turns"]);
    assert_eq!(after_compact["updatedAtMs"], 1796006441146_i64);
    assert_eq!(after_compact["usage"]["apiDurationMs"], 216);

    let v = view(&events("interactive"));
    assert_eq!(v["contextHistoryStart"], 2);
    assert_eq!(v["turns"].as_array().unwrap().len(), 4);
    assert_eq!(v["turns"][3]["user"]["text"], "after compact");
    let denied = &v["turns"][1]["steps"][0]["toolResults"][0];
    assert_eq!(denied["status"], "failure");
    assert!(denied["output"]
        .as_str()
        .unwrap()
        .contains("tool_permission_denied"));
}

#[test]
fn a_cut_inside_the_replacement_is_an_error() {
    let err = read_session(&prefix("interactive", 35)).unwrap_err();
    assert_eq!(err.seq, Some(36));
    assert_eq!(err.reason, fx_wasm::log::Reason::IncompleteReplacement(34));
    assert_eq!(err.code(), "FX_SESSION_INVALID");
}
