//! Fuzzes the bots' stream of a chat as served from its session: any bytes give a typed log
//! error or a replay whose lines are in cursor order, and a cursor read from any JSON value is a
//! typed refusal or a cursor that reads back to itself.
#![no_main]

use std::collections::BTreeMap;

use fx_wasm::bot::cursor::Cursor;
use fx_wasm::bot::replay::replay;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Ok(cursor) = Cursor::from_json(&value) {
            assert_eq!(Cursor::from_u64(cursor.value()), Ok(cursor));
        }
    }
    match replay(data, &BTreeMap::new()) {
        Ok(replayed) => {
            let lines = replayed.after(Cursor::before_turn(0));
            assert!(lines.windows(2).all(|w| match w {
                [a, b] => a.cursor() < b.cursor(),
                _ => true,
            }));
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
});
