//! `/rename`: a title travels as a `display.json` record inside the session bytes, survives
//! later appends, log compaction, native export and import, and a malformed record is refused.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

use fx_wasm::log::appender::TurnCommit;
use fx_wasm::log::bench::FixedEnv;
use fx_wasm::log::execution::Execution;
use fx_wasm::log::turn::{AssistantTurn, HistoryTurn, UserTurn};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::log::{
    export_native, import_native, load, read_session, NewSession, Reason, SessionLog,
};

fn session(env: &mut FixedEnv) -> SessionLog {
    let mut s = SessionLog::create(
        env,
        NewSession {
            workspace_root: "/workspace".into(),
            preferences: Preferences {
                model: "openai/gpt-5".into(),
                effort: "high".into(),
                fast_mode: false,
                provider: Provider::Gateway,
            },
            conversation_language: None,
            id: None,
        },
    )
    .unwrap();
    s.commit_turn(env, turn("fix the flaky build please\nit fails on CI"))
        .unwrap();
    s
}

fn turn(user: &str) -> TurnCommit {
    TurnCommit {
        turn: HistoryTurn::Assistant(AssistantTurn {
            user: UserTurn {
                text: user.into(),
                images: Vec::new(),
                work_id: None,
            },
            assistant: "done".into(),
            execution: Execution::default(),
        }),
        conversation_language: None,
        total_input_tokens: 10,
        total_output_tokens: 1,
        work_id: None,
    }
}

fn file<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a str {
    let bytes = &files.iter().find(|(n, _)| n == name).unwrap().1;
    std::str::from_utf8(bytes).unwrap()
}

#[test]
fn a_rename_is_the_title_until_the_next_one() {
    let mut env = FixedEnv::new(1, 1_790_000_000_000);
    let mut s = session(&mut env);
    assert_eq!(s.view().title, "fix the flaky build please");
    assert_eq!(s.rename("  Build   fixes \n").unwrap(), "Build fixes");
    assert_eq!(s.view().title, "Build fixes");
    // The preview stays derived from the first prompt.
    assert_eq!(
        s.view().preview.as_deref(),
        Some("fix the flaky build please\nit fails on CI")
    );
    s.commit_turn(&mut env, turn("and the docs")).unwrap();
    s.rename("Second name").unwrap();
    let view = read_session(s.bytes()).unwrap();
    assert_eq!(view.title, "Second name");
    assert_eq!(view.turns.len(), 2);
    // Reloaded from bytes, the appender knows the title too.
    let again = SessionLog::load(s.bytes().to_vec()).unwrap();
    assert_eq!(again.title(), Some("Second name"));
    assert!(s.rename(" \t ").is_err());
}

#[test]
fn the_title_survives_compaction_export_and_import() {
    let mut env = FixedEnv::new(2, 1_790_000_000_000);
    let mut s = session(&mut env);
    s.rename("Release checklist").unwrap();
    s.compact_log(&mut env).unwrap();
    assert_eq!(read_session(s.bytes()).unwrap().title, "Release checklist");

    let files = export_native(s.bytes()).unwrap();
    let display = file(&files, "display.json");
    assert!(
        display.contains(r#""title":"Release checklist""#),
        "{display}"
    );
    // events.jsonl holds frames only.
    assert!(!file(&files, "events.jsonl").contains("#fx-blob"));
    assert!(!files
        .iter()
        .any(|(n, _)| n.starts_with("display.json") && n != "display.json"));

    let imported = import_native(&files).unwrap();
    assert_eq!(read_session(&imported).unwrap().title, "Release checklist");
    assert_eq!(export_native(&imported).unwrap(), files);
}

#[test]
fn an_import_without_a_rename_adds_no_record() {
    let mut env = FixedEnv::new(3, 1_790_000_000_000);
    let s = session(&mut env);
    let files = export_native(s.bytes()).unwrap();
    assert_eq!(import_native(&files).unwrap(), s.bytes());
}

fn display_record(json: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let sha: String = Sha256::digest(json.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("#fx-blob display.json {} {sha}\n{json}\n", json.len()).into_bytes()
}

#[test]
fn malformed_display_records_are_refused() {
    let mut env = FixedEnv::new(4, 1_790_000_000_000);
    let s = session(&mut env);
    let cases = [
        (r#"{"title":"x"}"#, "preview is missing"),
        (
            r#"{"title":"","preview":null,"origin_workspace_root":"/w"}"#,
            "title must be",
        ),
        (
            r#"{"title":"a\nb","preview":null,"origin_workspace_root":"/w"}"#,
            "title must be",
        ),
        (
            r#"{"title":7,"preview":null,"origin_workspace_root":"/w"}"#,
            "title must be a string",
        ),
        (r#"[1]"#, "must be an object"),
        ("{", "display.json"),
    ];
    for (json, expected) in cases {
        let mut bytes = s.bytes().to_vec();
        bytes.extend_from_slice(&display_record(json));
        let error = load(&bytes).unwrap_err();
        assert!(
            matches!(&error.reason, Reason::InvalidBlob(detail) if detail.contains(expected)),
            "{json}: {error}"
        );
    }
    // Extra keys are tolerated, as fx does.
    let mut bytes = s.bytes().to_vec();
    bytes.extend_from_slice(&display_record(
        r#"{"schema_version":1,"title":"Kept","preview":null,"origin_workspace_root":"/w","x":1}"#,
    ));
    assert_eq!(read_session(&bytes).unwrap().title, "Kept");
    // Over 16 KiB.
    let big = format!(
        r#"{{"title":"t","preview":"{}","origin_workspace_root":"/w"}}"#,
        "p".repeat(17 * 1024)
    );
    let mut bytes = s.bytes().to_vec();
    bytes.extend_from_slice(&display_record(&big));
    assert!(matches!(
        load(&bytes).unwrap_err().reason,
        Reason::BlobTooLarge {
            what: "display record",
            ..
        }
    ));
}
