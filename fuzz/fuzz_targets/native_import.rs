//! Fuzzes the import of a native fx session directory. The input is a set of files, each
//! `@@ <path>\n<content>` up to the next line that starts with `@@ `. Any set gives a typed
//! error or session bytes that load and export back to a directory importing to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn files(data: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut rest = data;
    while let Some(body) = rest.strip_prefix(b"@@ ") {
        let name_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
        let name = String::from_utf8_lossy(&body[..name_end]).into_owned();
        let content = body.get(name_end + 1..).unwrap_or_default();
        let end = content
            .windows(4)
            .position(|w| w == b"\n@@ ")
            .map_or(content.len(), |i| i + 1);
        out.push((name, content[..end].to_vec()));
        rest = &content[end..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let files = files(data);
    if let Ok(bytes) = fx_wasm::log::import_native(&files) {
        let view = fx_wasm::log::read_session(&bytes).expect("imported bytes load");
        let exported = fx_wasm::log::export_native(&bytes).expect("imported bytes export");
        let again = fx_wasm::log::import_native(&exported).expect("an export imports");
        assert_eq!(again, bytes, "import -> export -> import is stable");
        assert_eq!(fx_wasm::log::read_session(&again).expect("loads"), view);
    }
});
