//! Table-driven tests for the line editor. Drafts are written with `|` marking the cursor.

use super::*;
use crate::term::history::PromptHistory;
use crate::term::keys::{KeyCode as K, KeyEvent, Modifiers};

#[derive(Clone)]
enum Act {
    Key(KeyEvent),
    Type(&'static str),
    Paste(String),
}

fn key(code: K) -> Act {
    Act::Key(KeyEvent::plain(code))
}
fn ctrl(c: char) -> Act {
    Act::Key(KeyEvent::ctrl(c))
}
fn alt(c: char) -> Act {
    Act::Key(KeyEvent::alt(c))
}
fn with(code: K, mods: Modifiers) -> Act {
    Act::Key(KeyEvent::new(code, mods))
}

fn editor(marked: &str) -> LineEditor {
    let cursor = marked.find('|').unwrap();
    let mut e = LineEditor::new();
    e.text = marked.replacen('|', "", 1);
    e.cursor = cursor;
    e
}

fn marked(e: &LineEditor) -> String {
    let mut s = e.text().to_owned();
    s.insert(e.cursor(), '|');
    s
}

fn run(e: &mut LineEditor, acts: &[Act], history: &PromptHistory) -> Vec<EditOutcome> {
    let mut out = Vec::new();
    for a in acts {
        match a {
            Act::Key(k) => out.push(e.handle_key(*k, history)),
            Act::Type(s) => {
                for c in s.chars() {
                    out.push(e.handle_key(KeyEvent::plain(K::Char(c)), history));
                }
            }
            Act::Paste(s) => {
                e.insert_paste(s).unwrap();
                out.push(EditOutcome::Changed);
            }
        }
    }
    out
}

#[test]
fn editing_table() {
    let s = Modifiers::SHIFT;
    let a = Modifiers::ALT;
    let c = Modifiers::CTRL;
    let m = Modifiers::SUPER;
    let cases: Vec<(&str, &str, Vec<Act>, &str)> = vec![
        ("type", "|", vec![Act::Type("hello")], "hello|"),
        ("insert mid", "he|llo", vec![Act::Type("XY")], "heXY|llo"),
        (
            "left right",
            "abc|",
            vec![key(K::Left), key(K::Left), key(K::Right)],
            "ab|c",
        ),
        (
            "ctrl-b ctrl-f",
            "abc|",
            vec![ctrl('b'), ctrl('b'), ctrl('f')],
            "ab|c",
        ),
        ("backspace", "abc|", vec![key(K::Backspace)], "ab|"),
        (
            "backspace at start",
            "|abc",
            vec![key(K::Backspace)],
            "|abc",
        ),
        ("delete", "a|bc", vec![key(K::Delete)], "a|c"),
        ("ctrl-d deletes", "a|bc", vec![ctrl('d')], "a|c"),
        (
            "emoji is one step",
            "a👩\u{200d}👧|",
            vec![key(K::Left)],
            "a|👩\u{200d}👧",
        ),
        (
            "emoji backspace",
            "a👩\u{200d}👧|b",
            vec![key(K::Backspace)],
            "a|b",
        ),
        (
            "combining backspace",
            "e\u{301}|",
            vec![key(K::Backspace)],
            "|",
        ),
        (
            "cjk",
            "中|文",
            vec![key(K::Right), key(K::Backspace)],
            "中|",
        ),
        ("home end", "ab|cd", vec![key(K::Home)], "|abcd"),
        ("ctrl-e", "ab|cd", vec![ctrl('e')], "abcd|"),
        (
            "ctrl-a on second line",
            "ab\ncd|",
            vec![ctrl('a')],
            "ab\n|cd",
        ),
        (
            "cmd-left/right",
            "ab\ncd|ef",
            vec![with(K::Left, m)],
            "ab\n|cdef",
        ),
        ("ctrl-home", "ab\ncd|", vec![with(K::Home, c)], "|ab\ncd"),
        ("alt-b", "foo bar-baz|", vec![alt('b')], "foo bar-|baz"),
        (
            "alt-b twice",
            "foo bar-baz|",
            vec![alt('b'), alt('b'), alt('b')],
            "foo |bar-baz",
        ),
        ("alt-f", "|foo bar", vec![alt('f')], "foo| bar"),
        (
            "ctrl-right",
            "|foo bar",
            vec![with(K::Right, c), with(K::Right, c)],
            "foo bar|",
        ),
        ("alt-left", "foo bar|", vec![with(K::Left, a)], "foo |bar"),
        (
            "ctrl-w whitespace word",
            "alpha beta gamma-delta|",
            vec![ctrl('w')],
            "alpha beta |",
        ),
        (
            "alt-backspace punct word",
            "alpha beta gamma-delta|",
            vec![with(K::Backspace, a)],
            "alpha beta gamma-|",
        ),
        ("alt-d", "foo| bar baz", vec![alt('d')], "foo| baz"),
        ("ctrl-k", "ab|cd\nef", vec![ctrl('k')], "ab|\nef"),
        ("ctrl-k at eol joins", "ab|\nef", vec![ctrl('k')], "ab|ef"),
        ("ctrl-u", "ab\ncd|ef", vec![ctrl('u')], "ab\n|ef"),
        (
            "cmd-backspace",
            "ab\ncd|ef",
            vec![with(K::Backspace, m)],
            "ab\n|ef",
        ),
        (
            "kill then yank",
            "one two|",
            vec![ctrl('w'), ctrl('a'), ctrl('y')],
            "two|one ",
        ),
        (
            "consecutive kills join",
            "a b c|",
            vec![ctrl('w'), ctrl('w'), ctrl('y')],
            "a b c|",
        ),
        (
            "shift-enter newline",
            "ab|",
            vec![with(K::Enter, s), Act::Type("c")],
            "ab\nc|",
        ),
        ("alt-enter newline", "ab|", vec![with(K::Enter, a)], "ab\n|"),
        ("ctrl-j newline", "ab|", vec![ctrl('j')], "ab\n|"),
        (
            "backslash enter",
            "line one\\|",
            vec![key(K::Enter), Act::Type("two")],
            "line one\ntwo|",
        ),
        (
            "up moves a line",
            "abcd\nef|",
            vec![key(K::Up)],
            "ab|cd\nef",
        ),
        (
            "down keeps goal column",
            "abcd|\nx\nabcdef",
            vec![key(K::Down), key(K::Down)],
            "abcd\nx\nabcd|ef",
        ),
        (
            "up by width",
            "中文字\nabcd|",
            vec![key(K::Up)],
            "中文|字\nabcd",
        ),
        (
            "up on first line goes to start",
            "ab|c",
            vec![key(K::Up)],
            "|abc",
        ),
        (
            "down on last line goes to end",
            "a|bc",
            vec![key(K::Down)],
            "abc|",
        ),
        (
            "undo typing by word",
            "|",
            vec![Act::Type("hello world"), ctrl('_')],
            "hello|",
        ),
        (
            "undo twice",
            "|",
            vec![Act::Type("hello world"), ctrl('_'), ctrl('_')],
            "|",
        ),
        (
            "undo kill",
            "abc def|",
            vec![ctrl('w'), ctrl('z')],
            "abc def|",
        ),
        (
            "redo",
            "|",
            vec![
                Act::Type("ab"),
                with(K::Char('z'), m),
                with(K::Char('z'), m | s),
            ],
            "ab|",
        ),
        (
            "small paste inline",
            "x|",
            vec![Act::Paste("p1\np2".into())],
            "xp1\np2|",
        ),
        (
            "unknown key ignored",
            "a|",
            vec![key(K::F(5)), key(K::Escape), key(K::Tab)],
            "a|",
        ),
    ];
    let history = PromptHistory::new();
    for (name, start, acts, want) in cases {
        let mut e = editor(start);
        run(&mut e, &acts, &history);
        assert_eq!(marked(&e), want, "{name}");
    }
}

#[test]
fn enter_submits_and_expands() {
    let h = PromptHistory::new();
    let mut e = editor("|");
    run(&mut e, &[Act::Type("  hi  ")], &h);
    assert_eq!(
        e.handle_key(KeyEvent::plain(K::Enter), &h),
        EditOutcome::Submit
    );
    assert_eq!(e.submit().as_deref(), Some("hi"));
    assert!(e.is_empty());
    assert_eq!(e.submit(), None);
}

#[test]
fn large_paste_collapses_and_expands() {
    let h = PromptHistory::new();
    let big: String = (1..=42).map(|i| format!("line {i}\n")).collect();
    let long_line = "x".repeat(1500);
    let mut e = editor("|");
    run(
        &mut e,
        &[
            Act::Type("see "),
            Act::Paste(big.clone()),
            Act::Type(" and "),
            Act::Paste(long_line.clone()),
        ],
        &h,
    );
    assert_eq!(
        e.text(),
        "see [Pasted text #1 +42 lines] and [Pasted text #2 +1500 chars]"
    );
    // The placeholder is one unit: Left jumps over it, Backspace removes it whole.
    e.handle_key(KeyEvent::plain(K::Backspace), &h);
    assert_eq!(marked(&e), "see [Pasted text #1 +42 lines] and |");
    run(
        &mut e,
        &[
            Act::Type("!"),
            key(K::Left),
            key(K::Left),
            key(K::Left),
            key(K::Left),
            key(K::Left),
            key(K::Left),
            key(K::Left),
        ],
        &h,
    );
    assert_eq!(marked(&e), "see |[Pasted text #1 +42 lines] and !");
    e.handle_key(KeyEvent::ctrl('z'), &h);
    let mut e2 = editor("|");
    run(&mut e2, &[Act::Paste(big.clone()), Act::Type(" tail")], &h);
    assert_eq!(e2.submit().unwrap(), format!("{} tail", big.trim_start()));
    // Word motion does not stop inside a placeholder.
    let mut e3 = editor("|");
    run(&mut e3, &[Act::Paste(big), alt('b')], &h);
    assert_eq!(e3.cursor(), 0);
}

#[test]
fn oversized_draft_is_rejected() {
    let mut e = LineEditor::new();
    let huge = "a".repeat(DRAFT_LIMIT_BYTES + 1);
    let err = e.insert_paste(&huge).unwrap_err();
    assert_eq!(err.code(), "FX_TERM_DRAFT_TOO_LARGE");
    assert!(e.is_empty());
}

#[test]
fn history_navigation() {
    let mut h = PromptHistory::new();
    h.push("first");
    h.push("second\nline");
    let mut e = editor("draft|");
    let up = key(K::Up);
    let down = key(K::Down);
    // Up on the first line goes to the draft start first, then recalls; while browsing,
    // Up on a recalled entry's first line goes straight to the older entry.
    let steps: Vec<(Act, &str)> = vec![
        (up.clone(), "|draft"),
        (up.clone(), "second\nline|"),
        (up.clone(), "seco|nd\nline"),
        (up.clone(), "first|"),
        (up.clone(), "first|"),
        (down.clone(), "second\nline|"),
        (down.clone(), "|draft"),
        (ctrl('p'), "second\nline|"),
        (ctrl('p'), "first|"),
        (ctrl('n'), "second\nline|"),
        (ctrl('n'), "|draft"),
        (ctrl('n'), "|draft"),
    ];
    for (i, (act, want)) in steps.into_iter().enumerate() {
        run(&mut e, &[act], &h);
        assert_eq!(marked(&e), want, "step {i}");
    }
    // Editing a recalled entry ends browsing; undo brings the draft back.
    run(&mut e, &[ctrl('p'), Act::Type("!")], &h);
    assert_eq!(marked(&e), "second\nline!|");
    run(&mut e, &[ctrl('_'), ctrl('_')], &h);
    assert_eq!(marked(&e), "|draft");
}

#[test]
fn layout_wraps_words_and_places_the_cursor() {
    type Case<'a> = (&'a str, usize, &'a [&'a str], (usize, usize));
    let cases: &[Case] = &[
        ("|", 10, &[""], (0, 0)),
        ("hello world|", 20, &["hello world"], (0, 11)),
        ("hello world|", 8, &["hello ", "world"], (1, 5)),
        ("hello |world", 8, &["hello ", "world"], (1, 0)),
        ("abcdefghij|", 4, &["abcd", "efgh", "ij"], (2, 2)),
        ("abcd|", 4, &["abcd", ""], (1, 0)),
        ("ab\n|cd", 10, &["ab", "cd"], (1, 0)),
        ("ab|\ncd", 10, &["ab", "cd"], (0, 2)),
        ("中文中文|x", 5, &["中文", "中文x"], (1, 4)),
        ("a\n\n|", 5, &["a", "", ""], (2, 0)),
    ];
    for (draft, width, rows, (row, col)) in cases {
        let l = editor(draft).layout(*width);
        assert_eq!(l.rows, *rows, "{draft:?} at {width}");
        assert_eq!(
            (l.cursor_row, l.cursor_col),
            (*row, *col),
            "{draft:?} at {width}"
        );
    }
}
