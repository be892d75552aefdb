//! The agent when its host misbehaves: a refused preference change is taken back, a commit of
//! ours that answered late is not mistaken for another writer, what cannot be stored is reported
//! (at shutdown, at close, after a turn the stop ended), a hanging config write never holds the
//! session, a cancelled command ends with a final update and stays in the record, and gateway
//! answers that are not an event stream or end in an error are failures.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod support;

use std::collections::HashMap;
use std::pin::pin;

use futures::executor::block_on;
use futures::future::{select, Either};
use fx_wasm::agent::model::is_event_stream;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::caps::acp::{StopReason, ToolStatus, Update};
use fx_wasm::caps::{Failure, HostEvent, Store, StoreError};
use fx_wasm::log::turn::{HistoryTurn, TerminalReason};
use fx_wasm::tools::workspace::RawWorkspace;
use support::fake_host::{sse, text_reply, tool_reply, FakeHost, Reply};

fn agent(host: &FakeHost, workspace: Option<&str>) -> Agent<FakeHost> {
    let env = HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())]);
    let workspace: Option<RawWorkspace> = workspace.map(|permission| {
        serde_json::from_value(serde_json::json!({
            "info": {"version": 1, "root": "/workspace", "cwd": "/workspace", "home": "/home/v",
                     "gitAvailable": false, "ephemeral": true},
            "permission": permission,
        }))
        .unwrap()
    });
    Agent::new(
        host.clone(),
        AgentConfig::from_env(&env, workspace.as_ref()).unwrap(),
    )
}

fn history(bytes: Vec<u8>) -> Vec<HistoryTurn> {
    fx_wasm::log::SessionLog::load(bytes)
        .unwrap()
        .state()
        .history
        .clone()
}

fn user_texts(bytes: Vec<u8>) -> Vec<String> {
    history(bytes)
        .iter()
        .map(|t| t.user().unwrap().text.to_lossy().into_owned())
        .collect()
}

fn failed(message: &str) -> StoreError {
    commit_failure(Failure::Threw, message)
}

fn commit_failure(failure: Failure, message: &str) -> StoreError {
    StoreError::failed(Store::Session, "commit", failure, message.into())
}

fn model_header(host: &FakeHost) -> String {
    let state = host.state.borrow();
    let chat = state
        .requests
        .iter()
        .rfind(|r| r.method == fx_wasm::caps::Method::Post)
        .unwrap();
    chat.headers
        .iter()
        .find(|(n, _)| n == "ai-language-model-id")
        .map(|(_, v)| v.clone())
        .unwrap()
}

