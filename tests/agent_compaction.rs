//! Log compaction: once a generation passes 4096 frames the session is rewritten as a new
//! generation holding the same state, committed right after the commit that crossed the line.

mod support;

use futures::executor::block_on;
use fx_wasm::agent::modes::Mode;
use fx_wasm::agent::session::LiveSession;
use fx_wasm::log::bench::sample_turn;
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::log::{decode_frames, load};
use support::fake_host::FakeHost;

#[test]
fn a_long_generation_is_compacted_after_a_commit() {
    let host = FakeHost::new();
    let prefs = Preferences {
        model: "openai/gpt-5".into(),
        effort: "auto".into(),
        fast_mode: false,
        provider: Provider::Gateway,
    };
    let mut session = LiveSession::create(&host, "/workspace", prefs, Mode::Ask).unwrap();
    session.rename("Long haul").unwrap();
    block_on(session.persist(&host)).unwrap();
    let id = session.id().to_owned();
    let first = load(&host.stored(&id)).unwrap().generation;
    for i in 0..4095usize {
        session
            .append_turn(&host, sample_turn(i), i as u64, 1)
            .unwrap();
    }
    block_on(session.persist(&host)).unwrap();
    // 4096 frames: not yet due.
    assert_eq!(load(&host.stored(&id)).unwrap().generation, first);
    session
        .append_turn(&host, sample_turn(4095), 4095, 1)
        .unwrap();
    let before = session.state().clone();
    block_on(session.persist(&host)).unwrap();
    let stored = host.stored(&id);
    let loaded = load(&stored).unwrap();
    assert_ne!(loaded.generation, first);
    assert_eq!(loaded.state.history, before.history);
    assert_eq!(loaded.state.total_input_tokens, 4095);
    assert_eq!(loaded.title.as_deref(), Some("Long haul"));
    assert!(decode_frames(&stored).unwrap().len() < 10);
    assert!(session.is_saved());
    // Two commits for the last persist: the crossing one, then the compacted log.
    let commits = &host.state.borrow().commits;
    assert_eq!(commits.len(), 4);
}
