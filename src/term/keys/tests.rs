//! Table-driven tests for the input decoder.

use super::*;

fn k(code: KeyCode, mods: Modifiers) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, mods))
}
fn ch(c: char) -> InputEvent {
    k(KeyCode::Char(c), Modifiers::NONE)
}
fn ctrl(c: char) -> InputEvent {
    InputEvent::Key(KeyEvent::ctrl(c))
}
fn alt(c: char) -> InputEvent {
    InputEvent::Key(KeyEvent::alt(c))
}
fn plain(code: KeyCode) -> InputEvent {
    k(code, Modifiers::NONE)
}
const S: Modifiers = Modifiers::SHIFT;
const A: Modifiers = Modifiers::ALT;
const C: Modifiers = Modifiers::CTRL;
const M: Modifiers = Modifiers::SUPER;

fn cases() -> Vec<(&'static str, &'static [u8], Vec<InputEvent>)> {
    use KeyCode::*;
    vec![
        ("ascii", b"hi", vec![ch('h'), ch('i')]),
        (
            "utf8",
            "é中👍".as_bytes(),
            vec![ch('é'), ch('中'), ch('👍')],
        ),
        ("enter", b"\r", vec![plain(Enter)]),
        ("ctrl-j newline", b"\n", vec![ctrl('j')]),
        ("tab", b"\t", vec![plain(Tab)]),
        ("del", b"\x7f", vec![plain(Backspace)]),
        ("bs", b"\x08", vec![plain(Backspace)]),
        (
            "ctrl-a..z",
            b"\x01\x05\x0b\x15\x17\x19\x1a",
            vec![
                ctrl('a'),
                ctrl('e'),
                ctrl('k'),
                ctrl('u'),
                ctrl('w'),
                ctrl('y'),
                ctrl('z'),
            ],
        ),
        ("ctrl-c ctrl-d", b"\x03\x04", vec![ctrl('c'), ctrl('d')]),
        ("ctrl-underscore", b"\x1f", vec![ctrl('_')]),
        ("ctrl-space", b"\x00", vec![ctrl(' ')]),
        (
            "arrows",
            b"\x1b[A\x1b[B\x1b[C\x1b[D",
            vec![plain(Up), plain(Down), plain(Right), plain(Left)],
        ),
        ("ss3 arrows", b"\x1bOA\x1bOD", vec![plain(Up), plain(Left)]),
        (
            "home end",
            b"\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~\x1b[7~\x1b[8~",
            vec![
                plain(Home),
                plain(End),
                plain(Home),
                plain(End),
                plain(Home),
                plain(End),
                plain(Home),
                plain(End),
            ],
        ),
        (
            "pg ins del",
            b"\x1b[5~\x1b[6~\x1b[2~\x1b[3~",
            vec![plain(PageUp), plain(PageDown), plain(Insert), plain(Delete)],
        ),
        (
            "f keys",
            b"\x1bOP\x1bOS\x1b[15~\x1b[17~\x1b[24~",
            vec![
                plain(F(1)),
                plain(F(4)),
                plain(F(5)),
                plain(F(6)),
                plain(F(12)),
            ],
        ),
        ("ctrl-right", b"\x1b[1;5C", vec![k(Right, C)]),
        ("alt-left", b"\x1b[1;3D", vec![k(Left, A)]),
        ("shift-up", b"\x1b[1;2A", vec![k(Up, S)]),
        ("cmd-left", b"\x1b[1;9D", vec![k(Left, M)]),
        ("cmd-shift-up", b"\x1b[1;10A", vec![k(Up, M | S)]),
        ("ctrl-delete", b"\x1b[3;5~", vec![k(Delete, C)]),
        ("shift-tab", b"\x1b[Z", vec![k(Tab, S)]),
        ("shift-enter csi-u", b"\x1b[13;2u", vec![k(Enter, S)]),
        ("cmd-backspace", b"\x1b[127;9u", vec![k(Backspace, M)]),
        (
            "cmd-shift-backspace",
            b"\x1b[127;10u",
            vec![k(Backspace, M | S)],
        ),
        ("cmd-z", b"\x1b[122;9u", vec![k(Char('z'), M)]),
        ("cmd-shift-z", b"\x1b[122;10u", vec![k(Char('z'), M | S)]),
        ("kitty ctrl-a", b"\x1b[97;5u", vec![ctrl('a')]),
        ("kitty shift-a", b"\x1b[97;2u", vec![ch('A')]),
        ("kitty escape", b"\x1b[27u", vec![plain(Escape)]),
        ("kitty release ignored", b"\x1b[97;5:3u", vec![]),
        ("kitty repeat", b"\x1b[97;5:2u", vec![ctrl('a')]),
        ("kitty caps lock ignored", b"\x1b[97;69u", vec![ctrl('a')]),
        ("kitty keypad ignored", b"\x1b[57399u", vec![]),
        (
            "modifyOtherKeys",
            b"\x1b[27;5;13~\x1b[27;2;13~",
            vec![k(Enter, C), k(Enter, S)],
        ),
        (
            "alt-b alt-f alt-d",
            b"\x1bb\x1bf\x1bd",
            vec![alt('b'), alt('f'), alt('d')],
        ),
        ("alt-backspace", b"\x1b\x7f", vec![k(Backspace, A)]),
        ("alt-enter", b"\x1b\r", vec![k(Enter, A)]),
        ("alt-utf8", "\u{1b}é".as_bytes(), vec![alt('é')]),
        ("esc then ctrl", b"\x1b\x03", vec![plain(Escape), ctrl('c')]),
        ("esc esc", b"\x1b\x1b[A", vec![plain(Escape), plain(Up)]),
        (
            "focus",
            b"\x1b[I\x1b[O",
            vec![InputEvent::Focus(true), InputEvent::Focus(false)],
        ),
        (
            "scheme",
            b"\x1b[?997;1n\x1b[?997;2n",
            vec![
                InputEvent::ColorScheme(ColorScheme::Dark),
                InputEvent::ColorScheme(ColorScheme::Light),
            ],
        ),
        ("da1", b"\x1b[?1;2c", vec![InputEvent::DeviceAttributes]),
        (
            "osc11 st",
            b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\",
            vec![InputEvent::BackgroundColor(Rgb {
                r: 255,
                g: 255,
                b: 255,
            })],
        ),
        (
            "osc11 bel",
            b"\x1b]11;rgb:1e/1e/2e\x07",
            vec![InputEvent::BackgroundColor(Rgb {
                r: 0x1e,
                g: 0x1e,
                b: 0x2e,
            })],
        ),
        (
            "osc11 short digits",
            b"\x1b]11;rgb:f/0/8\x07",
            vec![InputEvent::BackgroundColor(Rgb {
                r: 255,
                g: 0,
                b: 136,
            })],
        ),
        (
            "osc other swallowed",
            b"\x1b]10;rgb:0/0/0\x07x",
            vec![ch('x')],
        ),
        (
            "cursor report",
            b"\x1b[12;1R\x1b[12;2R",
            vec![
                InputEvent::CursorPosition { row: 12, col: 1 },
                InputEvent::CursorPosition { row: 12, col: 2 },
            ],
        ),
        ("sgr mouse swallowed", b"\x1b[<0;10;5Ma", vec![ch('a')]),
        ("x10 mouse swallowed", b"\x1b[M !!b", vec![ch('b')]),
        ("unknown csi swallowed", b"\x1b[99;99zq", vec![ch('q')]),
        ("da2 swallowed", b"\x1b[>0;276;0cq", vec![ch('q')]),
        (
            "paste",
            b"\x1b[200~hello\r\nworld\x1b[201~",
            vec![InputEvent::Paste("hello\nworld".into())],
        ),
        (
            "paste with escapes",
            b"\x1b[200~a\x1b[Ab\x03\tc\x1b[201~x",
            vec![InputEvent::Paste("a[Ab\tc".into()), ch('x')],
        ),
        (
            "paste invalid utf8",
            b"\x1b[200~\xff\x1b[201~",
            vec![InputEvent::PasteRejected(PasteRejection::InvalidUtf8)],
        ),
        (
            "empty paste",
            b"\x1b[200~\x1b[201~",
            vec![InputEvent::Paste(String::new())],
        ),
        ("stray paste end", b"\x1b[201~z", vec![ch('z')]),
        (
            "invalid utf8 dropped",
            b"a\xffb\xc3",
            vec![ch('a'), ch('b')],
        ),
        ("csi broken by control", b"\x1b[1\x03", vec![ctrl('c')]),
    ]
}

