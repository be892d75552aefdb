//! Export → import gives back the same bytes, for every session we write: whatever mix of
//! turns, renames, images, turn notes, preference changes, state replacements and log
//! compactions the appender wrote, `import_native(export_native(bytes)) == bytes`. Before the
//! canonical layout a rename followed by a turn failed this (the display record moved to the
//! end on import). Bytes in the older layout still load, and are laid out anew.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

use fx_wasm::log::appender::TurnCommit;
use fx_wasm::log::bench::FixedEnv;
use fx_wasm::log::event::{PreferencesChange, ReplacementReason};
use fx_wasm::log::execution::Execution;
use fx_wasm::log::turn::{
    AssistantTurn, HistoryTurn, Image, InterruptedTurn, TerminalReason, UserTurn,
};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::log::{export_native, import_native, load, NewSession, SessionLog};
use proptest::prelude::*;

fn new_session(env: &mut FixedEnv) -> SessionLog {
    SessionLog::create(
        env,
        NewSession {
            workspace_root: "/workspace".into(),
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
    .unwrap()
}

fn commit(turn: HistoryTurn) -> TurnCommit {
    TurnCommit {
        turn,
        conversation_language: None,
        total_input_tokens: 10,
        total_output_tokens: 2,
        work_id: None,
    }
}

fn user(text: &str, images: Vec<Image>) -> UserTurn {
    UserTurn {
        text: text.into(),
        images,
        work_id: None,
    }
}

fn same_after_export_import(s: &SessionLog) {
    let files = export_native(s.bytes()).unwrap();
    let back = import_native(&files).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&back),
        String::from_utf8_lossy(s.bytes())
    );
}

#[derive(Debug, Clone)]
enum Op {
    Turn(String),
    Failed(String),
    Rename(String),
    Image(u64),
    Prefs,
    Replace,
    CompactLog,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        "[a-z ]{1,12}".prop_map(Op::Turn),
        "[a-z ]{1,12}".prop_map(Op::Failed),
        "[A-Za-z]{1,10}".prop_map(Op::Rename),
        (1u64..6).prop_map(Op::Image),
        Just(Op::Prefs),
        Just(Op::Replace),
        Just(Op::CompactLog),
    ]
}

fn apply(s: &mut SessionLog, env: &mut FixedEnv, op: Op) {
    match op {
        Op::Turn(text) => s
            .commit_turn(
                env,
                commit(HistoryTurn::Assistant(AssistantTurn {
                    user: user(&text, Vec::new()),
                    assistant: "ok".into(),
                    execution: Execution::default(),
                })),
            )
            .unwrap(),
        Op::Failed(text) => {
            s.commit_turn(
                env,
                commit(HistoryTurn::Interrupted(InterruptedTurn {
                    user: user(&text, Vec::new()),
                    assistant: None,
                    tool_call: None,
                    completed_tool_names: Vec::new(),
                    terminal_reason: TerminalReason::Failed,
                    execution: Execution::default(),
                    cancelled_command: None,
                })),
            )
            .unwrap();
            s.note_last_turn(&format!("HTTP 500: {text} (FX_GATEWAY_HTTP_ERROR)"));
        }
        Op::Rename(title) => {
            s.rename(&title).unwrap();
        }
        Op::Image(id) => {
            let id = id + s.state().history.len() as u64 * 10;
            let snapshot = s.stage_image(id, format!("png {id}").into_bytes()).unwrap();
            let image = Image {
                id,
                path: format!("/shot-{id}.png").into(),
                media_type: "image/png".into(),
                snapshot: Some(snapshot),
            };
            s.commit_turn(
                env,
                commit(HistoryTurn::Assistant(AssistantTurn {
                    user: user("look", vec![image]),
                    assistant: "a picture".into(),
                    execution: Execution::default(),
                })),
            )
            .unwrap();
        }
        Op::Prefs => s
            .change_preferences(
                env,
                PreferencesChange {
                    fast_mode: Some(!s.state().preferences.fast_mode),
                    ..PreferencesChange::default()
                },
            )
            .unwrap(),
        Op::Replace => {
            let next = s.state().clone();
            s.replace_state(env, next, ReplacementReason::Compaction)
                .unwrap();
        }
        Op::CompactLog => s.compact_log(env).unwrap(),
    }
}

