//! The one error vocabulary, held against its documentation: the `FX_*` codes of the one code
//! table (`fx_wasm::Code`) together with the codes js/ raises itself (`JS_ERROR_CODES` in
//! js/errors.js) are exactly the `FxErrorCode` union of js/index.d.ts, each member with a doc
//! comment; its `FXBOT_*` rows (each with its status) are exactly `FxbotErrorCode` of
//! js/fxbot/client.d.ts, which js/fxbot/ takes from the table as the build writes it out rather
//! than from a copy; and no js/ file raises a code outside those lists.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fx_wasm::Code;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn is_code(text: &str) -> bool {
    (text.starts_with("FX_") || text.starts_with("FXBOT_"))
        && text.len() > 4
        && text
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The members of `export type NAME = | '…' | '…';` in a .d.ts, asserting that each one has a
/// `/** … */` doc comment on the lines just before it (`//` lines may sit between).
fn documented_union(path: &str, name: &str) -> Vec<String> {
    let text = read(path);
    let start = format!("export type {name} =");
    let at = text
        .find(&start)
        .unwrap_or_else(|| panic!("{path} has no `{start}`"));
    let mut codes = Vec::new();
    let mut documented = false;
    for line in text[at + start.len()..].lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        if let Some(member) = line.strip_prefix("| ") {
            let last = member.ends_with(';');
            let code = member.trim_end_matches(';').trim_matches('\'');
            assert!(
                is_code(code),
                "{path}: {name} member {member} is not a code"
            );
            assert!(
                documented,
                "{path}: {name} member {code} has no doc comment"
            );
            codes.push(code.to_owned());
            if last {
                return codes;
            }
            documented = false;
        } else {
            // Inside or at the end of a `/** … */` comment.
            documented = line.ends_with("*/");
        }
    }
    panic!("{path}: {name} does not end with a `| '…';` member")
}

/// The keys of `JS_ERROR_CODES` in js/errors.js.
fn js_error_codes() -> Vec<String> {
    let text = read("js/errors.js");
    let start = text
        .find("export const JS_ERROR_CODES = Object.freeze({")
        .expect("js/errors.js declares JS_ERROR_CODES");
    let body = &text[start..];
    let body = &body[..body.find("});").expect("JS_ERROR_CODES ends with `});`")];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.starts_with("//") && !line.is_empty())
        .map(|line| {
            let (key, kind) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("JS_ERROR_CODES line {line:?}"));
            assert!(is_code(key), "JS_ERROR_CODES key {key}");
            assert!(
                ["'FxError',", "'FxStoreError',", "'TypeError',"].contains(&kind.trim()),
                "JS_ERROR_CODES.{key} is {kind}"
            );
            key.to_owned()
        })
        .collect()
}

/// Every quoted `'FX_…'` / `"FX_…"` literal in the js/ sources (comments use backticks).
fn js_code_literals(dir: &Path, found: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            js_code_literals(&path, found);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for quote in ['\'', '"'] {
            for piece in text.split(quote).skip(1).step_by(2) {
                if is_code(piece) {
                    found.push((path.display().to_string(), piece.to_owned()));
                }
            }
        }
    }
}

fn unique(label: &str, codes: &[String]) -> BTreeSet<String> {
    let set: BTreeSet<String> = codes.iter().cloned().collect();
    assert_eq!(set.len(), codes.len(), "{label} lists a code twice");
    set
}

/// The table's codes that start with `prefix`.
fn rust_codes_of(prefix: &str) -> Vec<String> {
    Code::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .filter(|c| c.starts_with(prefix))
        .collect()
}

fn rust_codes() -> Vec<String> {
    rust_codes_of("FX_")
}

