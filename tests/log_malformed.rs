//! The strict loader's rejection table: one mutated fixture per rule, each asserting the exact
//! reason and seq; plus what the loader must tolerate.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod log_common;

use fx_wasm::log::{read_session, LogError, Reason};
use log_common::{events, join, lines};
use serde_json::{json, Value};

/// The multiturn fixture: 35 frames; turns at 7, 18 (terminal call), 29 (read_file), 35.
fn base() -> Vec<String> {
    lines(&events("multiturn"))
}

/// The log with frame `seq` (1-based) rewritten through a JSON value.
fn edit(seq: usize, f: impl FnOnce(&mut Value)) -> Vec<u8> {
    edit_in(base(), seq, f)
}

fn edit_in(mut lines: Vec<String>, seq: usize, f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut v: Value = serde_json::from_str(&lines[seq - 1]).unwrap();
    f(&mut v);
    lines[seq - 1] = serde_json::to_string(&v).unwrap();
    join(&lines)
}

/// The log with text `from` replaced by `to` in frame `seq`.
fn text(seq: usize, from: &str, to: &str) -> Vec<u8> {
    let mut lines = base();
    assert!(lines[seq - 1].contains(from), "{from} not in frame {seq}");
    lines[seq - 1] = lines[seq - 1].replacen(from, to, 1);
    join(&lines)
}

fn err(bytes: &[u8]) -> LogError {
    match read_session(bytes) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn check(name: &str, bytes: &[u8], seq: Option<u64>, reason: Reason) {
    let e = err(bytes);
    assert_eq!((e.seq, &e.reason), (seq, &reason), "{name}: {e}");
    assert_eq!(e.code(), "FX_SESSION_INVALID");
}

fn unknown(key: &str, path: &str) -> Reason {
    Reason::UnknownKey {
        key: key.into(),
        path: path.into(),
    }
}

fn wrong(path: &str, expected: &'static str) -> Reason {
    Reason::WrongType {
        path: path.into(),
        expected,
    }
}

const DB: &str = "a string or durable-bytes object";
const STEP: &str = "payload.turn.execution.tool_steps[0]";

#[test]
fn unknown_keys_at_every_level() {
    let files = lines(&events("files"));
    let image = lines(&events("image"));
    let cases: Vec<(&str, Vec<u8>, u64, Reason)> = vec![
        (
            "envelope",
            edit(7, |v| v["foo"] = json!(1)),
            7,
            unknown("foo", "frame"),
        ),
        (
            "payload",
            edit(7, |v| v["payload"]["foo"] = json!(1)),
            7,
            unknown("foo", "payload"),
        ),
        (
            "turn",
            edit(7, |v| v["payload"]["turn"]["foo"] = json!(1)),
            7,
            unknown("foo", "payload.turn"),
        ),
        (
            "user",
            edit(7, |v| v["payload"]["turn"]["user"]["foo"] = json!(1)),
            7,
            unknown("foo", "payload.turn.user"),
        ),
        (
            "image",
            edit_in(image.clone(), 2, |v| {
                v["payload"]["checkpoint"]["user"]["images"][0]["foo"] = json!(1)
            }),
            2,
            unknown("foo", "payload.checkpoint.user.images[0]"),
        ),
        (
            "tool call",
            edit(18, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_calls"][0]["foo"] =
                    json!(1)
            }),
            18,
            unknown("foo", &format!("{STEP}.tool_calls[0]")),
        ),
        (
            "result",
            edit(18, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]["foo"] =
                    json!(1)
            }),
            18,
            unknown("foo", &format!("{STEP}.tool_results[0]")),
        ),
        (
            "file",
            edit(29, |v| {
                v["payload"]["turn"]["execution"]["files"][0]["foo"] = json!(1)
            }),
            29,
            unknown("foo", "payload.turn.execution.files[0]"),
        ),
        (
            "presentation",
            edit_in(files.clone(), 13, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]
                    ["committed_file_presentation"]["foo"] = json!(1)
            }),
            13,
            unknown(
                "foo",
                &format!("{STEP}.tool_results[0].committed_file_presentation"),
            ),
        ),
        (
            "diff line",
            edit_in(files, 13, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]
                    ["committed_file_presentation"]["lines"][1]["foo"] = json!(1)
            }),
            13,
            unknown(
                "foo",
                &format!("{STEP}.tool_results[0].committed_file_presentation.lines[1]"),
            ),
        ),
        (
            "preferences",
            edit(1, |v| v["payload"]["preferences"]["foo"] = json!(1)),
            1,
            unknown("foo", "payload.preferences"),
        ),
        (
            "usage",
            edit(3, |v| v["payload"]["usage"]["foo"] = json!(1)),
            3,
            unknown("foo", "payload.usage"),
        ),
        (
            "checkpoint",
            edit(2, |v| v["payload"]["checkpoint"]["foo"] = json!(1)),
            2,
            unknown("foo", "payload.checkpoint"),
        ),
        (
            "execution",
            edit(7, |v| v["payload"]["turn"]["execution"]["foo"] = json!(1)),
            7,
            unknown("foo", "payload.turn.execution"),
        ),
        (
            "recovery cleared",
            edit(2, |v| {
                v["kind"] = json!("recovery_checkpoint_cleared");
                v["payload"] = json!({"x": 1});
            }),
            2,
            unknown("x", "payload"),
        ),
    ];
    for (name, bytes, seq, reason) in cases {
        check(name, &bytes, Some(seq), reason);
    }
}

