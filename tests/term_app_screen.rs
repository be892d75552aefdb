//! The terminal app end to end against a scripted host, asserting on the screen a `vt100`
//! emulator shows: welcome and status line, editing, streamed markdown, tool calls, approvals,
//! cancellation, queued prompts, history, config, resume, `/new`, resize and exit.
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

use std::cell::RefCell;
use std::rc::Rc;

use fake_host::{text_reply, tool_reply, user_texts, FakeHost, Reply};
use term_env::{Options, Term};

fn term(host: &FakeHost) -> Term {
    Term::start(host, Options::default())
}

fn chunks4(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect()).collect()
}

#[test]
fn welcome_and_status_line() {
    let host = FakeHost::new();
    let t = term(&host);
    let screen = t.screen();
    assert!(screen.contains("𝒇x"), "{screen}");
    assert!(screen.contains("Run /help for commands"), "{screen}");
    let last = screen.lines().last().unwrap();
    assert!(last.starts_with("ask · "), "status: {last:?}");
    assert!(screen.contains("┃"), "{screen}");
    // No network request before any input.
    assert!(host.state.borrow().requests.is_empty());
    // The frame protocol: synchronized output.
    assert!(t.written().contains("\u{1b}[?2026h"));
}

#[test]
fn typing_and_editing() {
    let host = FakeHost::new();
    let mut t = term(&host);
    t.type_str("hello wrld");
    assert!(t.screen().contains("┃ hello wrld"));
    // Left ×3, insert 'o'.
    t.type_str("\u{1b}[D\u{1b}[D\u{1b}[Do");
    assert!(t.screen().contains("┃ hello world"), "{}", t.screen());
    // Ctrl+W kills the last word, Ctrl+Y yanks it back.
    t.type_str("\u{5}\u{17}");
    // The space after "hello" is left blank, not written.
    assert!(t.screen().contains("┃ hello\n"), "{}", t.screen());
    assert!(!t.screen().contains("world"));
    t.type_str("\u{19}");
    assert!(t.screen().contains("┃ hello world"));
    // Ctrl+U clears the line; multi-line with Shift+Enter.
    t.type_str("\u{15}one\u{1b}[13;2utwo");
    let screen = t.screen();
    assert!(screen.contains("┃ one\n┃ two"), "{screen}");
}

#[test]
fn streamed_markdown_table_split_across_deltas() {
    let host = FakeHost::new();
    let reply = "Here it is:\n\n| Name | Size |\n|------|-----:|\n| alpha | 12 |\n| beta | 3 |\n\nDone **now**.\n";
    let parts = chunks4(reply);
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    host.reply(text_reply(&refs));
    let mut t = term(&host);
    t.type_str("show a table\r");
    let screen = t.screen();
    assert!(screen.contains("┃ show a table"), "{screen}");
    assert!(screen.contains("  Here it is:"), "{screen}");
    assert!(screen.contains("alpha"), "{screen}");
    assert!(screen.contains('│') && screen.contains('─'), "{screen}");
    assert!(!screen.contains("|------|"), "{screen}");
    assert!(screen.contains("Done now."), "{screen}");
    // The turn summary.
    assert!(screen.contains("(↑"), "{screen}");
}

#[test]
fn two_turns_with_tool_calls_are_both_shown() {
    let host = FakeHost::new();
    host.reply(tool_reply("Let me look.", &[("c1", "ls")]))
        .reply(text_reply(&["Found files."]))
        .reply(tool_reply("", &[("c2", "cat notes.txt")]))
        .reply(text_reply(&["It says hi."]));
    host.exec_exits(0, "a.txt\nnotes.txt\n", "")
        .exec_exits(2, "", "no such file\n");
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("allow-sandboxed"),
            rows: 40,
            ..Options::default()
        },
    );
    t.type_str("list\r");
    t.type_str("read notes\r");
    let screen = t.screen();
    assert!(screen.contains("Ran ls · exit 0"), "{screen}");
    assert!(screen.contains("a.txt"), "{screen}");
    assert!(screen.contains("cat notes.txt · exit 2"), "{screen}");
    assert!(screen.contains("no such file"), "{screen}");
    assert!(screen.contains("Found files."), "{screen}");
    assert!(screen.contains("It says hi."), "{screen}");
}