fn unsaved(host: &FakeHost) -> Vec<(String, usize, &'static str, String, Vec<u8>)> {
    host.state
        .borrow()
        .events
        .iter()
        .filter_map(|e| match e {
            HostEvent::SessionUnsaved {
                session_id,
                turns,
                code,
                message,
                bytes,
            } => Some((
                session_id.clone(),
                *turns,
                *code,
                message.clone(),
                bytes.clone(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn store_error_codes() {
    assert_eq!(
        StoreError::RevisionConflict {
            store: Store::Session
        }
        .code(),
        "FX_SESSION_REVISION_CONFLICT"
    );
    assert_eq!(failed("x").code(), "FX_SESSION_STORE_FAILED");
    let invalid = commit_failure(Failure::Invalid, "x");
    assert_eq!(invalid.code(), "FX_SESSION_STORE_FAILED");
    let timed_out = commit_failure(Failure::TimedOut, "x");
    assert_eq!(timed_out.code(), "FX_ADAPTER_TIMEOUT");
    let abandoned = commit_failure(Failure::Abandoned, "x");
    assert_eq!(abandoned.code(), "FX_AGENT_CLOSED");
}

#[test]
fn a_refused_model_change_is_taken_back_everywhere() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.state.borrow_mut().fail_commit = Some(failed("store down"));
    let error = block_on(agent.set_config(&id, "model", "test/other-model", "sdk")).unwrap_err();
    assert_eq!(error.code(), "FX_SESSION_STORE_FAILED");
    host.state.borrow_mut().fail_commit = None;
    // Not in config, not in the events, not in the next request, not in the store.
    assert!(host.state.borrow().config.is_empty());
    assert!(!host
        .state
        .borrow()
        .events
        .iter()
        .any(|e| matches!(e, HostEvent::ConfigChanged { .. })));
    host.reply(text_reply(&["ok"]));
    block_on(agent.prompt(&id, 1, "which model?".into())).unwrap();
    assert_eq!(model_header(&host), "moonshotai/kimi-k3");
    let stored = fx_wasm::log::SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(stored.state().preferences.model, "moonshotai/kimi-k3");
    assert_eq!(
        stored.last_seq(),
        2,
        "the session's start and the turn, no change"
    );
}

/// A session is stored once it has something to keep: not when created (a model restored from
/// the config store included), not when closed or stopped blank, and nothing is reported for it.
#[test]
fn a_blank_session_is_never_stored_or_reported() {
    let host = FakeHost::new();
    host.state
        .borrow_mut()
        .config
        .insert("model".into(), "test/restored-model".into());
    let agent = agent(&host, None);
    let opened = block_on(agent.create_session()).unwrap();
    let model = opened
        .config_options
        .iter()
        .find(|o| o.id == "model")
        .unwrap();
    assert_eq!(model.current_value, "test/restored-model");
    assert!(host.state.borrow().events.iter().any(|e| matches!(
        e,
        HostEvent::ConfigChanged { source: "restore", value, .. } if value == "test/restored-model"
    )));
    assert!(host.state.borrow().commits.is_empty());
    assert!(block_on(agent.list_sessions()).unwrap().is_empty());
    host.state.borrow_mut().fail_commit = Some(failed("store down"));
    block_on(agent.close_session(&opened.session_id));
    let stopped = block_on(agent.create_session()).unwrap().session_id;
    agent.shutdown();
    let state = host.state.borrow();
    assert!(state.commits.is_empty() && state.sessions.is_empty());
    assert!(
        !state
            .events
            .iter()
            .any(|e| matches!(e, HostEvent::SessionUnsaved { .. })),
        "nothing to report for {stopped}"
    );
}

/// The first turn stores the session with the model restored into its start (no change frame).
#[test]
fn a_blank_session_is_stored_with_its_first_turn() {
    let host = FakeHost::new();
    host.state
        .borrow_mut()
        .config
        .insert("model".into(), "test/restored-model".into());
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["ok"]));
    block_on(agent.prompt(&id, 1, "hi".into())).unwrap();
    assert_eq!(model_header(&host), "test/restored-model");
    assert_eq!(host.state.borrow().commits, [(id.clone(), None)]);
    let stored = fx_wasm::log::SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(stored.state().preferences.model, "test/restored-model");
    assert_eq!(
        stored.last_seq(),
        2,
        "session_started with the restored model, then the turn"
    );
    assert_eq!(block_on(agent.list_sessions()).unwrap().len(), 1);
}

#[test]
fn a_refused_effort_or_rename_is_taken_back() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.state.borrow_mut().fail_commit = Some(failed("store down"));
    assert!(block_on(agent.set_effort(&id, "high")).is_err());
    assert!(block_on(agent.rename_session(&id, "A name")).is_err());
    host.state.borrow_mut().fail_commit = None;
    host.reply(text_reply(&["ok"]));
    block_on(agent.prompt(&id, 1, "hi".into())).unwrap();
    let stored = fx_wasm::log::SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(stored.state().preferences.effort, "auto");
    assert_eq!(stored.title(), None);
}

#[test]
fn a_commit_of_ours_that_landed_late_is_not_a_fork() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["one"]));
    host.state.borrow_mut().fail_commit = Some(commit_failure(
        Failure::TimedOut,
        "sessionStore.commit() did not answer within 10 ms",
    ));
    let error = block_on(agent.prompt(&id, 1, "first".into())).unwrap_err();
    assert_eq!(error.code(), "FX_ADAPTER_TIMEOUT");
    host.state.borrow_mut().fail_commit = None;
    // The store wrote it after all.
    assert!(host.land_late(0));
    host.reply(text_reply(&["two"]));
    let end = block_on(agent.prompt(&id, 2, "second".into())).unwrap();
    assert_eq!(end.session_id, id);
    assert_eq!(end.forked_from, None);
    assert_eq!(user_texts(host.stored(&id)), ["first", "second"]);
    assert!(!host
        .state
        .borrow()
        .events
        .iter()
        .any(|e| matches!(e, HostEvent::SessionForked { .. })));
}

