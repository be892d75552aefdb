//! The approval panel (workspace permission `prompt`, mode `ask`) on a `vt100` screen: `1`, `2`
//! and `3` decide at once; Tab on "Yes" or "No" opens a note for the model; Esc and Ctrl+C deny;
//! the activity clock stops while the panel waits.
#![cfg(feature = "term")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, tool_reply, user_texts, FakeHost};
use term_env::{Options, Term};

fn approval_term(host: &FakeHost) -> Term {
    host.reply(tool_reply("", &[("c1", "rm -rf build")]))
        .reply(text_reply(&["ok"]));
    let mut t = Term::start(
        host,
        Options {
            workspace: Some("prompt"),
            rows: 30,
            ..Options::default()
        },
    );
    t.type_str("clean up\r");
    let screen = t.screen();
    assert!(screen.contains("Permission needed"), "{screen}");
    assert!(screen.contains("$ rm -rf build"), "{screen}");
    assert!(screen.contains("Waiting for approval"), "{screen}");
    t
}

#[test]
fn the_hint_row_says_what_the_keys_do() {
    let host = FakeHost::new();
    let t = approval_term(&host);
    let screen = t.screen();
    assert!(screen.contains("❯ 1. Yes\n"), "{screen}");
    assert!(
        screen.contains("  2. Yes, and don't ask again for this exact command"),
        "{screen}"
    );
    assert!(screen.contains("  3. No\n"), "{screen}");
    let hint = screen
        .lines()
        .find(|l| l.contains("Enter Confirm"))
        .unwrap_or_default();
    assert_eq!(
        hint.trim_end(),
        "1–3 Choose now    ↑↓ Options    Tab Amend    Enter Confirm    Esc Deny"
    );
}

#[test]
fn one_allows_once() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    // The UI keeps running while the approval waits: time passes.
    t.advance(1500);
    // No cursor blinks on the panel while it waits for a key.
    assert!(t.parser.screen().hide_cursor());
    t.type_str("1");
    // The composer's cursor is back.
    assert!(!t.parser.screen().hide_cursor());
    assert_eq!(host.state.borrow().exec_calls, vec!["rm -rf build"]);
    let screen = t.screen();
    assert!(!screen.contains("Permission needed"), "{screen}");
    assert!(screen.contains("Ran rm -rf build"), "{screen}");
}

#[test]
fn three_denies_at_once() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    t.type_str("3");
    let screen = t.screen();
    assert!(!screen.contains("Permission needed"), "{screen}");
    assert!(screen.contains("Denied rm -rf build"), "{screen}");
    assert!(screen.contains("1 denied"), "{screen}");
    assert!(screen.contains("ok"), "the turn went on: {screen}");
    assert!(host.state.borrow().exec_calls.is_empty());
}

#[test]
fn two_allows_the_exact_command_for_the_session() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    t.type_str("2");
    assert_eq!(host.state.borrow().exec_calls.len(), 1);
    host.reply(tool_reply("", &[("c2", "rm -rf build")]))
        .reply(text_reply(&["again"]));
    t.type_str("once more\r");
    let screen = t.screen();
    assert!(
        !screen.contains("Permission needed"),
        "not asked again: {screen}"
    );
    assert!(screen.contains("again"), "{screen}");
    assert_eq!(host.state.borrow().exec_calls.len(), 2);
}

#[test]
fn tab_on_yes_adds_a_note_for_the_model() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    t.type_str("\t");
    let screen = t.screen();
    assert!(
        screen.contains("❯ 1. Yes, and tell fx what to do next:"),
        "{screen}"
    );
    // Digits are text now, not choices.
    t.type_str("then run test 3");
    assert!(host.state.borrow().exec_calls.is_empty());
    assert!(t.screen().contains("what to do next: then run test 3"));
    assert!(
        !t.parser.screen().hide_cursor(),
        "the cursor sits in the note"
    );
    t.type_str("\r");
    assert_eq!(host.state.borrow().exec_calls, vec!["rm -rf build"]);
    let requests = host.chat_requests();
    let last = user_texts(requests.last().unwrap());
    assert_eq!(last.last().map(String::as_str), Some("then run test 3"));
}

#[test]
fn tab_on_no_denies_with_a_note_and_esc_leaves_the_note() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    // Down twice to "No", Tab opens the note; Esc goes back to the choices.
    t.type_str("\u{1b}[B\u{1b}[B\t");
    assert!(t
        .screen()
        .contains("❯ 3. No, and tell fx what to do differently:"));
    t.type_str("oops");
    t.type_str("\u{1b}");
    t.advance(40);
    let screen = t.screen();
    assert!(screen.contains("❯ 3. No\n"), "{screen}");
    assert!(!screen.contains("oops"), "{screen}");
    assert!(
        screen.contains("Permission needed"),
        "still asking: {screen}"
    );
    t.type_str("\tuse the cache instead\r");
    assert!(host.state.borrow().exec_calls.is_empty());
    let screen = t.screen();
    assert!(screen.contains("Denied rm -rf build"), "{screen}");
    let requests = host.chat_requests();
    let last = serde_json::to_string(requests.last().unwrap()).unwrap();
    assert!(last.contains("use the cache instead"), "{last}");
}

#[test]
fn esc_and_ctrl_c_deny_and_the_clock_freezes() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    let frozen = t.screen();
    t.advance(3000);
    // The activity clock does not run while the panel waits.
    let activity = |s: &str| {
        s.lines()
            .find(|l| l.contains("Waiting for approval"))
            .map(str::to_owned)
    };
    assert_eq!(activity(&frozen), activity(&t.screen()));
    t.type_str("\u{1b}");
    t.advance(40);
    assert!(t.screen().contains("Denied rm -rf build"), "{}", t.screen());
    assert!(host.state.borrow().exec_calls.is_empty());
    host.reply(tool_reply("", &[("c2", "rm -rf dist")]))
        .reply(text_reply(&["fine"]));
    t.type_str("again\r");
    assert!(t.screen().contains("$ rm -rf dist"));
    t.type_str("\u{3}");
    assert!(t.screen().contains("Denied rm -rf dist"), "{}", t.screen());
    assert!(t.screen().contains("fine"), "{}", t.screen());
    assert!(host.state.borrow().exec_calls.is_empty());
}

#[test]
fn a_paste_goes_into_the_note() {
    let host = FakeHost::new();
    let mut t = approval_term(&host);
    t.type_str("\u{1b}[B\u{1b}[B\u{1b}[200~try\nagain\u{1b}[201~");
    assert!(t
        .screen()
        .contains("❯ 3. No, and tell fx what to do differently: try again"));
    t.type_str("\r");
    assert!(host.state.borrow().exec_calls.is_empty());
}
