//! The idle deadline of a model request (issue 25 item 6), on a fake clock: a response that
//! sends nothing for `model_idle_timeout_ms` — no headers, or no next chunk — is cut like a
//! dropped connection, retried by the step's rules (never once text reached the user), and
//! ends in `FX_GATEWAY_TIMEOUT`; a slow but steady stream is never cut.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod support;

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};

use fx_wasm::agent::model::{StepError, DEFAULT_MODEL_IDLE_TIMEOUT_MS, MAX_ATTEMPTS};
use fx_wasm::agent::turn::TurnError;
use fx_wasm::agent::{Agent, AgentConfig, AgentError};
use fx_wasm::caps::acp::StopReason;
use fx_wasm::caps::HostEvent;
use fx_wasm::log::turn::{HistoryTurn, TerminalReason};
use support::fake_host::{sse, text_reply, FakeHost, Reply};

const IDLE_MS: u32 = 1000;

fn agent(host: &FakeHost) -> Agent<FakeHost> {
    let env = HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())]);
    let mut config = AgentConfig::from_env(&env, None).unwrap();
    assert_eq!(config.model_idle_timeout_ms, DEFAULT_MODEL_IDLE_TIMEOUT_MS);
    config.model_idle_timeout_ms = IDLE_MS;
    Agent::new(host.clone(), config)
}

/// Runs `future` to its end on the fake clock: whenever it is parked on the host (a fetch or a
/// read that waits) with a timer set, the clock moves `step_ms` on. Nothing sleeps for real.
/// Returns the output and how often the clock moved.
fn on_fake_clock<T>(host: &FakeHost, step_ms: i64, future: impl Future<Output = T>) -> (T, u32) {
    let mut future = pin!(future);
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    let mut moves = 0;
    for _ in 0..100_000 {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return (value, moves);
        }
        let parked = host.waiting.get() && !host.state.borrow().sleepers.is_empty();
        if parked {
            host.state.borrow_mut().now_ms += step_ms;
            host.wake_sleepers();
            moves += 1;
        }
    }
    panic!("the future never ended (moved the clock {moves} times)");
}

fn retries(host: &FakeHost) -> Vec<String> {
    host.state
        .borrow()
        .events
        .iter()
        .filter_map(|e| match e {
            HostEvent::RequestRetry { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

fn last_turn(host: &FakeHost, id: &str) -> HistoryTurn {
    let log = fx_wasm::log::SessionLog::load(host.stored(id)).unwrap();
    log.state().history.last().cloned().unwrap()
}

/// The first bytes of an event, cut before its end: bytes arrived, no text reached the user.
fn half_an_event() -> Vec<u8> {
    br#"data: {"type":"text-delta","id":"t","del"#.to_vec()
}

/// Text that reached the user, then nothing more (no `finish`, no `[DONE]`).
fn text_then_nothing(text: &str) -> Vec<u8> {
    let event = serde_json::json!({"type": "text-delta", "id": "t", "delta": text}).to_string();
    let whole = sse(&[&event]);
    whole[..whole.len() - "data: [DONE]\n\n".len()].to_vec()
}

#[test]
fn a_request_that_never_answers_is_retried_then_fails_with_the_timeout_code() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    for _ in 0..MAX_ATTEMPTS {
        host.reply(Reply::Hang);
    }
    let (result, moves) =
        on_fake_clock(&host, i64::from(IDLE_MS), agent.prompt(&id, 1, "hi".into()));
    let error = result.unwrap_err();
    println!("after {moves} clock moves: {error} ({})", error.code());
    assert_eq!(error.code(), "FX_GATEWAY_TIMEOUT");
    assert!(matches!(
        error,
        AgentError::Turn(TurnError::Step(StepError::IdleTimeout { ms: IDLE_MS }))
    ));
    assert_eq!(
        error.to_string(),
        "the AI Gateway sent nothing for 1000 ms (modelIdleTimeoutMs)"
    );
    // Every attempt waited one idle period, and was retried by the step's usual schedule.
    assert_eq!(moves, MAX_ATTEMPTS);
    assert_eq!(host.chat_requests().len(), MAX_ATTEMPTS as usize);
    let reasons = retries(&host);
    assert_eq!(reasons.len(), MAX_ATTEMPTS as usize - 1);
    assert!(reasons
        .iter()
        .all(|r| r.contains("sent nothing for 1000 ms")));
    assert_eq!(host.state.borrow().sleeps, vec![250, 1000, 2000, 4000]);
    assert_eq!(
        host.state.borrow().deadlines,
        vec![IDLE_MS; MAX_ATTEMPTS as usize]
    );
    // Each cut fetch saw its cancel (the host aborts it), and the turn is recorded as failed.
    assert!(!host.waiting.get());
    let HistoryTurn::Interrupted(turn) = last_turn(&host, &id) else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Failed);
}

#[test]
fn a_request_that_answers_on_the_retry_completes_the_turn() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    host.reply(Reply::Hang)
        .reply(text_reply(&["after ", "a retry"]));
    let (result, moves) =
        on_fake_clock(&host, i64::from(IDLE_MS), agent.prompt(&id, 1, "hi".into()));
    assert_eq!(result.unwrap().stop_reason, StopReason::EndTurn);
    assert_eq!(moves, 1);
    assert_eq!(host.texts(1), "after a retry");
    assert_eq!(retries(&host).len(), 1);
}

#[test]
fn a_body_that_stalls_before_any_text_is_a_cut_stream_and_retried() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    host.reply(Reply::Stall {
        chunks: vec![half_an_event()],
    })
    .reply(text_reply(&["whole"]));
    let (result, moves) =
        on_fake_clock(&host, i64::from(IDLE_MS), agent.prompt(&id, 1, "hi".into()));
    assert_eq!(result.unwrap().stop_reason, StopReason::EndTurn);
    assert_eq!(moves, 1);
    assert_eq!(host.texts(1), "whole");
    assert_eq!(host.chat_requests().len(), 2);
    assert_eq!(retries(&host).len(), 1);

    // Stalling every time: the same failure as no answer at all.
    for _ in 0..MAX_ATTEMPTS {
        host.reply(Reply::Stall {
            chunks: vec![half_an_event()],
        });
    }
    let (result, moves) = on_fake_clock(
        &host,
        i64::from(IDLE_MS),
        agent.prompt(&id, 2, "again".into()),
    );
    let error = result.unwrap_err();
    println!("after {moves} clock moves: {error} ({})", error.code());
    assert_eq!(error.code(), "FX_GATEWAY_TIMEOUT");
    assert_eq!(moves, MAX_ATTEMPTS);
    assert_eq!(host.chat_requests().len(), 2 + MAX_ATTEMPTS as usize);
}