#[test]
fn another_writer_still_forks() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["one"]));
    block_on(agent.prompt(&id, 1, "first".into())).unwrap();
    // Another tab rewrites the record with bytes that are not a prefix of ours.
    {
        let mut state = host.state.borrow_mut();
        let (bytes, _) = state.sessions.get(&id).cloned().unwrap();
        let mut other = bytes[..bytes.len() / 2].to_vec();
        other.extend_from_slice(b"x");
        state.sessions.insert(id.clone(), (other, "other".into()));
    }
    host.reply(text_reply(&["two"]));
    let end = block_on(agent.prompt(&id, 2, "second".into())).unwrap();
    assert_eq!(end.forked_from.as_deref(), Some(id.as_str()));
}

#[test]
fn shutdown_reports_what_the_store_does_not_hold() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["answer"]));
    host.state.borrow_mut().fail_commit = Some(failed("disk full"));
    assert!(block_on(agent.prompt(&id, 1, "keep me".into())).is_err());
    assert!(unsaved(&host).is_empty(), "kept in memory, retried later");
    agent.shutdown();
    let reports = unsaved(&host);
    assert_eq!(reports.len(), 1);
    let (session, turns, code, message, bytes) = &reports[0];
    assert_eq!(session, &id);
    assert_eq!(*turns, 1);
    assert_eq!(*code, "FX_AGENT_CLOSED");
    assert!(message.contains(&id));
    assert_eq!(user_texts(bytes.clone()), ["keep me"]);
    agent.shutdown();
    assert_eq!(unsaved(&host).len(), 1, "reported once");
}

#[test]
fn a_turn_the_stop_ended_reports_its_session() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let chunk = sse(&[r#"{"type":"text-delta","delta":"part"}"#]);
    let chunk = chunk[..chunk.len() - "data: [DONE]\n\n".len()].to_vec();
    host.reply(Reply::Stall {
        chunks: vec![chunk],
    });
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "interrupted".into()), async {
            host.until_waiting().await;
            // js/host.js abandons the commit the stopped turn makes, if the store hangs.
            host.state.borrow_mut().fail_commit = Some(commit_failure(
                Failure::Abandoned,
                "sessionStore.commit() was abandoned",
            ));
            agent.shutdown();
        })
    });
    assert_eq!(result.unwrap_err().code(), "FX_AGENT_CLOSED");
    let reports = unsaved(&host);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].1, 1);
    let HistoryTurn::Interrupted(turn) = &history(reports[0].4.clone())[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Cancelled);
}

#[test]
fn a_stop_with_a_working_store_reports_nothing() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.reply(Reply::Stall { chunks: vec![] });
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "stop".into()), async {
            host.until_waiting().await;
            agent.shutdown();
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    assert!(unsaved(&host).is_empty());
    assert_eq!(user_texts(host.stored(&id)), ["stop"]);
}

