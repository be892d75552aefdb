//! Tests of the `chat.send` message check: every rule, its message, and the sniffing table.

use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use super::*;

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
const GIF: &[u8] = b"GIF89a";

fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// An image of `len` bytes: the signature, then zeros.
fn image(signature: &[u8], len: usize) -> Vec<u8> {
    let mut bytes = signature.to_vec();
    bytes.resize(len, 0);
    bytes
}

fn file(name: &str, kind: &str, bytes: &[u8]) -> Value {
    json!({ "name": name, "type": kind, "data": b64(bytes) })
}

fn send(files: Vec<Value>) -> Result<CheckedMessage, MessageError> {
    check_message(&json!({ "text": "look", "messageId": "m1", "files": files }))
}

#[test]
fn sniffing_table() {
    let webp = b"RIFF\x10\0\0\0WEBPVP8 ";
    let cases: [(&[u8], Option<ImageType>); 11] = [
        (PNG, Some(ImageType::Png)),
        (&[0xff, 0xd8, 0xff, 0xe0], Some(ImageType::Jpeg)),
        (&[0xff, 0xd8, 0xff], Some(ImageType::Jpeg)),
        (b"GIF87a", Some(ImageType::Gif)),
        (GIF, Some(ImageType::Gif)),
        (webp, Some(ImageType::Webp)),
        (b"GIF88a", None),
        (b"RIFF\x10\0\0\0WAVEfmt ", None),
        (&PNG[..7], None),
        (b"hello", None),
        (b"", None),
    ];
    for (bytes, expected) in cases {
        assert_eq!(sniff_image(bytes), expected, "{bytes:?}");
    }
    assert_eq!(ImageType::Webp.media_type(), "image/webp");
}

#[test]
fn a_message_with_an_image_and_a_text_file() {
    let message = send(vec![
        file("cat.png", "image/png", &image(PNG, 100)),
        file("notes.txt", "text/markdown", "héllo\n".as_bytes()),
    ])
    .unwrap();
    assert_eq!(message.text, "look");
    assert_eq!(message.files.len(), 2);
    let (png, txt) = (&message.files[0], &message.files[1]);
    assert_eq!(png.kind, FileKind::Image(ImageType::Png));
    assert_eq!(
        (png.media_type.as_str(), png.bytes.len()),
        ("image/png", 100)
    );
    assert_eq!(png.text(), None);
    assert_eq!(txt.kind, FileKind::Text);
    assert_eq!(txt.media_type, "text/markdown");
    assert_eq!(txt.text(), Some("héllo\n"));
}

#[test]
fn the_sniffed_type_wins() {
    // A GIF named a.txt and declared text/plain is a GIF image.
    let gif = send(vec![file("a.txt", "text/plain", &image(GIF, 10))]).unwrap();
    assert_eq!(gif.files[0].kind, FileKind::Image(ImageType::Gif));
    assert_eq!(gif.files[0].media_type, "image/gif");
    // Text declared as an image is text, and its type is text/plain.
    let text = send(vec![file("a.png", "image/png", b"plain words")]).unwrap();
    assert_eq!(text.files[0].kind, FileKind::Text);
    assert_eq!(text.files[0].media_type, "text/plain");
    for declared in ["", "nonsense", "text/\"x\"", "TEXT/CSV"] {
        let t = send(vec![file("a", declared, b"x")]).unwrap();
        let expected = if declared == "TEXT/CSV" {
            "text/csv"
        } else {
            "text/plain"
        };
        assert_eq!(t.files[0].media_type, expected, "{declared}");
    }
    let untyped =
        check_message(&json!({"files": [{"name": "a.md", "data": b64(b"# hi")}]})).unwrap();
    assert_eq!(untyped.files[0].media_type, "text/plain");
}

