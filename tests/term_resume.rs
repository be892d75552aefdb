//! Resuming draws every turn as it was drawn live: a session with a finished turn, a command
//! cancelled with Ctrl+C, a turn that failed, a denied command and a reply cancelled mid-stream
//! is played live on one `vt100` screen, then resumed (`--resume last`) on another; the two
//! transcripts must be the same, row for row (the turn summaries, which only a live turn has,
//! aside).
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

use fake_host::{sse, text_reply, tool_reply, FakeHost, Reply};
use term_env::{Options, Term};

const ROWS: u16 = 90;

fn options() -> Options {
    Options {
        workspace: Some("prompt"),
        rows: ROWS,
        ..Options::default()
    }
}

/// The transcript rows from the first prompt card to the footer, without turn summaries (and
/// the blank row after each).
fn transcript(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("┃ list"))
        .expect("the first prompt");
    // The footer: the last composer row and what follows it.
    let end = lines.iter().rposition(|l| *l == "┃").expect("the composer");
    let summary = |l: &str| l.starts_with("  ") && l.contains("(↑") && l.ends_with(')');
    let mut out: Vec<String> = Vec::new();
    let mut skip_blank = false;
    for line in &lines[start..end] {
        if summary(line) {
            skip_blank = true;
            continue;
        }
        if std::mem::take(&mut skip_blank) && line.is_empty() {
            continue;
        }
        out.push((*line).to_owned());
    }
    out
}

#[test]
fn a_resumed_session_looks_as_it_did_live() {
    let host = FakeHost::new();
    let mut t = Term::start(&host, options());

    // 1. A finished turn with an approved command.
    host.reply(tool_reply("Let me look.", &[("c1", "ls")]))
        .reply(text_reply(&["Found two files."]));
    host.exec_exits(0, "a.txt\nb.txt\n", "");
    t.type_str("list\r");
    t.type_str("1");
    assert!(t.screen().contains("Found two files."), "{}", t.screen());

    // 2. A command cancelled with Ctrl+C while it runs.
    host.reply(tool_reply(
        "Running sleep 20 as asked.",
        &[("c2", "sleep 20")],
    ));
    host.state.borrow_mut().exec_hangs = true;
    t.type_str("wait\r");
    t.type_str("1");
    assert!(t.screen().contains("Running sleep 20"), "{}", t.screen());
    t.type_str("\u{3}");
    host.state.borrow_mut().exec_hangs = false;
    assert!(t.screen().contains("Cancelled sleep 20"), "{}", t.screen());

    // 3. A turn that fails: the gateway keeps answering HTTP 500.
    for _ in 0..5 {
        host.reply(Reply::Body {
            status: 500,
            chunks: vec![b"the provider fell over".to_vec()],
            retry_after: None,
        });
    }
    t.type_str("again\r");
    assert!(
        t.screen().contains("FX_GATEWAY_HTTP_ERROR"),
        "{}",
        t.screen()
    );

    // 4. A denied command.
    host.reply(tool_reply("", &[("c3", "rm -rf /")]))
        .reply(text_reply(&["Fine, I will not."]));
    t.type_str("clean\r");
    t.type_str("3");
    assert!(t.screen().contains("Fine, I will not."), "{}", t.screen());

    // 5. A reply cancelled mid-stream.
    host.reply(Reply::Stall {
        chunks: vec![
            sse(&[r#"{"type":"text-delta","id":"t","delta":"A partial answer\n"}"#])[..60].to_vec(),
        ],
    });
    t.type_str("tell me\r");
    t.advance(100);
    t.type_str("\u{1b}");
    t.advance(50);
    let live = transcript(&t.screen());
    assert!(live.iter().any(|l| l == "● System: cancelled"), "{live:#?}");

    let resumed = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            ..options()
        },
    );
    let screen = resumed.screen();
    assert!(screen.contains("Session: resumed"), "{screen}");
    assert_eq!(
        transcript(&screen),
        live,
        "\nresumed:\n{screen}\nlive:\n{}",
        t.screen()
    );
}
