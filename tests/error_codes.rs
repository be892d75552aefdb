//! The one error vocabulary, held against its documentation: the codes the core raises
//! (`fx_wasm::Code`) together with the codes js/ raises itself (`JS_ERROR_CODES` in
//! js/errors.js) are exactly the `FxErrorCode` union of js/index.d.ts, each member with a doc
//! comment; the bots layer's `FXBOT_*` codes are exactly `FxbotErrorCode` of
//! js/fxbot/client.d.ts; and no js/ file raises a code outside those lists.
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

fn rust_codes() -> Vec<String> {
    Code::ALL.iter().map(|c| c.as_str().to_owned()).collect()
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
        // The bots' document store rows are spelled FXBOT_ (their family's prefix).
        assert!(is_code(text), "{text}");
        assert_eq!(Code::parse(text), Some(code));
        assert_eq!(code.to_string(), text);
        assert_eq!(code, text);
    }
    assert_eq!(Code::parse("FX_GATEWAY_HTTP"), None);
    assert_eq!(Code::parse("FXBOT_BUSY"), None);
}

#[test]
fn js_raises_only_listed_codes() {
    let mut found = Vec::new();
    js_code_literals(&repo("js"), &mut found);
    assert!(!found.is_empty(), "no code literal found under js/");
    let js: BTreeSet<String> = js_error_codes().into_iter().collect();
    let mut rust: BTreeSet<String> = rust_codes().into_iter().collect();
    // The bots engine's codes (js/fxbot/ lists them and raises FXBOT_CLOSED after close), as
    // js/fxbot/client.d.ts documents them (equal to bot::error::Code::ALL, checked below).
    rust.extend(documented_union("js/fxbot/client.d.ts", "FxbotErrorCode"));
    for (file, code) in found {
        // A code JS raises must be in its table; one it only reads (none today) would be Rust's.
        assert!(
            js.contains(&code) || rust.contains(&code),
            "{file} uses {code}, which is in no list"
        );
    }
}

#[cfg(feature = "bot")]
#[test]
fn every_fxbot_code_is_documented_in_the_fxbot_types() {
    use fx_wasm::bot::error::Code as BotCode;
    let rust: Vec<String> = BotCode::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    let rust = unique("bot::error::Code::ALL", &rust);
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
    // The two vocabularies stay apart: no FXBOT_* code in FxErrorCode, no FX_* in the bots list.
    assert!(rust.iter().all(|c| c.starts_with("FXBOT_")));
}
