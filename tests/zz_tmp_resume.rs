#![cfg(test)]
#![allow(clippy::unwrap_used)]
use std::time::Instant;
#[test]
fn phases() {
    let bytes = std::fs::read("/tmp/s13b/s2000.jsonl").unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let c = bytes.clone();
        let t1 = t.elapsed();
        let log = fx_wasm::log::SessionLog::load(c).unwrap();
        let t2 = t.elapsed();
        let h = log.state().history.clone();
        let t3 = t.elapsed();
        let v = fx_wasm::log::read_session(&bytes).unwrap();
        let t4 = t.elapsed();
        println!("clone {:?} load {:?} history-clone {:?} read_session {:?} {}", t1, t2 - t1, t3 - t2, t4 - t3, h.len() + v.turns.len());
    }
}