#[test]
fn missing_keys_kinds_and_types() {
    let missing = |key: &'static str, path: &str| Reason::MissingKey {
        key,
        path: path.into(),
    };
    let cases: Vec<(&str, Vec<u8>, u64, Reason)> = vec![
        (
            "envelope key",
            edit(7, |v| drop(v.as_object_mut().unwrap().remove("event_id"))),
            7,
            missing("event_id", "frame"),
        ),
        (
            "turn key",
            edit(7, |v| {
                drop(
                    v["payload"]["turn"]
                        .as_object_mut()
                        .unwrap()
                        .remove("assistant"),
                )
            }),
            7,
            missing("assistant", "payload.turn"),
        ),
        (
            "result key",
            edit(18, |v| {
                drop(
                    v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]
                        .as_object_mut()
                        .unwrap()
                        .remove("preview"),
                )
            }),
            18,
            missing("preview", &format!("{STEP}.tool_results[0]")),
        ),
        (
            "unknown event kind",
            edit(7, |v| v["kind"] = json!("turn_done")),
            7,
            Reason::UnknownEventKind("turn_done".into()),
        ),
        (
            "unknown turn kind",
            edit(7, |v| v["payload"]["turn"]["kind"] = json!("robot")),
            7,
            Reason::UnknownValue {
                path: "payload.turn.kind".into(),
                value: "robot".into(),
            },
        ),
        (
            "unknown status",
            edit(18, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]["status"] =
                    json!("ok")
            }),
            18,
            Reason::UnknownValue {
                path: format!("{STEP}.tool_results[0].status"),
                value: "ok".into(),
            },
        ),
        (
            "unknown cause",
            edit(2, |v| {
                v["payload"]["checkpoint"]["cause"] = json!("gremlins")
            }),
            2,
            Reason::UnknownValue {
                path: "payload.checkpoint.cause".into(),
                value: "gremlins".into(),
            },
        ),
        (
            "unknown provider",
            edit(1, |v| {
                v["payload"]["preferences"]["provider"] = json!("acme")
            }),
            1,
            Reason::UnknownValue {
                path: "payload.preferences.provider".into(),
                value: "acme".into(),
            },
        ),
        (
            "seq as string",
            edit(7, |v| v["seq"] = json!("7")),
            7,
            wrong("frame.seq", "an unsigned integer"),
        ),
        (
            "null committed assistant",
            edit(7, |v| v["payload"]["turn"]["assistant"] = Value::Null),
            7,
            wrong("payload.turn.assistant", DB),
        ),
        (
            "number as text",
            edit(7, |v| v["payload"]["turn"]["user"]["text"] = json!(5)),
            7,
            wrong("payload.turn.user.text", DB),
        ),
        (
            "numeric tool output",
            edit(18, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]["output"] =
                    json!(42)
            }),
            18,
            wrong(&format!("{STEP}.tool_results[0].output"), DB),
        ),
        (
            "array tool output",
            edit(18, |v| {
                v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]["output"] =
                    json!(["a"])
            }),
            18,
            wrong(&format!("{STEP}.tool_results[0].output"), DB),
        ),
        (
            "bool as string",
            edit(1, |v| {
                v["payload"]["preferences"]["fast_mode"] = json!("true")
            }),
            1,
            wrong("payload.preferences.fast_mode", "a boolean"),
        ),
        (
            "images not an array",
            edit(7, |v| v["payload"]["turn"]["user"]["images"] = json!({})),
            7,
            wrong("payload.turn.user.images", "an array"),
        ),
        (
            "schema_version string",
            edit(7, |v| v["schema_version"] = json!("1")),
            7,
            wrong("frame.schema_version", "an integer"),
        ),
        (
            "schema_version 2",
            edit(7, |v| v["schema_version"] = json!(2)),
            7,
            Reason::UnsupportedSchema("2".into()),
        ),
    ];
    for (name, bytes, seq, reason) in cases {
        check(name, &bytes, Some(seq), reason);
    }
}

