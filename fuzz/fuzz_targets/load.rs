//! Fuzzes the strict session-log loader: any input must give a typed error or a session that
//! exports and re-imports to the same bytes. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = fx_wasm::log::SessionState::decode_document(data);
    if let Ok(view) = fx_wasm::log::read_session(data) {
        let files = fx_wasm::log::export_native(data).expect("a loadable log exports");
        let bytes = fx_wasm::log::import_native(&files).expect("an export imports");
        let again = fx_wasm::log::export_native(&bytes).expect("a re-import exports");
        assert_eq!(files, again, "export -> import -> export is stable");
        assert_eq!(
            fx_wasm::log::read_session(&bytes).expect("re-import loads"),
            view
        );
    }
});
