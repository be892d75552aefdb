//! The `messageId` claim of `chat.send` and the chat's session (fxbot DESIGN §8.1 steps 2, 6
//! and 11): the compare-and-set on `chat/<botId>`, with this process's own claims set right first
//! ([`OwnClaim`]: one the store did not take is withdrawn or finished by the bot's next claim);
//! claimed turns the log lacks settled into it through the agent; a second `send` of a message
//! this process is sending joined to the first; the record of how a turn ended.

use futures::channel::oneshot;

use crate::agent::front::Loaded;
use crate::agent::modes::Mode;
use crate::agent::session::SessionError;
use crate::agent::AgentError;
use crate::caps::{DocStore, Host};
use crate::log::event::PreferencesChange;
use crate::log::types::{Preferences, Provider};

use super::super::docs::bot::BotDoc;
use super::super::docs::chat::{
    ChatDoc, Claim, ClaimOutcome, MessageState, OtherClaims, OwnClaim, Sent, TurnOutcome,
};
use super::super::docs::keys;
use super::super::error::{Entity, FxbotError};
use super::super::ids::{BotId, MessageId};
use super::super::store::{self, Step};
use super::super::stream::Ending;
use super::{not_found, Fxbot, Running};

/// Rounds of settling turns the log lacks before a claim gives up (each round settles every
/// turn it finds missing; more rounds mean other processes keep claiming meanwhile).
pub(super) const CLAIM_ROUNDS: u32 = 4;

/// A claim's outcome, with what the log lacks when the turn number is taken.
pub(super) struct Claimed {
    pub(super) outcome: ClaimOutcome,
    pub(super) unlogged: Vec<(String, String)>,
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// Takes the in-process lock of `bot` for `message_id`: the agent's id of its turn; `None`
    /// while the same message is being sent here.
    ///
    /// # Errors
    /// 409 while another message's turn runs here.
    pub(super) fn lock(
        &self,
        bot: &BotId,
        message_id: &MessageId,
    ) -> Result<Option<u32>, FxbotError> {
        let mut state = self.state.borrow_mut();
        match state.running.get(bot) {
            Some(running) if running.message_id.as_ref() == Some(message_id) => Ok(None),
            Some(running) => Err(FxbotError::Busy {
                running: running.message_id.as_ref().map(ToString::to_string),
            }),
            None => {
                state.last_turn_id = state.last_turn_id.wrapping_add(1);
                let turn_id = state.last_turn_id;
                state.running.insert(
                    bot.clone(),
                    Running {
                        message_id: Some(message_id.clone()),
                        cancel: self.agent.register_turn(turn_id),
                        sent: None,
                        joiners: Vec::new(),
                    },
                );
                Ok(Some(turn_id))
            }
        }
    }

    /// A second `send` of the message this process is sending for `bot`: resolves with its
    /// `Sent` once the first one has it, or `None` when the first one failed (or is gone).
    pub(super) fn join(
        &self,
        bot: &BotId,
        message_id: &MessageId,
    ) -> Option<impl std::future::Future<Output = Option<Sent>>> {
        let mut state = self.state.borrow_mut();
        let running = state.running.get_mut(bot)?;
        if running.message_id.as_ref() != Some(message_id) {
            return None;
        }
        let (sender, receiver) = oneshot::channel();
        match &running.sent {
            Some(sent) => {
                let _ = sender.send(Some(sent.clone()));
            }
            None => running.joiners.push(sender),
        }
        Some(async move { receiver.await.ok().flatten() })
    }

    /// True when this process took back its claim of `message_id` (its send failed before the
    /// turn ran), so the message may be sent again.
    pub(super) fn is_withdrawn(&self, bot: &BotId, message_id: &MessageId) -> bool {
        self.state
            .borrow()
            .unsettled
            .iter()
            .any(|(b, m, claim)| b == bot && m == message_id && matches!(claim, OwnClaim::Withdraw))
    }

    pub(super) fn unsettle(&self, bot: &BotId, message_id: &MessageId, claim: OwnClaim) {
        let mut state = self.state.borrow_mut();
        state
            .unsettled
            .retain(|(b, m, _)| !(b == bot && m == message_id));
        state
            .unsettled
            .push((bot.clone(), message_id.clone(), claim));
    }