#[test]
fn numbers_hex_base64_and_durable_bytes() {
    let bad_int = |path: &str| Reason::BadInteger {
        path: path.into(),
        expected: "an unsigned integer",
    };
    let durable = |detail: &'static str| Reason::BadDurableBytes {
        path: "payload.turn.assistant".into(),
        detail,
    };
    let cases: Vec<(&str, Vec<u8>, u64, Reason)> = vec![
        (
            "float seq",
            text(7, "\"seq\":7,", "\"seq\":7.0,"),
            7,
            bad_int("frame.seq"),
        ),
        (
            "exponent seq",
            text(7, "\"seq\":7,", "\"seq\":7e0,"),
            7,
            bad_int("frame.seq"),
        ),
        (
            "negative total",
            text(7, "\"total_input_tokens\":12", "\"total_input_tokens\":-12"),
            7,
            bad_int("payload.total_input_tokens"),
        ),
        (
            "negative zero",
            text(7, "\"total_input_tokens\":12", "\"total_input_tokens\":-0"),
            7,
            bad_int("payload.total_input_tokens"),
        ),
        (
            "overflow",
            text(
                7,
                "\"total_input_tokens\":12",
                "\"total_input_tokens\":18446744073709551616",
            ),
            7,
            bad_int("payload.total_input_tokens"),
        ),
        (
            "float timestamp",
            edit(7, |v| v["timestamp_ms"] = json!(1.5)),
            7,
            Reason::BadInteger {
                path: "frame.timestamp_ms".into(),
                expected: "an integer",
            },
        ),
        (
            "negative timestamp",
            edit(7, |v| v["timestamp_ms"] = json!(-1)),
            7,
            Reason::InvalidField {
                path: "frame.timestamp_ms".into(),
                detail: "must not be negative",
            },
        ),
        (
            "uppercase event id",
            edit(7, |v| {
                v["event_id"] = json!(v["event_id"].as_str().unwrap().to_uppercase())
            }),
            7,
            Reason::BadHex {
                path: "frame.event_id".into(),
                digits: 32,
            },
        ),
        (
            "short generation",
            edit(7, |v| v["log_generation"] = json!("abc")),
            7,
            Reason::BadHex {
                path: "frame.log_generation".into(),
                digits: 32,
            },
        ),
        (
            "durable object is UTF-8",
            text(
                7,
                "\"assistant\":\"Hello world.\"",
                "\"assistant\":{\"encoding\":\"base64\",\"data\":\"aGk=\"}",
            ),
            7,
            durable("the object form must hold bytes that are not valid UTF-8"),
        ),
        (
            "durable object bad base64",
            text(
                7,
                "\"assistant\":\"Hello world.\"",
                "\"assistant\":{\"encoding\":\"base64\",\"data\":\"/wB=\"}",
            ),
            7,
            durable("data is not canonical base64"),
        ),
        (
            "durable object other encoding",
            text(
                7,
                "\"assistant\":\"Hello world.\"",
                "\"assistant\":{\"encoding\":\"hex\",\"data\":\"ff\"}",
            ),
            7,
            durable("encoding must be \"base64\""),
        ),
        (
            "durable object key order",
            text(
                7,
                "\"assistant\":\"Hello world.\"",
                "\"assistant\":{\"data\":\"/w==\",\"encoding\":\"base64\"}",
            ),
            7,
            durable("the object form must be {\"encoding\",\"data\"}"),
        ),
        (
            "durable object extra key",
            text(
                7,
                "\"assistant\":\"Hello world.\"",
                "\"assistant\":{\"encoding\":\"base64\",\"data\":\"/w==\",\"x\":1}",
            ),
            7,
            durable("the object form must be {\"encoding\",\"data\"}"),
        ),
    ];
    for (name, bytes, seq, reason) in cases {
        check(name, &bytes, Some(seq), reason);
    }
    // The object form with non-UTF-8 bytes is valid and shows lossily.
    let ok = text(
        7,
        "\"assistant\":\"Hello world.\"",
        "\"assistant\":{\"encoding\":\"base64\",\"data\":\"aGn/\"}",
    );
    let v = read_session(&ok).unwrap();
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["turns"][0]["assistant"], "hi\u{fffd}");
}

#[test]
fn frame_shape() {
    let lines = base();
    let mut truncated = join(&lines);
    truncated.pop();
    check("truncated", &truncated, Some(35), Reason::TruncatedFrame);
    check("empty", b"", None, Reason::Empty);
    check(
        "random bytes",
        b"\x07hello world\n",
        Some(1),
        Reason::InvalidJson {
            offset: 0,
            detail: "unexpected character",
        },
    );
    check(
        "non-UTF-8",
        b"{\"a\":\"\xff\"}\n",
        Some(1),
        Reason::InvalidUtf8,
    );
    let mut bad_utf8 = lines.clone();
    bad_utf8[6] = bad_utf8[6].replacen("say hello", "say \u{1}", 1);
    let mut bytes = join(&bad_utf8);
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xff;
    check(
        "invalid UTF-8 in a string",
        &bytes,
        Some(7),
        Reason::InvalidUtf8,
    );
    let dup = text(
        7,
        "{\"schema_version\":1,",
        "{\"schema_version\":1,\"schema_version\":1,",
    );
    check(
        "duplicate key",
        &dup,
        Some(7),
        Reason::DuplicateKey {
            key: "schema_version".into(),
            offset: 20,
        },
    );
    let surrogate = text(7, "\"say hello\"", "\"say \\ud800\"");
    let offset = lines[6].find("\"say hello\"").unwrap() + 11;
    check(
        "lone surrogate",
        &surrogate,
        Some(7),
        Reason::InvalidJson {
            offset,
            detail: "lone surrogate escape",
        },
    );
    let embedded = text(7, "\"say hello\"", "\"say\nhello\"");
    let offset = lines[6].find("\"say hello\"").unwrap() + 4;
    check(
        "embedded newline",
        &embedded,
        Some(7),
        Reason::InvalidJson {
            offset,
            detail: "unterminated string",
        },
    );
    check(
        "blank line",
        &join(&[lines[0].clone(), String::new()]),
        Some(2),
        Reason::InvalidJson {
            offset: 0,
            detail: "unexpected end of input",
        },
    );

    // 8 MiB including the newline is the limit; whitespace padding is tolerated inside frames.
    let limit = 8 * 1024 * 1024;
    let mut big = lines.clone();
    big[6] = format!(
        "{{{}{}",
        " ".repeat(limit - 1 - lines[6].len()),
        &lines[6][1..]
    );
    assert_eq!(big[6].len() + 1, limit);
    assert!(read_session(&join(&big)).is_ok());
    big[6].insert(1, ' ');
    check(
        "frame over 8 MiB",
        &join(&big),
        Some(7),
        Reason::FrameTooLarge { bytes: limit + 1 },
    );
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    check(
        "too deep",
        format!("{deep}\n").as_bytes(),
        Some(1),
        Reason::InvalidJson {
            offset: 128,
            detail: "nesting too deep",
        },
    );
}

