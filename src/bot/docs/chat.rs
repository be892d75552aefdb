//! The chat document `chat/<botId>` (fxbot DESIGN §5.2, §8.1): the bot's messages by
//! `messageId` (the idempotency claims: running, done or interrupted) and its earlier chats; the
//! pure claim, finish and fork steps a compare-and-set loop applies; and the [`TurnMeta`] the
//! replay takes from it.
//!
//! # Turn numbers
//!
//! A message's `turn` is the 1-based position its turn takes in the session's history: a claim
//! asks for `history length + 1`. A turn number is never given to two messages of one session:
//! a claim for a turn some record of the session already holds (a claimed turn that never
//! reached the log) is refused with [`ClaimOutcome::TurnTaken`], and the engine first settles
//! that turn into the log (as interrupted) and claims again. So turn *t* of the log is always
//! the message that claimed *t*, and a duplicate send's `turn` and `cursor` reach its own turn.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::SCHEMA;
use crate::bot::cursor::Cursor;
use crate::bot::ids::{LibraryId, MessageId};
use crate::bot::replay::{SavedInput, TurnMeta};
use crate::bot::stream::{Ending, LineError, SavedFile, Usage};

/// Where a message's turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageState {
    Running,
    Done,
    Interrupted,
}

/// One claimed message (`messages[messageId]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    pub session_id: String,
    pub turn: u32,
    pub state: MessageState,
    /// The user's own text (what the model saw is in the log).
    pub input: String,
    /// The library items saved from the message's files, in order.
    pub files: Vec<LibraryId>,
    pub skills: Vec<String>,
    /// When it was claimed (RFC 3339).
    pub at: String,
    /// The process that claimed it.
    pub owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<Ending>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<LineError>,
    /// Taken back: its `send` was refused before the turn ran, so the message may be sent
    /// again and its turn number is free (the record stays, as a map entry is cheaper to
    /// overwrite than to remove).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A chat a provider switch moved aside (the seed's `EarlierChat`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EarlierChat {
    pub session_id: String,
    pub started_at: String,
    pub ended_at: String,
    pub provider: String,
    pub model: String,
    pub handoff: Option<String>,
}

/// `chat/<botId>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatDoc {
    pub schema: u32,
    pub earlier: Vec<EarlierChat>,
    pub messages: BTreeMap<MessageId, MessageRecord>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl Default for ChatDoc {
    fn default() -> Self {
        ChatDoc {
            schema: SCHEMA,
            earlier: Vec::new(),
            messages: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }
}

/// What `chat.send` resolves with (the seed's `Sent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    pub session_id: String,
    pub turn: u32,
    /// `turn · 2^21`: streaming from it gives this turn onward.
    pub cursor: Cursor,
    pub duplicate: bool,
}

/// A claim `send` makes before its turn runs (§8.1 step 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub message_id: MessageId,
    pub session_id: String,
    /// The session's history length + 1.
    pub turn: u32,
    pub input: String,
    pub skills: Vec<String>,
    pub at: String,
    pub owner: String,
}

/// Whether another message's `running` claim is alive. In a browser the bot's Web Lock tells:
/// holding it means no other tab runs a turn, so any other running claim is stale (its tab
/// died). Without such a lock the engine cannot tell, and must say `Live`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherClaims {
    Live,
    Stale,
}

/// The outcome of [`ChatDoc::claim`]; only `Claimed` changed the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// The message is claimed; `settled` are the stale running claims marked interrupted.
    Claimed { sent: Sent, settled: Vec<MessageId> },
    /// This messageId was claimed before: its turn, and nothing runs.
    Duplicate(Sent),
    /// Another message's turn is running (409).
    Busy { running: MessageId },
    /// A record already holds this turn of the session; settle it into the log, then claim
    /// turn `at_least` or later.
    TurnTaken { at_least: u32 },
}