    /// The claim itself, by compare-and-set on `chat/<botId>`: this process's own claims set
    /// right first, the session's new id put in its records when it continued as a fork.
    pub(super) async fn claim(
        &self,
        id: &BotId,
        claim: Claim,
        renamed_from: Option<&str>,
    ) -> Result<Claimed, FxbotError> {
        let unsettled: Vec<(MessageId, OwnClaim)> = self
            .state
            .borrow()
            .unsettled
            .iter()
            .filter(|(b, _, _)| b == id)
            .map(|(_, m, claim)| (m.clone(), claim.clone()))
            .collect();
        let owner = self.config.owner.clone();
        let at = claim.at.clone();
        let claimed = store::update::<ChatDoc, D, Claimed>(
            &self.docs,
            &keys::chat(id),
            || Some(ChatDoc::default()),
            |doc| {
                let doc = doc.ok_or_else(|| FxbotError::Internal {
                    message: "no chat document".to_owned(),
                })?;
                let mut changed = doc.settle_own(&owner, &unsettled, &at);
                if let Some(from) = renamed_from {
                    changed |= doc.rename_session(from, &claim.session_id) > 0;
                }
                let outcome = doc.claim(claim.clone(), OtherClaims::Live);
                let unlogged = match &outcome {
                    ClaimOutcome::TurnTaken { at_least } => {
                        doc.unlogged_turns(&claim.session_id, claim.turn, *at_least)
                    }
                    _ => Vec::new(),
                };
                let write = changed || matches!(outcome, ClaimOutcome::Claimed { .. });
                let claimed = Claimed { outcome, unlogged };
                Ok(if write {
                    Step::Write(claimed)
                } else {
                    Step::Keep(claimed)
                })
            },
        )
        .await?;
        // Set right now (nothing adds to them meanwhile: this process holds the bot's lock).
        self.state
            .borrow_mut()
            .unsettled
            .retain(|(b, _, _)| b != id);
        Ok(claimed)
    }

    /// Settles the chat's session through the agent (a turn left unfinished, then `unlogged`
    /// turns as interrupted ones) and reads its counts again.
    pub(super) async fn settle_chat(
        &self,
        loaded: &mut Loaded,
        unlogged: Vec<(String, String)>,
    ) -> Result<(), FxbotError> {
        let now = self
            .agent
            .settle_session(&loaded.session_id, unlogged)
            .await?;
        let turns = self
            .agent
            .change_session(&now, |session, _| Ok(session.state().history.len()))?;
        *loaded = Loaded {
            session_id: now,
            turns,
            unfinished: false,
        };
        Ok(())
    }

    /// The bot's chat session, opened through the agent: its current one, or a new one (not
    /// stored until its first turn ends). Returns it and the id it was opened as (a session
    /// the agent held unsaved may have continued as a fork when it was saved). The session is
    /// held as the store has it ([`Fxbot::set_model`] changes it once the turn is claimed), so
    /// [`Fxbot::reopen`] can read it anew.
    pub(super) async fn chat_session(
        &self,
        bot: &BotDoc,
        model: &str,
    ) -> Result<(Loaded, String), FxbotError> {
        if let Some(session_id) = &bot.session_id {
            match self.agent.load_session(session_id, Mode::Ask).await {
                Ok(loaded) => return Ok((loaded, session_id.clone())),
                Err(AgentError::Session(SessionError::NotFound(_))) => {}
                Err(other) => return Err(other.into()),
            }
        }
        let preferences = Preferences {
            model: model.to_owned(),
            effort: "auto".to_owned(),
            fast_mode: false,
            provider: Provider::Gateway,
        };
        let session_id =
            self.agent
                .start_session(&format!("/fxbot/{}", bot.id), preferences, Mode::Ask)?;
        let loaded = Loaded {
            session_id: session_id.clone(),
            turns: 0,
            unfinished: false,
        };
        Ok((loaded, session_id))
    }

    /// After the claim: makes `session_id` the bot's `sessionId`. False (nothing changed) when
    /// the stored bot's chat is no longer the one `bot` (read before the claim) had: another
    /// process started or moved the chat meanwhile. (Its turn, if any, ended before this claim
    /// was stored, and it sets the bot's chat before its turn ends, so this sees it.)
    pub(super) async fn take_chat(
        &self,
        id: &BotId,
        bot: &BotDoc,
        session_id: &str,
    ) -> Result<bool, FxbotError> {
        if bot.session_id.as_deref() == Some(session_id) {
            return Ok(true);
        }
        let mut taken = true;
        self.update_bot(id, &mut |doc| {
            let doc = doc.ok_or_else(|| not_found(Entity::Bot, id))?;
            taken =
                doc.session_id == bot.session_id || doc.session_id.as_deref() == Some(session_id);
            if taken {
                doc.session_id = Some(session_id.to_owned());
            }
            Ok(())
        })
        .await?;
        Ok(taken)
    }