#[test]
fn ctrl_c_cancels_a_streaming_turn() {
    let host = FakeHost::new();
    host.reply(Reply::Stall {
        chunks: vec![fake_host::sse(&[
            r#"{"type":"text-delta","id":"t","delta":"partial answer\n"}"#,
        ])[..60]
            .to_vec()],
    });
    let mut t = term(&host);
    t.type_str("go\r");
    assert!(t.screen().contains("Thinking"), "{}", t.screen());
    t.type_str("\u{3}");
    let screen = t.screen();
    assert!(screen.contains("cancelled"), "{screen}");
    assert!(screen.contains("press ctrl+c again to exit"), "{screen}");
    assert!(!screen.contains("Thinking"), "{screen}");
    // The second Ctrl+C exits.
    t.type_str("\u{3}");
    assert_eq!(t.env.exited.get(), Some(0));
}

#[test]
fn esc_cancels_a_running_command() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "sleep 100")]))
        .reply(text_reply(&["stopped"]));
    host.state.borrow_mut().exec_hangs = true;
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("allow-sandboxed"),
            ..Options::default()
        },
    );
    t.type_str("wait\r");
    assert!(t.screen().contains("Running sleep 100"), "{}", t.screen());
    t.advance(2000);
    assert!(t.screen().contains("(2s)"), "{}", t.screen());
    t.type_str("\u{1b}");
    // A lone Esc resolves after the timeout.
    t.advance(50);
    let screen = t.screen();
    assert!(screen.contains("cancelled"), "{screen}");
}

#[test]
fn prompts_typed_during_a_turn_are_queued() {
    let host = FakeHost::new();
    host.reply(text_reply(&["first answer"]))
        .reply(text_reply(&["second answer"]));
    let mut t = term(&host);
    t.type_only("first\r");
    t.type_only("second\r");
    let screen = t.screen();
    assert!(screen.contains("queued 1"), "{screen}");
    assert!(screen.contains("1 queued message · ↑ to edit"), "{screen}");
    // ↑ takes it back for editing; Enter queues it again.
    t.type_only("\u{1b}[A");
    assert!(t.screen().contains("┃ second"), "{}", t.screen());
    assert!(!t.screen().contains("queued 1"));
    t.type_only(" edited\r");
    assert!(t.screen().contains("queued 1"));
    t.run();
    let screen = t.screen();
    assert!(screen.contains("first answer"), "{screen}");
    assert!(screen.contains("second answer"), "{screen}");
    assert!(!screen.contains("queued 1"), "{screen}");
    let requests = host.chat_requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(user_texts(&requests[1]).last().unwrap(), "second edited");
}

#[test]
fn cancel_pauses_the_queue_until_enter() {
    let host = FakeHost::new();
    host.reply(Reply::Hang)
        .reply(text_reply(&["second answer"]));
    let mut t = term(&host);
    t.type_str("first\r");
    t.type_str("second\r");
    t.type_str("\u{3}");
    let screen = t.screen();
    assert!(screen.contains("paused · enter to send"), "{screen}");
    t.type_str("\r");
    assert!(t.screen().contains("second answer"), "{}", t.screen());
}

#[test]
fn history_across_two_runs() {
    let host = FakeHost::new();
    host.reply(text_reply(&["ok"]));
    let store = Rc::new(RefCell::new(Vec::new()));
    let mut t = Term::start(
        &host,
        Options {
            history: Some(store.clone()),
            ..Options::default()
        },
    );
    t.type_str("remember this\r");
    t.type_str("/exit\r");
    assert_eq!(t.env.exited.get(), Some(0));
    assert_eq!(*store.borrow(), vec!["remember this", "/exit"]);
    let mut t2 = Term::start(
        &host,
        Options {
            history: Some(store.clone()),
            ..Options::default()
        },
    );
    t2.type_str("\u{1b}[A");
    assert!(t2.screen().contains("┃ /exit"), "{}", t2.screen());
    t2.type_str("\u{10}");
    assert!(t2.screen().contains("┃ remember this"), "{}", t2.screen());
}

