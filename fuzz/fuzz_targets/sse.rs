//! Fuzzes the incremental SSE decoder: any byte stream, cut into chunks anywhere, gives the same
//! events and the same outcome as the stream fed whole. Never a panic.
#![no_main]

use fx_wasm::gateway::sse::SseDecoder;
use libfuzzer_sys::fuzz_target;

fn decode(chunks: &[&[u8]], limit: usize) -> (Vec<fx_wasm::gateway::SseEvent>, String) {
    let mut decoder = SseDecoder::new()
        .with_coalescing(false)
        .with_max_line_bytes(limit);
    let mut events = Vec::new();
    for chunk in chunks {
        if let Err(error) = decoder.feed(chunk, &mut events) {
            return (events, format!("error {error:?}"));
        }
    }
    let end = decoder.end(&mut events);
    (events, format!("{end:?}"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&cuts, stream)) = data.split_first() else {
        return;
    };
    // A small line limit now and then, so the limit is reached too.
    let limit = if cuts & 0x80 != 0 { 256 } else { usize::MAX };
    let whole = decode(&[stream], limit);
    let step = usize::from(cuts & 0x3f) + 1;
    let chunks: Vec<&[u8]> = stream.chunks(step).collect();
    assert_eq!(decode(&chunks, limit), whole, "chunked by {step}");
    // The coalescing decoder never panics either.
    let mut coalescing = SseDecoder::new();
    let mut events = Vec::new();
    for chunk in &chunks {
        if coalescing.feed(chunk, &mut events).is_err() {
            return;
        }
    }
    let _ = coalescing.end(&mut events);
});
