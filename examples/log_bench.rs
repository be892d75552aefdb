//! Session-log benchmark: load time (median), size, peak memory and per-commit append cost of
//! generated sessions, with 500/1000/2000-turn loads to show linearity.
//!
//! Run: `cargo run --release --example log_bench`. The generator is
//! `fx_wasm::log::bench::generate_session`, which the wasm side can call to run the same
//! benchmark in a browser.

use std::time::{Duration, Instant};

use fx_wasm::log::appender::TurnCommit;
use fx_wasm::log::bench::{generate_session, sample_turn, FixedEnv};
use fx_wasm::log::usage::UsageSnapshot;
use fx_wasm::log::{load, read_session, SessionLog};

const RUNS: usize = 9;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Reads a `/proc/self/status` field in KiB (Linux only).
fn proc_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Child mode: load the file at `path` once and print the peak RSS growth in KiB.
fn measure_peak(path: &str) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let before = proc_kib("VmRSS:").unwrap_or(0);
    let loaded = load(&bytes);
    let peak = proc_kib("VmHWM:").unwrap_or(0);
    println!("{}", peak.saturating_sub(before));
    drop(loaded);
}

/// CPU time of this thread so far (utime + stime from `/proc/thread-self/stat`, 10 ms ticks).
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// Median wall time of a load, and the mean CPU time over the same runs (the machine may be
/// shared, so wall time can include time spent waiting for a core).
fn load_median(bytes: &[u8]) -> (Duration, Option<Duration>) {
    let cpu_before = cpu_time();
    let wall = median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                let loaded = load(bytes);
                let d = t.elapsed();
                assert!(loaded.is_ok(), "generated session must load");
                d
            })
            .collect(),
    );
    let cpu = match (cpu_before, cpu_time()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) / RUNS as u32),
        _ => None,
    };
    (wall, cpu)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let (Some("peak"), Some(path)) = (args.get(1).map(String::as_str), args.get(2)) {
        measure_peak(path);
        return;
    }

    println!("fx session log benchmark ({RUNS} runs, median)\n");
    println!(
        "{:>6} {:>12} {:>8} {:>12} {:>12} {:>10} {:>12}",
        "turns", "bytes", "frames", "load ms", "load cpu ms", "MB/s", "view ms"
    );
    let mut loads = Vec::new();
    let mut biggest = Vec::new();
    for turns in [500usize, 1000, 2000] {
        let t = Instant::now();
        let bytes = generate_session(turns);
        let generated = t.elapsed();
        let frames = bytes.iter().filter(|&&b| b == b'\n').count();
        let (load_time, load_cpu) = load_median(&bytes);
        let view_time = median(
            (0..RUNS)
                .map(|_| {
                    let t = Instant::now();
                    let v = read_session(&bytes);
                    let d = t.elapsed();
                    assert!(v.is_ok());
                    d
                })
                .collect(),
        );
        let mbps = bytes.len() as f64 / 1e6 / load_time.as_secs_f64();
        let cpu = load_cpu.map_or_else(|| "n/a".to_owned(), |c| format!("{:.1}", ms(c)));
        println!(
            "{turns:>6} {:>12} {frames:>8} {:>12.2} {cpu:>12} {mbps:>10.1} {:>12.2}   (generated in {:.0} ms)",
            bytes.len(),
            ms(load_time),
            ms(view_time),
            ms(generated)
        );
        loads.push((turns, load_time, bytes.len()));
        biggest = bytes;
    }
    if let [(_, t500, _), (_, t1000, _), (_, t2000, _)] = loads.as_slice() {
        println!(
            "\nlinearity: load(1000)/load(500) = {:.2}, load(2000)/load(1000) = {:.2} (2.00 = linear)",
            t1000.as_secs_f64() / t500.as_secs_f64(),
            t2000.as_secs_f64() / t1000.as_secs_f64()
        );
    }

    // Peak memory of one load, measured in a fresh child process.
    let path = std::env::temp_dir().join(format!("fx-log-bench-{}.jsonl", std::process::id()));
    if std::fs::write(&path, &biggest).is_ok() {
        let out = std::env::current_exe().ok().and_then(|exe| {
            std::process::Command::new(exe)
                .arg("peak")
                .arg(&path)
                .output()
                .ok()
        });
        let peak = out
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<u64>().ok());
        match peak {
            Some(kib) => println!(
                "peak memory of loading 2000 turns: {:.1} MiB over the input ({:.2}x the {:.1} MiB log)",
                kib as f64 / 1024.0,
                kib as f64 * 1024.0 / biggest.len() as f64,
                biggest.len() as f64 / 1048576.0
            ),
            None => println!("peak memory: n/a (needs /proc/self/status)"),
        }
        let _ = std::fs::remove_file(&path);
    }

    // Per-commit append cost at 500 and 2000 turns: a usage checkpoint plus a turn, as fx writes.
    for turns in [500usize, 2000] {
        let bytes = generate_session(turns);
        let Ok(mut session) = SessionLog::load(bytes) else {
            return;
        };
        let mut env = FixedEnv::new(42, 1_800_000_000_000);
        let commits = 200;
        let t = Instant::now();
        let before = session.bytes().len();
        for i in 0..commits {
            let ok = session
                .checkpoint_usage(&mut env, UsageSnapshot::default())
                .is_ok()
                && session
                    .commit_turn(
                        &mut env,
                        TurnCommit {
                            turn: sample_turn(turns + i),
                            conversation_language: None,
                            total_input_tokens: 1,
                            total_output_tokens: 1,
                            work_id: None,
                        },
                    )
                    .is_ok();
            assert!(ok, "append failed");
        }
        let per = t.elapsed() / commits as u32;
        let grown = (session.bytes().len() - before) / commits;
        println!(
            "append after {turns} turns: {:.1} us per commit (usage checkpoint + turn, {grown} bytes)",
            per.as_secs_f64() * 1e6
        );
    }
}