#[test]
fn sequence_and_generation() {
    let lines = base();
    let mut gap = lines.clone();
    gap.remove(7);
    check(
        "gap",
        &join(&gap),
        Some(8),
        Reason::NonContiguousSequence {
            expected: 8,
            found: 9,
        },
    );
    let mut dup = lines.clone();
    dup.insert(7, lines[6].clone());
    check(
        "duplicate",
        &join(&dup),
        Some(8),
        Reason::NonContiguousSequence {
            expected: 8,
            found: 7,
        },
    );
    let mut swapped = lines.clone();
    swapped.swap(7, 8);
    check(
        "reordered",
        &join(&swapped),
        Some(8),
        Reason::NonContiguousSequence {
            expected: 8,
            found: 9,
        },
    );
    let generation = edit(7, |v| {
        v["log_generation"] = json!("00000000000000000000000000000000")
    });
    check(
        "generation change",
        &generation,
        Some(7),
        Reason::GenerationChanged,
    );
    check(
        "no session_started",
        &join(&lines[1..]),
        Some(1),
        Reason::MissingSessionStarted,
    );
    let zero = edit(1, |v| v["seq"] = json!(0));
    check(
        "seq 0",
        &zero,
        Some(1),
        Reason::NonContiguousSequence {
            expected: 1,
            found: 0,
        },
    );
    let mut second = lines.clone();
    let mut again: Value = serde_json::from_str(&lines[0]).unwrap();
    again["seq"] = json!(36);
    second.push(serde_json::to_string(&again).unwrap());
    check(
        "second session_started",
        &join(&second),
        Some(36),
        Reason::SecondSessionStarted,
    );
}

#[test]
fn value_rules() {
    let invalid = |path: &str, detail: &'static str| Reason::InvalidField {
        path: path.into(),
        detail,
    };
    let cases: Vec<(&str, Vec<u8>, u64, Reason)> = vec![
        ("session id charset", edit(1, |v| v["payload"]["id"] = json!("a/b")), 1, invalid("payload.id", "a session id must be 1-255 bytes of [A-Za-z0-9._-], not . or ..")),
        ("session id dot", edit(1, |v| v["payload"]["id"] = json!("..")), 1, invalid("payload.id", "a session id must be 1-255 bytes of [A-Za-z0-9._-], not . or ..")),
        ("relative root", edit(1, |v| v["payload"]["workspace_root"] = json!("project")), 1, invalid("payload.workspace_root", "a workspace root must be an absolute path of at most 4096 bytes")),
        ("language spaces", edit(7, |v| v["payload"]["conversation_language"] = json!(" en")), 7, invalid("payload.conversation_language", "a conversation language must be 1-24 bytes without control characters or surrounding whitespace")),
        ("language too long", edit(7, |v| v["payload"]["conversation_language"] = json!("x".repeat(25))), 7, invalid("payload.conversation_language", "a conversation language must be 1-24 bytes without control characters or surrounding whitespace")),
        ("model empty", edit(1, |v| v["payload"]["preferences"]["model"] = json!("")), 1, invalid("payload.preferences.model", "a model id must be 1-1024 bytes without control characters or surrounding whitespace")),
        ("effort charset", edit(1, |v| v["payload"]["preferences"]["effort"] = json!("very high")), 1, invalid("payload.preferences.effort", "an effort must be auto or 1-64 characters of [A-Za-z0-9._-]")),
        ("empty preferences_changed", edit(7, |v| { v["kind"] = json!("preferences_changed"); v["payload"] = json!({}); }), 7, invalid("payload", "preferences_changed needs at least one key")),
        ("image locator", edit_in(lines(&events("image")), 2, |v| v["payload"]["checkpoint"]["user"]["images"][0]["snapshot_path"] = json!("../../etc/passwd")), 2, invalid("payload.checkpoint.user.images[0].snapshot_path", "must be images/image-<id>-<first 16 hex of sha>.bin")),
        ("image half snapshot", edit_in(lines(&events("image")), 2, |v| v["payload"]["checkpoint"]["user"]["images"][0]["snapshot_path"] = Value::Null), 2, invalid("payload.checkpoint.user.images[0]", "snapshot_path and snapshot_sha256 must both be null or both be set")),
    ];
    for (name, bytes, seq, reason) in cases {
        check(name, &bytes, Some(seq), reason);
    }
}

fn usage_case(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    edit(3, |v| f(&mut v["payload"]["usage"]))
}

