//! Fuzzes the `terminal` tool's argument decoding: any text gives a typed refusal or a command
//! within the limits, and an accepted command encodes and decodes back to itself.
#![no_main]

use fx_wasm::tools::terminal::decode_arguments;
use fx_wasm::tools::workspace::MAX_COMMAND_BYTES;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match decode_arguments(text) {
        Ok(command) => {
            assert!(command.len() <= MAX_COMMAND_BYTES);
            assert!(!command.contains('\0'));
            assert!(!command.trim().is_empty());
            let again = serde_json::json!({"action": "exec", "command": command}).to_string();
            assert_eq!(decode_arguments(&again).as_deref(), Ok(command.as_str()));
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
});
