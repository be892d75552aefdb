//! Screen snapshots: the markdown renderer's ANSI output fed through a terminal emulator
//! (`vt100`) and compared as the text a user would see, at 40, 80 and 200 columns.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![cfg(feature = "term")]

use fx_wasm::term::markdown::{render_markdown, MarkdownOptions, MarkdownStream};
use fx_wasm::term::style::{line_to_ansi, to_ansi, Palette, StyledLine};

/// Records what a hostile text might try to make the terminal do.
#[derive(Default)]
struct Spy {
    titles: usize,
    bells: usize,
    clipboard: usize,
    resizes: usize,
}

impl vt100::Callbacks for Spy {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.titles += 1;
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], _: &[u8]) {
        self.clipboard += 1;
    }
    fn resize(&mut self, _: &mut vt100::Screen, _: (u16, u16)) {
        self.resizes += 1;
    }
}

fn terminal(cols: usize) -> vt100::Parser<Spy> {
    let rows = std::num::NonZeroU16::new(200).unwrap();
    let cols = std::num::NonZeroU16::new(u16::try_from(cols).unwrap()).unwrap();
    vt100::Parser::new_with_callbacks(rows, cols, 0, Spy::default())
}

/// The screen's text: rows with trailing blanks removed, trailing empty rows dropped.
fn screen_text<CB: vt100::Callbacks>(p: &vt100::Parser<CB>) -> String {
    let cols = p.screen().size().1;
    let mut rows: Vec<String> = p
        .screen()
        .rows(0, cols.into())
        .map(|r| r.trim_end().to_owned())
        .collect();
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    rows.join("\n") + "\n"
}

fn show(src: &str, cols: usize) -> String {
    let lines = render_markdown(src, MarkdownOptions::new(cols));
    let mut t = terminal(cols);
    t.process(to_ansi(&lines, &Palette::dark()).as_bytes());
    screen_text(&t)
}

/// What an app does with a stream: print committed rows once, repaint only the tail.
struct InlinePainter {
    term: vt100::Parser<Spy>,
    printed: usize,
    tail_rows: usize,
    bytes_written: usize,
}

impl InlinePainter {
    fn new(cols: usize) -> Self {
        Self {
            term: terminal(cols),
            printed: 0,
            tail_rows: 0,
            bytes_written: 0,
        }
    }

    fn paint(&mut self, stream: &MarkdownStream) {
        let mut out = String::new();
        if self.tail_rows > 0 {
            out.push_str(&format!("\x1b[{}A\r\x1b[J", self.tail_rows));
        }
        let committed = stream.committed();
        let new: Vec<StyledLine> = committed[self.printed..].to_vec();
        out.push_str(&to_ansi(&new, &Palette::dark()));
        self.printed = committed.len();
        let tail = stream.tail();
        for line in &tail {
            out.push_str(line_to_ansi(line, &Palette::dark()).as_str());
            out.push_str("\r\n");
        }
        self.tail_rows = tail.len();
        self.bytes_written += out.len();
        self.term.process(out.as_bytes());
    }
}

const REPLY: &str = "Here is the comparison:\n\n| name | kind | size |\n|:-----|:----:|-----:|\n| `vt100` | crate | 42 KB |\n| xterm.js | library | 1.2 MB |\n| 漢字 | wide | 3 |\n\nDone.\n";

