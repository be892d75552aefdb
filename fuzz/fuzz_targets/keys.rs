//! Fuzzes the terminal's input decoder: bytes in any chunks, with the Escape timeout firing at
//! any point, never panic; pastes hold no control character but `\n` and `\t`.
#![no_main]

use fx_wasm::term::keys::{InputEvent, KeyDecoder, PASTE_LIMIT_BYTES};
use libfuzzer_sys::fuzz_target;

fn check(events: &[InputEvent]) {
    for event in events {
        if let InputEvent::Paste(text) = event {
            assert!(text.len() <= PASTE_LIMIT_BYTES);
            assert!(
                text.chars()
                    .all(|c| !c.is_control() || c == '\n' || c == '\t'),
                "control character in a paste: {text:?}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&plan, bytes)) = data.split_first() else {
        return;
    };
    let step = usize::from(plan & 0x1f) + 1;
    let flush_every = usize::from(plan >> 5);
    let mut decoder = KeyDecoder::new();
    for (i, chunk) in bytes.chunks(step).enumerate() {
        check(&decoder.feed(chunk));
        if flush_every > 0 && i % flush_every == 0 {
            check(&decoder.flush_pending());
        }
    }
    check(&decoder.flush_pending());
    assert!(
        !decoder.escape_pending(),
        "a flush resolves the pending escape"
    );
});
