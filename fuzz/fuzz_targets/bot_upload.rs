//! Fuzzes a bot message's checks (`chat.send`'s text and files, `library.add`'s file): any JSON
//! gives a typed refusal naming what was wrong, or a message within the limits; any bytes sniff
//! as an image type or as none.
#![no_main]

use fx_wasm::bot::upload::{check_message_with, message_id, sniff_image, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sniff_image(data);
    let Ok(message) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Err(error) = message_id(&message) {
        assert!(!error.to_string().is_empty());
    }
    // Small limits, so the fuzzer reaches the size rules with small inputs.
    let limits = Limits {
        max_files: 3,
        max_image_bytes: 64,
        max_images_bytes: 96,
        max_text_file_bytes: 64,
        max_files_bytes: 128,
        max_text_bytes: 256,
        ..Limits::DEFAULT
    };
    match check_message_with(&message, &limits) {
        Ok(checked) => {
            assert!(checked.files.len() <= limits.max_files);
            assert!(checked.text.len() <= limits.max_text_bytes);
            assert!(!checked.text.trim().is_empty() || !checked.files.is_empty());
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
});