#[test]
fn a_rename_then_a_turn_comes_back_byte_for_byte() {
    let mut env = FixedEnv::new(3, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    apply(&mut s, &mut env, Op::Turn("first".into()));
    apply(&mut s, &mut env, Op::Rename("Named".into()));
    apply(&mut s, &mut env, Op::Turn("second".into()));
    same_after_export_import(&s);
    // The rename record is the last thing in the bytes.
    let text = String::from_utf8_lossy(s.bytes()).into_owned();
    let display = text.rfind("#fx-blob display.json").unwrap();
    assert!(!text[display..].contains("\"kind\":\"history_turn_committed\""));
}

#[test]
fn notes_travel_with_export_and_import() {
    let mut env = FixedEnv::new(4, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    apply(&mut s, &mut env, Op::Failed("boom".into()));
    let files = export_native(s.bytes()).unwrap();
    let notes = &files
        .iter()
        .find(|(n, _)| n == "turn-notes.json")
        .unwrap()
        .1;
    assert!(String::from_utf8_lossy(notes).contains("HTTP 500: boom"));
    let back = import_native(&files).unwrap();
    let again = SessionLog::load(back).unwrap();
    let turn_user = match &again.state().history[0] {
        HistoryTurn::Interrupted(t) => t.user.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        again.turn_note(0, &turn_user),
        Some("HTTP 500: boom (FX_GATEWAY_HTTP_ERROR)")
    );
}

#[test]
fn the_older_layout_loads_and_is_laid_out_anew() {
    let mut env = FixedEnv::new(5, 1_790_000_000_000);
    let mut s = new_session(&mut env);
    apply(&mut s, &mut env, Op::Turn("first".into()));
    apply(&mut s, &mut env, Op::Rename("Old".into()));
    apply(&mut s, &mut env, Op::Turn("second".into()));
    // Written by an older version: the display record where the rename happened, the second
    // turn's frame after it.
    let bytes = s.bytes().to_vec();
    let record = bytes
        .windows(21)
        .position(|w| w == b"#fx-blob display.json")
        .unwrap();
    let events = &bytes[..record];
    let last_frame = events[..events.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .unwrap()
        + 1;
    let mut legacy = events[..last_frame].to_vec();
    legacy.extend_from_slice(&bytes[record..]);
    legacy.extend_from_slice(&events[last_frame..]);
    assert_ne!(legacy, s.bytes());
    let loaded = SessionLog::load(legacy.clone()).unwrap();
    assert_eq!(load(&legacy).unwrap().state, *s.state());
    assert_eq!(loaded.bytes(), s.bytes(), "laid out canonically");
    assert!(
        !loaded.is_at(&loaded.loaded_mark(&legacy)),
        "counts as changed"
    );
    assert!(loaded.committed_equals(&loaded.loaded_mark(&legacy), &legacy));
    let (kept, original) = SessionLog::load_keeping(legacy.clone()).unwrap();
    assert_eq!(kept.bytes(), s.bytes());
    assert_eq!(original.as_deref(), Some(legacy.as_slice()));
    let (_, original) = SessionLog::load_keeping(s.bytes().to_vec()).unwrap();
    assert_eq!(original, None, "canonical bytes are kept as they are");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// What `appended_since` gives is exactly what extends the committed bytes to the current
    /// ones (the bytes a store's `append` then holds); `None` only when the change is not a
    /// pure extension (new frames before a rename or notes record, a compaction).
    #[test]
    fn appended_bytes_extend_the_committed_ones_exactly(ops in prop::collection::vec(op(), 0..14), seed in any::<u64>()) {
        let mut env = FixedEnv::new(seed, 1_790_000_000_000);
        let mut s = new_session(&mut env);
        let mut mark = s.mark();
        let mut committed = s.bytes().to_vec();
        for op in ops {
            apply(&mut s, &mut env, op);
            if let Some(tail) = s.appended_since(&mark) {
                let mut stored = committed.clone();
                stored.extend_from_slice(tail);
                prop_assert_eq!(stored.as_slice(), s.bytes());
            } else {
                // Not a pure extension: the store gets the whole log, so only make sure one
                // was not missed where nothing but frames came after the committed bytes.
                prop_assert!(!s.bytes().starts_with(&committed) || s.bytes()[committed.len()..].starts_with(b"#fx-blob"));
            }
            // Commit after every other change, whichever way the store takes it.
            if s.bytes().len() % 2 == 0 {
                mark = s.mark();
                committed = s.bytes().to_vec();
            }
        }
    }

    #[test]
    fn export_then_import_gives_back_the_same_bytes(ops in prop::collection::vec(op(), 0..14), seed in any::<u64>()) {
        let mut env = FixedEnv::new(seed, 1_790_000_000_000);
        let mut s = new_session(&mut env);
        same_after_export_import(&s);
        for op in ops {
            apply(&mut s, &mut env, op);
            let files = export_native(s.bytes()).unwrap();
            prop_assert_eq!(import_native(&files).unwrap(), s.bytes().to_vec());
            // And the bytes reload as they are.
            let again = SessionLog::load(s.bytes().to_vec()).unwrap();
            prop_assert_eq!(again.bytes(), s.bytes());
            prop_assert!(again.is_at(&again.loaded_mark(s.bytes())));
        }
    }
}