#[test]
fn usage_invariants() {
    let usage = |detail: &'static str| Reason::InvalidUsage {
        path: "payload.usage".into(),
        detail,
    };
    let model = json!({"model":"m/x","first_sequence":1,"total_cost":0.5,"input_tokens":10,"output_tokens":2,"cache_read_tokens":0,"cache_write_tokens":0,"billable_web_search_calls":0});
    let cases: Vec<(&str, Vec<u8>, Reason)> = vec![
        (
            "cost without models",
            usage_case(|u| u["total_cost"] = json!(1.5)),
            usage("total_cost must equal the sum of the model costs"),
        ),
        (
            "negative cost",
            usage_case(|u| u["total_cost"] = json!(-1.0)),
            usage("total_cost must be finite and not negative"),
        ),
        (
            "settled >= next",
            usage_case(|u| u["settled_through_sequence"] = json!(2)),
            usage("settled_through_sequence must be below next_sequence"),
        ),
        (
            "next 0",
            usage_case(|u| {
                u["next_sequence"] = json!(0);
                u["settled_through_sequence"] = json!(0);
            }),
            usage("next_sequence must be at least 1"),
        ),
        (
            "tokens without models",
            usage_case(|u| u["input_tokens"] = json!(5)),
            usage("token counters must equal the sum over models"),
        ),
        (
            "model sequence",
            usage_case(|u| {
                u["models"] = json!([model.clone()]);
                u["models"][0]["first_sequence"] = json!(2);
                u["total_cost"] = json!(0.5);
                u["input_tokens"] = json!(10);
                u["output_tokens"] = json!(2);
            }),
            usage("model first_sequence out of range or not increasing"),
        ),
        (
            "cache > input",
            usage_case(|u| {
                u["models"] = json!([model.clone()]);
                u["models"][0]["cache_read_tokens"] = json!(11);
                u["total_cost"] = json!(0.5);
                u["input_tokens"] = json!(10);
                u["output_tokens"] = json!(2);
                u["cache_read_tokens"] = json!(11);
            }),
            usage("model cache tokens exceed its input tokens"),
        ),
        (
            "complete with pending",
            usage_case(|u| {
                u["billing"] = json!("complete");
                u["pending"] = json!([{"id":"g1","sequence":1,"origin":"gateway","team":null}]);
            }),
            usage("complete billing requires no pending generations"),
        ),
        (
            "pending without pending",
            usage_case(|u| u["billing"] = json!("pending")),
            usage("pending billing requires pending generations"),
        ),
        (
            "identifier charset",
            usage_case(|u| {
                u["pending"] = json!([{"id":"g 1","sequence":1,"origin":"gateway","team":null}])
            }),
            Reason::InvalidUsage {
                path: "payload.usage.pending[0].id".into(),
                detail: "identifiers must be printable ASCII within their length limit",
            },
        ),
        (
            "duplicate pending",
            usage_case(
                |u| u["pending"] = json!([{"id":"g1","sequence":1,"origin":"o","team":null},{"id":"g1","sequence":1,"origin":"o","team":"t"}]),
            ),
            usage("pending ids and sequences must be unique"),
        ),
    ];
    for (name, bytes, reason) in cases {
        check(name, &bytes, Some(3), reason);
    }
    // A consistent snapshot with a model and a pending generation loads.
    let ok = usage_case(|u| {
        u["models"] = json!([model]);
        u["total_cost"] = json!(0.5);
        u["input_tokens"] = json!(10);
        u["output_tokens"] = json!(2);
        u["pending"] = json!([{"id":"g1","sequence":1,"origin":"gateway","team":null}]);
    });
    read_session(&ok).unwrap();
}

#[test]
fn recovery_checkpoint_invariants() {
    let cp = |f: &dyn Fn(&mut Value)| edit(2, |v| f(&mut v["payload"]["checkpoint"]));
    let cases: Vec<(&str, Vec<u8>, &'static str)> = vec![
        (
            "version",
            cp(&|c| c["version"] = json!(2)),
            "version must be 1",
        ),
        (
            "turn id 0",
            cp(&|c| c["turn_id"] = json!(0)),
            "turn_id must not be 0",
        ),
        (
            "max 0",
            cp(&|c| {
                c["max_provider_attempts"] = json!(0);
                c["outstanding_reservation"] = json!(false);
            }),
            "max_provider_attempts must be at least 1",
        ),
        (
            "consumed > max",
            cp(&|c| {
                c["consumed_provider_attempts"] = json!(11);
                c["outstanding_reservation"] = json!(false);
            }),
            "consumed_provider_attempts exceeds max_provider_attempts",
        ),
        (
            "reservation without attempts",
            cp(&|c| c["consumed_provider_attempts"] = json!(10)),
            "an outstanding reservation needs an attempt left",
        ),
    ];
    for (name, bytes, detail) in cases {
        check(name, &bytes, Some(2), Reason::InvalidCheckpoint(detail));
    }
    // route_provider may be missing (defaults to gateway).
    read_session(&cp(&|c| {
        drop(c.as_object_mut().unwrap().remove("route_provider"))
    }))
    .unwrap();
}

#[test]
fn work_id_rules() {
    let cases: Vec<(&str, Vec<u8>, &'static str)> = vec![
        (
            "different",
            edit(7, |v| {
                v["payload"]["work_id"] = json!("w1");
                v["payload"]["turn"]["user"]["work_id"] = json!("w2");
            }),
            "payload work_id differs from turn.user.work_id",
        ),
        (
            "user only",
            edit(7, |v| v["payload"]["turn"]["user"]["work_id"] = json!("w2")),
            "turn.user.work_id is set without a payload work_id",
        ),
        (
            "summary",
            edit(7, |v| {
                v["payload"]["work_id"] = json!("w1");
                v["payload"]["turn"] = json!({"kind":"compacted_summary","summary":"s","removed_turn_count":1,"compaction_count":1});
            }),
            "a compacted_summary turn cannot carry a work_id",
        ),
    ];
    for (name, bytes, detail) in cases {
        check(name, &bytes, Some(7), Reason::InvalidWorkId(detail));
    }
    check(
        "empty work id",
        &edit(7, |v| v["payload"]["work_id"] = json!("")),
        Some(7),
        Reason::InvalidField {
            path: "payload.work_id".into(),
            detail: "a work_id must be 1-128 bytes without NUL",
        },
    );
    let copied = edit(7, |v| v["payload"]["work_id"] = json!("w1"));
    let loaded = fx_wasm::log::load(&copied).unwrap();
    assert_eq!(
        loaded.state.history[0].user().unwrap().work_id.as_deref(),
        Some("w1")
    );
    assert_eq!(loaded.state.last_subagent_work_id.as_deref(), Some("w1"));
}

