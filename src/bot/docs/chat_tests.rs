//! Tests of the chat document: claims (duplicate, busy, stale, taken turns), two processes
//! racing through a compare-and-set store, finishing, forks, and the replay metadata.

use serde_json::json;

use super::*;
use crate::bot::docs::{decode, encode};

const KEY: &str = "chat/0123456789ab";

fn mid(text: &str) -> MessageId {
    MessageId::parse(text).unwrap()
}

fn claim(id: &str, turn: u32, owner: &str) -> Claim {
    Claim {
        message_id: mid(id),
        session_id: "s1".into(),
        turn,
        input: format!("input of {id}"),
        skills: Vec::new(),
        at: "2026-12-01T00:00:00.000Z".into(),
        owner: owner.into(),
    }
}

fn done() -> TurnOutcome {
    TurnOutcome {
        state: MessageState::Done,
        ended_at: "2026-12-01T00:00:05.000Z".into(),
        stop_reason: Some(Ending::Stopped(crate::bot::stream::StopReason::EndTurn)),
        usage: Some(Usage {
            input_tokens: 12,
            output_tokens: 3,
        }),
        error: None,
    }
}

#[test]
fn a_claim_then_a_duplicate() {
    let mut chat = ChatDoc::default();
    let ClaimOutcome::Claimed { sent, settled } =
        chat.claim(claim("m1", 1, "tab-a"), OtherClaims::Live)
    else {
        panic!("claimed")
    };
    assert!(settled.is_empty());
    assert_eq!(
        serde_json::to_value(&sent).unwrap(),
        json!({"sessionId":"s1","turn":1,"cursor":2097152,"duplicate":false})
    );
    let before = chat.clone();
    // The same messageId again, even with other content: its turn, nothing new.
    let mut other_content = claim("m1", 2, "tab-b");
    other_content.input = "different".into();
    assert_eq!(
        chat.claim(other_content, OtherClaims::Live),
        ClaimOutcome::Duplicate(Sent {
            duplicate: true,
            ..sent.clone()
        })
    );
    assert_eq!(chat, before);
    // Another messageId while m1 runs: busy.
    assert_eq!(
        chat.claim(claim("m2", 2, "tab-b"), OtherClaims::Live),
        ClaimOutcome::Busy { running: mid("m1") }
    );
    assert_eq!(chat, before);
    assert!(chat.finish(&mid("m1"), "tab-a", done()));
    assert!(matches!(
        chat.claim(claim("m2", 2, "tab-b"), OtherClaims::Live),
        ClaimOutcome::Claimed { .. }
    ));
    assert_eq!(chat.running().map(|(id, _)| id.as_str()), Some("m2"));
}

#[test]
fn stale_claims_and_taken_turns() {
    let mut chat = ChatDoc::default();
    chat.claim(claim("m1", 1, "dead-tab"), OtherClaims::Live);
    // The claimant holds the bot's lock, so m1's claim is stale; but turn 1 never reached the
    // log (history length is still 0), so the engine must settle it first.
    let before = chat.clone();
    assert_eq!(
        chat.claim(claim("m2", 1, "tab-b"), OtherClaims::Stale),
        ClaimOutcome::TurnTaken { at_least: 2 }
    );
    assert_eq!(chat, before, "a refused claim changes nothing");
    // After the engine committed turn 1 as interrupted, the log holds 1 turn.
    let ClaimOutcome::Claimed { sent, settled } =
        chat.claim(claim("m2", 2, "tab-b"), OtherClaims::Stale)
    else {
        panic!("claimed")
    };
    assert_eq!((sent.turn, settled), (2, vec![mid("m1")]));
    let m1 = &chat.messages[&mid("m1")];
    assert_eq!(m1.state, MessageState::Interrupted);
    assert_eq!(m1.ended_at.as_deref(), Some("2026-12-01T00:00:00.000Z"));
    // The dead tab's late finish still records its outcome; a stranger's does not.
    assert!(!chat.finish(&mid("m1"), "tab-b", done()));
    assert!(chat.finish(&mid("m1"), "dead-tab", done()));
    assert_eq!(chat.messages[&mid("m1")].state, MessageState::Done);
    assert!(!chat.finish(&mid("nope"), "tab-b", done()));
    // The duplicate of the settled message reaches its own turn.
    assert_eq!(chat.sent(&mid("m1")).unwrap().turn, 1);
    assert_eq!(chat.last_turn("s1"), 2);
    assert_eq!(chat.last_turn("other"), 0);
}

/// A store with revisions: commit succeeds only at the expected revision.
struct Store {
    bytes: Option<Vec<u8>>,
    revision: u32,
}

impl Store {
    fn load(&self) -> (ChatDoc, u32) {
        let doc = self
            .bytes
            .as_ref()
            .map_or_else(ChatDoc::default, |b| decode(KEY, b).unwrap());
        (doc, self.revision)
    }

