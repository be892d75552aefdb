//! Fuzzes the stored OAuth record decoder: any bytes give a typed reason or a record that
//! encodes and decodes to itself; its debug form never shows a token.
#![no_main]

use fx_wasm::auth::{Issuer, OAuthRecord};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let issuers = [
        Issuer::production(),
        Issuer::from_override(Some("http://127.0.0.1:8123")).expect("a loopback issuer"),
    ];
    for issuer in &issuers {
        let Ok(record) = OAuthRecord::decode(data, issuer) else {
            continue;
        };
        let bytes = record.encode().expect("a decoded record encodes");
        let again = OAuthRecord::decode(&bytes, issuer).expect("an encoded record decodes");
        assert!(again == record, "decode -> encode -> decode is stable");
        let shown = format!("{record:?}");
        // The public members may hold the same text; only a token found elsewhere is a leak.
        let public = format!(
            "{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
            record.issuer,
            record.client_id,
            record.expires_at_ms,
            record.scope,
            record.token_type,
            record.team_slug,
            record.team_id
        );
        for token in [record.access_token.expose(), record.refresh_token.expose()] {
            if token.len() >= 8 && !public.contains(token) {
                assert!(!shown.contains(token), "a token in the debug form");
            }
        }
    }
});
