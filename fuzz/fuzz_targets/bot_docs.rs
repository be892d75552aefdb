//! Fuzzes the documents fxbot keeps (`bot/<id>`, `chat/<botId>`, `pins`): any bytes give a typed
//! refusal or a document, and a document's canonical bytes read back to the same document and
//! the same bytes (keys this version does not know are kept, so an older tab drops nothing).
#![no_main]

use fx_wasm::bot::docs::bot::BotDoc;
use fx_wasm::bot::docs::chat::ChatDoc;
use fx_wasm::bot::docs::pins::PinsDoc;
use fx_wasm::bot::docs::{decode, encode};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(key: &str, data: &[u8]) {
    match decode::<T>(key, data) {
        Ok(doc) => {
            let bytes = encode(&doc);
            let again = decode::<T>(key, &bytes).expect("canonical bytes read back");
            assert_eq!(again, doc);
            assert_eq!(encode(&again), bytes);
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<BotDoc>("bot/0123456789ab", data);
    round_trip::<ChatDoc>("chat/0123456789ab", data);
    round_trip::<PinsDoc>("pins", data);
});