    /// Takes back this process's claim of `message_id` (its turn will not run), so the message
    /// may be sent again; a write that fails is set right by the bot's next claim.
    pub(super) async fn withdraw(&self, id: &BotId, message_id: &MessageId) {
        let owner = self.config.owner.clone();
        let at = self.now();
        let withdrawal = [(message_id.clone(), OwnClaim::Withdraw)];
        let written = self
            .update_chat(id, &mut |doc| {
                doc.settle_own(&owner, &withdrawal, &at);
            })
            .await;
        if written.is_err() {
            self.unsettle(id, message_id, OwnClaim::Withdraw);
        }
    }

    /// Reads open session `loaded` again from the store: another process may have logged turns
    /// since it was opened (a claim that finds its turn number taken asks first).
    pub(super) async fn reopen(&self, loaded: &mut Loaded) -> Result<(), FxbotError> {
        *loaded = self
            .agent
            .load_session(&loaded.session_id, Mode::Ask)
            .await?;
        Ok(())
    }

    /// A new model for the bot (or its provider's default) goes on in the same chat, as a
    /// preferences change in the log (made once the turn is claimed: saved with the turn).
    pub(super) fn set_model(&self, session_id: &str, model: &str) -> Result<(), FxbotError> {
        self.agent.change_session(session_id, |session, host| {
            if session.state().preferences.model != model {
                let change = PreferencesChange {
                    provider: None,
                    model: Some(model.to_owned()),
                    effort: None,
                    fast_mode: None,
                };
                session.change_preferences(host, change)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Applies `change` to the bot's chat document, if it has one (compare-and-set, retried).
    /// Applies `change` to the bot's document (compare-and-set, retried); `None` when there is
    /// none. (A `dyn` change: one compare-and-set loop in wasm for every caller.)
    pub(super) async fn update_bot(
        &self,
        bot: &BotId,
        change: &mut dyn FnMut(Option<&mut BotDoc>) -> Result<(), FxbotError>,
    ) -> Result<(), FxbotError> {
        store::update::<BotDoc, D, ()>(
            &self.docs,
            &keys::bot(bot),
            || None,
            |doc| change(doc).map(Step::Write),
        )
        .await
    }

    /// (A `dyn` change: one compare-and-set loop in wasm for every caller.)
    pub(super) async fn update_chat(
        &self,
        bot: &BotId,
        change: &mut dyn FnMut(&mut ChatDoc),
    ) -> Result<(), FxbotError> {
        store::update::<ChatDoc, D, ()>(
            &self.docs,
            &keys::chat(bot),
            || None,
            |doc| {
                if let Some(doc) = doc {
                    change(doc);
                }
                Ok(Step::Write(()))
            },
        )
        .await
    }

    /// Records how a claimed message's turn ended; a record that cannot be stored now is
    /// stored by the bot's next claim.
    pub(super) async fn finish_claim(
        &self,
        id: &BotId,
        message_id: &MessageId,
        outcome: TurnOutcome,
        renamed: Option<(&str, &str)>,
    ) {
        let owner = self.config.owner.clone();
        let recorded = self
            .update_chat(id, &mut |doc| {
                doc.finish(message_id, &owner, outcome.clone());
                if let Some((from, to)) = renamed {
                    doc.rename_session(from, to);
                }
            })
            .await;
        if recorded.is_err() {
            self.unsettle(id, message_id, OwnClaim::Finish(outcome));
        }
    }

    /// Marks a claimed message interrupted with `error` (its turn never ran).
    pub(super) async fn settle_failed(
        &self,
        id: &BotId,
        message_id: &MessageId,
        error: &FxbotError,
    ) {
        let outcome = TurnOutcome {
            state: MessageState::Interrupted,
            ended_at: self.now(),
            stop_reason: Some(Ending::Error),
            usage: None,
            error: Some(error.to_line_error()),
        };
        self.finish_claim(id, message_id, outcome, None).await;
    }

    /// The id session `id` goes on under: the end of the forks the agent reported from it.
    pub(super) fn followed(&self, id: &str) -> String {
        let state = self.state.borrow();
        let mut now = id.to_owned();
        for _ in 0..state.forks.len() {
            match state.forks.iter().find(|(from, _)| *from == now) {
                Some((_, to)) => now.clone_from(to),
                None => break,
            }
        }
        now
    }
}
