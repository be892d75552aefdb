//! History projection limits: the turn-count fold and the token budget. Whole turns are kept
//! or left out (a tool call never loses its result), the newest turn always stays, and what
//! was left out is named in a system message.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

use fx_wasm::agent::context::{history_messages, ContextPolicy};
use fx_wasm::gateway::prompt::Message;
use fx_wasm::log::bench::{sample_turn, FixedEnv};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::log::{NewSession, SessionLog, SessionState};

fn state(turns: usize) -> SessionState {
    let mut env = FixedEnv::new(9, 1_790_000_000_000);
    let mut s = SessionLog::create(
        &mut env,
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
    .unwrap();
    for i in 0..turns {
        s.commit_turn(
            &mut env,
            fx_wasm::log::appender::TurnCommit {
                turn: sample_turn(i),
                conversation_language: None,
                total_input_tokens: 1,
                total_output_tokens: 1,
                work_id: None,
            },
        )
        .unwrap();
    }
    s.state().clone()
}

fn systems(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

/// Turns in a projection: each sample turn sends two user messages (the prompt and the
/// file-evidence note).
fn users(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| matches!(m, Message::User { .. }))
        .count()
        / 2
}

#[test]
fn everything_fits_a_large_budget() {
    let s = state(6);
    let all = history_messages(&s, &ContextPolicy::default());
    assert!(systems(&all).is_empty());
    assert_eq!(users(&all), 6);
}

#[test]
fn a_small_budget_keeps_the_newest_whole_turns_and_names_the_rest() {
    let s = state(6);
    let full = history_messages(&s, &ContextPolicy::default());
    let per_turn = ContextPolicy::budget_for(None, None); // the default, for reference
    assert!(per_turn > 0);
    // A budget between one and two turns' worth keeps only the newest turn.
    let mut budget = 1;
    let one = loop {
        let m = history_messages(
            &s,
            &ContextPolicy {
                max_history_turns: 100,
                budget_tokens: budget,
            },
        );
        if users(&m) == 2 {
            break budget - 1;
        }
        budget += 1;
        assert!(budget < 100_000, "two turns never fit");
    };
    let kept = history_messages(
        &s,
        &ContextPolicy {
            max_history_turns: 100,
            budget_tokens: one,
        },
    );
    assert_eq!(users(&kept), 1);
    let notes = systems(&kept);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("5 older turn(s)"), "{}", notes[0]);
    // The kept messages are exactly the tail of the full projection.
    assert!(full.ends_with(&kept[1..]));
    // Even a budget of 1 keeps the newest turn.
    let tiny = history_messages(
        &s,
        &ContextPolicy {
            max_history_turns: 100,
            budget_tokens: 1,
        },
    );
    assert_eq!(users(&tiny), 1);
}

#[test]
fn the_turn_window_folds_older_turns_into_a_summary() {
    let s = state(12);
    let m = history_messages(
        &s,
        &ContextPolicy {
            max_history_turns: 8,
            budget_tokens: 1_000_000,
        },
    );
    // fx keeps 4 turns verbatim once the window is exceeded, and a summary stands for the rest.
    assert_eq!(users(&m), 4);
    assert_eq!(systems(&m).len(), 1);
}

#[test]
fn budgets_follow_the_model_window() {
    assert_eq!(
        ContextPolicy::budget_for(Some(128_000), Some(8_000)),
        30_000
    );
    assert_eq!(ContextPolicy::budget_for(Some(100), Some(1_000)), 1);
    assert_eq!(ContextPolicy::budget_for(None, Some(1)), 24_000);
}
