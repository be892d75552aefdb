//! The terminal when its host misbehaves: `/exit` stores what an earlier commit failed to
//! store, a hanging config write does not hold the prompt, and a command cancelled mid-run
//! stays in the resumed transcript.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![cfg(feature = "term")]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, tool_reply, FakeHost};
use fx_wasm::caps::{Failure, HostEvent, Store, StoreError};
use term_env::{Options, Term};

fn user_texts(host: &FakeHost, id: &str) -> Vec<String> {
    fx_wasm::log::SessionLog::load(host.stored(id))
        .unwrap()
        .state()
        .history
        .iter()
        .map(|t| t.user().unwrap().text.to_lossy().into_owned())
        .collect()
}

fn failed() -> StoreError {
    StoreError::failed(Store::Session, "commit", Failure::Threw, "disk full".into())
}

#[test]
fn exit_stores_what_a_failed_commit_left_unsaved() {
    let host = FakeHost::new();
    host.reply(text_reply(&["answered"]));
    let mut t = Term::start(&host, Options::default());
    let id = t.shell.app().borrow().session_id().to_owned();
    host.state.borrow_mut().fail_commit = Some(failed());
    t.type_str("keep me\r");
    assert!(t.all_text().contains("disk full"), "{}", t.all_text());
    host.state.borrow_mut().fail_commit = None;
    t.type_str("/exit\r");
    assert_eq!(t.env.exited.get(), Some(0));
    assert_eq!(user_texts(&host, &id), ["keep me"]);
}

#[test]
fn exit_reports_a_commit_that_still_fails() {
    let host = FakeHost::new();
    host.reply(text_reply(&["answered"]));
    let mut t = Term::start(&host, Options::default());
    host.state.borrow_mut().fail_commit = Some(failed());
    t.type_str("lost?\r");
    t.type_str("/exit\r");
    assert_eq!(t.env.exited.get(), Some(0));
    let reported = host.state.borrow().events.iter().any(|e| {
        matches!(
            e,
            HostEvent::SessionUnsaved {
                turns: 1,
                code: "FX_SESSION_STORE_FAILED",
                ..
            }
        )
    });
    assert!(reported);
}

#[test]
fn a_hanging_config_write_does_not_hold_the_prompt() {
    let host = FakeHost::new();
    host.reply(text_reply(&["answered in auto"]));
    let mut t = Term::start(&host, Options::default());
    host.state.borrow_mut().hang.insert("config_set");
    t.type_str("/permissions auto\r");
    assert!(t.screen().contains("auto · kimi-k3"), "{}", t.screen());
    t.type_str("go\r");
    let text = t.all_text();
    assert!(text.contains("answered in auto"), "{text}");
    assert!(!text.contains("FX_PROMPT_IN_PROGRESS"), "{text}");
}

#[test]
fn a_command_cancelled_mid_run_stays_in_the_resumed_transcript() {
    let host = FakeHost::new();
    host.reply(tool_reply("Starting it.", &[("c1", "sleep 60")]));
    host.state.borrow_mut().exec_hangs = true;
    let options = || Options {
        workspace: Some("allow-sandboxed"),
        ..Options::default()
    };
    let mut t = Term::start(&host, options());
    t.type_str("run it\r");
    assert!(t.screen().contains("Running sleep 60"), "{}", t.screen());
    t.type_str("\x1b");
    // A lone Esc resolves after the key decoder's timeout.
    t.advance(50);
    assert!(
        t.all_text().contains("System: cancelled"),
        "{}",
        t.all_text()
    );
    let mut resumed = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            ..options()
        },
    );
    let text = resumed.all_text();
    assert!(text.contains("┃ run it"), "{text}");
    assert!(text.contains("sleep 60"), "{text}");
}
