//! Resuming sessions written by the fx CLI: for every turn of every fixture, the history we
//! project from the log (as it stood when fx sent that turn's first request) must equal the
//! non-system messages fx sent, followed by the new user message.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

use std::path::{Path, PathBuf};

use fx_wasm::agent::context::{history_messages, ContextPolicy};
use fx_wasm::gateway::prompt::Message;
use serde_json::Value;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx-sessions");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn events_path(fixture: &Path) -> PathBuf {
    let session = fixture.join("session");
    let dir = std::fs::read_dir(session)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    dir.join("events.jsonl")
}

/// Serializes messages the way the request body does, then keeps the non-system ones.
fn wire(messages: &[Message]) -> Vec<Value> {
    let body = fx_wasm::gateway::request::build_request(
        &fx_wasm::gateway::ChatEndpoint::canonical(),
        messages,
        &[],
        &fx_wasm::gateway::request::RequestOptions {
            model_id: "m/x",
            ..Default::default()
        },
    )
    .unwrap()
    .body
    .clone();
    let body: Value = serde_json::from_slice(&body).unwrap();
    body["prompt"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .cloned()
        .collect()
}

fn frame_user_text(line: &str) -> Option<(String, String)> {
    let frame: Value = serde_json::from_str(line).ok()?;
    let kind = frame["kind"].as_str()?.to_owned();
    let user = match kind.as_str() {
        "recovery_checkpoint_set" => &frame["payload"]["checkpoint"]["user"]["text"],
        "history_turn_committed" => &frame["payload"]["turn"]["user"]["text"],
        _ => return None,
    };
    Some((kind, user.as_str()?.to_owned()))
}

#[test]
fn projected_history_matches_what_fx_sent() {
    let mut compared = 0;
    for fixture in fixtures() {
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let log = std::fs::read_to_string(events_path(&fixture)).unwrap();
        let lines: Vec<&str> = log.split_inclusive('\n').collect();
        let requests = std::fs::read_to_string(fixture.join("requests.jsonl")).unwrap();
        let mut search_from = 0;
        for request in requests.lines() {
            let request: Value = serde_json::from_str(request).unwrap();
            let body = &request["body"];
            let count = body["system_message_count"].as_u64().unwrap();
            if body["other_keys"]["toolChoice"]["type"] != "auto" || !(count == 5 || count == 6) {
                continue;
            }
            let sent = body["prompt_without_system"].as_array().unwrap();
            let last = sent.last().unwrap();
            if last["role"] != "user" {
                continue; // a later step of a turn
            }
            let user_text = last["content"][0]["text"].as_str().unwrap();
            // The state as it stood when fx sent this request: every frame before the turn's first.
            let Some(cut) = lines
                .iter()
                .enumerate()
                .skip(search_from)
                .find(|(_, line)| frame_user_text(line).is_some_and(|(_, text)| text == user_text))
                .map(|(i, _)| i)
            else {
                continue;
            };
            let prefix: String = lines[..cut].concat();
            let session = fx_wasm::log::SessionLog::load(prefix.into_bytes()).unwrap();
            let policy = ContextPolicy {
                max_history_turns: 8,
                budget_tokens: u64::MAX,
            };
            let mut messages = history_messages(session.state(), &policy);
            let folded = messages.iter().any(|m| matches!(m, Message::System { .. }));
            messages.push(Message::user_text(user_text));
            assert_eq!(wire(&messages), *sent, "{name}: request for {user_text:?}");
            assert_eq!(folded, count == 6, "{name}: summary for {user_text:?}");
            compared += 1;
            // Later turns start after this turn's commit.
            search_from = lines
                .iter()
                .enumerate()
                .skip(cut)
                .find(|(_, line)| {
                    frame_user_text(line).is_some_and(|(kind, text)| {
                        kind == "history_turn_committed" && text == user_text
                    })
                })
                .map_or(cut, |(i, _)| i + 1);
        }
    }
    assert!(compared >= 30, "only {compared} requests compared");
}