#[test]
fn workspace_rebound_rules() {
    let rebound = |prev: &str, root: &str| {
        let mut l = base();
        let mut v: Value = serde_json::from_str(&l[7]).unwrap();
        v["kind"] = json!("workspace_rebound");
        v["payload"] = json!({"previous_workspace_root": prev, "workspace_root": root});
        l[7] = serde_json::to_string(&v).unwrap();
        join(&l)
    };
    check(
        "wrong previous",
        &rebound("/elsewhere", "/new"),
        Some(8),
        Reason::InvalidRebound("previous_workspace_root is not the current workspace root"),
    );
    check(
        "same root",
        &rebound("/home/user/project", "/home/user/project"),
        Some(8),
        Reason::InvalidRebound("the new workspace root equals the current one"),
    );
    check(
        "empty",
        &rebound("/home/user/project", ""),
        Some(8),
        Reason::InvalidRebound("both roots must be non-empty"),
    );
    let v = read_session(&rebound("/home/user/project", "/home/user/other")).unwrap();
    assert_eq!(v.workspace_root, "/home/user/other");
    assert_eq!(v.origin_workspace_root, "/home/user/project");
}

#[test]
fn malformed_arguments_are_repaired_or_rejected() {
    let args = |v: &mut Value| {
        v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_calls"][0]["arguments_json"] =
            json!("{\"command\":")
    };
    let view = read_session(&edit(18, args)).unwrap();
    let json = serde_json::to_value(&view).unwrap();
    let step = &json["turns"][1]["steps"][0];
    assert_eq!(step["toolCalls"][0]["argumentsJson"], "{}");
    assert_eq!(step["toolResults"][0]["status"], "failure");
    let output = step["toolResults"][0]["output"].as_str().unwrap();
    let parsed: Value = serde_json::from_str(output).unwrap();
    assert_eq!(parsed["error"]["type"], "tool_execution_failed");
    assert_eq!(parsed["error"]["tool_name"], "terminal");
    assert_eq!(step["toolResults"][0]["outputBytes"], output.len());

    let dup_keys = edit(18, |v| {
        v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_calls"][0]["arguments_json"] =
            json!("{\"a\":1,\"a\":2}")
    });
    let json = serde_json::to_value(read_session(&dup_keys).unwrap()).unwrap();
    assert_eq!(
        json["turns"][1]["steps"][0]["toolCalls"][0]["argumentsJson"],
        "{}"
    );

    let unpaired = edit(18, |v| {
        args(v);
        v["payload"]["turn"]["execution"]["tool_steps"][0]["tool_results"][0]["tool_call_id"] =
            json!("other");
    });
    check(
        "no paired result",
        &unpaired,
        Some(18),
        Reason::UnrepairableArguments {
            path: format!("{STEP}.tool_calls[0]"),
            detail: "no single result pairs with it",
        },
    );
    let interrupted = edit(7, |v| {
        v["payload"]["turn"] = json!({"kind":"interrupted","user":{"text":"x","images":[]},"assistant":null,
            "tool_call":{"id":"c","name":"terminal","arguments_json":"{oops","provider_result":null},"completed_tool_names":[]});
    });
    let json = serde_json::to_value(read_session(&interrupted).unwrap()).unwrap();
    assert_eq!(json["turns"][0]["toolCall"]["argumentsJson"], "{}");
    assert_eq!(
        json["turns"][0]["reason"], "cancelled",
        "a missing terminal_reason reads as cancelled"
    );
}

#[test]
fn tolerated_variations() {
    let lines = base();
    // CR before LF, whitespace between tokens, another key order.
    let mut crlf: Vec<String> = lines.iter().map(|l| format!("{l}\r")).collect();
    crlf[6] = crlf[6].replace(",\"", " ,\t\"").replacen('{', " { ", 1);
    let mut reordered: Value = serde_json::from_str(&lines[17]).unwrap();
    reordered.as_object_mut().unwrap().sort_keys();
    crlf[17] = serde_json::to_string(&reordered).unwrap();
    let a = read_session(&join(&crlf)).unwrap();
    assert_eq!(a, read_session(&join(&lines)).unwrap());

    // 3-key preferences, legacy schema-1 results, missing image snapshot keys, legacy
    // summaries and background commands.
    let v = read_session(&edit(1, |v| {
        drop(
            v["payload"]["preferences"]
                .as_object_mut()
                .unwrap()
                .remove("provider"),
        )
    }))
    .unwrap();
    assert_eq!(v.preferences.provider, "gateway");
    let legacy = edit(18, |v| {
        let exec = &mut v["payload"]["turn"]["execution"];
        exec["schema_version"] = json!(1);
        let result = exec["tool_steps"][0]["tool_results"][0]
            .as_object_mut()
            .unwrap();
        for key in [
            "permission_feedback",
            "committed_file_presentation",
            "command_output_replay",
            "command_process_presentation",
        ] {
            result.remove(key);
        }
    });
    read_session(&legacy).unwrap();
    let schema2 = edit(18, |v| {
        let exec = &mut v["payload"]["turn"]["execution"];
        exec["schema_version"] = json!(2);
        let result = exec["tool_steps"][0]["tool_results"][0]
            .as_object_mut()
            .unwrap();
        result.remove("command_output_replay");
        result.remove("command_process_presentation");
    });
    read_session(&schema2).unwrap();
    let image = edit(7, |v| {
        v["payload"]["turn"]["user"]["images"] =
            json!([{"id":1,"path":"/a.png","media_type":"image/png"}])
    });
    assert_eq!(read_session(&image).unwrap().title, "say hello");
    let summary = edit(7, |v| {
        v["payload"]["turn"] = json!({"kind":"compacted_summary","summary":"s","removed_turn_count":3,"compaction_count":1,
            "root_user_messages":["a"],"root_user_messages_complete":true});
    });
    read_session(&summary).unwrap();
    let bad_summary = edit(7, |v| {
        v["payload"]["turn"] = json!({"kind":"compacted_summary","summary":"s","removed_turn_count":3,"compaction_count":1,
            "root_user_messages":["a"],"root_user_messages_complete":true,"permission_feedback":[]});
    });
    check(
        "7-key summary",
        &bad_summary,
        Some(7),
        Reason::InvalidField {
            path: "payload.turn".into(),
            detail: "a legacy compacted_summary must have 4, 5, 6 or 8 keys",
        },
    );
    let background = edit(7, |v| {
        v["payload"]["turn"] = json!({"kind":"background_command","user":{"text":"serve","images":[]},"log_path":"/tmp/l.log",
            "expect_url":true,"url":"http://localhost:3000","background_record_id":null});
    });
    let json = serde_json::to_value(read_session(&background).unwrap()).unwrap();
    assert_eq!(json["turns"][0]["kind"], "background_command");
    assert_eq!(json["turns"][0]["url"], "http://localhost:3000");
    // Effort aliases and provider case are canonicalized.
    let aliases = edit(1, |v| {
        v["payload"]["preferences"]["effort"] = json!("Adaptive");
        v["payload"]["preferences"]["provider"] = json!("GROK");
    });
    let v = read_session(&aliases).unwrap();
    assert_eq!(
        (v.preferences.effort.as_str(), v.preferences.provider),
        ("auto", "grok")
    );
}

