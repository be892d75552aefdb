//! Rendering and streaming tests for the markdown renderer (plain-text snapshots).

use super::*;

fn text(lines: &[StyledLine]) -> String {
    lines
        .iter()
        .map(|l| l.plain_text().trim_end().to_owned() + "\n")
        .collect()
}

fn render(src: &str, width: usize) -> String {
    text(&render_markdown(src, MarkdownOptions::new(width)))
}

const SAMPLE: &str = "# Title\n\nSome **bold** and `code` with a [link](https://example.com).\n\n- one\n- two\n  - nested\n1. first\n2. second\n\n> quoted text\n\n```rust\nfn main() {\n    println!(\"hi\"); // greet\n}\n```\n\n| name | qty |\n|------|----:|\n| apple | 3 |\n| kiwi | 12 |\n\n---\nend\n";

#[test]
fn renders_sample_at_40() {
    let want = "  Title

  Some bold and code with a link
  (https://example.com).

  • one
  • two
    • nested
  1. first
  2. second

  │ quoted text

  ┌ rust ──────────────────────────────┐
  │ fn main() {                        │
  │     println!(\"hi\"); // greet       │
  │ }                                  │
  └────────────────────────────────────┘

  ┌───────┬─────┐
  │ name  │ qty │
  ├───────┼─────┤
  │ apple │   3 │
  │ kiwi  │  12 │
  └───────┴─────┘

  ──────────────────────────────────────
  end
";
    assert_eq!(render(SAMPLE, 40), want);
}

#[test]
fn every_row_fits_the_width() {
    for width in [10, 20, 40, 80, 200] {
        for line in render_markdown(SAMPLE, MarkdownOptions::new(width)) {
            assert!(
                line.width() <= width,
                "width {width}: {:?} is {}",
                line.plain_text(),
                line.width()
            );
        }
    }
}

#[test]
fn streaming_matches_whole_render_for_any_chunking() {
    let whole = render_markdown(SAMPLE, MarkdownOptions::new(60));
    let chars: Vec<char> = SAMPLE.chars().collect();
    for size in 1..=9 {
        let mut s = MarkdownStream::new(MarkdownOptions::new(60));
        let mut seen_committed = 0;
        for chunk in chars.chunks(size) {
            s.push(&chunk.iter().collect::<String>());
            // Committed rows only grow and are final.
            assert!(s.committed().len() >= seen_committed);
            assert_eq!(s.committed(), &whole[..s.committed().len()], "chunk {size}");
            seen_committed = s.committed().len();
            for row in s.lines() {
                let t = row.plain_text();
                assert!(
                    !t.contains("|-") && !t.contains("| "),
                    "raw table syntax shown: {t:?}"
                );
                assert!(!t.contains("```"), "raw fence shown: {t:?}");
            }
        }
        s.finish();
        assert_eq!(s.committed(), whole.as_slice(), "chunk {size}");
        assert!(s.tail().is_empty());
    }
}

#[test]
fn tail_previews_unfinished_blocks() {
    let mut s = MarkdownStream::new(MarkdownOptions {
        width: 30,
        margin: 0,
    });
    s.push("Hello wor");
    assert_eq!(text(s.committed()), "");
    assert_eq!(text(&s.tail()), "Hello wor\n");
    s.push("ld\n```sh\necho hi\n");
    assert_eq!(
        text(s.committed()),
        "Hello world\n\n┌ sh ────────────────────────┐\n│ echo hi                    │\n"
    );
    // The open box gets a provisional bottom edge in the tail.
    assert_eq!(text(&s.tail()), "└────────────────────────────┘\n");
    s.push("```\n| a | b |\n|---|");
    // A possible table header and a partial delimiter row are held, never shown raw.
    assert_eq!(text(&s.tail()), "");
    s.push("---|\n| 1 | 2 |\n");
    assert_eq!(
        text(&s.tail()),
        "\n┌───┬───┐\n│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n"
    );
}

#[test]
fn blocks_table() {
    let cases: &[(&str, usize, &str)] = &[
        ("a\nb\n", 20, "  a\n  b\n"),
        ("a\n\n\n\nb", 20, "  a\n\n  b\n"),
        ("## Sub ##\ntext", 20, "  Sub\n  text\n"),
        ("- [ ] todo\n- [x] done", 20, "  ☐ todo\n  ✓ done\n"),
        (
            "* a\n    * b\n        * c\n* d",
            20,
            "  • a\n    • b\n      • c\n  • d\n",
        ),
        (
            "- item that wraps across lines",
            16,
            "  • item that\n    wraps across\n    lines\n",
        ),
        ("- item\n  continued", 20, "  • item\n    continued\n"),
        ("> a\n>> b", 20, "  │ a\n  │ │ b\n"),
        ("a | b", 20, "  a | b\n"),
        ("x\n***\ny", 8, "  x\n  ──────\n  y\n"),
        (
            "```\nunclosed",
            20,
            "  ┌────────────────┐\n  │ unclosed       │\n  └────────────────┘\n",
        ),
        ("~~~py\nx = 1\n~~~", 12, "  py\n  x = 1\n"),
        (
            "| a |\n|---|\n| 1 |\ntext",
            20,
            "  ┌───┐\n  │ a │\n  ├───┤\n  │ 1 │\n  └───┘\n\n  text\n",
        ),
    ];
    for (src, width, want) in cases {
        assert_eq!(render(src, *width), *want, "{src:?} at {width}");
    }
}

#[test]
fn narrow_tables_go_vertical() {
    let src = "| name | description |\n|---|---|\n| fx | a coding agent in the browser |\n| vt | terminal |\n";
    assert_eq!(
        render(src, 14),
        "  name: fx\n  description:\n    a coding\n    agent in\n    the\n    browser\n  ────────────\n  name: vt\n  description:\n    terminal\n"
    );
    let wide = render(src, 50);
    assert!(
        wide.contains("│ fx   │ a coding agent in the browser │"),
        "{wide}"
    );
}

#[test]
fn model_control_sequences_are_neutralised() {
    let src =
        "safe \u{1b}[2J\u{1b}]0;title\u{7}text\u{1b}[31m red\u{9b}1m\n```\n\u{1b}[1;1Hcode\n```\n";
    let lines = render_markdown(src, MarkdownOptions::new(40));
    let ansi = crate::term::style::to_ansi(&lines, &crate::term::style::Palette::dark());
    assert!(
        !ansi.contains("[2J")
            && !ansi.contains("]0;")
            && !ansi.contains("[31m")
            && !ansi.contains("[1;1H")
    );
    assert!(text(&lines).contains("safe text red"));
}

#[test]
fn resize_rewraps_from_source() {
    let mut s = MarkdownStream::new(MarkdownOptions::new(20));
    s.push("one two three four five six seven\n");
    assert_eq!(
        text(s.committed()),
        "  one two three four\n  five six seven\n"
    );
    s.set_width(40);
    assert_eq!(text(s.committed()), "  one two three four five six seven\n");
    s.push("more");
    s.finish();
    s.set_width(12);
    assert_eq!(
        text(s.committed()),
        "  one two\n  three four\n  five six\n  seven\n  more\n"
    );
    assert!(s.is_finished());
}

#[test]
fn rows_fit_even_when_the_width_leaves_no_room_for_the_margin() {
    // Found by the markdown fuzz target: at width 4 a bullet and a wide character took 6 cells.
    let sources = [
        "- 中文",
        "- 中文\n> ste  1. deep\n",
        "\u{0}\u{8}\u{3}- 中文\u{fffd}deep\n> ste  1. deep\n> quoted\n\n***\n# H\n## H2\n",
        SAMPLE,
    ];
    for src in sources {
        for width in 4..=12 {
            for line in render_markdown(src, MarkdownOptions::new(width)) {
                assert!(
                    line.width() <= width,
                    "width {width}: {:?} is {}",
                    line.plain_text(),
                    line.width()
                );
            }
        }
    }
}
