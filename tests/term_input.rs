//! Input path end to end: the bytes xterm.js sends → `KeyDecoder` → `LineEditor`, with
//! submissions recorded in a `PromptHistory`. Each case is a script of input chunks (a `None`
//! chunk stands for the caller's Escape timer firing).
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![cfg(feature = "term")]

use fx_wasm::term::history::PromptHistory;
use fx_wasm::term::keys::{InputEvent, KeyCode, KeyDecoder};
use fx_wasm::term::line_editor::{EditOutcome, LineEditor};

#[derive(Default)]
struct App {
    decoder: KeyDecoder,
    editor: LineEditor,
    history: PromptHistory,
    submitted: Vec<String>,
    escapes: usize,
}

impl App {
    fn input(&mut self, chunk: Option<&[u8]>) {
        let events = match chunk {
            Some(bytes) => self.decoder.feed(bytes),
            None => self.decoder.flush_pending(),
        };
        for ev in events {
            match ev {
                InputEvent::Key(k) if k.code == KeyCode::Escape => self.escapes += 1,
                InputEvent::Key(k)
                    if self.editor.handle_key(k, &self.history) == EditOutcome::Submit =>
                {
                    if let Some(text) = self.editor.submit() {
                        self.history.push(&text);
                        self.submitted.push(text);
                    }
                }
                InputEvent::Paste(text) => self.editor.insert_paste(&text).unwrap(),
                _ => {}
            }
        }
    }
}

fn run(script: &[Option<&[u8]>]) -> App {
    let mut app = App::default();
    for chunk in script {
        app.input(*chunk);
    }
    app
}

#[test]
fn scripts() {
    type Case<'a> = (&'a str, Vec<Option<&'a [u8]>>, &'a str, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "reference edit: hello, left, !, backspace, enter",
            vec![
                Some(b"hello"),
                Some(b"\x1b[D"),
                Some(b"!"),
                Some(b"\x7f"),
                Some(b"\r"),
            ],
            "",
            vec!["hello"],
        ),
        (
            "utf-8 split across chunks",
            vec![Some(b"caf\xc3"), Some(b"\xa9 \xe4\xb8"), Some(b"\xad")],
            "café 中",
            vec![],
        ),
        (
            "shift+enter then enter",
            vec![Some(b"one\x1b[13;2utwo\r")],
            "",
            vec!["one\ntwo"],
        ),
        (
            "backslash continuation",
            vec![Some(b"a\\\rb\r")],
            "",
            vec!["a\nb"],
        ),
        (
            "ctrl+w and yank",
            vec![Some(b"alpha beta\x17\x01\x19")],
            "betaalpha ",
            vec![],
        ),
        (
            "cmd+backspace",
            vec![Some(b"abc def\x1b[127;9u")],
            "",
            vec![],
        ),
        (
            "alt+b alt+d",
            vec![Some(b"one two three\x1bb\x1bb\x1bd")],
            "one  three",
            vec![],
        ),
        (
            "lone esc resolved by timer",
            vec![Some(b"x\x1b"), None, Some(b"y")],
            "xy",
            vec![],
        ),
        (
            "esc followed quickly is a sequence",
            vec![Some(b"ab\x1b"), Some(b"[D"), Some(b"X")],
            "aXb",
            vec![],
        ),
        (
            "paste with newlines is not submitted",
            vec![Some(b"\x1b[200~line1\rline2\x1b[201~")],
            "line1\nline2",
            vec![],
        ),
        (
            "paste split mid-marker",
            vec![Some(b"\x1b[200~pasted\x1b["), Some(b"201~!")],
            "pasted!",
            vec![],
        ),
        (
            "history recall with up",
            vec![Some(b"first\r"), Some(b"second\r"), Some(b"\x1b[A\x1b[A\r")],
            "",
            vec!["first", "second", "first"],
        ),
        (
            "ctrl+p recall then ctrl+u",
            vec![Some(b"kept\r\x10\x15")],
            "",
            vec!["kept"],
        ),
        (
            "undo with ctrl+_",
            vec![Some(b"hello world\x1f")],
            "hello",
            vec![],
        ),
        (
            "kitty ctrl+a then text",
            vec![Some(b"bc\x1b[97;5uA")],
            "Abc",
            vec![],
        ),
        (
            "focus and colour replies do not type",
            vec![Some(
                b"\x1b[I\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?997;2n\x1b[?1;2cz",
            )],
            "z",
            vec![],
        ),
    ];
    for (name, script, draft, submitted) in cases {
        let app = run(&script);
        assert_eq!(app.editor.text(), draft, "{name}: draft");
        assert_eq!(app.submitted, submitted, "{name}: submitted");
    }
}

#[test]
fn escape_count_and_pending_flag() {
    let mut app = App::default();
    app.input(Some(b"\x1b"));
    assert!(app.decoder.escape_pending());
    app.input(None);
    assert_eq!(app.escapes, 1);
    assert!(!app.decoder.escape_pending());
    app.input(Some(b"\x1b\x1b"));
    assert_eq!(app.escapes, 2);
    app.input(None);
    assert_eq!(app.escapes, 3);
}

#[test]
fn big_paste_collapses_and_submits_in_full() {
    let body: String = (0..30).map(|i| format!("row {i}\n")).collect();
    let mut bytes = b"see \x1b[200~".to_vec();
    bytes.extend_from_slice(body.as_bytes());
    bytes.extend_from_slice(b"\x1b[201~");
    let mut app = App::default();
    app.input(Some(&bytes));
    assert_eq!(app.editor.text(), "see [Pasted text #1 +30 lines]");
    app.input(Some(b"\r"));
    assert_eq!(app.submitted, vec![format!("see {}", body.trim_end())]);
}