#[test]
fn decodes_whole_input() {
    for (name, bytes, want) in cases() {
        let mut d = KeyDecoder::new();
        assert_eq!(d.feed(bytes), want, "{name}");
        assert!(!d.escape_pending(), "{name}: left an escape pending");
    }
}

#[test]
fn decodes_the_same_when_split_at_any_byte() {
    for (name, bytes, want) in cases() {
        for cut in 0..=bytes.len() {
            let mut d = KeyDecoder::new();
            let mut got = d.feed(&bytes[..cut]);
            got.extend(d.feed(&bytes[cut..]));
            assert_eq!(got, want, "{name} cut at {cut}");
        }
        // And one byte at a time.
        let mut d = KeyDecoder::new();
        let got: Vec<InputEvent> = bytes.iter().flat_map(|b| d.feed(&[*b])).collect();
        assert_eq!(got, want, "{name} bytewise");
    }
}

#[test]
fn lone_escape_waits_for_the_callers_timeout() {
    let mut d = KeyDecoder::new();
    assert_eq!(d.feed(b"\x1b"), vec![]);
    assert!(d.escape_pending());
    assert_eq!(d.flush_pending(), vec![plain(KeyCode::Escape)]);
    assert!(!d.escape_pending());
    assert_eq!(d.flush_pending(), vec![]);

    // More input before the timeout continues the sequence instead.
    assert_eq!(d.feed(b"\x1b"), vec![]);
    assert_eq!(d.feed(b"[A"), vec![plain(KeyCode::Up)]);

    let table: &[(&[u8], Vec<InputEvent>)] = &[
        (b"\x1b[", vec![alt('[')]),
        (b"\x1bO", vec![alt('O')]),
        (b"\x1b]", vec![alt(']')]),
        (b"\x1b[1;5", vec![]),
        (b"\x1b]11;rgb:00", vec![]),
    ];
    for (bytes, want) in table {
        let mut d = KeyDecoder::new();
        assert_eq!(d.feed(bytes), vec![]);
        assert!(d.escape_pending(), "{bytes:?}");
        assert_eq!(&d.flush_pending(), want, "{bytes:?}");
        assert_eq!(d.feed(b"x"), vec![ch('x')]);
    }
}

