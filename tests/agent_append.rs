//! The core's choice between `commit` (the whole log) and `append` (only what a commit adds),
//! against a scripted store that records the bytes handed to it per call: appends when the
//! store has `append` and the new bytes extend what it holds, the whole log otherwise, and the
//! stored record is always exactly our log.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod support;

use std::collections::HashMap;

use futures::executor::block_on;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::caps::{Failure, HostEvent, Store, StoreError};
use fx_wasm::log::SessionLog;
use support::fake_host::{text_reply, FakeHost};

fn agent(host: &FakeHost) -> Agent<FakeHost> {
    fresh_agent(host)
}

fn fresh_agent(host: &FakeHost) -> Agent<FakeHost> {
    let env = HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())]);
    Agent::new(host.clone(), AgentConfig::from_env(&env, None).unwrap())
}

fn appending_host() -> FakeHost {
    let host = FakeHost::new();
    host.state.borrow_mut().appends = true;
    host
}

fn writes(host: &FakeHost) -> Vec<(&'static str, usize)> {
    std::mem::take(&mut host.state.borrow_mut().writes)
}

fn user_texts(bytes: Vec<u8>) -> Vec<String> {
    SessionLog::load(bytes)
        .unwrap()
        .state()
        .history
        .iter()
        .map(|t| t.user().unwrap().text.to_lossy().into_owned())
        .collect()
}

fn prompt(agent: &Agent<FakeHost>, host: &FakeHost, id: &str, turn: u32) {
    host.reply(text_reply(&["Done: ", "the same answer every time."]));
    block_on(agent.prompt(id, turn, format!("step {turn}"))).unwrap();
}

#[test]
fn a_store_with_append_gets_only_the_new_frames() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    // A new session is stored whole with its first turn; later turns append.
    assert_eq!(writes(&host), []);
    prompt(&agent, &host, &id, 1);
    let after_one = host.stored(&id).len();
    assert_eq!(writes(&host), [("commit", after_one)]);
    prompt(&agent, &host, &id, 2);
    let [("append", bytes)] = writes(&host)[..] else {
        panic!("the second turn was not one append")
    };
    assert_eq!(host.stored(&id).len(), after_one + bytes);
    assert_eq!(user_texts(host.stored(&id)), ["step 1", "step 2"]);
}

#[test]
fn bytes_per_commit_stay_flat_as_the_session_grows() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let mut per_turn = Vec::new();
    for turn in 1..=60 {
        writes(&host);
        prompt(&agent, &host, &id, turn);
        let handed: usize = writes(&host).iter().map(|(_, n)| n).sum();
        per_turn.push(handed);
    }
    let (early, late) = (per_turn[9], per_turn[59]);
    let whole = host.stored(&id).len();
    assert!(
        late <= early * 2,
        "turn 60 handed {late} bytes, turn 10 {early}"
    );
    assert!(late * 20 < whole, "turn 60 handed {late} of {whole} bytes");
    assert_eq!(user_texts(host.stored(&id)).len(), 60);
}

#[test]
fn a_store_without_append_gets_the_whole_log_every_time() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    prompt(&agent, &host, &id, 1);
    prompt(&agent, &host, &id, 2);
    let all = writes(&host);
    assert!(all.iter().all(|(method, _)| *method == "commit"), "{all:?}");
    assert_eq!(all.last().unwrap().1, host.stored(&id).len());
    assert_eq!(user_texts(host.stored(&id)), ["step 1", "step 2"]);
}

#[test]
fn a_resumed_session_appends_and_a_rename_commits_whole() {
    let host = appending_host();
    let first = agent(&host);
    let id = block_on(first.create_session()).unwrap().session_id;
    prompt(&first, &host, &id, 1);
    drop(first);
    let agent = agent(&host);
    block_on(agent.open_session(&id)).unwrap();
    writes(&host);
    prompt(&agent, &host, &id, 2);
    assert!(matches!(writes(&host)[..], [("append", _)]));
    // A rename adds the display record after the frames (an append); the next turn's frames
    // go before it, so the bytes no longer only extend the stored ones and the store gets the
    // whole log, exact.
    block_on(agent.rename_session(&id, "A title")).unwrap();
    assert!(matches!(writes(&host)[..], [("append", _)]));
    prompt(&agent, &host, &id, 3);
    let all = writes(&host);
    assert!(all.iter().all(|(method, _)| *method == "commit"), "{all:?}");
    assert_eq!(all.last().unwrap().1, host.stored(&id).len());
    let stored = SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(stored.title(), Some("A title"));
    assert_eq!(stored.state().history.len(), 3);
}

