//! Whole screens compared with golden texts (`tests/fixtures/term-screens/`; `FX_BLESS=1`
//! rewrites them after a deliberate change): what a person sees at each step, every row at
//! once, where the other terminal tests check parts of it.
#![cfg(feature = "term")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, tool_reply, FakeHost};
use term_env::{Options, Term};

fn sized(host: &FakeHost, cols: u16, rows: u16, workspace: Option<&'static str>) -> Term {
    Term::start(
        host,
        Options {
            cols,
            rows,
            workspace,
            ..Options::default()
        },
    )
}

const CATALOG: &[u8] = br#"{"object":"list","data":[
  {"id":"test/plain-model","type":"language","released":2,"tags":["tool-use"]},
  {"id":"test/thinker","type":"language","released":3,"tags":["tool-use","reasoning"],
   "reasoning_options":[{"type":"effort","values":["low","high"]}]}]}"#;

#[test]
fn start_and_the_slash_menu() {
    let host = FakeHost::new();
    let mut t = sized(&host, 64, 14, None);
    t.assert_screen("start");
    t.type_str("/mo");
    t.assert_screen("slash-menu");
    // Down, then Tab: the highlighted command goes into the draft.
    t.type_str("\u{1b}[B\t");
    t.assert_screen("slash-menu-completed");
}

#[test]
fn a_turn_with_a_command_and_its_summary() {
    let host = FakeHost::new();
    host.reply(tool_reply("Looking.", &[("c1", "ls -la")]))
        .reply(text_reply(&["Two **files**: `a.txt` and `b.txt`."]));
    host.exec_exits(0, "a.txt\nb.txt\nc.txt\n", "");
    let mut t = sized(&host, 64, 20, Some("allow-sandboxed"));
    t.type_str("what is here?\r");
    t.advance(1_200);
    t.assert_screen("turn-done");
}

#[test]
fn the_approval_panel_and_its_note() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "rm -rf build")]))
        .reply(text_reply(&["ok"]));
    let mut t = sized(&host, 64, 18, Some("prompt"));
    t.type_str("clean up\r");
    t.advance(600);
    t.assert_screen("approval");
    t.type_str("\u{1b}[B\u{1b}[B\tuse make clean");
    t.assert_screen("approval-note");
    // Narrow: the hint row gives way to shorter ones.
    t.resize(30, 18);
    t.assert_screen("approval-note-narrow");
}

#[test]
fn help_and_the_model_pickers() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(CATALOG.to_vec());
    let mut t = sized(&host, 72, 16, None);
    t.type_str("/help\r");
    t.assert_screen("help");
    t.type_str("model");
    t.assert_screen("help-filtered");
    t.type_str("\u{1b}");
    t.advance(40);
    t.type_str("/model\r");
    t.assert_screen("model-picker");
    // The model with efforts leads to the effort step.
    t.type_str("\r");
    t.assert_screen("effort-picker");
    t.type_str("\u{1b}[B\u{1b}[B\r");
    t.assert_screen("model-switched");
}