mod replacement {
    use super::*;
    use base64::Engine as _;
    use sha2::{Digest, Sha256};

    fn interactive() -> Vec<String> {
        lines(&events("interactive"))
    }

    /// The decoded state document of the interactive fixture's replacement.
    fn document() -> Vec<u8> {
        let chunk: Value = serde_json::from_str(&interactive()[34]).unwrap();
        base64::engine::general_purpose::STANDARD
            .decode(chunk["payload"]["base64"].as_str().unwrap())
            .unwrap()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Rewrites frames 34–36 to carry `doc`, then lets `f` tamper with the three frames.
    fn with_doc(doc: &[u8], f: impl FnOnce(&mut [Value])) -> Vec<u8> {
        let mut l = interactive();
        let mut frames: Vec<Value> = l[33..36]
            .iter()
            .map(|s| serde_json::from_str(s).unwrap())
            .collect();
        let sha = hex(&Sha256::digest(doc));
        for i in [0, 2] {
            frames[i]["payload"]["encoded_bytes"] = json!(doc.len());
            frames[i]["payload"]["sha256"] = json!(sha);
        }
        frames[1]["payload"]["raw_bytes"] = json!(doc.len());
        frames[1]["payload"]["chunk_sha256"] = json!(sha);
        frames[1]["payload"]["base64"] =
            json!(base64::engine::general_purpose::STANDARD.encode(doc));
        f(&mut frames);
        for (i, v) in frames.iter().enumerate() {
            l[33 + i] = serde_json::to_string(v).unwrap();
        }
        join(&l)
    }

    fn tamper(f: impl FnOnce(&mut [Value])) -> Vec<u8> {
        with_doc(&document(), f)
    }

    fn bad(detail: &'static str) -> Reason {
        Reason::InvalidReplacement(detail)
    }

    #[test]
    fn the_untouched_rebuild_loads() {
        read_session(&tamper(|_| {})).unwrap();
    }

    #[test]
    fn integrity_checks() {
        let doc = document();
        let cases: Vec<(&str, Vec<u8>, u64, Reason)> = vec![
            (
                "chunk sha",
                tamper(|f| f[1]["payload"]["chunk_sha256"] = json!("0".repeat(64))),
                35,
                bad("chunk_sha256 does not match the chunk"),
            ),
            (
                "total sha",
                tamper(|f| {
                    f[0]["payload"]["sha256"] = json!("0".repeat(64));
                    f[2]["payload"]["sha256"] = json!("0".repeat(64));
                }),
                36,
                bad("sha256 does not match the state document"),
            ),
            (
                "commit repeats",
                tamper(|f| f[2]["payload"]["sha256"] = json!("0".repeat(64))),
                36,
                bad("the commit frame does not repeat the started frame"),
            ),
            (
                "encoded bytes",
                tamper(|f| f[2]["payload"]["encoded_bytes"] = json!(3000)),
                36,
                bad("the commit frame does not repeat the started frame"),
            ),
            (
                "chunk count",
                tamper(|f| f[0]["payload"]["chunk_count"] = json!(2)),
                34,
                bad("chunk_count does not match encoded_bytes"),
            ),
            (
                "zero bytes",
                tamper(|f| {
                    f[0]["payload"]["encoded_bytes"] = json!(0);
                    f[0]["payload"]["chunk_count"] = json!(0);
                }),
                34,
                bad("encoded_bytes must not be 0"),
            ),
            (
                "over 16 MiB",
                tamper(|f| {
                    f[0]["payload"]["encoded_bytes"] = json!(16 * 1024 * 1024 + 1);
                    f[0]["payload"]["chunk_count"] = json!(5);
                }),
                34,
                Reason::BlobTooLarge {
                    what: "state document",
                    bytes: 16 * 1024 * 1024 + 1,
                },
            ),
            (
                "raw bytes",
                tamper(|f| f[1]["payload"]["raw_bytes"] = json!(doc.len() - 1)),
                35,
                bad("chunk raw_bytes does not match its size rule or data"),
            ),
            (
                "chunk index",
                tamper(|f| f[1]["payload"]["chunk_index"] = json!(1)),
                35,
                bad("chunk_index out of order"),
            ),
            (
                "chunk id",
                tamper(|f| f[1]["payload"]["replacement_id"] = json!("0".repeat(32))),
                35,
                bad("chunk replacement_id differs from the started frame"),
            ),
            (
                "base64",
                tamper(|f| f[1]["payload"]["base64"] = json!("eyJ=")),
                35,
                Reason::BadBase64 {
                    path: "payload.base64".into(),
                },
            ),
            (
                "interrupted",
                tamper(|f| {
                    f[1]["kind"] = json!("recovery_checkpoint_cleared");
                    f[1]["payload"] = json!({});
                }),
                35,
                bad("another frame interrupted an open state replacement"),
            ),
            (
                "stray chunk",
                tamper(|f| {
                    f[0]["kind"] = json!("recovery_checkpoint_cleared");
                    f[0]["payload"] = json!({});
                }),
                35,
                bad("a chunk outside a replacement"),
            ),
        ];
        for (name, bytes, seq, reason) in cases {
            check(name, &bytes, Some(seq), reason);
        }
        let mut l = interactive();
        l.remove(33);
        l.remove(33);
        let renumbered: Vec<String> = l
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut v: Value = serde_json::from_str(s).unwrap();
                v["seq"] = json!(i + 1);
                serde_json::to_string(&v).unwrap()
            })
            .collect();
        check(
            "stray commit",
            &join(&renumbered),
            Some(34),
            bad("a commit outside a replacement"),
        );
    }

    #[test]
    fn state_document_checks() {
        let doc = String::from_utf8(document()).unwrap();
        // Top-level key order is checked.
        let swapped = doc.replacen(
            "\"origin_workspace_root\":\"/home/user/project\",\"workspace_root\":\"/home/user/project\"",
            "\"workspace_root\":\"/home/user/project\",\"origin_workspace_root\":\"/home/user/project\"",
            1,
        );
        check(
            "top-level order",
            &with_doc(swapped.as_bytes(), |_| {}),
            Some(36),
            Reason::InvalidField {
                path: "state".into(),
                detail: "state document keys are out of order",
            },
        );
        let prefs = doc.replacen(
            "\"effort\":\"auto\",\"fast_mode\":false",
            "\"fast_mode\":false,\"effort\":\"auto\"",
            1,
        );
        check(
            "preferences order",
            &with_doc(prefs.as_bytes(), |_| {}),
            Some(36),
            Reason::InvalidField {
                path: "state.preferences".into(),
                detail: "state document keys are out of order",
            },
        );
        // Identity and timestamp rules.
        let other_root = doc.replace("/home/user/project", "/home/user/elsewhere");
        check(
            "identity",
            &with_doc(other_root.as_bytes(), |_| {}),
            Some(36),
            Reason::ImmutableIdentity("a state replacement changed the session identity"),
        );
        let stamp = doc.replacen(
            "\"updated_at_ms\":1796006441146",
            "\"updated_at_ms\":1796006441147",
            1,
        );
        check(
            "updated_at",
            &with_doc(stamp.as_bytes(), |_| {}),
            Some(36),
            bad("updated_at_ms differs from the commit frame timestamp"),
        );
        let history = doc.replacen(
            "\"context_history_start\":2",
            "\"context_history_start\":9",
            1,
        );
        check(
            "context start",
            &with_doc(history.as_bytes(), |_| {}),
            Some(36),
            Reason::InvalidField {
                path: "state.context_history_start".into(),
                detail: "exceeds the history length",
            },
        );
        let unknown_key = doc.replacen(
            "\"total_input_tokens\"",
            "\"bogus\":1,\"total_input_tokens\"",
            1,
        );
        check(
            "unknown key",
            &with_doc(unknown_key.as_bytes(), |_| {}),
            Some(36),
            unknown("bogus", "state"),
        );
        let trailing = format!("{doc}\n");
        check(
            "trailing newline",
            &with_doc(trailing.as_bytes(), |_| {}),
            Some(36),
            Reason::InvalidField {
                path: "state".into(),
                detail: "the document must end at its closing brace",
            },
        );
        let log_compaction = tamper(|f| f[0]["payload"]["reason"] = json!("log_compaction"));
        check(
            "log compaction keeps updated_at",
            &log_compaction,
            Some(36),
            bad("a log compaction must keep updated_at_ms"),
        );
    }
}