#[test]
fn close_session_retries_a_failed_commit_and_reports_one_that_still_fails() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let first = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["a"]));
    host.state.borrow_mut().fail_commit = Some(failed("flaky"));
    assert!(block_on(agent.prompt(&first, 1, "saved at close".into())).is_err());
    host.state.borrow_mut().fail_commit = None;
    block_on(agent.close_session(&first));
    assert_eq!(user_texts(host.stored(&first)), ["saved at close"]);
    assert!(unsaved(&host).is_empty());

    let second = block_on(agent.create_session()).unwrap().session_id;
    host.reply(text_reply(&["b"]));
    host.state.borrow_mut().fail_commit = Some(failed("disk full"));
    assert!(block_on(agent.prompt(&second, 2, "lost?".into())).is_err());
    block_on(agent.close_session(&second));
    let reports = unsaved(&host);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].0, second);
    assert_eq!(reports[0].2, "FX_SESSION_STORE_FAILED");
    assert!(reports[0].3.contains("disk full"));
    // Closed: the session is gone from the agent.
    let error = block_on(agent.prompt(&second, 3, "again".into())).unwrap_err();
    assert_eq!(error.code(), "FX_SESSION_NOT_OPEN");
}

#[test]
fn a_hanging_config_write_does_not_hold_the_session() {
    let host = FakeHost::new();
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    host.state.borrow_mut().hang.insert("config_set");
    host.reply(text_reply(&["while the write hangs"]));
    let outcome = block_on(async {
        let switching = pin!(agent.set_config(&id, "mode", "code", "sdk"));
        let prompting = pin!(async {
            host.until_waiting().await;
            agent.prompt(&id, 1, "go".into()).await
        });
        match select(switching, prompting).await {
            Either::Left(_) => panic!("the config write hangs"),
            Either::Right((result, _)) => result,
        }
    });
    assert_eq!(outcome.unwrap().stop_reason, StopReason::EndTurn);
}

#[test]
fn a_command_cancelled_while_it_ran_ends_and_is_recorded() {
    let host = FakeHost::new();
    host.reply(tool_reply("Running it.", &[("c1", "sleep 100")]));
    host.state.borrow_mut().exec_hangs = true;
    let agent = agent(&host, Some("allow-sandboxed"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "run".into()), async {
            host.until_waiting().await;
            agent.cancel(1);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    let last = host
        .state
        .borrow()
        .updates
        .iter()
        .rev()
        .find_map(|(_, u)| match u {
            Update::ToolCallUpdate {
                tool_call_id,
                status,
                raw_output,
                ..
            } if tool_call_id == "c1" => Some((*status, *raw_output)),
            _ => None,
        })
        .unwrap();
    assert_eq!(last.0, ToolStatus::Failed);
    assert!(last.1.unwrap().cancelled);
    let HistoryTurn::Interrupted(turn) = &history(host.stored(&id))[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.tool_call.as_ref().unwrap().id.to_lossy(), "c1");
    let cancelled = turn
        .cancelled_command
        .as_ref()
        .expect("marked as cancelled mid-run");
    assert_eq!(cancelled.output_replay, None);

    // Reopened, the history replays the call and its end.
    block_on(agent.close_session(&id));
    let opened = block_on(agent.open_session(&id)).unwrap();
    let ends: Vec<ToolStatus> = fx_wasm::agent::replay::history_updates(&opened.history)
        .iter()
        .filter_map(|u| match u {
            Update::ToolCallUpdate {
                tool_call_id,
                status,
                ..
            } if tool_call_id == "c1" => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [ToolStatus::Failed]);
}

#[test]
fn a_call_cancelled_while_asking_ends_without_a_cancelled_command() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("p1", "rm -rf /tmp/x")]));
    let agent = agent(&host, Some("prompt"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "clean".into()), async {
            host.until_waiting().await;
            agent.cancel(1);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    assert!(host.state.borrow().exec_calls.is_empty());
    let statuses: Vec<ToolStatus> = host
        .state
        .borrow()
        .updates
        .iter()
        .filter_map(|(_, u)| match u {
            Update::ToolCall { status, .. } | Update::ToolCallUpdate { status, .. } => {
                Some(*status)
            }
            _ => None,
        })
        .collect();
    assert_eq!(statuses, [ToolStatus::Pending, ToolStatus::Failed]);
    let HistoryTurn::Interrupted(turn) = &history(host.stored(&id))[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.tool_call.as_ref().unwrap().id.to_lossy(), "p1");
    assert_eq!(turn.cancelled_command, None, "the command never ran");
}

#[test]
fn a_checkpoint_commit_that_hangs_does_not_hold_a_cancel() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "echo ok")]));
    let agent = agent(&host, Some("allow-sandboxed"));
    let id = block_on(agent.create_session()).unwrap().session_id;
    // The checkpoint after the first step hangs; the cancel ends the wait and the final save
    // stores the turn with its completed step.
    host.state.borrow_mut().hang_commits = 1;
    let (result, ()) = block_on(async {
        futures::join!(agent.prompt(&id, 1, "run".into()), async {
            host.until_waiting().await;
            agent.cancel(1);
        })
    });
    assert_eq!(result.unwrap().stop_reason, StopReason::Cancelled);
    let HistoryTurn::Interrupted(turn) = &history(host.stored(&id))[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.execution.tool_steps.len(), 1);
}