#[test]
fn every_code_is_documented_in_index_d_ts_and_nothing_else_is() {
    let rust = unique("Code::ALL", &rust_codes());
    let js: Vec<String> = js_error_codes()
        .into_iter()
        .filter(|c| c.starts_with("FX_"))
        .collect();
    let js = unique("JS_ERROR_CODES", &js);
    let documented = unique(
        "FxErrorCode",
        &documented_union("js/index.d.ts", "FxErrorCode"),
    );
    let all: BTreeSet<String> = rust.union(&js).cloned().collect();
    let undocumented: Vec<&String> = all.difference(&documented).collect();
    let unknown: Vec<&String> = documented.difference(&all).collect();
    assert!(
        undocumented.is_empty(),
        "raised but not in FxErrorCode: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "in FxErrorCode but never raised: {unknown:?}"
    );
}

#[test]
fn the_code_table_spells_each_code_once_and_parses_it_back() {
    for &code in Code::ALL {
        let text = code.as_str();
        assert!(is_code(text), "{text}");
        assert_eq!(Code::parse(text), Some(code));
        assert_eq!(code.to_string(), text);
        assert_eq!(code, text);
        // A bots code has its HTTP-like status; an agent code has none.
        match code.status() {
            Some(status) => {
                assert!(text.starts_with("FXBOT_"), "{text} has status {status}");
                assert!(
                    [400, 404, 409, 500, 502].contains(&status),
                    "{text}: {status}"
                );
            }
            None => assert!(text.starts_with("FX_"), "{text} has no status"),
        }
    }
    assert_eq!(Code::parse("FX_GATEWAY_HTTP"), None);
    assert_eq!(Code::parse("FXBOT_BUSY"), Some(Code::BotBusy));
    assert_eq!(Code::BotBusy.status(), Some(409));
}

#[test]
fn js_raises_only_listed_codes() {
    let mut found = Vec::new();
    js_code_literals(&repo("js"), &mut found);
    assert!(!found.is_empty(), "no code literal found under js/");
    let js: BTreeSet<String> = js_error_codes().into_iter().collect();
    // The whole table: js/fxbot/ raises FXBOT_CLOSED after close (its status from the table).
    let rust: BTreeSet<String> = Code::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    for (file, code) in found {
        // A code JS raises must be in its table; one it only reads (none today) would be Rust's.
        assert!(
            js.contains(&code) || rust.contains(&code),
            "{file} uses {code}, which is in no list"
        );
    }
}

#[test]
fn every_fxbot_code_is_documented_in_the_fxbot_types() {
    let rust = unique("the FXBOT_* rows of Code::ALL", &rust_codes_of("FXBOT_"));
    let js: Vec<String> = js_error_codes()
        .into_iter()
        .filter(|c| c.starts_with("FXBOT_"))
        .collect();
    let documented = unique(
        "FxbotErrorCode",
        &documented_union("js/fxbot/client.d.ts", "FxbotErrorCode"),
    );
    let all: BTreeSet<String> = rust.iter().cloned().chain(js).collect();
    assert_eq!(all, documented);
}

#[test]
fn js_fxbot_takes_the_codes_from_the_table() {
    // The list and the statuses come from pkg/fxbot/codes.js, which scripts/build.mjs writes
    // from the table (fxbotCodes() of fx-bot.wasm); no js/ file holds a copy of the list.
    let index = read("js/fxbot/index.js");
    assert!(
        index.contains("from './codes.js'"),
        "js/fxbot/index.js imports the written-out table"
    );
    let build = read("scripts/build.mjs");
    assert!(
        build.contains("fxbotCodes()"),
        "scripts/build.mjs writes the table out"
    );
    let mut found = Vec::new();
    js_code_literals(&repo("js"), &mut found);
    let mut per_file: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for (file, code) in found {
        if code.starts_with("FXBOT_") {
            per_file.entry(file).or_default().insert(code);
        }
    }
    for (file, codes) in per_file {
        assert!(
            codes.len() <= 1,
            "{file} spells several FXBOT_* codes ({codes:?}): take them from the table"
        );
    }
}