    fn commit(&mut self, doc: &ChatDoc, expected: u32) -> bool {
        if expected != self.revision {
            return false;
        }
        self.bytes = Some(encode(doc));
        self.revision += 1;
        true
    }
}

/// One process's read → claim → commit loop, with the other process's commit slipped in
/// between its first read and its first commit.
fn race(a: Claim, b: Claim) -> (ClaimOutcome, ClaimOutcome, ChatDoc) {
    let mut store = Store {
        bytes: None,
        revision: 0,
    };
    let (mut doc_b, rev_b) = store.load();
    let (mut doc_a, rev_a) = store.load();
    let outcome_a = doc_a.claim(a, OtherClaims::Live);
    assert!(store.commit(&doc_a, rev_a));
    let mut outcome_b = doc_b.claim(b.clone(), OtherClaims::Live);
    let mut rev = rev_b;
    let mut tries = 0;
    while matches!(outcome_b, ClaimOutcome::Claimed { .. }) && !store.commit(&doc_b, rev) {
        tries += 1;
        assert!(tries < 5);
        (doc_b, rev) = store.load();
        outcome_b = doc_b.claim(b.clone(), OtherClaims::Live);
    }
    (outcome_a, outcome_b, store.load().0)
}

#[test]
fn two_processes_one_store() {
    // The same messageId from both: one claim, the other gets the duplicate.
    let (a, b, stored) = race(claim("m1", 1, "tab-a"), claim("m1", 1, "tab-b"));
    assert!(matches!(a, ClaimOutcome::Claimed { .. }));
    assert!(matches!(b, ClaimOutcome::Duplicate(ref s) if s.turn == 1 && s.duplicate));
    assert_eq!(stored.messages.len(), 1);
    assert_eq!(stored.messages[&mid("m1")].owner, "tab-a");
    // A different messageId while the first runs: busy.
    let (_, b, stored) = race(claim("m1", 1, "tab-a"), claim("m2", 1, "tab-b"));
    assert_eq!(b, ClaimOutcome::Busy { running: mid("m1") });
    assert_eq!(stored.messages.len(), 1);
}

#[test]
fn canonical_json_and_unknown_keys() {
    let mut chat = ChatDoc::default();
    chat.claim(claim("m1", 1, "tab-a"), OtherClaims::Live);
    chat.attach_files(
        &mid("m1"),
        "tab-a",
        vec![LibraryId::parse("00000000000f").unwrap()],
    );
    let bytes = encode(&chat);
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        r#"{"schema":1,"earlier":[],"messages":{"m1":{"sessionId":"s1","turn":1,"state":"running","input":"input of m1","files":["00000000000f"],"skills":[],"at":"2026-12-01T00:00:00.000Z","owner":"tab-a"}}}"#
    );
    let back: ChatDoc = decode(KEY, &bytes).unwrap();
    assert_eq!(encode(&back), bytes);
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    value["nextTurnClaim"] = json!(9);
    value["messages"]["m1"]["vectorAt"] = json!("x");
    let read: ChatDoc = decode(KEY, &serde_json::to_vec(&value).unwrap()).unwrap();
    let written: serde_json::Value = serde_json::from_slice(&encode(&read)).unwrap();
    assert_eq!(written, value, "unknown keys survive");
    // A message key that is not a messageId is damage.
    value["messages"]["a/b"] = value["messages"]["m1"].clone();
    assert!(decode::<ChatDoc>(KEY, &serde_json::to_vec(&value).unwrap()).is_err());
}

#[test]
fn attach_files_only_to_ones_own_running_claim() {
    let mut chat = ChatDoc::default();
    chat.claim(claim("m1", 1, "tab-a"), OtherClaims::Live);
    let f = LibraryId::parse("00000000000f").unwrap();
    assert!(!chat.attach_files(&mid("m1"), "tab-b", vec![f.clone()]));
    assert!(chat.attach_files(&mid("m1"), "tab-a", vec![f.clone()]));
    chat.finish(&mid("m1"), "tab-a", done());
    assert!(!chat.attach_files(&mid("m1"), "tab-a", vec![f]));
}

#[test]
fn forks_move_the_records() {
    let mut chat = ChatDoc::default();
    chat.claim(claim("m1", 1, "tab-a"), OtherClaims::Live);
    chat.finish(&mid("m1"), "tab-a", done());
    chat.earlier.push(EarlierChat {
        session_id: "s1".into(),
        started_at: "a".into(),
        ended_at: "b".into(),
        provider: String::new(),
        model: String::new(),
        handoff: None,
    });
    assert_eq!(chat.rename_session("s1", "s1-fork"), 1);
    assert_eq!(chat.messages[&mid("m1")].session_id, "s1-fork");
    assert_eq!(chat.earlier[0].session_id, "s1-fork");
    assert_eq!(chat.rename_session("s1", "x"), 0);
}

