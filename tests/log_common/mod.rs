//! Shared helpers for the log tests: fixture discovery.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

pub const SCENARIOS: [&str; 11] = [
    "bigout",
    "failing",
    "files",
    "image",
    "interactive",
    "interrupted",
    "long",
    "markdown",
    "multiturn",
    "simple",
    "twotools",
];

/// The session directory of a fixture scenario.
pub fn session_dir(scenario: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fx-sessions")
        .join(scenario)
        .join("session");
    std::fs::read_dir(&root)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

pub fn events(scenario: &str) -> Vec<u8> {
    std::fs::read(session_dir(scenario).join("events.jsonl")).unwrap()
}

/// Every file of a fixture's session directory (relative path → bytes).
pub fn dir_files(scenario: &str, with_id_prefix: bool) -> Vec<(String, Vec<u8>)> {
    let dir = session_dir(scenario);
    let id = dir.file_name().unwrap().to_string_lossy().into_owned();
    let mut out = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
                let name = if with_id_prefix {
                    format!("{id}/{rel}")
                } else {
                    rel
                };
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The lines of a log (each without its newline).
pub fn lines(bytes: &[u8]) -> Vec<String> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

pub fn join(lines: &[String]) -> Vec<u8> {
    let mut out = String::new();
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.into_bytes()
}
