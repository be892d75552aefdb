//! The agent loop against a scripted host: text turns, tool turns, permissions, cancellation,
//! retries, errors, revision conflicts, config.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod support;

use std::collections::HashMap;

use futures::executor::block_on;
use fx_wasm::agent::replay::Replayed;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::caps::acp::{PermissionAnswer, StopReason, Update};
use fx_wasm::caps::{ExecOutcome, HostEvent};
use fx_wasm::log::turn::{HistoryTurn, TerminalReason};
use fx_wasm::tools::workspace::RawWorkspace;
use support::fake_host::{sse, text_reply, tool_reply, FakeHost, Reply};

fn env() -> HashMap<String, String> {
    HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())])
}

fn workspace(permission: &str) -> RawWorkspace {
    serde_json::from_value(serde_json::json!({
        "info": {"version": 1, "root": "/workspace", "cwd": "/workspace", "home": "/home/visitor",
                 "gitAvailable": false, "ephemeral": true},
        "permission": permission,
    }))
    .unwrap()
}

fn agent(host: &FakeHost, ws: Option<&str>) -> Agent<FakeHost> {
    let ws = ws.map(workspace);
    Agent::new(
        host.clone(),
        AgentConfig::from_env(&env(), ws.as_ref()).unwrap(),
    )
}

fn history(host: &FakeHost, id: &str) -> Vec<HistoryTurn> {
    fx_wasm::log::SessionLog::load(host.stored(id))
        .unwrap()
        .state()
        .history
        .clone()
}

#[test]
fn streamed_text_turn() {
    let host = FakeHost::new();
    host.reply(text_reply(&["Hel", "lo ", "there"]));
    let agent = agent(&host, None);
    let opened = block_on(agent.create_session()).unwrap();
    let end = block_on(agent.prompt(&opened.session_id, 1, "say hello".into())).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(host.texts(1), "Hello there");
    let requests = host.chat_requests();
    assert_eq!(requests.len(), 1);
    let prompt = requests[0]["prompt"].as_array().unwrap();
    assert_eq!(prompt[0]["role"], "system");
    assert_eq!(prompt.last().unwrap()["content"][0]["text"], "say hello");
    assert!(requests[0]
        .get("tools")
        .is_some_and(|t| t.as_array().unwrap().is_empty()));
    let state = host.state.borrow();
    let chat = state
        .requests
        .iter()
        .find(|r| r.method == fx_wasm::caps::Method::Post)
        .unwrap();
    let header = |name: &str| {
        chat.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("authorization").as_deref(), Some("Bearer test-key"));
    assert_eq!(
        header("x-session-id").as_deref(),
        Some(opened.session_id.as_str())
    );
    assert_eq!(
        header("ai-language-model-id").as_deref(),
        Some("moonshotai/kimi-k3")
    );
    // Not stored when created: committed once, after the turn (with no expected revision).
    assert_eq!(state.commits.len(), 1);
    assert_eq!(state.commits[0].1, None);
    drop(state);
    let turns = history(&host, &opened.session_id);
    match &turns[..] {
        [HistoryTurn::Assistant(turn)] => {
            assert_eq!(turn.user.text.to_lossy(), "say hello");
            assert_eq!(turn.assistant.to_lossy(), "Hello there");
        }
        other => panic!("unexpected history {other:?}"),
    }
    let view = fx_wasm::log::read_session(&host.stored(&opened.session_id)).unwrap();
    assert_eq!(view.total_input_tokens, 10);
}