#[test]
fn config_is_restored_and_persisted() {
    let host = FakeHost::new();
    host.state
        .borrow_mut()
        .config
        .insert("model".into(), "test/alpha-model".into());
    let mut t = term(&host);
    let status = t.screen().lines().last().unwrap().to_owned();
    assert_eq!(status, "ask · alpha-model");
    t.type_str("/permissions auto\r");
    assert_eq!(host.state.borrow().config.get("mode").unwrap(), "code");
    t.type_str("/model test/beta-model\r");
    assert_eq!(
        host.state.borrow().config.get("model").unwrap(),
        "test/beta-model"
    );
    let screen = t.screen();
    assert!(screen.contains("Switched to test/beta-model"), "{screen}");
    assert_eq!(screen.lines().last().unwrap(), "auto · beta-model");
}

#[test]
fn resume_last_replays_without_a_request_and_resume_picker() {
    let host = FakeHost::new();
    host.reply(text_reply(&["The answer is 42."]));
    let mut t = term(&host);
    t.type_str("what is the answer\r");
    let before = host.state.borrow().requests.len();
    let t2 = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            ..Options::default()
        },
    );
    let screen = t2.screen();
    assert!(screen.contains("┃ what is the answer"), "{screen}");
    assert!(screen.contains("The answer is 42."), "{screen}");
    assert_eq!(host.state.borrow().requests.len(), before);
    // The picker in the first terminal.
    t.type_str("/resume\r");
    let screen = t.screen();
    assert!(screen.contains("Resume a session"), "{screen}");
    assert!(screen.contains("what is the answer"), "{screen}");
    t.type_str("\r");
    let screen = t.screen();
    assert!(screen.contains("Session: resumed"), "{screen}");
}

#[test]
fn new_mid_turn_starts_without_history() {
    let host = FakeHost::new();
    host.reply(text_reply(&["one"]))
        .reply(Reply::Hang)
        .reply(text_reply(&["fresh"]));
    let mut t = term(&host);
    t.type_str("first\r");
    t.type_str("second\r");
    assert!(t.screen().contains("Thinking"));
    // Typed before the fresh session exists: the prompt waits for it.
    t.type_only("/new\r");
    t.type_only("third\r");
    t.run();
    let screen = t.screen();
    assert!(screen.contains("fresh"), "{screen}");
    let requests = host.chat_requests();
    assert_eq!(user_texts(requests.last().unwrap()), vec!["third"]);
}

#[test]
fn resize_rewraps_the_composer() {
    let host = FakeHost::new();
    let mut t = Term::start(
        &host,
        Options {
            cols: 40,
            ..Options::default()
        },
    );
    t.type_str("the quick brown fox jumps over the lazy dog again and again");
    let narrow = t.screen();
    assert!(
        narrow.contains("┃ the quick brown fox jumps over the"),
        "{narrow}"
    );
    assert!(narrow.contains("\n┃ lazy dog again and again"), "{narrow}");
    t.resize(100, 24);
    let wide = t.screen();
    assert!(
        wide.contains("┃ the quick brown fox jumps over the lazy dog again and again"),
        "{wide}"
    );
}