#[test]
fn a_state_document_may_hold_the_rich_usage_form() {
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    let l = lines(&events("interactive"));
    let chunk: Value = serde_json::from_str(&l[34]).unwrap();
    let doc = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(chunk["payload"]["base64"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    let rich = doc
        .replacen("\"usage\":{\"billing\"", "\"usage\":{\"schema_version\":2,\"billing\"", 1)
        .replacen("\"cache_write_tokens\":0,\"billable", "\"cache_write_tokens\":0,\"reasoning_tokens\":0,\"request_count\":null,\"billable", 1)
        .replacen("\"pending\":[]}}", "\"pending\":[],\"publication_backlog\":[],\"incidents\":[{\"occurred_at_ms\":5,\"completeness\":\"incomplete\"}]}}", 1);
    assert_ne!(rich, doc);
    let sha: String = Sha256::digest(rich.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut frames: Vec<Value> = l[33..36]
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    for i in [0, 2] {
        frames[i]["payload"]["encoded_bytes"] = json!(rich.len());
        frames[i]["payload"]["sha256"] = json!(sha);
    }
    frames[1]["payload"]["raw_bytes"] = json!(rich.len());
    frames[1]["payload"]["chunk_sha256"] = json!(sha);
    frames[1]["payload"]["base64"] =
        json!(base64::engine::general_purpose::STANDARD.encode(rich.as_bytes()));
    let mut out = l.clone();
    for (i, v) in frames.iter().enumerate() {
        out[33 + i] = serde_json::to_string(v).unwrap();
    }
    let v = read_session(&join(&out[..36])).unwrap();
    assert_eq!(v.usage.api_duration_ms, 216);
}