#[test]
fn text_rules() {
    assert_eq!(
        check_message(&json!({"messageId": "m"})),
        Err(MessageError::TextRequired)
    );
    assert_eq!(
        check_message(&json!({"text": "  \n "})),
        Err(MessageError::TextRequired)
    );
    assert_eq!(
        check_message(&json!({"text": "", "files": []})),
        Err(MessageError::TextRequired)
    );
    assert!(check_message(&json!({"files": [file("a", "", b"x")]}))
        .unwrap()
        .text
        .is_empty());
    assert_eq!(
        check_message(&json!({"text": 3})),
        Err(MessageError::TextNotAString { found: "a number" })
    );
    assert_eq!(
        check_message(&json!({"text": "x".repeat(MIB + 1)})),
        Err(MessageError::TextTooLarge {
            bytes: MIB + 1,
            max: MIB
        })
    );
    assert_eq!(
        check_message(&json!("hi")).unwrap_err().to_string(),
        "the message must be an object, not a string"
    );
    assert_eq!(
        MessageError::TextRequired.to_string(),
        "text is required unless the message has files"
    );
}

#[test]
fn message_ids() {
    assert_eq!(
        message_id(&json!({"messageId": "m1"})).unwrap().as_str(),
        "m1"
    );
    let err = message_id(&json!({"messageId": "a/b", "text": "x"})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "messageId must be 1 to 128 letters, digits, '.', '_' or '-'; got \"a/b\""
    );
    assert_eq!(
        message_id(&json!({"text": "x"})).unwrap_err().to_string(),
        "messageId must be a string, not null"
    );
}

#[test]
fn file_shape_rules() {
    let nine = (0..9).map(|i| file(&format!("f{i}"), "", b"x")).collect();
    assert_eq!(
        send(nine),
        Err(MessageError::TooManyFiles { count: 9, max: 8 })
    );
    let eight = (0..8).map(|i| file(&format!("f{i}"), "", b"x")).collect();
    assert_eq!(send(eight).unwrap().files.len(), 8);
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"text": "x", "files": {}}),
            "files must be an array, not an object",
        ),
        (
            json!({"text": "x", "files": ["a"]}),
            "file 1 must be an object { name, type, data }, not a string",
        ),
        (
            json!({"text": "x", "files": [{"data": "eA=="}]}),
            "file 1 has no name",
        ),
        (
            json!({"text": "x", "files": [{"name": 1, "data": "eA=="}]}),
            "file 1: name must be a string, not a number",
        ),
        (
            json!({"text": "x", "files": [{"name": " ", "data": "eA=="}]}),
            "file 1: name \" \" is empty",
        ),
        (
            json!({"text": "x", "files": [{"name": "a\nb", "data": "eA=="}]}),
            "file 1: name \"a\\nb\" has control characters",
        ),
        (
            json!({"text": "x", "files": [{"name": "n".repeat(256), "data": "eA=="}]}),
            "is longer than 255 characters",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "type": 5, "data": "eA=="}]}),
            "file 1 (\"a\"): type must be a string, not a number",
        ),
        (
            json!({"text": "x", "files": [{"name": "a.txt", "type": "text/plain"}]}),
            "file 1 (\"a.txt\") has no data (base64 bytes are required)",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": [1]}]}),
            "file 1 (\"a\"): data must be a base64 string, not an array",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": "data:text/plain;base64,eA=="}]}),
            "data is a data: URL",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": "eA=*"}]}),
            "file 1 (\"a\"): data is not valid base64",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": "abcde"}]}),
            "5 characters is not a possible base64 length",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": "e A=="}]}),
            "data is not valid base64",
        ),
        (
            json!({"text": "x", "files": [{"name": "a", "data": "eA-_"}]}),
            "data is not valid base64",
        ),
    ];
    for (message, expected) in cases {
        let err = check_message(&message).unwrap_err().to_string();
        assert!(err.contains(expected), "{err} should contain {expected}");
    }
    // Padding is optional.
    assert_eq!(
        send(vec![json!({"name": "a", "data": "eA"})])
            .unwrap()
            .files[0]
            .bytes,
        b"x"
    );
    // Long data with a bad character after the sniffed head.
    let mut long = b64(&[b'a'; 30]);
    long.replace_range(20..21, "*");
    let err = send(vec![json!({"name": "a", "data": long})]).unwrap_err();
    assert!(
        matches!(err, MessageError::BadBase64 { index: 1, .. }),
        "{err}"
    );
}