/// `/status`: a `● Status` heading over one labelled row per setting, the values in one column;
/// on a narrow screen each value goes under its label; nothing is `key=value`.
#[test]
fn status_is_labelled_rows_in_one_column() {
    let host = FakeHost::new();
    let mut t = Term::start(
        &host,
        Options {
            cols: 100,
            rows: 40,
            ..Options::default()
        },
    );
    t.type_str("/status\r");
    let screen = t.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let head = lines.iter().position(|l| *l == "● Status").expect(&screen);
    let rows = &lines[head + 1..head + 9];
    let labels: Vec<&str> = rows
        .iter()
        .map(|row| row.trim_start().split("   ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        labels,
        [
            "Model",
            "Permissions",
            "Sign-in",
            "Session",
            "Sessions",
            "Prompt history",
            "Workspace",
            "Version"
        ],
        "{screen}"
    );
    // Every value starts in the same column, past the longest label.
    let column = |row: &str| {
        let label = row.trim_start().split("   ").next().unwrap_or("");
        let after = &row[row.find(label).unwrap() + label.len()..];
        row.len() - after.trim_start().len()
    };
    let first = column(rows[0]);
    assert!(rows.iter().all(|row| column(row) == first), "{screen}");
    assert!(
        rows[1].ends_with("ask: fx asks before each command (/permissions, Shift+Tab)"),
        "{screen}"
    );
    assert!(rows[2].contains("Sign-in"), "{screen}");
    assert!(rows[7].ends_with("0.1.0"));
    assert!(!screen.contains("permission_mode="), "{screen}");

    // 30 columns: each value under its label, indented, within the width.
    let mut narrow = Term::start(
        &host,
        Options {
            cols: 30,
            rows: 60,
            ..Options::default()
        },
    );
    narrow.type_str("/status\r");
    let screen = narrow.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let head = lines.iter().position(|l| *l == "● Status").expect(&screen);
    assert_eq!(lines[head + 1], "  Model", "{screen}");
    assert!(lines[head + 2].starts_with("    "), "{screen}");
    assert!(lines.iter().all(|l| l.chars().count() <= 30), "{screen}");
    assert!(
        screen.contains("  Permissions\n    ask: fx asks before each"),
        "{screen}"
    );
}

#[test]
fn narrow_and_wide_screens() {
    for cols in [40u16, 200] {
        let host = FakeHost::new();
        let reply = "A long paragraph that needs wrapping on a narrow screen but not on a wide one, with `code`.\n";
        host.reply(text_reply(&[reply]));
        let mut t = Term::start(
            &host,
            Options {
                cols,
                ..Options::default()
            },
        );
        t.type_str("wrap\r");
        let screen = t.screen();
        for line in screen.lines() {
            assert!(line.chars().count() <= cols as usize);
        }
        assert!(screen.contains("with code."), "{cols}: {screen}");
    }
}

#[test]
fn ctrl_d_exits_and_help_opens() {
    let host = FakeHost::new();
    let mut t = term(&host);
    t.type_str("/help\r");
    assert!(t.screen().contains("fx help"), "{}", t.screen());
    t.type_str("perm");
    assert!(t.screen().contains("/permissions"));
    assert!(!t.screen().contains("/version"));
    t.type_str("\u{1b}");
    t.advance(50);
    assert!(
        t.screen().contains("Run /help for commands"),
        "{}",
        t.screen()
    );
    t.type_str("\u{4}");
    assert_eq!(t.env.exited.get(), Some(0));
}

#[test]
fn slash_menu_filters_as_you_type() {
    let host = FakeHost::new();
    let mut t = term(&host);
    t.type_str("/mo");
    let screen = t.screen();
    assert!(screen.contains("/model"), "{screen}");
    assert!(screen.contains("/models"), "{screen}");
    assert!(!screen.contains("/resume"), "{screen}");
    t.type_str("\u{1b}[B\r");
    // /models opens the catalog screen.
    assert!(t.screen().contains("Models"), "{}", t.screen());
}

#[test]
fn model_text_cannot_inject_escape_sequences() {
    let host = FakeHost::new();
    host.reply(text_reply(&["safe \u{1b}]2;pwned\u{7}text \u{1b}[2J end"]));
    let mut t = term(&host);
    t.type_str("x\r");
    assert!(!t.written().contains("pwned"));
    assert!(t.screen().contains("safe text  end") || t.screen().contains("safe text end"));
}

#[test]
fn theme_follows_the_terminal_background() {
    let host = FakeHost::new();
    let mut t = term(&host);
    let n = t.written().len();
    // A light scheme report: fenced, then the background is asked behind a second fence.
    t.type_str("\u{1b}[?997;2n");
    assert!(
        t.written()[n..].ends_with("\u{1b}[c"),
        "{:?}",
        &t.written()[n..]
    );
    t.type_str("\u{1b}[?1;2c");
    assert!(t.written()[n..].contains("\u{1b}]11;?\u{1b}\\\u{1b}[c"));
    // A black background answered before the fence wins over the light report: no change.
    t.type_str("\u{1b}]11;rgb:0000/0000/0000\u{1b}\\\u{1b}[?1;2c");
    assert!(!t.written()[n..].contains("\u{1b}[3J"));
    // A white one switches to light: scrollback cleared, everything repainted.
    let m = t.written().len();
    t.type_str("\u{1b}[?997;2n");
    t.type_str("\u{1b}[?1;2c");
    t.type_str("\u{1b}]11;rgb:ffff/ffff/ffff\u{1b}\\\u{1b}[?1;2c");
    let repaint = t.written()[m..].to_owned();
    assert!(repaint.contains("\u{1b}[2J\u{1b}[3J"), "{repaint:?}");
    assert!(repaint.contains("\u{1b}[0;38;5;243m"), "{repaint:?}");
    assert!(
        t.screen().contains("Run /help for commands"),
        "{}",
        t.screen()
    );
}

#[test]
fn transcript_review_shows_full_command_output() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "seq 5")]))
        .reply(text_reply(&["counted"]));
    host.exec_exits(0, "1\n2\n3\n4\n5\n", "");
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("allow-sandboxed"),
            ..Options::default()
        },
    );
    t.type_str("count\r");
    let screen = t.screen();
    assert!(screen.contains("3 more lines"), "{screen}");
    assert!(!screen.contains("    5"), "{screen}");
    t.type_str("\u{f}");
    let review = t.screen();
    assert!(review.contains("    5"), "{review}");
    t.type_str("\u{f}");
    assert!(t.screen().contains("counted"));
}

