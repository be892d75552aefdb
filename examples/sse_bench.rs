//! Benchmark: nanoseconds per 4-character text delta through the SSE decoder and the
//! completion accumulator, for 5,000 and 50,000 deltas delivered in one buffer and in 16 KiB
//! chunks. Run with `cargo run --release --example sse_bench`.
//!
//! `sse_bench DELTAS CHUNK_BYTES COALESCE(true|false) RUNS` runs one configuration a fixed number
//! of times and prints nothing else, for instruction counts that do not depend on machine load:
//! `perf stat -e instructions target/release/examples/sse_bench 50000 16384 true 20` minus the
//! same with 10 runs, divided by 10 × 50,000.

use std::time::{Duration, Instant};

use fx_wasm::gateway::completion::StreamAccumulator;
use fx_wasm::gateway::sse::SseDecoder;

fn body(deltas: usize) -> Vec<u8> {
    let mut out = String::with_capacity(deltas * 56 + 256);
    out.push_str("data: {\"type\":\"response-metadata\",\"id\":\"gen_b\",\"modelId\":\"moonshotai/kimi-k3\"}\n\n");
    for i in 0..deltas {
        let word = ["abcd", "efgh", "ij k", "lmn."][i % 4];
        out.push_str("data: {\"type\":\"text-delta\",\"id\":\"t0\",\"delta\":\"");
        out.push_str(word);
        out.push_str("\"}\n\n");
    }
    out.push_str("data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"stop\",\"raw\":\"stop\"},\"usage\":{\"inputTokens\":{\"total\":3},\"outputTokens\":{\"total\":2}}}\n\ndata: [DONE]\n\n");
    out.into_bytes()
}

/// On-CPU time of this thread (Linux `schedstat`), so other processes on a busy machine do not
/// inflate the figures; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Wall time and (when available) on-CPU time of one run, plus the decoded text length.
fn run(bytes: &[u8], chunk: usize, coalesce: bool) -> (Duration, Option<Duration>, usize) {
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    let mut decoder = SseDecoder::new().with_coalescing(coalesce);
    let mut acc = StreamAccumulator::new();
    let mut events = Vec::new();
    for piece in bytes.chunks(chunk) {
        if decoder.feed(piece, &mut events).is_err() {
            break;
        }
        acc.push_all(&mut events);
    }
    let _ = decoder.end(&mut events);
    acc.push_all(&mut events);
    let completion = acc.into_completion();
    let wall = start.elapsed();
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) => Some(Duration::from_nanos(b.saturating_sub(a))),
        _ => None,
    };
    (wall, cpu, completion.text.len())
}

fn fixed_runs(args: &[String]) -> Option<()> {
    let [deltas, chunk, coalesce, runs] = args else {
        return None;
    };
    let deltas: usize = deltas.parse().ok()?;
    let chunk: usize = chunk.parse().ok()?;
    let coalesce: bool = coalesce.parse().ok()?;
    let runs: usize = runs.parse().ok()?;
    let bytes = body(deltas);
    let chunk = chunk.clamp(1, bytes.len());
    for _ in 0..runs {
        let (_, _, text_len) = run(&bytes, chunk, coalesce);
        assert_eq!(text_len, deltas * 4);
    }
    Some(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.is_empty() {
        if fixed_runs(&args).is_none() {
            eprintln!("usage: sse_bench [DELTAS CHUNK_BYTES true|false RUNS]");
            std::process::exit(2);
        }
        return;
    }
    println!(
        "SSE decode + accumulate, {} build",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "optimized"
        }
    );
    for deltas in [5_000usize, 50_000] {
        let bytes = body(deltas);
        for (label, chunk) in [("one buffer", bytes.len()), ("16 KiB chunks", 16 * 1024)] {
            for coalesce in [true, false] {
                let mut best = Duration::MAX;
                let mut runs = 0u32;
                let cpu_start = thread_cpu_ns();
                let started = Instant::now();
                // Repeat for at least 400 ms so the scheduler's CPU accounting is accurate.
                while runs < 5 || started.elapsed() < Duration::from_millis(400) {
                    let (wall, _, text_len) = run(&bytes, chunk, coalesce);
                    assert_eq!(text_len, deltas * 4);
                    best = best.min(wall);
                    runs += 1;
                }
                let total_deltas = f64::from(runs) * deltas as f64;
                let cpu = match (cpu_start, thread_cpu_ns()) {
                    (Some(a), Some(b)) => {
                        format!("{:>6.1}", b.saturating_sub(a) as f64 / total_deltas)
                    }
                    _ => "   n/a".to_owned(),
                };
                let per = |d: Duration| d.as_nanos() as f64 / deltas as f64;
                println!(
                    "{deltas:>6} deltas, {label:<13}, coalesce={coalesce:<5}: best wall {:>6.1} ns/delta, mean on-CPU {cpu} ns/delta ({runs} runs)",
                    per(best),
                );
            }
        }
    }
}