#[test]
fn a_stale_append_is_a_conflict_and_the_session_forks() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    prompt(&agent, &host, &id, 1);
    // Another tab rewrites the record: our append meets a revision conflict and writes nothing.
    let theirs = {
        let mut state = host.state.borrow_mut();
        let (bytes, _) = state.sessions.get(&id).cloned().unwrap();
        let mut other = bytes[..bytes.len() / 2].to_vec();
        other.extend_from_slice(b"x");
        state
            .sessions
            .insert(id.clone(), (other.clone(), "other".into()));
        other
    };
    writes(&host);
    host.reply(text_reply(&["two"]));
    let end = block_on(agent.prompt(&id, 2, "second".into())).unwrap();
    assert_eq!(end.forked_from.as_deref(), Some(id.as_str()));
    assert_eq!(writes(&host)[0].0, "append");
    assert_eq!(host.stored(&id), theirs);
    assert_eq!(
        user_texts(host.stored(&end.session_id)),
        ["step 1", "second"]
    );
    assert!(host
        .state
        .borrow()
        .events
        .iter()
        .any(|e| matches!(e, HostEvent::SessionForked { .. })));
}

#[test]
fn a_failed_append_is_a_store_error_and_the_next_commit_catches_up() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    prompt(&agent, &host, &id, 1);
    host.state.borrow_mut().fail_commit = Some(StoreError::failed(
        Store::Session,
        "append",
        Failure::Threw,
        "disk full".into(),
    ));
    host.reply(text_reply(&["two"]));
    let error = block_on(agent.prompt(&id, 2, "second".into())).unwrap_err();
    assert_eq!(error.code(), "FX_SESSION_STORE_FAILED");
    host.state.borrow_mut().fail_commit = None;
    writes(&host);
    prompt(&agent, &host, &id, 3);
    // Both unsaved turns in one append, on top of what the store holds.
    assert!(matches!(writes(&host)[..], [("append", _)]));
    assert_eq!(user_texts(host.stored(&id)), ["step 1", "second", "step 3"]);
}

#[test]
fn an_append_of_ours_that_landed_late_is_not_a_fork() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    prompt(&agent, &host, &id, 1);
    host.state.borrow_mut().fail_commit = Some(StoreError::failed(
        Store::Session,
        "append",
        Failure::TimedOut,
        "sessionStore.append() did not answer within 10 ms".into(),
    ));
    host.reply(text_reply(&["two"]));
    let error = block_on(agent.prompt(&id, 2, "second".into())).unwrap_err();
    assert_eq!(error.code(), "FX_ADAPTER_TIMEOUT");
    host.state.borrow_mut().fail_commit = None;
    assert!(host.land_late(0));
    let end = {
        host.reply(text_reply(&["three"]));
        block_on(agent.prompt(&id, 3, "third".into())).unwrap()
    };
    assert_eq!(end.forked_from, None);
    assert_eq!(user_texts(host.stored(&id)), ["step 1", "second", "third"]);
}

#[test]
fn a_lost_append_fails_to_load_instead_of_losing_turns() {
    let host = appending_host();
    let agent = agent(&host);
    let id = block_on(agent.create_session()).unwrap().session_id;
    prompt(&agent, &host, &id, 1);
    let after_one = host.stored(&id);
    prompt(&agent, &host, &id, 2);
    prompt(&agent, &host, &id, 3);
    // A store that lost the second append (the frame after turn 1) but kept the third.
    let whole = host.stored(&id);
    let dropped: Vec<u8> = {
        let log = String::from_utf8(whole.clone()).unwrap();
        let lines: Vec<&str> = log.split_inclusive('\n').collect();
        let kept = after_one.iter().filter(|&&b| b == b'\n').count();
        // Keep the first turn's frames, drop the next frame, keep the rest.
        let mut out = lines[..kept].concat();
        out.push_str(&lines[kept + 1..].concat());
        out.into_bytes()
    };
    host.state
        .borrow_mut()
        .sessions
        .insert(id.clone(), (dropped, "r-damaged".into()));
    let error = block_on(fresh_agent(&host).open_session(&id)).unwrap_err();
    assert_eq!(error.code(), "FX_SESSION_INVALID");
}