#[test]
fn content_types_that_are_event_streams() {
    assert!(is_event_stream(None));
    assert!(is_event_stream(Some("text/event-stream")));
    assert!(is_event_stream(Some("Text/Event-Stream; charset=utf-8")));
    assert!(is_event_stream(Some(" text/event-stream ;x=1")));
    for other in [
        "text/html",
        "application/json",
        "",
        "text/event-streams",
        "text/plain",
    ] {
        assert!(!is_event_stream(Some(other)), "{other}");
    }
}

#[test]
fn a_200_that_is_not_an_event_stream_fails_at_once() {
    let host = FakeHost::new();
    host.reply(Reply::Typed {
        content_type: "text/html; charset=utf-8".into(),
        chunks: vec![b"<!doctype html>".to_vec()],
    });
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let error = block_on(agent.prompt(&id, 1, "hi".into())).unwrap_err();
    assert_eq!(error.code(), "FX_GATEWAY_PROTOCOL_ERROR");
    let message = error.to_string();
    assert!(message.contains("text/html"), "{message}");
    assert!(message.contains("not an event stream"), "{message}");
    assert_eq!(host.chat_requests().len(), 1, "not retried");
    assert!(host.state.borrow().sleeps.is_empty());

    host.reply(Reply::Typed {
        content_type: "text/event-stream; charset=utf-8".into(),
        chunks: vec![sse(&[
            r#"{"type":"text-delta","delta":"fine"}"#,
            r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"}}"#,
        ])],
    });
    let end = block_on(agent.prompt(&id, 2, "again".into())).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
}

#[test]
fn an_error_event_after_text_then_finish_fails_the_turn() {
    let host = FakeHost::new();
    host.reply(Reply::Body {
        status: 200,
        chunks: vec![sse(&[
            r#"{"type":"text-delta","delta":"Half an ans"}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"upstream overloaded"}}"#,
            r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"}}"#,
        ])],
        retry_after: None,
    });
    let agent = agent(&host, None);
    let id = block_on(agent.create_session()).unwrap().session_id;
    let error = block_on(agent.prompt(&id, 1, "hi".into())).unwrap_err();
    assert_eq!(error.code(), "FX_GATEWAY_RESPONSE_ERROR");
    assert!(error.to_string().contains("upstream overloaded"));
    let HistoryTurn::Interrupted(turn) = &history(host.stored(&id))[0] else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Failed);
    assert_eq!(turn.assistant.as_ref().unwrap().to_lossy(), "Half an ans");
}