#[test]
fn tool_turn_runs_the_workspace_and_feeds_the_result_back() {
    let host = FakeHost::new();
    host.reply(tool_reply("Let me look.", &[("call_1", "ls -la")]));
    host.reply(text_reply(&["Two files."]));
    let agent = agent(&host, Some("allow-sandboxed"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    let end = block_on(agent.prompt(&id, 7, "what is here?".into())).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(host.state.borrow().exec_calls, vec!["ls -la"]);
    let requests = host.chat_requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["tools"][0]["name"], "terminal");
    let prompt = requests[1]["prompt"].as_array().unwrap();
    let tool = prompt.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(
        tool["content"][0]["output"]["value"],
        "exit_code=0\n<stdout>\nran ls -la\n</stdout>\n"
    );
    let assistant = prompt.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["content"][0]["text"], "Let me look.");
    assert_eq!(assistant["content"][1]["input"]["command"], "ls -la");
    let kinds: Vec<String> = host
        .state
        .borrow()
        .updates
        .iter()
        .map(|(_, u)| {
            serde_json::to_value(u).unwrap()["sessionUpdate"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "tool_call_update",
            "agent_message_chunk"
        ]
    );
    let turns = history(&host, &id);
    let HistoryTurn::Assistant(turn) = &turns[0] else {
        panic!("not an assistant turn")
    };
    assert_eq!(turn.execution.tool_steps.len(), 1);
    assert_eq!(
        turn.execution.tool_steps[0].tool_results[0]
            .output
            .to_lossy(),
        "exit_code=0\n<stdout>\nran ls -la\n</stdout>\n"
    );
    // A recovery checkpoint was committed after the tool step (checkpoint, turn; a new session
    // is not stored before).
    assert_eq!(host.state.borrow().commits.len(), 2);
}

#[test]
fn permission_allow_always_deny_and_no_answer() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("a", "echo one")]));
    host.reply(tool_reply(
        "",
        &[("b", "echo one"), ("c", "rm -rf x"), ("d", "cat y")],
    ));
    host.reply(text_reply(&["done"]));
    {
        let mut state = host.state.borrow_mut();
        state.permissions.push_back(PermissionAnswer::AllowAlways);
        state.permissions.push_back(PermissionAnswer::Reject {
            note: Some("not that".into()),
        });
        state.permissions.push_back(PermissionAnswer::Cancelled);
    }
    let agent = agent(&host, Some("prompt"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    let end = block_on(agent.prompt(&id, 1, "go".into())).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    // "echo one" was allowed always, so its second run was not asked; the others were.
    assert_eq!(host.state.borrow().permission_requests.len(), 3);
    assert_eq!(host.state.borrow().exec_calls, vec!["echo one", "echo one"]);
    let requests = host.chat_requests();
    let prompt = requests[2]["prompt"].as_array().unwrap();
    let outputs: Vec<String> = prompt
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            m["content"][0]["output"]["value"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(outputs[2].contains("tool_permission_denied") && outputs[2].contains("not that"));
    assert!(outputs[3].contains("tool_permission_denied"));
    // The rejection note reaches the model as user feedback after the results.
    assert!(prompt
        .iter()
        .any(|m| m["role"] == "user" && m["content"][0]["text"] == "not that"));
    let request = &host.state.borrow().permission_requests[0];
    let json = serde_json::to_value(request).unwrap();
    assert_eq!(json["toolCall"]["kind"], "execute");
    assert_eq!(json["options"][1]["optionId"], "allow_always");
}

#[test]
fn cancel_during_the_stream_keeps_the_partial_text() {
    let host = FakeHost::new();
    let partial = sse(&[r#"{"type":"text-delta","delta":"partial answer"}"#]);
    let partial = partial[..partial.len() - "data: [DONE]\n\n".len()].to_vec();
    host.reply(Reply::Stall {
        chunks: vec![partial],
    });
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 3, "write".into()), async {
            host.until_waiting().await;
            agent.cancel(3);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    assert_eq!(host.texts(3), "partial answer");
    let turns = history(&host, &id);
    let HistoryTurn::Interrupted(turn) = &turns[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Cancelled);
    assert_eq!(
        turn.assistant.as_ref().unwrap().to_lossy(),
        "partial answer"
    );
}

#[test]
fn cancel_before_the_response_and_during_a_command() {
    let host = FakeHost::new();
    host.reply(Reply::Hang);
    let agent = agent(&host, Some("allow-sandboxed"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "first".into()), async {
            host.until_waiting().await;
            agent.cancel(1);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);

    host.reply(tool_reply("Running it.", &[("c1", "sleep 100")]));
    host.state.borrow_mut().exec_hangs = true;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 2, "second".into()), async {
            host.until_waiting().await;
            agent.cancel(2);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    let turns = history(&host, &id);
    assert_eq!(turns.len(), 2);
    let HistoryTurn::Interrupted(turn) = &turns[1] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.tool_call.as_ref().unwrap().id.to_lossy(), "c1");
    assert_eq!(turn.assistant.as_ref().unwrap().to_lossy(), "Running it.");
    // The next request replays the interrupted turn with a synthetic aborted result.
    host.state.borrow_mut().exec_hangs = false;
    host.reply(text_reply(&["ok"]));
    block_on(agent.prompt(&id, 3, "third".into())).unwrap();
    let last = host.chat_requests().pop().unwrap();
    let text = last.to_string();
    assert!(text.contains("aborted by user"), "{text}");
    assert!(text.contains("<turn_aborted>"));
}

#[test]
fn retries_then_succeeds_and_gives_up_on_4xx() {
    let host = FakeHost::new();
    host.reply(Reply::Body {
        status: 503,
        chunks: vec![b"{\"error\":{\"message\":\"busy\"}}".to_vec()],
        retry_after: Some("2".into()),
    });
    host.reply(Reply::Network("connection reset".into()));
    host.reply(text_reply(&["fine"]));
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let end = block_on(agent.prompt(&id, 1, "hi".into())).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(host.chat_requests().len(), 3);
    assert_eq!(host.state.borrow().sleeps, vec![2000, 250]);
    let retries = host
        .state
        .borrow()
        .events
        .iter()
        .filter(|e| matches!(e, HostEvent::RequestRetry { .. }))
        .count();
    assert_eq!(retries, 2);

    host.reply(Reply::Body {
        status: 401,
        chunks: vec![br#"{"error":{"type":"authentication_error","message":"bad key"}}"#.to_vec()],
        retry_after: None,
    });
    let error = block_on(agent.prompt(&id, 2, "again".into())).unwrap_err();
    assert_eq!(error.code(), "FX_GATEWAY_HTTP_ERROR");
    assert!(error.to_string().contains("401"), "{error}");
    assert_eq!(host.chat_requests().len(), 4);
    let turns = history(&host, &id);
    let HistoryTurn::Interrupted(turn) = &turns[1] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Failed);
}

#[test]
fn a_second_writer_makes_the_next_commit_fork() {
    let host = FakeHost::new();
    host.reply(text_reply(&["one"]));
    host.reply(text_reply(&["two"]));
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    block_on(agent.prompt(&id, 1, "first".into())).unwrap();
    // Another tab continues the same session.
    let other = {
        let host2 = host.clone();
        let agent2 = Agent::new(host2, AgentConfig::from_env(&env(), None).unwrap());
        host.reply(text_reply(&["other tab"]));
        block_on(agent2.open_session(&id)).unwrap();
        block_on(agent2.prompt(&id, 9, "from the other tab".into())).unwrap();
        host.stored(&id)
    };
    let end = block_on(agent.prompt(&id, 2, "second".into())).unwrap();
    let forked_from = end.forked_from.expect("a fork");
    assert_eq!(forked_from, id);
    assert_ne!(end.session_id, id);
    // The other tab's record is untouched; ours holds both of our turns.
    assert_eq!(host.stored(&id), other);
    let ours = history(&host, &end.session_id);
    let users: Vec<String> = ours
        .iter()
        .map(|t| t.user().unwrap().text.to_lossy().into_owned())
        .collect();
    assert_eq!(users, ["first", "second"]);
    assert!(host
        .state
        .borrow()
        .events
        .iter()
        .any(|e| matches!(e, HostEvent::SessionForked { from, .. } if *from == id)));
    // The session keeps working under its new id.
    host.reply(text_reply(&["three"]));
    block_on(agent.prompt(&end.session_id, 3, "third".into())).unwrap();
    assert_eq!(history(&host, &end.session_id).len(), 3);
}

#[test]
fn config_is_restored_and_persisted_only_when_accepted() {
    let host = FakeHost::new();
    host.state
        .borrow_mut()
        .config
        .insert("model".into(), "test/restored".into());
    host.state
        .borrow_mut()
        .config
        .insert("mode".into(), "code".into());
    let agent = agent(&host, None);
    let opened = block_on(agent.create_session()).unwrap();
    let options = serde_json::to_value(&opened.config_options).unwrap();
    assert_eq!(options[0]["currentValue"], "test/restored");
    assert_eq!(options[1]["currentValue"], "code");
    assert_eq!(opened.modes.current_mode_id, "code");
    let opened =
        block_on(agent.set_config(&opened.session_id, "model", "test/other", "sdk")).unwrap();
    assert_eq!(
        host.state.borrow().config.get("model").unwrap(),
        "test/other"
    );
    assert!(block_on(agent.set_config(&opened.session_id, "model", "bad\nid", "sdk")).is_err());
    assert_eq!(
        host.state.borrow().config.get("model").unwrap(),
        "test/other"
    );
    // The model change is in the log.
    let state = fx_wasm::log::SessionLog::load(host.stored(&opened.session_id)).unwrap();
    assert_eq!(state.state().preferences.model, "test/other");
}

#[test]
fn list_open_remove_and_settle_an_unfinished_turn() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("x", "echo hi")]));
    host.reply(Reply::Hang);
    let agent = agent(&host, Some("allow-sandboxed"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    // The tab "closes" after the tool step: the turn future is dropped mid-request.
    block_on(async {
        futures::select! {
            _ = futures::FutureExt::fuse(Box::pin(agent.prompt(&id, 1, "run it".into()))) => panic!("should hang"),
            _ = futures::FutureExt::fuse(Box::pin(host.until_waiting())) => {},
        }
    });
    let bytes = host.stored(&id);
    assert!(fx_wasm::log::SessionLog::load(bytes)
        .unwrap()
        .state()
        .recovery_checkpoint
        .is_some());
    let agent2 = Agent::new(
        host.clone(),
        AgentConfig::from_env(&env(), Some(&workspace("allow-sandboxed"))).unwrap(),
    );
    let opened = block_on(agent2.open_session(&id)).unwrap();
    let turns = history(&host, &id);
    let HistoryTurn::Interrupted(turn) = &turns[0] else {
        panic!("not settled")
    };
    assert_eq!(turn.execution.tool_steps.len(), 1);
    assert!(opened
        .history
        .iter()
        .any(|u| matches!(u, Replayed::Update(Update::ToolCall { .. }))));
    let listed = block_on(agent2.list_sessions()).unwrap();
    assert!(listed.iter().any(|l| l.session_id == id));
    block_on(agent2.remove_session(&id)).unwrap();
    assert!(block_on(agent2.list_sessions()).unwrap().is_empty());
    let _ = ExecOutcome::TimedOut;
}

#[test]
fn a_plain_turn_fetches_no_catalog_and_a_named_effort_fetches_it_first() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(
        br#"{"object":"list","data":[{"id":"moonshotai/kimi-k3","type":"language","tags":["tool-use","reasoning"],
            "reasoning_options":[{"type":"effort","values":["low","high"]}]}]}"#
            .to_vec(),
    );
    host.reply(text_reply(&["one"]));
    host.reply(text_reply(&["two"]));
    host.reply(text_reply(&["three"]));
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let catalog_requests = || {
        host.state
            .borrow()
            .requests
            .iter()
            .filter(|r| r.method == fx_wasm::caps::Method::Get)
            .count()
    };
    block_on(agent.prompt(&id, 1, "plain".into())).unwrap();
    assert_eq!(catalog_requests(), 0, "a plain turn sends one request");
    assert_eq!(host.state.borrow().requests.len(), 1);
    // A named effort is sent only for a model whose catalog entry lists it: fetched first.
    block_on(agent.set_effort(&id, "high")).unwrap();
    block_on(agent.prompt(&id, 2, "think hard".into())).unwrap();
    assert_eq!(catalog_requests(), 1);
    assert_eq!(host.chat_requests()[1]["reasoning"], "high");
    block_on(agent.prompt(&id, 3, "again".into())).unwrap();
    assert_eq!(catalog_requests(), 1, "fetched once");
}
