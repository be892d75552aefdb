//! Native session directories: importing every fx fixture, export -> import -> export identity,
//! the commit watermark, and what a directory must agree on.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

mod log_common;

use fx_wasm::log::{export_native, import_native, Reason};
use log_common::{dir_files, events, session_dir, SCENARIOS};
use serde_json::Value;

fn file<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &files
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .1
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

#[test]
fn importing_each_fixture_gives_its_events() {
    for scenario in SCENARIOS {
        for prefixed in [false, true] {
            let bytes = import_native(&dir_files(scenario, prefixed))
                .unwrap_or_else(|e| panic!("{scenario}: {e}"));
            assert_eq!(bytes, events(scenario), "{scenario}");
        }
    }
}

#[test]
fn export_import_export_is_the_identity() {
    for scenario in SCENARIOS {
        let files = export_native(&events(scenario)).unwrap();
        let bytes = import_native(&files).unwrap();
        assert_eq!(bytes, events(scenario), "{scenario}");
        assert_eq!(export_native(&bytes).unwrap(), files, "{scenario}");
    }
}

#[test]
fn exported_files_match_what_fx_wrote() {
    for scenario in SCENARIOS {
        let files = export_native(&events(scenario)).unwrap();
        let dir = session_dir(scenario);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let commit_name = names
            .iter()
            .find(|n| n.starts_with("commit.") && n.ends_with(".json"))
            .unwrap();
        assert_eq!(names.len(), 6, "{scenario}: {names:?}");
        // Byte-identical to fx: events, watermark, display metadata.
        for name in ["events.jsonl", commit_name, "display.json"] {
            assert_eq!(
                file(&files, name),
                std::fs::read(dir.join(name)).unwrap(),
                "{scenario}: {name}"
            );
        }
        assert!(file(&files, "commit.lock").is_empty());
        // authority.json and session.json differ only where the spec allows.
        let authority = json(file(&files, "authority.json"));
        let theirs = json(&std::fs::read(dir.join("authority.json")).unwrap());
        for key in ["schema_version", "session_id", "storage_format", "source"] {
            assert_eq!(authority[key], theirs[key], "{scenario}: {key}");
        }
        assert!(file(&files, "authority.json").ends_with(b"}\n"));
        let manifest = json(file(&files, "session.json"));
        let theirs = json(&std::fs::read(dir.join("session.json")).unwrap());
        for (key, value) in theirs.as_object().unwrap() {
            match key.as_str() {
                "authority_id" => assert_eq!(manifest[key], authority["authority_id"]),
                "event_log_stat_fingerprint" => assert_eq!(manifest[key], "0".repeat(64)),
                "checkpoint_seq" | "checkpoint_sha256" => assert_eq!(manifest[key], Value::Null),
                _ => assert_eq!(manifest[key], *value, "{scenario}: session.json {key}"),
            }
        }
        assert!(!file(&files, "session.json").ends_with(b"\n"));
        let keys: Vec<&String> = manifest.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 21);
    }
}

#[test]
fn export_is_deterministic_and_derives_the_authority_id() {
    let a = export_native(&events("interactive")).unwrap();
    let b = export_native(&events("interactive")).unwrap();
    assert_eq!(a, b);
    let authority = json(file(&a, "authority.json"));
    let id = authority["authority_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert_ne!(
        id,
        json(file(
            &export_native(&events("simple")).unwrap(),
            "authority.json"
        ))["authority_id"]
    );
}

fn set(files: &mut Vec<(String, Vec<u8>)>, name: &str, bytes: Vec<u8>) {
    files.retain(|(n, _)| n != name);
    files.push((name.to_owned(), bytes));
}