#[test]
fn a_body_that_stalls_after_text_reached_the_user_fails_without_a_retry() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    host.reply(Reply::Stall {
        chunks: vec![text_then_nothing("Half an ans")],
    });
    let (result, moves) =
        on_fake_clock(&host, i64::from(IDLE_MS), agent.prompt(&id, 1, "hi".into()));
    let error = result.unwrap_err();
    println!("after {moves} clock moves: {error} ({})", error.code());
    assert_eq!(error.code(), "FX_GATEWAY_TIMEOUT");
    assert_eq!(moves, 1);
    assert_eq!(
        host.chat_requests().len(),
        1,
        "text on screen is never repeated"
    );
    assert!(retries(&host).is_empty());
    assert_eq!(host.texts(1), "Half an ans");
    let HistoryTurn::Interrupted(turn) = last_turn(&host, &id) else {
        panic!("not interrupted")
    };
    assert_eq!(turn.terminal_reason, TerminalReason::Failed);
    assert_eq!(turn.assistant.as_ref().unwrap().to_lossy(), "Half an ans");
}

/// A text reply split into `n` pieces (the last may be shorter).
fn pieces(words: &[&str], n: usize) -> Vec<Vec<u8>> {
    let Reply::Body { chunks, .. } = text_reply(words) else {
        unreachable!()
    };
    let bytes = chunks.concat();
    bytes
        .chunks(bytes.len().div_ceil(n))
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn a_slow_steady_stream_is_never_cut() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    // 40 pieces 250 ms apart: about 10 s in all, many times the deadline.
    let words = ["one ", "two ", "three ", "four ", "five"];
    let chunks = pieces(&words, 40);
    let count = chunks.len();
    host.reply(Reply::Paced {
        chunks,
        every_ms: 250,
    });
    let (result, moves) = on_fake_clock(&host, 50, agent.prompt(&id, 1, "slowly".into()));
    assert_eq!(result.unwrap().stop_reason, StopReason::EndTurn);
    assert_eq!(host.texts(1), "one two three four five");
    assert!(
        moves * 50 > 8 * IDLE_MS,
        "the stream took {moves} clock moves of 50 ms"
    );
    // One host timer per quiet period (about one a second here), not one per chunk.
    let timers = host.state.borrow().deadlines.len();
    println!(
        "{count} chunks over {} ms: {timers} idle timers",
        moves * 50
    );
    assert!(timers <= 12, "{timers} timers");

    // Gaps just inside the deadline.
    host.reply(Reply::Paced {
        chunks: pieces(&words, 6),
        every_ms: 900,
    });
    let (result, _) = on_fake_clock(&host, 100, agent.prompt(&id, 2, "slower".into()));
    assert_eq!(result.unwrap().stop_reason, StopReason::EndTurn);
    assert_eq!(host.texts(2), "one two three four five");
    assert!(retries(&host).is_empty());
}

#[test]
fn a_cancel_during_the_wait_is_a_cancel_not_a_timeout() {
    let host = FakeHost::new();
    let agent = agent(&host);
    let id = futures::executor::block_on(agent.create_session())
        .unwrap()
        .session_id;
    host.reply(Reply::Hang);
    let (end, ()) = futures::executor::block_on(async {
        futures::join!(agent.prompt(&id, 1, "hi".into()), async {
            host.until_waiting().await;
            agent.cancel(1);
        })
    });
    assert_eq!(end.unwrap().stop_reason, StopReason::Cancelled);
    assert_eq!(host.chat_requests().len(), 1);
    assert!(retries(&host).is_empty());
}
