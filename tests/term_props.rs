//! Property tests: arbitrary input never panics the decoder, the editor or the renderer; rows
//! never exceed the width; sanitized text holds no control character but `\n` and `\t` (and
//! sanitizing again changes nothing); rendered rows pass the output audit; and
//! streaming in any chunking gives the same rows as rendering the whole text.
#![cfg(feature = "term")]

use fx_wasm::term::ansi::{audit, Allowed};
use fx_wasm::term::history::PromptHistory;
use fx_wasm::term::keys::{InputEvent, KeyDecoder};
use fx_wasm::term::line_editor::LineEditor;
use fx_wasm::term::markdown::{render_markdown, MarkdownOptions, MarkdownStream};
use fx_wasm::term::sanitize::{is_safe_char, sanitize};
use fx_wasm::term::style::{line_to_ansi, Palette};
use proptest::prelude::*;

/// Text biased toward markdown and terminal syntax.
fn markdownish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "|",
        "---",
        "| a | b |",
        "|:--|--:|",
        "```",
        "```rust",
        "~~~",
        "#",
        "## ",
        "- ",
        "* ",
        "1. ",
        "> ",
        "**",
        "*",
        "_",
        "`",
        "[",
        "](",
        ")",
        "<http://x>",
        "\n",
        "\n\n",
        " ",
        "    ",
        "\t",
        "word",
        "中文",
        "👍",
        "e\u{301}",
        "\u{1b}[31m",
        "\u{1b}]0;t\u{7}",
        "\u{9b}",
        "\r",
        "\\",
        "[ ] ",
        "\u{200d}",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decoder_and_editor_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), cut in 0usize..300) {
        let mut d = KeyDecoder::new();
        let mut e = LineEditor::new();
        let h = PromptHistory::from_entries(vec!["one".to_owned(), "two\nlines".to_owned()]);
        let cut = cut.min(bytes.len());
        let mut events = d.feed(&bytes[..cut]);
        events.extend(d.feed(&bytes[cut..]));
        events.extend(d.flush_pending());
        for ev in events {
            match ev {
                InputEvent::Key(k) => { e.handle_key(k, &h); }
                InputEvent::Paste(p) => { e.insert_paste(&p).unwrap(); }
                _ => {}
            }
            prop_assert!(e.text().is_char_boundary(e.cursor()));
            let layout = e.layout(7);
            prop_assert!(layout.cursor_col < 7);
            prop_assert!(layout.cursor_row < layout.rows.len());
        }
    }

    #[test]
    fn editor_keys_keep_invariants(keys in prop::collection::vec(0u8..40, 0..80)) {
        // A small alphabet of bytes covering the editing keys.
        let table: [&[u8]; 40] = [
            b"a", b" ", b"-", "中".as_bytes(), "👩\u{200d}👧".as_bytes(), b"\r", b"\x1b[13;2u", b"\\", b"\x7f",
            b"\x1b[3~", b"\x1b[D", b"\x1b[C", b"\x1b[A", b"\x1b[B", b"\x1b[H", b"\x1b[F", b"\x01", b"\x05", b"\x0b",
            b"\x15", b"\x17", b"\x19", b"\x1f", b"\x1a", b"\x1bb", b"\x1bf", b"\x1bd", b"\x1b\x7f", b"\x10", b"\x0e",
            b"\x1b[1;5D", b"\x1b[1;5C", b"\x1b[1;9A", b"\x1b[1;9B", b"\x1b[127;9u", b"\x1b[122;10u", b"\x04",
            b"\x1b[200~p1\np2\np3\np4\np5\np6\np7\np8\np9\np10\np11\x1b[201~", b"\x0a", b"\x1b[200~x\x1b[201~",
        ];
        let mut d = KeyDecoder::new();
        let mut e = LineEditor::new();
        let h = PromptHistory::from_entries(vec!["hist".to_owned()]);
        for k in keys {
            for ev in d.feed(table[usize::from(k)]) {
                match ev {
                    InputEvent::Key(key) => { e.handle_key(key, &h); }
                    InputEvent::Paste(p) => { e.insert_paste(&p).unwrap(); }
                    _ => {}
                }
                prop_assert!(e.text().is_char_boundary(e.cursor()));
                prop_assert!(e.cursor() <= e.text().len());
            }
        }
        let _ = e.submit();
        prop_assert!(e.is_empty());
    }

    #[test]
    fn sanitized_text_has_no_controls(s in any::<String>()) {
        let clean = sanitize(&s);
        prop_assert!(clean.chars().all(|c| c == '\n' || c == '\t' || is_safe_char(c)));
        prop_assert!(!clean.contains('\x1b'));
        prop_assert_eq!(sanitize(&clean), clean.clone(), "sanitizing twice changes nothing");
    }

    #[test]
    fn rendered_rows_fit_and_streaming_agrees(src in markdownish(), width in 1usize..120, chunk in 1usize..9) {
        let opts = MarkdownOptions::new(width);
        let whole = render_markdown(&src, opts);
        for line in &whole {
            prop_assert!(line.width() <= width.max(4), "{:?} > {width}", line.plain_text());
            let ansi = line_to_ansi(line, &Palette::dark());
            prop_assert_eq!(audit(ansi.as_str(), Allowed::Row), Ok(()));
        }
        let chars: Vec<char> = src.chars().collect();
        let mut s = MarkdownStream::new(opts);
        for c in chars.chunks(chunk) {
            s.push(&c.iter().collect::<String>());
            prop_assert_eq!(s.committed(), &whole[..s.committed().len()]);
        }
        s.finish();
        prop_assert_eq!(s.committed(), whole.as_slice());
    }
}
