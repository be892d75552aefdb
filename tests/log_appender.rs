//! The appender: new sessions, every kind of append, oversize fallbacks, and property tests
//! (append -> load round trip; a log cut anywhere is an error or a valid prefix).
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod log_common;

use fx_wasm::log::appender::TurnCommit;
use fx_wasm::log::bench::{sample_turn, FixedEnv};
use fx_wasm::log::checkpoint::{RecoveryAction, RecoveryCause, RecoveryCheckpoint, ToolState};
use fx_wasm::log::event::{PreferencesChange, ReplacementReason};
use fx_wasm::log::execution::Execution;
use fx_wasm::log::turn::{
    AssistantTurn, HistoryTurn, Image, InterruptedTurn, TerminalReason, UserTurn,
};
use fx_wasm::log::types::{DurableBytes, Preferences, Provider};
use fx_wasm::log::usage::UsageSnapshot;
use fx_wasm::log::{decode_frames, load, read_session, Event, NewSession, Reason, SessionLog};
use proptest::prelude::*;

fn prefs() -> Preferences {
    Preferences {
        model: "openai/gpt-5".into(),
        effort: "high".into(),
        fast_mode: false,
        provider: Provider::Gateway,
    }
}

fn new_session(env: &mut FixedEnv) -> SessionLog {
    SessionLog::create(
        env,
        NewSession {
            workspace_root: "/workspace".into(),
            preferences: prefs(),
            conversation_language: None,
            id: None,
        },
    )
    .unwrap()
}

fn text_turn(user: &str, answer: &str) -> HistoryTurn {
    HistoryTurn::Assistant(AssistantTurn {
        user: UserTurn {
            text: user.into(),
            images: Vec::new(),
            work_id: None,
        },
        assistant: answer.into(),
        execution: Execution::default(),
    })
}

fn commit(turn: HistoryTurn, tokens: u64) -> TurnCommit {
    TurnCommit {
        turn,
        conversation_language: None,
        total_input_tokens: tokens,
        total_output_tokens: tokens / 10,
        work_id: None,
    }
}

#[test]
fn a_new_session_looks_like_fx_wrote_it() {
    let mut env = FixedEnv::new(7, 1_790_000_000_000);
    let session = new_session(&mut env);
    let frames = decode_frames(session.bytes()).unwrap();
    assert_eq!(frames.len(), 1);
    let Event::SessionStarted(started) = &frames[0].event else {
        panic!("first frame")
    };
    assert_eq!(frames[0].seq, 1);
    assert_eq!(frames[0].timestamp_ms, started.created_at_ms);
    assert_eq!(started.usage, Some(UsageSnapshot::default()));
    let parts: Vec<&str> = started.id.split('-').collect();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0], started.created_at_ms.to_string());
    assert_eq!(parts[1].len(), 19);
    assert_eq!(parts[2].len(), 16);
    assert!(parts[2]
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    let text = String::from_utf8(session.bytes().to_vec()).unwrap();
    assert!(
        text.ends_with("\"models\":[],\"pending\":[]}}}\n"),
        "{text}"
    );
    assert!(text.contains("\"conversation_language\":\"und\""));
}

