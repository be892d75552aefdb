//! Hostile text from every outside source, drawn by the terminal app: model replies, command
//! output (stdout and stderr, exit 0 and non-zero), command titles, error messages, session
//! titles and ids, the transcript review, resumed history, the model and resume pickers and the
//! login panel. What reaches the terminal must hold only the app's own sequences
//! ([`audit`]), a `vt100` emulator must see no title, clipboard, bell or unknown sequence
//! from it, and the screen shows the text with every sequence removed.
#![cfg(feature = "term")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/fake_host.rs"]
mod fake_host;
#[path = "support/fake_oauth.rs"]
mod fake_oauth;
#[path = "support/term_env.rs"]
mod term_env;

use fake_host::{text_reply, tool_reply, FakeHost, Reply};
use fx_wasm::term::ansi::{audit, Allowed};
use term_env::{Options, Term};

/// Letters with a hostile sequence or character between each pair: OSC 52 (clipboard), OSC 0
/// and 2 (title, BEL- and ST-terminated), OSC 8 (a `javascript:` link), CSI (clear screen and
/// scrollback, cursor home and moves, true-colour and blink SGR), DCS, APC, PM, SOS, the C1
/// forms (CSI, OSC, DCS, NEL), RIS, a bare BEL and ESC, and the bidi overrides and isolates.
const HOSTILE: &str = "A\u{1b}]52;c;RVZJTA==\u{7}B\u{1b}]0;EVIL\u{7}C\u{1b}]2;EVIL\u{1b}\\D\
\u{1b}]8;;javascript:alert('EVIL')\u{1b}\\E\u{1b}]8;;\u{1b}\\F\u{1b}[2J\u{1b}[3J\u{1b}[HG\
\u{1b}[5;5H\u{1b}[10A\u{1b}[38;2;255;0;0mH\u{1b}[5mI\u{1b}P1$qEVIL\u{1b}\\J\u{1b}_EVIL\u{1b}\\K\
\u{1b}^EVIL\u{1b}\\L\u{1b}XEVIL\u{1b}\\M\u{9b}2JN\u{9d}0;EVIL\u{9c}O\u{90}EVIL\u{9c}P\u{85}Q\
\u{1b}cR\u{7}S\u{202e}T\u{2066}U\u{2067}V\u{2068}W\u{2069}X\u{1b}\u{7}";
/// What the screen shows of [`HOSTILE`].
const SHOWN: &str = "ABCDEFGHIJKLMNOPQRSTUVWX";

/// What a `vt100` terminal was asked to do besides drawing.
#[derive(Default)]
struct Watch {
    titles: Vec<String>,
    clipboard: usize,
    bells: usize,
    unhandled: Vec<String>,
}

impl vt100::Callbacks for Watch {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
    fn visual_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.titles.push(String::from_utf8_lossy(name).into_owned());
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.titles
            .push(String::from_utf8_lossy(title).into_owned());
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], _: &[u8]) {
        self.clipboard += 1;
    }
    fn unhandled_char(&mut self, _: &mut vt100::Screen, c: char) {
        self.unhandled.push(format!("char {c:?}"));
    }
    fn unhandled_control(&mut self, _: &mut vt100::Screen, b: u8) {
        self.unhandled.push(format!("control {b:#x}"));
    }
    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        self.unhandled.push(format!("osc {params:?}"));
    }
}

/// Everything written so far holds only our own sequences, and a second emulator fed with it
/// sees no title but ours, no clipboard write, no bell and nothing it does not know.
fn assert_clean(t: &Term) {
    let written = t.written();
    if let Err(foreign) = audit(&written, Allowed::Screen) {
        panic!("{foreign}\nscreen:\n{}", t.screen());
    }
    assert!(!written.contains("EVIL"), "a payload reached the terminal");
    assert!(
        !written.contains("javascript:"),
        "a link reached the terminal"
    );
    let mut parser = vt100::Parser::new_with_callbacks(nz(24), nz(80), 0, Watch::default());
    parser.process(written.as_bytes());
    let watch = parser.callbacks();
    assert_eq!(watch.clipboard, 0);
    assert_eq!(watch.bells, 0);
    assert_eq!(watch.unhandled, Vec::<String>::new());
    for title in &watch.titles {
        assert!(
            title.is_empty() || title.starts_with("fx · "),
            "title {title:?}"
        );
        assert!(!title.contains("EVIL"), "title {title:?}");
    }
}

fn shows(t: &mut Term, what: &str) {
    let all = t.all_text();
    assert!(all.contains(what), "{what:?} not shown:\n{all}");
}

fn workspace_term(host: &FakeHost, rows: u16) -> Term {
    Term::start(
        host,
        Options {
            workspace: Some("allow-sandboxed"),
            rows,
            cols: 100,
            ..Options::default()
        },
    )
}

fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[test]
fn model_text_split_anywhere() {
    for n in [1, 3, 7, 200] {
        let host = FakeHost::new();
        let parts = pieces(&format!("reply {HOSTILE} end"), n);
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        host.reply(text_reply(&refs));
        let mut t = Term::start(&host, Options::default());
        t.type_str("hi\r");
        shows(&mut t, &format!("reply {SHOWN} end"));
        assert_clean(&t);
    }
}

#[test]
fn command_output_exit_zero_and_non_zero() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "make"), ("c2", "make test")]))
        .reply(text_reply(&["done"]));
    host.exec_exits(0, &format!("out {HOSTILE}\n"), &format!("warn {HOSTILE}\n"))
        .exec_exits(2, &format!("so {HOSTILE}\n"), &format!("err {HOSTILE}\n"));
    let mut t = workspace_term(&host, 40);
    t.type_str("build\r");
    shows(&mut t, "Ran make · exit 0");
    shows(&mut t, "make test · exit 2");
    shows(&mut t, &format!("out {SHOWN}"));
    shows(&mut t, &format!("warn {SHOWN}"));
    shows(&mut t, &format!("err {SHOWN}"));
    assert_clean(&t);
    // The transcript review shows every line, through the same gate.
    t.type_str("\u{f}");
    let review = t.screen();
    assert!(review.contains(&format!("so {SHOWN}")), "{review}");
    t.type_str("\u{f}");
    assert_clean(&t);
}

#[test]
fn failed_and_long_output_in_the_preview_and_the_review() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "seq")]))
        .reply(text_reply(&["counted"]));
    let lines: String = (1..=6).map(|i| format!("{i} {HOSTILE}\n")).collect();
    host.exec_exits(1, &lines, &format!("{HOSTILE}\r{HOSTILE}\r\n"));
    let mut t = workspace_term(&host, 30);
    t.type_str("count\r");
    shows(&mut t, "Failed seq · exit 1");
    assert_clean(&t);
    t.type_str("\u{f}");
    assert!(t.screen().contains(&format!("6 {SHOWN}")), "{}", t.screen());
    t.type_str("\u{f}");
    assert_clean(&t);
}

#[test]
fn command_titles_and_the_approval_panel() {
    let host = FakeHost::new();
    let command = format!("echo {HOSTILE}");
    host.reply(tool_reply("", &[("c1", command.as_str())]))
        .reply(text_reply(&["ok"]));
    let mut t = Term::start(
        &host,
        Options {
            workspace: Some("prompt"),
            rows: 30,
            cols: 100,
            ..Options::default()
        },
    );
    t.type_str("go\r");
    shows(&mut t, &format!("echo {SHOWN}"));
    assert_clean(&t);
    t.type_str("\r");
    shows(&mut t, &format!("Ran echo {SHOWN}"));
    assert_clean(&t);
}

#[test]
fn error_messages_from_the_gateway_and_the_network() {
    let host = FakeHost::new();
    let body = serde_json::json!({"error": {"message": format!("bad {HOSTILE}"), "type": "invalid_request_error"}});
    host.reply(Reply::Body {
        status: 400,
        chunks: vec![body.to_string().into_bytes()],
        retry_after: None,
    });
    for _ in 0..10 {
        host.reply(Reply::Network(format!("down {HOSTILE}")));
    }
    let mut t = Term::start(&host, Options::default());
    t.type_str("one\r");
    shows(&mut t, SHOWN);
    assert_clean(&t);
    t.type_str("two\r");
    for _ in 0..8 {
        t.advance(30_000);
    }
    assert_clean(&t);
}

/// Session bytes whose first prompt (hence the title) and reply are hostile, as another writer
/// of the store could leave them: a real session with its texts swapped for JSON-escaped ones.
fn hostile_session(host: &FakeHost) -> String {
    host.reply(tool_reply("PLACEHOLDER-REPLY", &[("c1", "ls")]))
        .reply(text_reply(&["PLACEHOLDER-END"]));
    host.exec_exits(3, "PLACEHOLDER-OUT\n", "");
    let mut t = workspace_term(host, 30);
    t.type_str("PLACEHOLDER-PROMPT\r");
    let id = t.shell.app().borrow().session_id().to_owned();
    let escaped = serde_json::to_string(HOSTILE).unwrap();
    let escaped = escaped.trim_matches('"');
    // Inside the tool result the text is JSON within JSON: escape it twice.
    let twice = serde_json::to_string(escaped).unwrap();
    let twice = twice.trim_matches('"');
    let mut state = host.state.borrow_mut();
    let (bytes, _) = state.sessions.get_mut(&id).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let text = text
        .replace("PLACEHOLDER-PROMPT", &format!("ask {escaped}"))
        .replace("PLACEHOLDER-REPLY", &format!("said {escaped}"))
        .replace("PLACEHOLDER-END", &format!("end {escaped}"))
        .replace("PLACEHOLDER-OUT", &format!("out {twice}"));
    assert!(!text.contains("PLACEHOLDER"), "every text was swapped");
    *bytes = text.into_bytes();
    id
}