#[test]
fn table_streamed_in_4_char_deltas_is_one_box() {
    let want = "  Here is the comparison:

  ┌──────────┬─────────┬────────┐
  │ name     │ kind    │ size   │
  ├──────────┼─────────┼────────┤
  │ vt100    │  crate  │  42 KB │
  │ xterm.js │ library │ 1.2 MB │
  │ 漢字     │  wide   │      3 │
  └──────────┴─────────┴────────┘

  Done.
";
    let chars: Vec<char> = REPLY.chars().collect();
    for cols in [40, 80, 200] {
        let mut stream = MarkdownStream::new(MarkdownOptions::new(cols));
        let mut painter = InlinePainter::new(cols);
        for delta in chars.chunks(4) {
            stream.push(&delta.iter().collect::<String>());
            painter.paint(&stream);
            let screen = screen_text(&painter.term);
            assert!(
                !screen.contains("|-") && !screen.contains("| name"),
                "raw table at {cols}:\n{screen}"
            );
            assert!(!screen.contains(&"─".repeat(90)));
        }
        stream.finish();
        painter.paint(&stream);
        let screen = screen_text(&painter.term);
        assert_eq!(screen, want, "at {cols} columns");
        assert_eq!(screen.matches('┌').count(), 1);
        // The whole-text render agrees with the streamed one.
        assert_eq!(show(REPLY, cols), want);
    }
}

#[test]
fn table_too_wide_for_40_columns_wraps_cells() {
    let src = "| option | meaning |\n|---|---|\n| `--resume last` | reopen the most recent session and replay its transcript |\n";
    let want = "  ┌───────────────┬──────────────────────┐
  │ option        │ meaning              │
  ├───────────────┼──────────────────────┤
  │ --resume last │ reopen the most      │
  │               │ recent session and   │
  │               │ replay its           │
  │               │ transcript           │
  └───────────────┴──────────────────────┘
";
    assert_eq!(show(src, 42), want);
}

const DOC: &str = "# Streaming markdown