#[test]
fn partial_utf8_is_not_an_escape() {
    let mut d = KeyDecoder::new();
    assert_eq!(d.feed(&"中".as_bytes()[..1]), vec![]);
    assert!(!d.escape_pending());
    assert_eq!(d.feed(&"中".as_bytes()[1..]), vec![ch('中')]);
}

#[test]
fn paste_split_across_feeds_is_collected() {
    let mut d = KeyDecoder::new();
    let mut got = Vec::new();
    for chunk in [
        &b"\x1b[20"[..],
        b"0~line 1\r",
        b"\nline 2\x1b[2",
        b"01",
        b"~after",
    ] {
        got.extend(d.feed(chunk));
    }
    let mut want = vec![InputEvent::Paste("line 1\nline 2".into())];
    want.extend("after".chars().map(ch));
    assert_eq!(got, want);
    // While a paste is open, an ESC inside it is data, not a pending Escape key.
    assert_eq!(d.feed(b"\x1b[200~\x1b"), vec![]);
    assert!(!d.escape_pending());
}

#[test]
fn oversized_input_stays_bounded() {
    let mut d = KeyDecoder::new();
    let mut long = b"\x1b[".to_vec();
    long.extend(std::iter::repeat_n(b'1', 10_000));
    assert_eq!(d.feed(&long), vec![]);
    assert!(d.buf.len() <= SEQUENCE_LIMIT);
    assert_eq!(d.feed(b"~z"), vec![ch('z')]);

    let mut osc = b"\x1b]11;".to_vec();
    osc.extend(std::iter::repeat_n(b'a', 10_000));
    assert_eq!(d.feed(&osc), vec![]);
    assert!(d.buf.len() <= OSC_LIMIT);
    assert_eq!(d.feed(b"\x1b\\y"), vec![ch('y')]);

    let mut paste = b"\x1b[200~".to_vec();
    paste.extend(std::iter::repeat_n(b'p', PASTE_LIMIT_BYTES + 1));
    paste.extend_from_slice(b"\x1b[201~");
    assert_eq!(
        d.feed(&paste),
        vec![InputEvent::PasteRejected(PasteRejection::TooLarge)]
    );
}

#[test]
fn rgb_lightness() {
    assert!(Rgb {
        r: 255,
        g: 255,
        b: 255
    }
    .is_light());
    assert!(!Rgb {
        r: 30,
        g: 30,
        b: 46
    }
    .is_light());
}