#[test]
fn replay_metadata() {
    let mut chat = ChatDoc::default();
    let mut with_files = claim("m1", 1, "tab-a");
    with_files.skills = vec!["review".into()];
    chat.claim(with_files, OtherClaims::Live);
    let kept = LibraryId::parse("00000000000a").unwrap();
    let removed = LibraryId::parse("00000000000b").unwrap();
    chat.attach_files(&mid("m1"), "tab-a", vec![kept.clone(), removed]);
    chat.finish(&mid("m1"), "tab-a", done());
    chat.claim(claim("m2", 2, "tab-a"), OtherClaims::Live);
    let mut elsewhere = claim("m3", 1, "tab-a");
    elsewhere.session_id = "s0".into();
    chat.messages.insert(
        mid("m3"),
        MessageRecord {
            session_id: "s0".into(),
            turn: 1,
            state: MessageState::Done,
            input: String::new(),
            files: Vec::new(),
            skills: Vec::new(),
            at: String::new(),
            owner: String::new(),
            ended_at: None,
            stop_reason: None,
            usage: None,
            error: None,
            withdrawn: false,
            extra: BTreeMap::new(),
        },
    );
    let metas = chat.turn_metas("s1", |id| {
        (id == &kept).then(|| SavedFile {
            name: "a.txt".into(),
            media_type: "text/plain".into(),
            url: format!("/api/library/{id}/file"),
        })
    });
    assert_eq!(metas.len(), 2);
    let m1 = &metas[&1];
    assert_eq!(m1.message_id, "m1");
    assert_eq!(m1.usage, done().usage);
    let saved = m1.saved.as_ref().unwrap();
    assert_eq!(saved.input, "input of m1");
    assert_eq!(saved.files.len(), 1, "a removed item is left out");
    assert_eq!(saved.skills, ["review"]);
    // A plain text message carries no saved input (the seed: only with files or skills).
    assert_eq!(metas[&2].saved, None);
    assert_eq!(metas[&2].message_id, "m2");
}

#[test]
fn own_claims_are_set_right_before_the_next_claim() {
    let at = "2026-12-01T00:01:00.000Z";
    let mut chat = ChatDoc::default();
    // m1's claim landed after its send gave up; m2's turn ran but its end was not recorded;
    // m3 was left running by this process; m4 is another process's.
    for (id, turn, owner) in [
        ("m1", 1, "p"),
        ("m2", 1, "p"),
        ("m3", 1, "p"),
        ("m4", 1, "q"),
    ] {
        let mut c = claim(id, turn, owner);
        c.session_id = format!("s-{id}");
        assert!(matches!(
            chat.claim(c, OtherClaims::Stale),
            ClaimOutcome::Claimed { .. }
        ));
    }
    // (Claiming with Stale marked the earlier ones interrupted; make them running again.)
    for record in chat.messages.values_mut() {
        record.state = MessageState::Running;
    }
    let unsettled = vec![
        (mid("m1"), OwnClaim::Withdraw),
        (mid("m2"), OwnClaim::Finish(done())),
    ];
    assert!(chat.settle_own("p", &unsettled, at));
    let state = |id: &str| {
        let r = &chat.messages[&mid(id)];
        (r.state, r.withdrawn)
    };
    assert_eq!(state("m1"), (MessageState::Interrupted, true));
    assert_eq!(state("m2"), (MessageState::Done, false));
    assert_eq!(state("m3"), (MessageState::Interrupted, false));
    assert_eq!(state("m4"), (MessageState::Running, false));
    // A withdrawn message is no duplicate, holds no turn, and is claimed again in place.
    assert_eq!(chat.sent(&mid("m1")), None);
    assert_eq!(chat.last_turn("s-m1"), 0);
    assert!(chat.turn_metas("s-m1", |_| None).is_empty());
    let mut again = claim("m1", 1, "p");
    again.session_id = "s-m1".into();
    assert!(matches!(
        chat.claim(again, OtherClaims::Stale),
        ClaimOutcome::Claimed { .. }
    ));
    assert!(!chat.messages[&mid("m1")].withdrawn);
    // Nothing left to set right: no change.
    let mut quiet = chat.clone();
    for record in quiet.messages.values_mut() {
        record.state = MessageState::Done;
    }
    assert!(!quiet.settle_own("p", &[], at));
}

#[test]
fn turns_the_log_lacks_come_with_their_input_and_error() {
    let mut chat = ChatDoc::default();
    chat.claim(claim("m1", 2, "p"), OtherClaims::Live);
    let mut outcome = done();
    outcome.state = MessageState::Interrupted;
    outcome.error = Some(LineError {
        status: 500,
        code: "FXBOT_STORE_FAILED".into(),
        cause: None,
        message: "store.commit(blob/x) failed: quota".into(),
    });
    chat.finish(&mid("m1"), "p", outcome);
    assert_eq!(
        chat.unlogged_turns("s1", 2, 4),
        vec![
            (
                "input of m1".to_owned(),
                "store.commit(blob/x) failed: quota (FXBOT_STORE_FAILED)".to_owned()
            ),
            (
                String::new(),
                "This turn did not reach the chat: it ended before it was saved.".to_owned()
            ),
        ]
    );
}