Paragraphs wrap at the terminal width, keeping **bold**, *italic*, `code` and [links](https://fx.sh/docs) readable.

1. First step
2. Second step with a longer description that needs to wrap
   - nested point

> A quote that is long enough to wrap onto a second row at narrow widths.

```python
def greet(name):  # say hello
    return f\"hello {name}\" * 3
```
";

#[test]
fn document_at_40_columns() {
    let want = "  Streaming markdown

  Paragraphs wrap at the terminal width,
  keeping bold, italic, code and links
  (https://fx.sh/docs) readable.

  1. First step
  2. Second step with a longer
     description that needs to wrap
     • nested point

  │ A quote that is long enough to wrap
  │ onto a second row at narrow widths.

  ┌ python ────────────────────────────┐
  │ def greet(name):  # say hello      │
  │     return f\"hello {name}\" * 3     │
  └────────────────────────────────────┘
";
    assert_eq!(show(DOC, 40), want);
}

#[test]
fn document_at_80_columns() {
    let want = "  Streaming markdown

  Paragraphs wrap at the terminal width, keeping bold, italic, code and links
  (https://fx.sh/docs) readable.

  1. First step
  2. Second step with a longer description that needs to wrap
     • nested point

  │ A quote that is long enough to wrap onto a second row at narrow widths.

  ┌ python ────────────────────────────────────────────────────────────────────┐
  │ def greet(name):  # say hello                                              │
  │     return f\"hello {name}\" * 3                                             │
  └────────────────────────────────────────────────────────────────────────────┘
";
    assert_eq!(show(DOC, 80), want);
}

#[test]
fn document_at_200_columns() {
    let screen = show(DOC, 200);
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(
        rows[2],
        "  Paragraphs wrap at the terminal width, keeping bold, italic, code and links (https://fx.sh/docs) readable."
    );
    // Code boxes stop at 100 columns on wide screens; rules of the box line up.
    let top = rows.iter().find(|r| r.contains("┌ python")).unwrap();
    assert_eq!(top.chars().count(), 102);
    let boxed: Vec<&&str> = rows
        .iter()
        .filter(|r| r.trim_start().starts_with('│') && r.ends_with('│'))
        .collect();
    assert_eq!(boxed.len(), 2);
    for r in boxed {
        assert_eq!(r.chars().count(), 102, "{r}");
    }
}

#[test]
fn long_code_line_wraps_inside_the_box() {
    let src = "```rust\n    let total = values.iter().map(|v| v * 2).filter(|v| *v > 10).sum::<u64>();\n```\n";
    let want = "  ┌ rust ──────────────────────────────┐
  │     let total = values.iter().map( │
  │     |v| v * 2).filter(|v| *v > 10) │
  │     .sum::<u64>();                 │
  └────────────────────────────────────┘
";
    assert_eq!(show(src, 40), want);
}

#[test]
fn wide_characters_and_emoji_line_up() {
    let src = "| emoji | 中文 |\n|---|---|\n| 👍 ok | 漢字かな |\n| 🚀🚀 | x |\n\n- 日本語のテキストは幅が二倍なので折り返しが早くなります\n";
    let want = "  ┌───────┬──────────┐
  │ emoji │ 中文     │
  ├───────┼──────────┤
  │ 👍 ok │ 漢字かな │
  │ 🚀🚀  │ x        │
  └───────┴──────────┘

  • 日本語のテキストは幅が二
    倍なので折り返しが早くな
    ります
";
    assert_eq!(show(src, 28), want);
}

#[test]
fn control_sequences_in_model_text_are_neutralised() {
    let hostile =
        "before\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x07 after\x1b[?1049h\n\
        \x1b[31mred?\x1b[0m \u{9b}2J c1 \x1bP+q544e\x1b\\dcs \u{202e}desrever\n\
        ```sh\necho \x1b[8mhidden\x1b[28m \x1b[1A\x1b[2Kup\n```\n";
    let lines = render_markdown(hostile, MarkdownOptions::new(40));
    let mut t = terminal(40);
    t.process(to_ansi(&lines, &Palette::dark()).as_bytes());
    let spy = t.callbacks();
    assert_eq!(
        (spy.titles, spy.bells, spy.clipboard, spy.resizes),
        (0, 0, 0, 0)
    );
    assert!(!t.screen().alternate_screen());
    let want = "  before after
  red? c1 dcs desrever

  ┌ sh ────────────────────────────────┐
  │ echo hidden up                     │
  └────────────────────────────────────┘
";
    assert_eq!(screen_text(&t), want);
    // The only escape sequences left are our SGR codes.
    let ansi = to_ansi(&lines, &Palette::dark());
    for seq in ansi.split('\x1b').skip(1) {
        assert!(
            seq.starts_with('[') && seq.trim_end_matches(|c| c != 'm').ends_with('m'),
            "{seq:?}"
        );
    }
}

#[test]
fn resize_rewraps_what_was_streamed() {
    let mut stream = MarkdownStream::new(MarkdownOptions::new(40));
    stream.push(DOC);
    stream.finish();
    let narrow = stream.committed().to_vec();
    stream.set_width(80);
    let wide = stream.committed().to_vec();
    assert!(wide.len() < narrow.len());
    assert_eq!(wide, render_markdown(DOC, MarkdownOptions::new(80)));
}

#[test]
fn bytes_per_streamed_token_stay_small() {
    // Not a timing benchmark: a byte count (deterministic) showing that printing committed rows
    // once and repainting only the tail keeps output proportional to the text, not to the
    // reply's length. About 5,000 four-character deltas of mixed markdown.
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&format!(
            "Paragraph {i} of a long streamed reply, with **bold** and `code` spans "
        ));
        text.push_str("that runs over several rows before its newline arrives at last.\n\n");
        text.push_str("- a list item\n- another item with more words in it\n\n");
        if i % 10 == 0 {
            text.push_str("```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n");
        }
    }
    let chars: Vec<char> = text.chars().collect();
    let mut stream = MarkdownStream::new(MarkdownOptions::new(80));
    let mut painter = InlinePainter::new(80);
    let deltas = chars.chunks(4).count();
    for delta in chars.chunks(4) {
        stream.push(&delta.iter().collect::<String>());
        painter.paint(&stream);
    }
    let per_delta = painter.bytes_written / deltas;
    println!(
        "{deltas} deltas, {} bytes written, {per_delta} bytes per delta",
        painter.bytes_written
    );
    assert!(per_delta < 200, "{per_delta} bytes per 4-char delta");
}
