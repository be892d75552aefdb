//! Byte-for-byte round trips of the real fx fixtures through the decoder and canonical writer.

mod log_common;

use fx_wasm::log::{decode_frames, load};
use log_common::{events, SCENARIOS};

#[test]
fn every_fixture_reencodes_byte_for_byte() {
    for scenario in SCENARIOS {
        let bytes = events(scenario);
        let frames = decode_frames(&bytes).unwrap_or_else(|e| panic!("{scenario}: {e}"));
        let mut out = Vec::new();
        for frame in &frames {
            out.extend_from_slice(&frame.encode());
        }
        if out != bytes {
            let a = String::from_utf8_lossy(&out);
            let b = String::from_utf8_lossy(&bytes);
            for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
                assert_eq!(x, y, "{scenario}: line {}", i + 1);
            }
            panic!("{scenario}: lengths differ");
        }
    }
}

#[test]
fn every_fixture_loads_and_matches_its_manifest() {
    for scenario in SCENARIOS {
        let bytes = events(scenario);
        let loaded = load(&bytes).unwrap_or_else(|e| panic!("{scenario}: {e}"));
        let dir = log_common::session_dir(scenario);
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("session.json")).unwrap()).unwrap();
        let s = &loaded.state;
        assert_eq!(manifest["id"], s.id.as_str(), "{scenario}");
        assert_eq!(
            manifest["history_len"],
            s.history.len() as u64,
            "{scenario}"
        );
        assert_eq!(manifest["updated_at_ms"], s.updated_at_ms, "{scenario}");
        assert_eq!(
            manifest["total_input_tokens"], s.total_input_tokens,
            "{scenario}"
        );
        assert_eq!(
            manifest["total_output_tokens"], s.total_output_tokens,
            "{scenario}"
        );
        assert_eq!(manifest["last_event_seq"], loaded.last_seq, "{scenario}");
        assert_eq!(manifest["event_log_bytes"], loaded.events_len, "{scenario}");
        assert_eq!(
            manifest["generation_base_bytes"], loaded.first_frame_len,
            "{scenario}"
        );
        assert_eq!(
            manifest["conversation_language"],
            s.conversation_language.as_str(),
            "{scenario}"
        );
        assert_eq!(
            manifest["preferences"]["fast_mode"], s.preferences.fast_mode,
            "{scenario}"
        );
        assert_eq!(
            manifest["preferences"]["model"],
            s.preferences.model.as_str(),
            "{scenario}"
        );
    }
}

#[test]
fn checkpoint_state_documents_round_trip() {
    // checkpoint.json embeds a state document fx wrote: decode it and re-encode it exactly.
    for scenario in SCENARIOS {
        let dir = log_common::session_dir(scenario);
        let text = std::fs::read_to_string(dir.join("checkpoint.json")).unwrap();
        let start = text.find(",\"state\":").unwrap() + ",\"state\":".len();
        let doc = &text.as_bytes()[start..text.len() - 1];
        let state = fx_wasm::log::SessionState::decode_document(doc)
            .unwrap_or_else(|e| panic!("{scenario}: {e}"));
        assert_eq!(state.encode_document(), doc, "{scenario}");
    }
}

#[test]
fn replaying_up_to_each_checkpoint_gives_fx_state_document() {
    // checkpoint.json holds fx's own state at `through_seq`: our replay of the same prefix must
    // encode to exactly those bytes.
    for scenario in SCENARIOS {
        let dir = log_common::session_dir(scenario);
        let text = std::fs::read_to_string(dir.join("checkpoint.json")).unwrap();
        let head: serde_json::Value = serde_json::from_str(&text).unwrap();
        let through = head["through_event_log_bytes"].as_u64().unwrap() as usize;
        let start = text.find(",\"state\":").unwrap() + ",\"state\":".len();
        let doc = &text.as_bytes()[start..text.len() - 1];
        let loaded = load(&events(scenario)[..through]).unwrap();
        assert_eq!(
            loaded.last_seq,
            head["through_seq"].as_u64().unwrap(),
            "{scenario}"
        );
        assert_eq!(
            String::from_utf8(loaded.state.encode_document()).unwrap(),
            std::str::from_utf8(doc).unwrap(),
            "{scenario}"
        );
    }
}