#[test]
fn every_append_kind_round_trips() {
    let mut env = FixedEnv::new(11, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    s.commit_turn(&mut env, commit(text_turn("hello there", "hi"), 100))
        .unwrap();
    s.change_preferences(
        &mut env,
        PreferencesChange {
            fast_mode: Some(true),
            model: Some("x/y".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let checkpoint = RecoveryCheckpoint {
        turn_id: 2,
        user: UserTurn {
            text: "next".into(),
            images: Vec::new(),
            work_id: None,
        },
        assistant_source: "par".into(),
        execution: Execution::default(),
        cause: RecoveryCause::RateLimited,
        action: RecoveryAction::Paused,
        tool_state: ToolState::None,
        route_model: "x/y".into(),
        route_provider: Provider::Gateway,
        requested_fast_mode: true,
        fast_mode: true,
        max_provider_attempts: 4,
        consumed_provider_attempts: 4,
        outstanding_reservation: false,
    };
    s.set_recovery_checkpoint(&mut env, checkpoint.clone())
        .unwrap();
    assert_eq!(s.view().recovery.unwrap().cause, "rate_limited");
    s.clear_recovery_checkpoint(&mut env).unwrap();
    s.checkpoint_usage(
        &mut env,
        UsageSnapshot {
            wall_duration_ms: 5,
            ..UsageSnapshot::default()
        },
    )
    .unwrap();
    s.rebind_workspace(&mut env, "/elsewhere".into()).unwrap();
    s.commit_turn(
        &mut env,
        commit(
            HistoryTurn::Interrupted(InterruptedTurn {
                user: UserTurn {
                    text: "stop".into(),
                    images: Vec::new(),
                    work_id: None,
                },
                assistant: None,
                tool_call: None,
                completed_tool_names: Vec::new(),
                terminal_reason: TerminalReason::Failed,
                execution: Execution::default(),
                cancelled_command: None,
            }),
            200,
        ),
    )
    .unwrap();
    let mut compacted = s.state().clone();
    compacted.context_history_start = 1;
    s.replace_state(&mut env, compacted, ReplacementReason::Compaction)
        .unwrap();
    s.commit_turn(&mut env, commit(sample_turn(3), 300))
        .unwrap();

    let loaded = load(s.bytes()).unwrap();
    assert_eq!(&loaded.state, s.state());
    assert_eq!(loaded.last_seq, s.last_seq());
    let v = read_session(s.bytes()).unwrap();
    assert_eq!(v.turns.len(), 3);
    assert_eq!(v.context_history_start, 1);
    assert_eq!(v.workspace_root, "/elsewhere");
    assert_eq!(v.preferences.model, "x/y");
    assert!(v.preferences.fast_mode);
    assert_eq!(v.usage.wall_duration_ms, 5);
    assert_eq!(v.total_input_tokens, 300);
    assert_eq!(v.title, "hello there");
    // Canonical: decode -> encode gives the same bytes.
    let frames = decode_frames(s.bytes()).unwrap();
    let encoded: Vec<u8> = frames.iter().flat_map(|f| f.encode()).collect();
    assert_eq!(encoded, s.bytes());
    // Replacement frames use the seed scheme and share the state's timestamp.
    let ids: Vec<u128> = frames
        .iter()
        .filter(|f| f.event.kind().starts_with("state_replacement"))
        .map(|f| u128::from_be_bytes(f.event_id))
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[1], ids[0] + 1);
    assert_eq!(ids[2], ids[0] + 2);
    // Reloading continues from the end.
    let mut again = SessionLog::load(s.bytes().to_vec()).unwrap();
    again
        .commit_turn(&mut env, commit(text_turn("more", "ok"), 400))
        .unwrap();
    assert_eq!(read_session(again.bytes()).unwrap().turns.len(), 4);
}

#[test]
fn invalid_appends_are_refused_and_leave_the_bytes_alone() {
    let mut env = FixedEnv::new(3, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    let before = s.bytes().to_vec();
    let err = s
        .change_preferences(&mut env, PreferencesChange::default())
        .unwrap_err();
    assert_eq!(err.seq, Some(2));
    let err = s
        .rebind_workspace(&mut env, "/workspace".into())
        .unwrap_err();
    assert_eq!(
        err.reason,
        Reason::InvalidRebound("the new workspace root equals the current one")
    );
    let bad_usage = UsageSnapshot {
        total_cost: 1.0,
        ..UsageSnapshot::default()
    };
    assert!(matches!(
        s.checkpoint_usage(&mut env, bad_usage).unwrap_err().reason,
        Reason::InvalidUsage { .. }
    ));
    let mut turn = commit(text_turn("a", "b"), 1);
    turn.conversation_language = Some(" bad".into());
    assert!(s.commit_turn(&mut env, turn).is_err());
    assert_eq!(s.bytes(), before.as_slice());
    read_session(s.bytes()).unwrap();
}

#[test]
fn oversize_turns_become_state_replacements() {
    let mut env = FixedEnv::new(5, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    let big = "x".repeat(8 * 1024 * 1024 + 1000);
    s.commit_turn(&mut env, commit(text_turn("big", &big), 10))
        .unwrap();
    let mut kinds = Vec::new();
    let loaded =
        fx_wasm::log::loader::load_with(s.bytes(), |f, _| kinds.push(f.event.kind())).unwrap();
    assert_eq!(
        kinds,
        [
            "session_started",
            "state_replacement_started",
            "state_replacement_chunk",
            "state_replacement_chunk",
            "state_replacement_chunk",
            "state_replacement_committed"
        ]
    );
    let v = fx_wasm::log::view::view(&loaded.state, loaded.title.as_deref());
    assert_eq!(v.turns.len(), 1);
    assert_eq!(v.total_input_tokens, 10);
    match &v.turns[0] {
        fx_wasm::log::view::TurnView::Assistant(a) => assert_eq!(a.assistant.len(), big.len()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn images_travel_as_blobs() {
    let mut env = FixedEnv::new(9, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    let png = b"\x89PNG\r\n\x1a\n fake image bytes \n with newlines".to_vec();
    let snapshot = s.stage_image(1, png.clone()).unwrap();
    assert_eq!(
        snapshot.path.len(),
        "images/image-1-0123456789abcdef.bin".len()
    );
    let turn = HistoryTurn::Assistant(AssistantTurn {
        user: UserTurn {
            text: "".into(),
            images: vec![Image {
                id: 1,
                path: "/shot.png".into(),
                media_type: "image/png".into(),
                snapshot: Some(snapshot.clone()),
            }],
            work_id: None,
        },
        assistant: "a red square".into(),
        execution: Execution::default(),
    });
    s.commit_turn(&mut env, commit(turn, 5)).unwrap();
    let loaded = load(s.bytes()).unwrap();
    assert_eq!(loaded.blobs.len(), 1);
    let v = read_session(s.bytes()).unwrap();
    assert_eq!(v.title, "Image session");
    let files = fx_wasm::log::export_native(s.bytes()).unwrap();
    let image = files.iter().find(|(n, _)| *n == snapshot.path).unwrap();
    assert_eq!(image.1, png);
    let events = &files.iter().find(|(n, _)| n == "events.jsonl").unwrap().1;
    assert!(!events.windows(8).any(|w| w == b"#fx-blob"));
    let back = fx_wasm::log::import_native(&files).unwrap();
    assert_eq!(fx_wasm::log::export_native(&back).unwrap(), files);

    // A blob nobody references, a tampered blob, and a too-large one are errors.
    let mut orphan = s.bytes().to_vec();
    let other =
        fx_wasm::log::blob::encode_blob(&snapshot.path.replace("image-1-", "image-2-"), &png);
    orphan.extend_from_slice(&other);
    assert!(matches!(
        read_session(&orphan).unwrap_err().reason,
        Reason::InvalidBlob(_)
    ));
    let mut tampered = s.bytes().to_vec();
    let at = tampered.windows(4).position(|w| w == b"fake").unwrap();
    tampered[at] = b'F';
    assert!(matches!(
        read_session(&tampered).unwrap_err().reason,
        Reason::InvalidBlob(_)
    ));
    let mut huge = s.bytes().to_vec();
    huge.extend_from_slice(
        format!("#fx-blob {} 16777217 {}\n", snapshot.path, "0".repeat(64)).as_bytes(),
    );
    assert_eq!(
        read_session(&huge).unwrap_err().reason,
        Reason::BlobTooLarge {
            what: "image blob",
            bytes: 16_777_217
        }
    );
}

#[derive(Debug, Clone)]
enum Op {
    Turn(String, u64),
    Prefs(bool),
    Usage(u64),
    Checkpoint,
    Clear,
    Compact,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        ("[ -~\\n\u{e9}\u{1F680}\u{1}]{0,40}", 0u64..1_000_000).prop_map(|(t, n)| Op::Turn(t, n)),
        any::<bool>().prop_map(Op::Prefs),
        (0u64..100_000).prop_map(Op::Usage),
        Just(Op::Checkpoint),
        Just(Op::Clear),
        Just(Op::Compact),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn append_then_load_gives_the_same_state(ops in prop::collection::vec(op(), 0..24), seed in any::<u64>()) {
        let mut env = FixedEnv::new(seed, 1_790_000_000_000);
        let mut s = new_session(&mut env);
        for op in ops {
            match op {
                Op::Turn(text, n) => s.commit_turn(&mut env, commit(text_turn(&text, &text), n)).unwrap(),
                Op::Prefs(fast) => s.change_preferences(&mut env, PreferencesChange { fast_mode: Some(fast), ..Default::default() }).unwrap(),
                Op::Usage(ms) => s.checkpoint_usage(&mut env, UsageSnapshot { api_duration_ms: ms, ..UsageSnapshot::default() }).unwrap(),
                Op::Checkpoint => s.set_recovery_checkpoint(&mut env, RecoveryCheckpoint {
                    turn_id: 1,
                    user: UserTurn { text: DurableBytes::from(vec![0xff, 0xfe]), images: Vec::new(), work_id: None },
                    assistant_source: "".into(),
                    execution: Execution::default(),
                    cause: RecoveryCause::NetworkInterrupted,
                    action: RecoveryAction::RetryingRequest,
                    tool_state: ToolState::None,
                    route_model: "m".into(),
                    route_provider: Provider::Codex,
                    requested_fast_mode: false,
                    fast_mode: false,
                    max_provider_attempts: 3,
                    consumed_provider_attempts: 1,
                    outstanding_reservation: true,
                }).unwrap(),
                Op::Clear => s.clear_recovery_checkpoint(&mut env).unwrap(),
                Op::Compact => {
                    let mut next = s.state().clone();
                    next.context_history_start = next.history.len().saturating_sub(1) as u64;
                    s.replace_state(&mut env, next, ReplacementReason::Compaction).unwrap();
                }
            }
        }
        let loaded = load(s.bytes()).unwrap();
        prop_assert_eq!(&loaded.state, s.state());
        let frames = decode_frames(s.bytes()).unwrap();
        let encoded: Vec<u8> = frames.iter().flat_map(|f| f.encode()).collect();
        prop_assert_eq!(encoded, s.bytes().to_vec());
    }

    #[test]
    fn a_cut_log_is_an_error_or_a_valid_prefix(cut in 0usize..40_000, scenario in 0usize..11) {
        let bytes = log_common::events(log_common::SCENARIOS[scenario]);
        let cut = cut.min(bytes.len());
        let head = &bytes[..cut];
        if let Ok(view) = read_session(head) {
            prop_assert!(cut > 0 && bytes[cut - 1] == b'\n');
            prop_assert_eq!(view.id, read_session(&bytes).unwrap().id);
        }
    }

    #[test]
    fn flipped_bytes_never_panic(at in 0usize..12_000, byte in any::<u8>(), scenario in 0usize..11) {
        let mut bytes = log_common::events(log_common::SCENARIOS[scenario]);
        let at = at % bytes.len();
        bytes[at] = byte;
        let _ = read_session(&bytes);
    }
}

#[test]
fn every_cut_of_a_small_log() {
    let bytes = log_common::events("simple");
    let boundaries: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    for cut in 0..=bytes.len() {
        match read_session(&bytes[..cut]) {
            Ok(_) => assert!(boundaries.contains(&cut), "cut {cut}"),
            Err(e) => assert!(
                cut == 0 || !boundaries.contains(&cut) || e.seq.is_some(),
                "cut {cut}: {e}"
            ),
        }
    }
}

#[test]
fn a_replacement_that_changes_identity_is_rolled_back() {
    let mut env = FixedEnv::new(13, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    s.commit_turn(&mut env, commit(text_turn("keep me", "ok"), 1))
        .unwrap();
    let before = s.bytes().to_vec();
    let mut moved = s.state().clone();
    moved.workspace_root = "/somewhere/else".into();
    let err = s
        .replace_state(&mut env, moved, ReplacementReason::Compaction)
        .unwrap_err();
    assert_eq!(
        err.reason,
        Reason::ImmutableIdentity("a state replacement changed the session identity")
    );
    assert_eq!(s.bytes(), before.as_slice());
    s.commit_turn(&mut env, commit(text_turn("still works", "ok"), 2))
        .unwrap();
    assert_eq!(read_session(s.bytes()).unwrap().turns.len(), 2);
}

#[test]
fn log_compaction_starts_a_new_generation_with_the_same_state() {
    let mut env = FixedEnv::new(21, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    let snapshot = s.stage_image(1, b"png bytes".to_vec()).unwrap();
    let turn = HistoryTurn::Assistant(AssistantTurn {
        user: UserTurn {
            text: "look".into(),
            images: vec![Image {
                id: 1,
                path: "/a.png".into(),
                media_type: "image/png".into(),
                snapshot: Some(snapshot),
            }],
            work_id: None,
        },
        assistant: "seen".into(),
        execution: Execution::default(),
    });
    s.commit_turn(&mut env, commit(turn, 5)).unwrap();
    for i in 0..5 {
        s.commit_turn(&mut env, commit(sample_turn(i), 10 + i as u64))
            .unwrap();
    }
    let before = s.state().clone();
    let old_generation = decode_frames(s.bytes()).unwrap()[0].generation;
    s.compact_log(&mut env).unwrap();
    let loaded = load(s.bytes()).unwrap();
    assert_eq!(loaded.state, before);
    assert_ne!(loaded.generation, old_generation);
    assert_eq!(loaded.blobs.len(), 1);
    let kinds: Vec<&str> = decode_frames(s.bytes())
        .unwrap()
        .iter()
        .map(|f| f.event.kind())
        .collect();
    assert_eq!(
        kinds,
        [
            "session_started",
            "state_replacement_started",
            "state_replacement_chunk",
            "state_replacement_committed"
        ]
    );
    s.commit_turn(&mut env, commit(text_turn("after", "ok"), 99))
        .unwrap();
    assert_eq!(read_session(s.bytes()).unwrap().turns.len(), 7);
    let files = fx_wasm::log::export_native(s.bytes()).unwrap();
    assert_eq!(
        fx_wasm::log::import_native(&files).unwrap().len(),
        s.bytes().len()
    );
}
