//! One permission setting, in one set of words: the footer, `/status` and `/permissions` say
//! `ask` or `auto` as it really is. Under a host whose workspace runs every command
//! (`allow-sandboxed`) that is `auto`, and `ask` is not offered; under `prompt` the mode decides,
//! switched by `/permissions` or Shift+Tab.
#![cfg(feature = "term")]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, tool_reply, FakeHost};
use term_env::{Options, Term};

fn start(host: &FakeHost, permission: &'static str) -> Term {
    Term::start(
        host,
        Options {
            workspace: Some(permission),
            rows: 30,
            ..Options::default()
        },
    )
}

fn status_line(t: &Term) -> String {
    t.screen()
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_sandboxed_workspace_is_auto_everywhere_and_ask_is_not_offered() {
    let host = FakeHost::new();
    let mut t = start(&host, "allow-sandboxed");
    assert!(
        status_line(&t).starts_with("auto · "),
        "{}",
        status_line(&t)
    );
    t.type_str("/status\r");
    assert!(
        t.screen()
            .contains("auto: this host runs every command without asking"),
        "{}",
        t.screen()
    );
    t.type_str("/permissions\r");
    assert!(
        t.screen().contains("Permissions: auto · "),
        "{}",
        t.screen()
    );
    t.type_str("/permissions ask\r");
    let screen = t.screen();
    assert!(
        screen.contains("this host runs every command without asking"),
        "{screen}"
    );
    assert!(status_line(&t).starts_with("auto · "));
    // Shift+Tab does not switch either.
    t.type_str("\u{1b}[Z");
    assert!(status_line(&t).starts_with("auto · "));
    // And nothing asks.
    host.reply(tool_reply("", &[("c1", "ls")]))
        .reply(text_reply(&["listed"]));
    t.type_str("list\r");
    assert!(!t.screen().contains("Permission needed"));
    assert_eq!(host.state.borrow().exec_calls, vec!["ls"]);
}

#[test]
fn under_prompt_the_mode_decides_and_every_place_agrees() {
    let host = FakeHost::new();
    let mut t = start(&host, "prompt");
    assert!(status_line(&t).starts_with("ask · "), "{}", status_line(&t));

    t.type_str("/permissions auto\r");
    assert!(t.screen().contains("Permissions: auto"), "{}", t.screen());
    assert!(status_line(&t).starts_with("auto · "));
    t.type_str("/status\r");
    assert!(t
        .screen()
        .contains("auto: commands run without asking (/permissions, Shift+Tab)"));
    host.reply(tool_reply("", &[("c1", "ls")]))
        .reply(text_reply(&["listed"]));
    t.type_str("list\r");
    assert!(
        !t.screen().contains("Permission needed"),
        "auto runs freely"
    );
    assert_eq!(host.state.borrow().exec_calls, vec!["ls"]);

    // Shift+Tab switches back to ask, and then fx asks.
    t.type_str("\u{1b}[Z");
    assert!(status_line(&t).starts_with("ask · "), "{}", status_line(&t));
    assert!(t.screen().contains("Permissions: ask"), "{}", t.screen());
    host.reply(tool_reply("", &[("c2", "pwd")]))
        .reply(text_reply(&["here"]));
    t.type_str("where\r");
    assert!(t.screen().contains("Permission needed"), "{}", t.screen());
    t.type_str("1");
    assert!(t.screen().contains("here"));
    let saved: Vec<(String, String)> = host.state.borrow().config_sets.clone();
    assert_eq!(
        saved,
        vec![
            ("mode".to_owned(), "code".to_owned()),
            ("mode".to_owned(), "ask".to_owned())
        ]
    );
}

#[test]
fn switching_during_a_turn_applies_when_it_ends() {
    let host = FakeHost::new();
    host.reply(fake_host::Reply::Hang);
    let mut t = start(&host, "prompt");
    t.type_str("wait\r");
    t.type_str("/permissions auto\r");
    assert!(t.screen().contains("when this turn ends"), "{}", t.screen());
    assert!(status_line(&t).contains("ask · "), "{}", status_line(&t));
    t.type_str("\u{3}");
    // The exit gesture's hint gives the status line back after 3 s.
    t.advance(3100);
    let screen = t.screen();
    assert!(screen.contains("Permissions: auto"), "{screen}");
    assert!(
        status_line(&t).starts_with("auto · "),
        "{}",
        status_line(&t)
    );
}