#[test]
fn export_offers_native_files() {
    let host = FakeHost::new();
    host.reply(text_reply(&["hi"]));
    let mut t = term(&host);
    t.type_str("hello\r");
    t.type_str("/export\r");
    let downloads = t.env.downloads.borrow();
    assert_eq!(downloads.len(), 1);
    assert!(downloads[0].iter().any(|(path, _)| path == "events.jsonl"));
    drop(downloads);
    assert!(t.screen().contains("Export: offered"), "{}", t.screen());
}

#[test]
fn unknown_commands_and_status() {
    let host = FakeHost::new();
    let mut t = term(&host);
    t.type_str("/zzz\r");
    assert!(
        t.screen().contains("Command: unknown command"),
        "{}",
        t.screen()
    );
    t.type_str("/status\r");
    assert!(
        t.screen().contains("ask: fx asks before each command"),
        "{}",
        t.screen()
    );
    t.type_str("/version\r");
    assert!(t.screen().contains("Version: 0.1.0"));
}

#[test]
fn streaming_writes_little_per_token() {
    let host = FakeHost::new();
    let words = [
        "stream", "render", "token", "wasm", "terminal", "quick", "frame", "diff",
    ];
    let deltas: Vec<String> = (0..2000)
        .map(|i| {
            let w = words[i % words.len()];
            if i % 40 == 39 {
                format!("{w}.\n\n")
            } else {
                format!("{w} ")
            }
        })
        .collect();
    let refs: Vec<&str> = deltas.iter().map(String::as_str).collect();
    let events: Vec<String> = refs
        .iter()
        .map(|p| serde_json::json!({"type": "text-delta", "id": "t", "delta": p}).to_string())
        .chain([
            r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{}}"#
                .to_owned(),
        ])
        .collect();
    let event_refs: Vec<&str> = events.iter().map(String::as_str).collect();
    let body = fake_host::sse(&event_refs);
    // One chunk per event, as a network delivers them.
    let chunks: Vec<Vec<u8>> = String::from_utf8(body)
        .unwrap()
        .split_inclusive("\n\n")
        .map(|s| s.as_bytes().to_vec())
        .collect();
    host.reply(Reply::Body {
        status: 200,
        chunks,
        retry_after: None,
    });
    let mut t = term(&host);
    t.type_str("go");
    let before = t.env.out.borrow().len();
    t.type_str("\r");
    let bytes = t.env.out.borrow().len() - before;
    let per_token = bytes as f64 / 2000.0;
    eprintln!("bytes per token: {per_token:.1}");
    if std::env::var("FX_DEBUG_FRAMES").is_ok() {
        let out = t.written();
        for frame in out.split("\u{1b}[?2026h").skip(500).take(12) {
            eprintln!("{frame:?}");
        }
    }
    assert!(per_token < 60.0, "{per_token}");
    assert!(t.all_text().contains("terminal quick frame"));
}

#[test]
fn retries_show_in_the_activity_row_then_clear() {
    let host = FakeHost::new();
    host.reply(Reply::Body {
        status: 503,
        chunks: vec![b"busy".to_vec()],
        retry_after: Some("1".into()),
    })
    .reply(text_reply(&["recovered"]));
    let mut t = term(&host);
    t.type_str("hi\r");
    let screen = t.screen();
    assert!(screen.contains("recovered"), "{screen}");
    assert!(!screen.contains("retrying"), "{screen}");
    assert!(t
        .written()
        .contains("HTTP 503: busy · retrying in 1s · attempt"));
}