/// What became of a claim of this process whose stored state is not what happened: its write
/// failed, or timed out and may have landed later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnClaim {
    /// Its `send` was refused before the turn ran: the claim is taken back, so the message
    /// can be sent again.
    Withdraw,
    /// Its turn ended so, but the record of it failed.
    Finish(TurnOutcome),
}

/// How a turn ended, for [`ChatDoc::finish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    pub state: MessageState,
    pub ended_at: String,
    pub stop_reason: Option<Ending>,
    pub usage: Option<Usage>,
    pub error: Option<LineError>,
}

impl ChatDoc {
    /// The `Sent` of a claimed message.
    pub fn sent(&self, id: &MessageId) -> Option<Sent> {
        self.messages
            .get(id)
            .filter(|r| !r.withdrawn)
            .map(|r| Sent {
                session_id: r.session_id.clone(),
                turn: r.turn,
                cursor: Cursor::before_turn(r.turn),
                duplicate: true,
            })
    }

    /// The running message, if any (there is at most one).
    pub fn running(&self) -> Option<(&MessageId, &MessageRecord)> {
        self.messages
            .iter()
            .find(|(_, r)| r.state == MessageState::Running)
    }

    /// The highest turn any record of `session_id` holds (0 for none).
    pub fn last_turn(&self, session_id: &str) -> u32 {
        self.messages
            .values()
            .filter(|r| r.session_id == session_id && !r.withdrawn)
            .map(|r| r.turn)
            .max()
            .unwrap_or(0)
    }

    /// Claims a message for a turn (§8.1 steps 2 and 6): a duplicate first, then a running
    /// turn of another message, then a turn number already held; else the claim is written as
    /// `running` (stale claims first marked interrupted when `others` says so).
    pub fn claim(&mut self, claim: Claim, others: OtherClaims) -> ClaimOutcome {
        if let Some(sent) = self.sent(&claim.message_id) {
            return ClaimOutcome::Duplicate(sent);
        }
        let running: Vec<MessageId> = self
            .messages
            .iter()
            .filter(|(_, r)| r.state == MessageState::Running)
            .map(|(id, _)| id.clone())
            .collect();
        if let (OtherClaims::Live, Some(first)) = (others, running.first()) {
            return ClaimOutcome::Busy {
                running: first.clone(),
            };
        }
        let held = self.last_turn(&claim.session_id);
        if held >= claim.turn {
            return ClaimOutcome::TurnTaken {
                at_least: held.saturating_add(1),
            };
        }
        for id in &running {
            if let Some(record) = self.messages.get_mut(id) {
                record.state = MessageState::Interrupted;
                record.ended_at = Some(claim.at.clone());
            }
        }
        let sent = Sent {
            session_id: claim.session_id.clone(),
            turn: claim.turn,
            cursor: Cursor::before_turn(claim.turn),
            duplicate: false,
        };
        self.messages.insert(
            claim.message_id,
            MessageRecord {
                session_id: claim.session_id,
                turn: claim.turn,
                state: MessageState::Running,
                input: claim.input,
                files: Vec::new(),
                skills: claim.skills,
                at: claim.at,
                owner: claim.owner,
                ended_at: None,
                stop_reason: None,
                usage: None,
                error: None,
                withdrawn: false,
                extra: BTreeMap::new(),
            },
        );
        ClaimOutcome::Claimed {
            sent,
            settled: running,
        }
    }

    /// Sets right the claims of `owner` (this process) before it claims again: a claim listed
    /// in `unsettled` is withdrawn or finished as it says; any other `running` claim of
    /// `owner` is marked interrupted at `at`, since this process runs no turn of the bot while
    /// it claims (it holds the bot's lock). Returns whether anything changed.
    pub fn settle_own(
        &mut self,
        owner: &str,
        unsettled: &[(MessageId, OwnClaim)],
        at: &str,
    ) -> bool {
        let mut changed = false;
        for (id, claim) in unsettled {
            match claim {
                OwnClaim::Withdraw => {
                    if let Some(r) = self
                        .messages
                        .get_mut(id)
                        .filter(|r| r.owner == owner && r.state == MessageState::Running)
                    {
                        r.withdrawn = true;
                        changed = true;
                    }
                }
                OwnClaim::Finish(outcome) => {
                    changed |= self.finish(id, owner, outcome.clone());
                }
            }
        }
        for record in self.messages.values_mut() {
            if record.owner == owner && record.state == MessageState::Running {
                record.state = MessageState::Interrupted;
                record.ended_at = Some(at.to_owned());
                changed = true;
            }
        }
        changed
    }

