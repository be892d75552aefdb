//! Every footer and activity line fits the terminal's width, from 40 columns up: a line too long
//! is elided with `…`, never wrapped or overwritten into garbage. Each state is drawn at 200
//! columns (the whole text) and at every width from 40 to 199; each footer row on the `vt100`
//! screen must be the whole row, or the whole row with one stretch replaced by `…`.
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

use fake_host::{text_reply, tool_reply, FakeHost, Reply};
use fx_wasm::term::width::str_width;
use term_env::{Options, Term};

const WIDE: u16 = 200;
const ROWS: u16 = 30;

/// The last `n` rows of the screen, trailing spaces trimmed.
fn footer(t: &Term, n: usize) -> Vec<String> {
    let screen = t.screen();
    let lines: Vec<String> = screen.lines().map(|l| l.trim_end().to_owned()).collect();
    let rows = usize::from(ROWS).min(lines.len());
    let visible = &lines[lines.len() - rows..];
    let end = visible
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    visible[end.saturating_sub(n)..end].to_vec()
}

/// `shown` is `full`, or `full` with one stretch replaced by `…`.
fn is_elided(shown: &str, full: &str) -> bool {
    let rule = |s: &str| !s.is_empty() && s.chars().all(|c| c == '─');
    if shown == full || (rule(shown) && rule(full)) {
        return true;
    }
    let Some((head, tail)) = shown.split_once('…') else {
        return false;
    };
    full.starts_with(head)
        && full.ends_with(tail)
        && head.len() + tail.len() < full.len()
        && !tail.contains('…')
}

/// Draws `setup`'s state at 200 columns, then at every width from 40 to 199, and checks the
/// last `n` rows. A row may also show any of its `variants` (shorter wordings of a hint row).
fn check(name: &str, n: usize, variants: &[&str], setup: impl Fn(u16) -> Term) {
    let full = footer(&setup(WIDE), n);
    assert!(
        full.iter().all(|r| str_width(r) <= usize::from(WIDE)),
        "{name}: the reference rows must fit 200 columns: {full:#?}"
    );
    for cols in 40..WIDE {
        let t = setup(cols);
        let rows = footer(&t, n);
        assert_eq!(rows.len(), full.len(), "{name} at {cols}: {rows:#?}");
        for (shown, whole) in rows.iter().zip(&full) {
            assert!(
                str_width(shown) <= usize::from(cols),
                "{name} at {cols}: {shown:?} is wider than the screen"
            );
            let variant =
                variants.contains(&whole.as_str()) && variants.iter().any(|v| is_elided(shown, v));
            assert!(
                variant || is_elided(shown, whole),
                "{name} at {cols} columns:\n  shown {shown:?}\n  whole {whole:?}\n{}",
                t.screen()
            );
        }
    }
}

fn options(cols: u16) -> Options {
    Options {
        cols,
        rows: ROWS,
        ..Options::default()
    }
}

#[test]
fn the_retry_line_is_elided_and_keeps_the_attempt() {
    let setup = |cols| {
        let host = FakeHost::new();
        host.state.borrow_mut().park_sleeps = true;
        host.reply(Reply::Body {
            status: 503,
            chunks: vec![b"the upstream provider is overloaded right now, slow down and try again in a little while".to_vec()],
            retry_after: Some("2".into()),
        })
        .reply(text_reply(&["recovered"]));
        let mut t = Term::start(&host, options(cols));
        t.type_str("hi\r");
        t
    };
    check("retry", 5, &[], setup);
    // What matters most stays whole at every width: when, and which attempt.
    for cols in 40..WIDE {
        let t = setup(cols);
        let row = t
            .screen()
            .lines()
            .find(|l| l.starts_with("⚠ "))
            .map(str::to_owned)
            .unwrap_or_default();
        assert!(
            row.trim_end().ends_with("retrying in 2s · attempt 2/5"),
            "at {cols}: {row:?}"
        );
    }
}

#[test]
fn a_long_running_command_in_the_activity_row() {
    check("running", 5, &[], |cols| {
        let host = FakeHost::new();
        host.reply(tool_reply(
            "",
            &[(
                "c1",
                "npm run build -- --watch --verbose --reporter=dot --filter=packages/* --concurrency=8 && echo done",
            )],
        ));
        host.state.borrow_mut().exec_hangs = true;
        let mut t = Term::start(
            &host,
            Options {
                workspace: Some("allow-sandboxed"),
                ..options(cols)
            },
        );
        t.type_str("build it\r");
        t
    });
}

#[test]
fn queued_prompts_and_a_long_status_line() {
    check("queued", 5, &[], |cols| {
        let host = FakeHost::new();
        host.reply(Reply::Hang);
        let mut t =
            Term::start(
                &host,
                Options {
                    // No credential (a loopback gateway needs none): the status line says so.
                    api_key: None,
                    env: vec![
                    (
                        "FX_MODEL",
                        "some-provider/an-extremely-long-model-name-for-testing-narrow-terminals"
                            .into(),
                    ),
                    ("FX_GATEWAY_CHAT_URL", "http://127.0.0.1:9/v3/ai/language-model".into()),
                ],
                    ..options(cols)
                },
            );
        t.type_only("first\r");
        t.type_only("second\r");
        t.type_only("third\r");
        // Esc cancels the turn and pauses the queue (the longest queued row).
        t.type_str("\u{1b}");
        t.advance(40);
        t
    });
}

/// The approval panel's hint row, widest first: it picks the widest that fits.
const HINTS: &[&str] = &[
    "1–3 Choose now    ↑↓ Options    Tab Amend    Enter Confirm    Esc Deny",
    "1–3 Choose now    Tab Amend    Enter Confirm    Esc Deny",
    "1–3 Choose    Tab Amend    Enter OK",
];

#[test]
fn the_approval_panel() {
    check("approval", 8, HINTS, |cols| {
        let host = FakeHost::new();
        host.reply(tool_reply(
            "",
            &[(
                "c1",
                "rm -rf build dist coverage node_modules/.cache && git clean -fdx -e .env && echo cleaned everything",
            )],
        ));
        let mut t = Term::start(
            &host,
            Options {
                workspace: Some("prompt"),
                ..options(cols)
            },
        );
        t.type_str("clean up\r");
        t
    });
}

#[test]
fn the_slash_menu() {
    check("menu", 9, &[], |cols| {
        let host = FakeHost::new();
        let mut t = Term::start(&host, options(cols));
        t.type_str("/");
        t
    });
}