#[test]
fn ctrl_c_during_a_command_and_esc_during_a_stream() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "sleep 100")]))
        .reply(Reply::Stall { chunks: vec![] });
    host.state.borrow_mut().exec_hangs = true;
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("allow-sandboxed"),
            ..Options::default()
        },
    );
    t.type_str("wait\r");
    assert!(t.screen().contains("Running sleep 100"));
    t.type_str("\u{3}");
    assert!(t.screen().contains("cancelled"), "{}", t.screen());
    assert!(!t.screen().contains("Running sleep"), "{}", t.screen());
    // Stopped by the user: cancelled, not failed.
    assert!(t.screen().contains("Cancelled sleep 100"), "{}", t.screen());
    assert!(t.screen().contains("· 1 cancelled"), "{}", t.screen());
    assert!(!t.screen().contains("Failed"), "{}", t.screen());
    t.type_str("again\r");
    assert!(t.screen().contains("Thinking"));
    t.type_str("\u{1b}");
    t.advance(40);
    let screen = t.screen();
    assert!(!screen.contains("Thinking"), "{screen}");
    assert_eq!(screen.matches("System: cancelled").count(), 2, "{screen}");
}

#[test]
fn model_picker_over_the_catalog_with_effort() {
    let host = FakeHost::new();
    host.state.borrow_mut().catalog = Some(
        br#"{"object":"list","data":[
          {"id":"test/plain-model","type":"language","released":2,"tags":["tool-use"]},
          {"id":"test/thinker","type":"language","released":3,"tags":["tool-use","reasoning"],
           "reasoning_options":[{"type":"effort","values":["low","high"]}]}]}"#
            .to_vec(),
    );
    host.reply(text_reply(&["thought"]));
    let mut t = term(&host);
    t.type_str("/model\r");
    let screen = t.screen();
    assert!(screen.contains("Choose a model"), "{screen}");
    assert!(
        screen.contains("test/thinker · effort: low, high"),
        "{screen}"
    );
    // Filter, pick, then choose the effort.
    t.type_str("think\r");
    assert!(
        t.screen().contains("Reasoning effort for test/thinker"),
        "{}",
        t.screen()
    );
    t.type_str("\u{1b}[B\u{1b}[B\r");
    let screen = t.screen();
    assert!(screen.contains("Switched to test/thinker"), "{screen}");
    assert!(screen.contains("Effort: high"), "{screen}");
    assert_eq!(screen.lines().last().unwrap(), "ask · thinker · high");
    assert_eq!(
        host.state.borrow().config.get("model").unwrap(),
        "test/thinker"
    );
    t.type_str("go\r");
    let request = host.chat_requests().pop().unwrap();
    assert!(request.to_string().contains("high"), "{request}");
}

#[test]
fn deltas_arriving_together_make_one_frame() {
    let host = FakeHost::new();
    let parts: Vec<String> = (0..50).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    host.reply(text_reply(&refs));
    let mut t = term(&host);
    t.type_str("go");
    let writes = t.env.writes.get();
    t.type_str("\r");
    let frames = t.env.writes.get() - writes;
    assert!(frames <= 5, "{frames} writes for one chunk of 50 deltas");
    assert!(t.screen().contains("w0 w1 w2"), "{}", t.screen());
    assert!(t.screen().contains("w49"), "{}", t.screen());
}

#[test]
fn nothing_is_written_after_exit_or_abort() {
    let host = FakeHost::new();
    host.reply(Reply::Hang);
    let mut t = term(&host);
    t.type_str("wait\r");
    t.type_only("/exit\r");
    let after_exit = t.env.out.borrow().len();
    t.run();
    t.advance(1000);
    assert_eq!(
        t.env.out.borrow().len(),
        after_exit,
        "{:?}",
        String::from_utf8_lossy(&t.env.out.borrow()[after_exit - 200..])
    );
    assert_eq!(t.env.exited.get(), Some(0));
    assert!(!t.screen().contains("ask ·"), "{}", t.screen());
    let host = FakeHost::new();
    host.reply(Reply::Hang);
    let mut t = term(&host);
    t.type_str("wait\r");
    t.shell.abort();
    let n = t.env.out.borrow().len();
    t.run();
    t.type_str("more");
    assert_eq!(t.env.out.borrow().len(), n);
}