#[test]
fn resumed_history_window_title_and_the_resume_picker() {
    let host = FakeHost::new();
    hostile_session(&host);
    let mut t = Term::start(
        &host,
        Options {
            resume: Some("last".into()),
            workspace: Some("allow-sandboxed"),
            rows: 40,
            cols: 100,
            ..Options::default()
        },
    );
    shows(&mut t, &format!("ask {SHOWN}"));
    shows(&mut t, &format!("said {SHOWN}"));
    shows(&mut t, &format!("end {SHOWN}"));
    shows(&mut t, &format!("out {SHOWN}"));
    assert_clean(&t);
    t.type_str("\u{f}");
    assert!(
        t.screen().contains(&format!("out {SHOWN}")),
        "{}",
        t.screen()
    );
    t.type_str("\u{f}");
    t.type_str("/resume\r");
    // The title is the prompt's words: the C1 NEL inside counts as a space there.
    let picker = t.screen().replace(' ', "");
    assert!(picker.contains(&format!("ask{SHOWN}")), "{}", t.screen());
    t.type_str("\u{1b}");
    t.advance(100);
    assert_clean(&t);
}

#[test]
fn session_ids_from_the_store_in_notices_and_the_picker() {
    let host = FakeHost::new();
    let id = format!("id-{HOSTILE}");
    host.state
        .borrow_mut()
        .sessions
        .insert(id.clone(), (b"not a session\n".to_vec(), "r1".into()));
    let mut t = Term::start(
        &host,
        Options {
            resume: Some(id),
            ..Options::default()
        },
    );
    shows(&mut t, &format!("id-{SHOWN}"));
    assert!(t.written().contains(&format!("id-{SHOWN}")));
    assert_clean(&t);
    t.type_str("/resume\r");
    t.type_str("\u{1b}");
    t.advance(100);
    assert_clean(&t);
}

#[test]
fn a_refusal_from_the_hosts_download() {
    let host = FakeHost::new();
    host.reply(text_reply(&["hi"]));
    let mut t = Term::start(&host, Options::default());
    t.type_str("hello\r");
    *t.env.download_error.borrow_mut() = Some(format!("no {HOSTILE}"));
    t.type_str("/export\r");
    shows(&mut t, &format!("no {SHOWN}"));
    assert_clean(&t);
}

#[test]
fn model_ids_from_the_catalog_in_the_picker_and_the_status_line() {
    let host = FakeHost::new();
    let id = format!("test/m-{HOSTILE}");
    let catalog = serde_json::json!({"object": "list", "data": [
        {"id": id, "type": "language", "released": 2, "tags": ["tool-use"],
         "reasoning_options": [{"type": "effort", "values": [format!("hi-{HOSTILE}")]}]},
    ]});
    host.state.borrow_mut().catalog = Some(catalog.to_string().into_bytes());
    host.reply(text_reply(&["ok"]));
    let mut t = Term::start(
        &host,
        Options {
            cols: 120,
            ..Options::default()
        },
    );
    t.type_str("/models\r");
    assert!(
        t.screen().contains(&format!("test/m-{SHOWN}")),
        "{}",
        t.screen()
    );
    t.type_str("\u{1b}");
    t.advance(100);
    t.type_str("/model\r");
    t.type_str("\r");
    t.type_str("\r");
    t.advance(100);
    assert_clean(&t);
    t.type_str("hello\r");
    assert_clean(&t);
}

const HOSTILE_TEAM: &str = "Team\u{1b}]52;c;RVZJTA==\u{7}\u{1b}]0;EVIL\u{7}\u{202e}Name\u{9b}2J";

#[test]
fn team_names_in_the_login_picker_and_notice() {
    let host = FakeHost::new();
    let fake = fake_oauth::FakeOAuth::install(&host);
    host.state.borrow_mut().park_sleeps = true;
    {
        let mut state = fake.state.borrow_mut();
        state.pending = 0;
        state.teams = vec![
            ("team_a1", "alpha", HOSTILE_TEAM),
            ("team_b2", "beta", "Beta"),
        ];
    }
    let mut t = Term::start(
        &host,
        Options {
            oauth: true,
            api_key: None,
            env: vec![("FX_E2E_OAUTH_ISSUER_URL", fake_oauth::ISSUER.to_owned())],
            ..Options::default()
        },
    );
    t.type_str("/login\r");
    t.advance(1000);
    assert!(t.screen().contains("TeamName (alpha)"), "{}", t.screen());
    assert_clean(&t);
    t.type_str("\r");
    shows(&mut t, "TeamName");
    assert_clean(&t);
}

#[test]
fn an_ordinary_session_writes_only_our_sequences() {
    let host = FakeHost::new();
    host.reply(tool_reply("Looking **now**.", &[("c1", "ls")]))
        .reply(text_reply(&[
            "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn x() {}\n```\n",
        ]));
    let mut t = workspace_term(&host, 30);
    t.type_str("list\r");
    t.type_str("/help\r");
    t.type_str("\u{1b}");
    t.advance(100);
    t.resize(60, 20);
    t.type_str("/exit\r");
    assert_clean(&t);
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap()
}