    /// What the claims of `session_id` hold for turns `from..to` that the log does not have:
    /// each turn's saved input (`""` for a number no record holds) and what to note for it.
    pub fn unlogged_turns(&self, session_id: &str, from: u32, to: u32) -> Vec<(String, String)> {
        (from..to)
            .map(|turn| {
                let record = self
                    .messages
                    .values()
                    .find(|r| r.session_id == session_id && r.turn == turn && !r.withdrawn);
                let input = record.map(|r| r.input.clone()).unwrap_or_default();
                let note = match record.and_then(|r| r.error.as_ref()) {
                    Some(error) => format!("{} ({})", error.message, error.code),
                    None => {
                        "This turn did not reach the chat: it ended before it was saved.".to_owned()
                    }
                };
                (input, note)
            })
            .collect()
    }

    /// Puts the library ids of a message's saved files in its claim (§8.1 step 8). False when
    /// the message is not this owner's running claim.
    pub fn attach_files(&mut self, id: &MessageId, owner: &str, files: Vec<LibraryId>) -> bool {
        match self.messages.get_mut(id) {
            Some(r) if r.owner == owner && r.state == MessageState::Running => {
                r.files = files;
                true
            }
            _ => false,
        }
    }

    /// Records how a message's turn ended (§8.1 step 11). Only the claim's owner finishes it;
    /// it also applies to a claim another process marked stale, since the owner's turn did run.
    /// False when the message is unknown or another process's.
    pub fn finish(&mut self, id: &MessageId, owner: &str, outcome: TurnOutcome) -> bool {
        match self.messages.get_mut(id) {
            Some(r) if r.owner == owner => {
                r.state = outcome.state;
                r.ended_at = Some(outcome.ended_at);
                r.stop_reason = outcome.stop_reason;
                r.usage = outcome.usage;
                r.error = outcome.error;
                true
            }
            _ => false,
        }
    }

    /// Moves every record of session `from` to `to` (the session forked on a conflict: the fork
    /// holds the same history, so turn numbers stay). Returns how many moved.
    pub fn rename_session(&mut self, from: &str, to: &str) -> usize {
        let mut moved = 0;
        for record in self.messages.values_mut().filter(|r| r.session_id == from) {
            to.clone_into(&mut record.session_id);
            moved += 1;
        }
        for chat in self.earlier.iter_mut().filter(|c| c.session_id == from) {
            to.clone_into(&mut chat.session_id);
        }
        moved
    }

    /// The replay's metadata of session `session_id`, by turn. `file` gives a library item's
    /// name, type and URL (an item removed since is left out).
    pub fn turn_metas(
        &self,
        session_id: &str,
        file: impl Fn(&LibraryId) -> Option<SavedFile>,
    ) -> BTreeMap<u32, TurnMeta> {
        let mut out = BTreeMap::new();
        for (id, r) in self
            .messages
            .iter()
            .filter(|(_, r)| r.session_id == session_id && !r.withdrawn)
        {
            let saved = (!r.files.is_empty() || !r.skills.is_empty()).then(|| SavedInput {
                input: r.input.clone(),
                files: r.files.iter().filter_map(&file).collect(),
                skills: r.skills.clone(),
            });
            out.insert(
                r.turn,
                TurnMeta {
                    message_id: id.as_str().to_owned(),
                    at: Some(r.at.clone()),
                    saved,
                    usage: r.usage,
                    stop_reason: r.stop_reason,
                    error: r.error.clone(),
                },
            );
        }
        out
    }
}

#[cfg(test)]
#[path = "chat_tests.rs"]
mod tests;