#[test]
fn clear_mid_turn_repaints_a_fresh_screen() {
    let host = FakeHost::new();
    host.reply(text_reply(&["old answer"]))
        .reply(Reply::Hang)
        .reply(text_reply(&["new answer"]));
    let mut t = term(&host);
    t.type_str("first\r");
    t.type_str("second\r");
    t.type_str("/clear\r");
    let screen = t.screen();
    assert!(!screen.contains("old answer"), "{screen}");
    assert!(screen.contains("Run /help for commands"), "{screen}");
    t.type_str("third\r");
    assert!(t.screen().contains("new answer"), "{}", t.screen());
    let requests = host.chat_requests();
    assert_eq!(user_texts(requests.last().unwrap()), vec!["third"]);
}

#[test]
fn turn_summary_shows_the_usage_the_gateway_reported() {
    let host = FakeHost::new();
    // A tool step (20 in, 5 out) and a text step (10 in, 3 out).
    host.reply(tool_reply("Looking.", &[("c1", "ls")]))
        .reply(text_reply(&[
            "A long answer that would be estimated higher than three tokens.",
        ]));
    host.exec_exits(0, "a.txt\n", "");
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("allow-sandboxed"),
            rows: 30,
            ..Options::default()
        },
    );
    t.type_str("list the files please\r");
    let screen = t.screen();
    assert!(screen.contains("(↑30 ↓8)"), "{screen}");
    // The agent reported each step.
    let usage: Vec<_> = host
        .state
        .borrow()
        .events
        .iter()
        .filter_map(|e| match e {
            fx_wasm::caps::HostEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => Some((*input_tokens, *output_tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(usage, vec![(20, 5), (10, 3)]);
}

#[test]
fn rename_is_stored_and_shown_on_resume_and_in_the_picker() {
    let host = FakeHost::new();
    host.reply(text_reply(&["Sure."]));
    let mut t = term(&host);
    t.type_str("/rename Release   prep\r");
    assert!(
        t.screen().contains("Session: renamed to \"Release prep\""),
        "{}",
        t.screen()
    );
    assert!(t.written().contains("\u{1b}]2;fx · Release prep · "));
    t.type_str("tidy the changelog\r");
    // The first prompt does not take the name's place.
    assert!(!t.written().contains("fx · tidy the changelog"));
    t.type_str("/rename\r");
    assert!(
        t.screen().contains("usage: /rename <title>"),
        "{}",
        t.screen()
    );

    let t2 = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            cols: 120,
            ..Options::default()
        },
    );
    let screen = t2.screen();
    assert!(screen.contains("· Release prep"), "{screen}");
    assert!(screen.contains("┃ tidy the changelog"), "{screen}");
    t.type_str("/new\r");
    t.type_str("/resume\r");
    let screen = t.screen();
    assert!(screen.contains("Release prep ·"), "{screen}");
}

#[test]
fn a_fork_is_announced_and_the_screen_follows_it() {
    let host = FakeHost::new();
    host.reply(text_reply(&["one"]))
        .reply(text_reply(&["other tab"]))
        .reply(text_reply(&["two"]))
        .reply(text_reply(&["three"]));
    let mut t = term(&host);
    t.type_str("first\r");
    let original = host.state.borrow().sessions.keys().next().cloned().unwrap();
    // A second terminal (another tab) continues the same session.
    let mut other = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            ..Options::default()
        },
    );
    other.type_str("from the other tab\r");
    let theirs = host.stored(&original);
    t.type_str("second\r");
    let screen = t.all_text();
    assert!(
        screen.contains("another tab or window changed this session"),
        "{screen}"
    );
    assert!(screen.contains("nothing was lost"), "{screen}");
    // The other tab's record is untouched; ours moved to a new id with both of our turns.
    assert_eq!(host.stored(&original), theirs);
    let sessions: Vec<String> = host.state.borrow().sessions.keys().cloned().collect();
    let forked = sessions.iter().find(|id| **id != original).unwrap().clone();
    let view = fx_wasm::log::read_session(&host.stored(&forked)).unwrap();
    assert_eq!(view.turns.len(), 2);
    // Later commands and prompts go to the fork, without forking again.
    t.type_str("/rename Mine\r");
    t.type_str("third\r");
    let view = fx_wasm::log::read_session(&host.stored(&forked)).unwrap();
    assert_eq!(view.title, "Mine");
    assert_eq!(view.turns.len(), 3);
    assert_eq!(host.state.borrow().sessions.len(), 2);
}