fn dir_err(files: &[(String, Vec<u8>)]) -> String {
    match import_native(files).unwrap_err().reason {
        Reason::InvalidDirectory(d) => d,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_watermark_decides_what_is_committed() {
    let files = dir_files("multiturn", false);
    let commit_name = files
        .iter()
        .map(|(n, _)| n.clone())
        .find(|n| n.starts_with("commit.") && n.ends_with(".json"))
        .unwrap();
    let events_bytes = events("multiturn");

    // Garbage beyond the watermark (a crashed append) is dropped.
    let mut torn = files.clone();
    let mut tail = events_bytes.clone();
    tail.extend_from_slice(b"{\"schema_version\":1,\"log_gen");
    set(&mut torn, "events.jsonl", tail);
    assert_eq!(import_native(&torn).unwrap(), events_bytes);

    // A watermark at frame 7 keeps frames 1..=7.
    let frames = log_common::lines(&events_bytes);
    let seventh: Value = serde_json::from_str(&frames[6]).unwrap();
    let len: usize = frames[..7].iter().map(|l| l.len() + 1).sum();
    let mut earlier = files.clone();
    let mut mark = json(file(&files, &commit_name));
    mark["through_seq"] = 7.into();
    mark["through_event_id"] = seventh["event_id"].clone();
    mark["through_event_log_bytes"] = len.into();
    set(
        &mut earlier,
        &commit_name,
        serde_json::to_vec(&mark).unwrap(),
    );
    assert_eq!(
        import_native(&earlier).unwrap(),
        events_bytes[..len].to_vec()
    );

    // Mismatches are errors.
    let mut wrong_id = earlier.clone();
    mark["through_event_id"] = "0".repeat(32).into();
    set(
        &mut wrong_id,
        &commit_name,
        serde_json::to_vec(&mark).unwrap(),
    );
    assert!(dir_err(&wrong_id).contains("watermark does not match"));
    let mut mid_frame = files.clone();
    let mut m = json(file(&files, &commit_name));
    m["through_event_log_bytes"] = (len - 5).into();
    set(
        &mut mid_frame,
        &commit_name,
        serde_json::to_vec(&m).unwrap(),
    );
    assert_eq!(
        import_native(&mid_frame).unwrap_err().reason,
        Reason::TruncatedFrame
    );
    let mut too_long = files.clone();
    m["through_event_log_bytes"] = (events_bytes.len() + 1).into();
    set(&mut too_long, &commit_name, serde_json::to_vec(&m).unwrap());
    assert!(dir_err(&too_long).contains("shorter than its watermark"));
    let mut other_session = files.clone();
    let mut m = json(file(&files, &commit_name));
    m["session_id"] = "someone-else".into();
    set(
        &mut other_session,
        &commit_name,
        serde_json::to_vec(&m).unwrap(),
    );
    assert!(dir_err(&other_session).contains("different sessions"));
}

#[test]
fn a_directory_must_agree_on_its_identity() {
    let files = dir_files("simple", false);
    let mut no_authority = files.clone();
    no_authority.retain(|(n, _)| n != "authority.json");
    assert!(dir_err(&no_authority).contains("authority.json is missing"));
    let mut other = files.clone();
    let mut a = json(file(&files, "authority.json"));
    a["session_id"] = "x".into();
    set(
        &mut other,
        "authority.json",
        serde_json::to_vec(&a).unwrap(),
    );
    assert!(dir_err(&other).contains("different sessions"));
    let mut pending = files.clone();
    pending.push(("commit.pending.json".into(), b"{}".to_vec()));
    assert!(dir_err(&pending).contains("commit.pending.json"));
    let mut no_commit = files.clone();
    no_commit.retain(|(n, _)| !(n.starts_with("commit.") && n.ends_with(".json")));
    assert!(dir_err(&no_commit).contains("is missing"));
    let renamed: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, b)| (format!("wrong-id/{n}"), b.clone()))
        .collect();
    assert!(dir_err(&renamed).contains("different sessions"));
    assert!(dir_err(&[]).contains("events.jsonl is missing"));
}

#[test]
fn referenced_images_in_the_directory_are_carried() {
    // The image fixture references images/image-1-3fd6e6be528c182d.bin (in a recovery
    // checkpoint) but fx never wrote the file: importing without it is fine.
    let files = dir_files("image", false);
    assert_eq!(import_native(&files).unwrap(), events("image"));
    // With a wrong file under that name, import refuses.
    let mut wrong = files.clone();
    wrong.push((
        "images/image-1-3fd6e6be528c182d.bin".into(),
        b"not the png".to_vec(),
    ));
    assert!(dir_err(&wrong).contains("does not match its sha256"));
}