#[test]
fn image_limits() {
    let max = Limits::DEFAULT.max_image_bytes;
    assert_eq!(max, 3_932_160);
    assert!(send(vec![file("a.png", "image/png", &image(PNG, max))]).is_ok());
    // The 4 MiB PNG.
    let err = send(vec![file("big.png", "image/png", &image(PNG, 4 * MIB))]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "file 1 (\"big.png\") is a PNG image of 4194304 bytes; an image may be at most 3932160 bytes (3.75 MiB)"
    );
    // Two images of 3.5 MiB: each fits, together over 6 MiB (the second is named).
    let half = 7 * MIB / 2;
    let err = send(vec![
        file("a.png", "", &image(PNG, half)),
        file("b.gif", "", &image(GIF, half)),
    ])
    .unwrap_err();
    assert_eq!(
        err,
        MessageError::ImagesTooLarge {
            bytes: 7 * MIB,
            max: 6 * MIB
        }
    );
    assert_eq!(
        err.to_string(),
        "the images of this message are 7340032 bytes together; they may be at most 6291456 bytes (6 MiB)"
    );
    // Exactly 6 MiB together passes.
    assert!(send(vec![
        file("a.png", "", &image(PNG, 3 * MIB)),
        file("b.png", "", &image(PNG, 3 * MIB))
    ])
    .is_ok());
}

#[test]
fn text_file_rules() {
    let err = send(vec![file("a.txt", "text/plain", b"ab\0cd")]).unwrap_err();
    assert_eq!(
        err,
        MessageError::HasNul {
            index: 1,
            name: "\"a.txt\"".into(),
            offset: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "file 1 (\"a.txt\") is not a text file: it has a NUL byte at byte 2"
    );
    let err = send(vec![
        file("x", "", b"ok"),
        file("bin", "", &[b'a', 0xc3, 0x28]),
    ])
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "file 2 (\"bin\") is neither a PNG, JPEG, GIF or WebP image nor UTF-8 text (invalid UTF-8 at byte 1)"
    );
    assert!(send(vec![file("max.txt", "", &vec![b'a'; MIB])]).is_ok());
    let err = send(vec![file("big.txt", "", &vec![b'a'; MIB + 1])]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "file 1 (\"big.txt\") is 1048577 bytes of text; a text file may be at most 1048576 bytes (1 MiB)"
    );
}

#[test]
fn the_total_rule() {
    // Unreachable with the defaults (8 × 1 MiB of text + 6 MiB of images < 16 MiB), so it is
    // checked with smaller limits.
    let limits = Limits {
        max_files_bytes: 10,
        ..Limits::DEFAULT
    };
    let message =
        json!({"text": "x", "files": [file("a", "", b"123456"), file("b", "", b"123456")]});
    assert_eq!(
        check_message_with(&message, &limits),
        Err(MessageError::FilesTooLarge { bytes: 12, max: 10 })
    );
    let ok = json!({"text": "x", "files": [file("a", "", b"12345"), file("b", "", b"12345")]});
    assert!(check_message_with(&ok, &limits).is_ok());
}

#[test]
fn decoded_lengths() {
    for n in 0..40 {
        let data = vec![7u8; n];
        assert_eq!(decoded_len(&b64(&data)), Some(n), "{n}");
        let unpadded = b64(&data).trim_end_matches('=').to_owned();
        assert_eq!(decoded_len(&unpadded), Some(n), "{n}");
    }
    assert_eq!(decoded_len("a"), None);
    assert_eq!(mib(3_932_160), "3.75 MiB");
    assert_eq!(mib(6 * MIB), "6 MiB");
    assert_eq!(mib(MIB + MIB / 2), "1.5 MiB");
}
