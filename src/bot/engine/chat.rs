//! `chat.send` and `chat.stop` (fxbot DESIGN §8.1): the checks, the `messageId` claim (its
//! compare-and-set and the chat's session are `claim.rs`), the files saved to the library, and
//! the turn itself, which the engine's
//! [`crate::agent::Agent`] runs from the bot's [`TurnPlan`] (the AI Gateway protocol, the bot
//! tools, the bot's instructions and provider credential); its updates go to the bot's live
//! journal.
//!
//! The chat's session is opened through the agent for each turn and let go after it, so a turn
//! left unfinished (a closed page) is settled as the agent settles one. A claim or record this
//! process could not store is set right by the bot's next claim ([`OwnClaim`]), so one failed
//! write never leaves the bot answering 409.

use serde_json::Value;

use crate::agent::context::ContextPolicy;
use crate::agent::prompt::{Prompt, PromptImage};
use crate::agent::protocol::AiGateway;
use crate::agent::turn::{TurnPlan, DEFAULT_STEP_LIMIT};
use crate::caps::acp::{StopReason, Usage};
use crate::caps::{DocStore, Host};
use crate::log::view::TurnView;

use super::super::docs::bot::BotDoc;
use super::super::docs::chat::{
    ChatDoc, Claim, ClaimOutcome, MessageState, OwnClaim, Sent, TurnOutcome,
};
use super::super::docs::keys;
use super::super::error::{Entity, FxbotError};
use super::super::ids::{BotId, LibraryId, MessageId};
use super::super::instructions;
use super::super::journal::Journal;
use super::super::library::{self as lib, ItemDoc, Origin};
use super::super::store::{self, load, Step};
use super::super::stream::{Ending, SavedFile, TurnStart};
use super::super::tools::BotTools;
use super::super::upload::{check_message, message_id, CheckedMessage, FileKind, MessageError};
use super::claim::CLAIM_ROUNDS;
use super::ui::{prompt_text, LockGuard};
use super::{not_found, Fxbot, Running};

/// A message as `chat.send` takes it: its `messageId`, and the rest checked (or why it was
/// refused: reported after the duplicate check, so a retry of a sent message still reaches its
/// turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub message_id: MessageId,
    pub message: Result<CheckedMessage, MessageError>,
}

impl Outgoing {
    /// The message a caller passed (`{ text?, messageId, files? }`).
    ///
    /// # Errors
    /// 400 for a missing or malformed `messageId`.
    pub fn from_json(message: &Value) -> Result<Self, FxbotError> {
        Ok(Outgoing {
            message_id: message_id(message)?,
            message: check_message(message),
        })
    }
}

/// How a bot's turns reach the model: its model id and its provider's credential.
struct Route {
    model: String,
    token: Option<String>,
    team: Option<String>,
}

/// A turn `send` claimed and prepared; [`Fxbot::run`] runs it.
pub struct PendingTurn {
    bot: BotId,
    message_id: MessageId,
    session_id: String,
    turn_id: u32,
    /// What the model sees as the user's text.
    text: String,
    images: Vec<PromptImage>,
    system: String,
    route: Route,
}

impl std::fmt::Debug for PendingTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingTurn")
            .field("bot", &self.bot)
            .field("message_id", &self.message_id)
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

impl<H: Host + Clone, D: DocStore> Fxbot<H, D> {
    /// `chat.send(botId, message)`: resolves once the turn has started (or with the earlier
    /// turn of the same `messageId`, `duplicate: true`, also when that one is still being
    /// sent from this process); the turn is [`PendingTurn`], which the caller runs with
    /// [`Fxbot::run`].
    ///
    /// # Errors
    /// 400 for the id, the message, no provider or no model; 404 for an unknown bot; 409 while
    /// another message's turn runs for this bot (in this process or, by its claim, another);
    /// 500 when a store fails.
    pub async fn send(
        &self,
        bot: &str,
        message: Outgoing,
    ) -> Result<(Sent, Option<PendingTurn>), FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let Outgoing {
            message_id,
            message,
        } = message;
        let bot_doc = self.bot_doc(&id).await?.doc;
        let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(&id)).await?;
        if let Some(sent) = chat.as_ref().and_then(|c| c.doc.sent(&message_id)) {
            if !self.is_withdrawn(&id, &message_id) {
                return Ok((sent, None));
            }
        }
        if let Some(joined) = self.join(&id, &message_id) {
            return joined.await.map(|sent| (sent, None));
        }
        let checked = message?;
        let route = self.route(&bot_doc).await?;
        // The in-process lock, taken before the first await that follows.
        let taken = {
            let mut state = self.state.borrow_mut();
            match state.running.get(&id) {
                Some(running) if running.message_id.as_ref() == Some(&message_id) => None,
                Some(running) => {
                    return Err(FxbotError::Busy {
                        running: running.message_id.as_ref().map(ToString::to_string),
                    })
                }
                None => {
                    state.last_turn_id = state.last_turn_id.wrapping_add(1);
                    let turn_id = state.last_turn_id;
                    state.running.insert(
                        id.clone(),
                        Running {
                            message_id: Some(message_id.clone()),
                            cancel: self.agent.register_turn(turn_id),
                            sent: None,
                            joiners: Vec::new(),
                        },
                    );
                    Some(turn_id)
                }
            }
        };
        let Some(turn_id) = taken else {
            // The same message began to be sent meanwhile: its answer is ours.
            return match self.join(&id, &message_id) {
                Some(joined) => joined.await.map(|sent| (sent, None)),
                None => Err(FxbotError::Busy {
                    running: Some(message_id.to_string()),
                }),
            };
        };
        let mut guard = LockGuard {
            state: &self.state,
            bot: id.clone(),
            armed: true,
        };
        let result = self
            .claim_and_start(&id, &message_id, &checked, &bot_doc, route, turn_id)
            .await;
        let joiners = {
            let mut state = self.state.borrow_mut();
            state
                .running
                .get_mut(&id)
                .map(|running| {
                    if let Ok((sent, _)) = &result {
                        running.sent = Some(Sent {
                            duplicate: true,
                            ..sent.clone()
                        });
                    }
                    std::mem::take(&mut running.joiners)
                })
                .unwrap_or_default()
        };
        for joiner in joiners {
            let answer = match &result {
                Ok((sent, _)) => Ok(Sent {
                    duplicate: true,
                    ..sent.clone()
                }),
                Err(error) => Err(error.clone()),
            };
            let _ = joiner.send(answer);
        }
        match result {
            Ok((sent, Some(pending))) => {
                guard.armed = false;
                Ok((sent, Some(pending)))
            }
            Ok((sent, None)) => {
                self.agent.unregister_turn(turn_id);
                Ok((sent, None))
            }
            Err(error) => {
                self.agent.unregister_turn(turn_id);
                Err(error)
            }
        }
    }

    /// Steps 6–10 of `send` under the in-process lock: the session, the claim, the files, the
    /// journal's `turn_start`.
    async fn claim_and_start(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &CheckedMessage,
        bot: &BotDoc,
        route: Route,
        turn_id: u32,
    ) -> Result<(Sent, Option<PendingTurn>), FxbotError> {
        let (mut loaded, opened_as) = self.chat_session(bot, &route.model).await?;
        let at = self.now();
        let mut rounds = 0;
        let sent = loop {
            rounds += 1;
            let turn = u32::try_from(loaded.turns + 1 + usize::from(loaded.unfinished))
                .unwrap_or(u32::MAX);
            let claim = Claim {
                message_id: message_id.clone(),
                session_id: loaded.session_id.clone(),
                turn,
                input: checked.text.clone(),
                skills: Vec::new(),
                at: at.clone(),
                owner: self.config.owner.clone(),
            };
            let renamed = (opened_as != loaded.session_id).then_some(opened_as.as_str());
            let claimed = match self.claim(id, claim, renamed).await {
                Ok(claimed) => claimed,
                Err(error) => {
                    // The write may land after its deadline: take it back next time.
                    self.unsettle(id, message_id, OwnClaim::Withdraw);
                    self.agent.release_session(&loaded.session_id);
                    return Err(error);
                }
            };
            match claimed.outcome {
                ClaimOutcome::Claimed { sent, .. } => break sent,
                ClaimOutcome::Duplicate(sent) => {
                    self.agent.release_session(&loaded.session_id);
                    return Ok((sent, None));
                }
                ClaimOutcome::Busy { running } => {
                    self.agent.release_session(&loaded.session_id);
                    return Err(FxbotError::Busy {
                        running: Some(running.to_string()),
                    });
                }
                ClaimOutcome::TurnTaken { .. } if rounds < CLAIM_ROUNDS => {
                    // Claimed turns that never reached the log (a send or a save that failed):
                    // settle them into it as interrupted turns, then claim after them.
                    self.settle_chat(&mut loaded, claimed.unlogged).await?;
                }
                ClaimOutcome::TurnTaken { .. } => {
                    self.agent.release_session(&loaded.session_id);
                    return Err(FxbotError::Busy { running: None });
                }
            }
        };
        if loaded.unfinished {
            // The turn a closed page left running is ours to settle now (its claim was).
            if let Err(error) = self.settle_chat(&mut loaded, Vec::new()).await {
                self.settle_failed(id, message_id, &error).await;
                return Err(error);
            }
        }
        match self
            .start_turn(
                id,
                message_id,
                checked,
                &loaded.session_id,
                sent.turn,
                &at,
                bot,
            )
            .await
        {
            Ok((text, images, system)) => {
                self.state
                    .borrow_mut()
                    .turn_bots
                    .insert(turn_id, id.clone());
                let pending = PendingTurn {
                    bot: id.clone(),
                    message_id: message_id.clone(),
                    session_id: loaded.session_id,
                    turn_id,
                    text,
                    images,
                    system,
                    route,
                };
                Ok((sent, Some(pending)))
            }
            Err(error) => {
                self.agent.release_session(&loaded.session_id);
                self.settle_failed(id, message_id, &error).await;
                Err(error)
            }
        }
    }

    /// The model and credential of a bot's turn.
    async fn route(&self, bot: &BotDoc) -> Result<Route, FxbotError> {
        let Some(provider_id) = &bot.fields.provider else {
            return Err(FxbotError::NoProvider);
        };
        let Some(provider) = self.provider_doc(provider_id).await? else {
            return Err(FxbotError::NoProvider);
        };
        let model = if bot.fields.model.is_empty() {
            provider.model.clone()
        } else {
            bot.fields.model.clone()
        };
        if model.is_empty() {
            return Err(FxbotError::NoModel);
        }
        let token = self.credential(provider_id, &provider).await?;
        Ok(Route {
            model,
            token,
            team: provider.team_id,
        })
    }

    /// After the claim: the bot's `sessionId`, the files in the library, the journal's
    /// `turn_start`. Returns the user's text as the model sees it, the images and the system
    /// prompt.
    #[allow(clippy::too_many_arguments)]
    async fn start_turn(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &CheckedMessage,
        session_id: &str,
        turn: u32,
        at: &str,
        bot: &BotDoc,
    ) -> Result<(String, Vec<PromptImage>, String), FxbotError> {
        if bot.session_id.as_deref() != Some(session_id) {
            store::update::<BotDoc, D, ()>(
                &self.docs,
                &keys::bot(id),
                || None,
                |doc| {
                    let doc = doc.ok_or_else(|| not_found(Entity::Bot, id))?;
                    doc.session_id = Some(session_id.to_owned());
                    Ok(Step::Write(()))
                },
            )
            .await?;
        }
        let mut saved = Vec::new();
        let mut ids: Vec<LibraryId> = Vec::new();
        let mut images = Vec::new();
        for file in &checked.files {
            let item_id = LibraryId::mint(|b| self.host.fill_random(b));
            let item = ItemDoc::new(
                item_id.clone(),
                &file.name,
                &file.media_type,
                &file.bytes,
                Origin {
                    bot_id: Some(id.to_string()),
                    session_id: Some(session_id.to_owned()),
                    message_id: Some(message_id.to_string()),
                },
                &[],
                at,
            );
            store::commit(&self.docs, &lib::blob_key(&item_id), &file.bytes, None).await?;
            store::commit(
                &self.docs,
                &lib::item_key(&item_id),
                &super::super::docs::encode(&item),
                None,
            )
            .await?;
            saved.push(SavedFile {
                name: file.name.clone(),
                media_type: file.media_type.clone(),
                url: (self.config.library_url)(item_id.as_str()),
            });
            ids.push(item_id);
            if let FileKind::Image(_) = file.kind {
                images.push(PromptImage {
                    name: file.name.clone(),
                    media_type: file.media_type.clone(),
                    bytes: file.bytes.clone(),
                });
            }
        }
        if !ids.is_empty() {
            let owner = self.config.owner.clone();
            self.update_chat(id, |doc| {
                doc.attach_files(message_id, &owner, ids.clone());
            })
            .await?;
        }
        let text = prompt_text(&checked.text, &checked.files);
        let has_files = !saved.is_empty();
        let start = TurnStart {
            cursor: super::super::cursor::Cursor::START,
            session_id: session_id.to_owned(),
            turn,
            message_id: message_id.to_string(),
            at: at.to_owned(),
            prompt: text.clone(),
            input: has_files.then(|| checked.text.clone()),
            files: has_files.then_some(saved),
            skills: None,
        };
        self.state
            .borrow_mut()
            .journals
            .insert(id.clone(), Journal::start(start));
        self.notify();
        let system = instructions::assemble(
            &bot.fields.name,
            &bot.fields.instructions,
            bot.handoff.as_deref(),
        );
        Ok((text, images, system))
    }

    /// Runs a turn `send` prepared, to its end, through the agent: the journal gets its lines
    /// and `turn_end`, the claim its outcome, the bot its preview.
    pub async fn run(&self, pending: PendingTurn) {
        let PendingTurn {
            bot,
            message_id,
            session_id,
            turn_id,
            text,
            images,
            system,
            route,
        } = pending;
        let tools = BotTools {
            sessions: &self.host,
            docs: &self.docs,
            bot: &bot,
            session_id: &session_id,
        };
        let protocol = AiGateway {
            endpoint: &self.config.endpoint,
        };
        let plan = TurnPlan {
            protocol: &protocol,
            tools: &tools,
            system_prompt: &system,
            token: route.token.as_deref(),
            team: route.team.as_deref(),
            reauth: None,
            model_info: None,
            workspace: None,
            policy: ContextPolicy::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            model_idle_timeout_ms: self.config.model_idle_timeout_ms,
        };
        // The images are staged on the session right before the turn takes them.
        let prompt = self.agent.change_session(&session_id, |session, _| {
            Ok(Prompt {
                text,
                images: session.stage_images(images)?,
            })
        });
        let result = match prompt {
            Ok(prompt) => {
                self.agent
                    .run_plan(&session_id, turn_id, prompt, &plan)
                    .await
            }
            Err(error) => Err(error),
        };
        let (ending, usage, error, now) = match result {
            Ok(end) => (
                Ending::Stopped(end.stop_reason),
                end.usage,
                None,
                end.session_id,
            ),
            Err(error) => {
                let line = FxbotError::from(error).to_line_error();
                let now = self.followed(&session_id);
                (Ending::Error, Usage::default(), Some(line), now)
            }
        };
        let state = match ending {
            Ending::Stopped(StopReason::EndTurn | StopReason::MaxTokens) => MessageState::Done,
            Ending::Stopped(_) | Ending::Error => MessageState::Interrupted,
        };
        let reply = self
            .agent
            .change_session(&now, |session, _| {
                Ok(match session.log().view().turns.last() {
                    Some(TurnView::Assistant(t)) => t.assistant.clone(),
                    Some(TurnView::Interrupted(t)) => t.assistant.clone().unwrap_or_default(),
                    _ => String::new(),
                })
            })
            .unwrap_or_default();
        // The saved session becomes the stream's kept replay; one the store does not hold whole
        // stays with the agent (the next send saves it), and the next stream reads the store.
        let saved = self.agent.release_session(&now);
        let forked = now != session_id;
        let outcome = TurnOutcome {
            state,
            ended_at: self.now(),
            stop_reason: Some(ending),
            usage: Some(usage),
            error: error.clone(),
        };
        let renamed = forked.then_some((session_id.as_str(), now.as_str()));
        self.finish_claim(&bot, &message_id, outcome, renamed).await;
        let at = self.now();
        let _ = store::update::<BotDoc, D, ()>(
            &self.docs,
            &keys::bot(&bot),
            || None,
            |doc| {
                if let Some(doc) = doc {
                    doc.record_reply(&reply, &at);
                    if forked {
                        doc.session_id = Some(now.clone());
                    }
                }
                Ok(Step::Write(()))
            },
        )
        .await;
        match saved {
            Some(session) => self.keep_saved_turn(&bot, &session).await,
            None => {
                self.state.borrow_mut().kept.remove(&bot);
            }
        }
        {
            let mut state = self.state.borrow_mut();
            if let Some(journal) = state.journals.get_mut(&bot) {
                journal.end(ending, usage, error);
            }
            state.running.remove(&bot);
            state.turn_bots.remove(&turn_id);
        }
        self.notify();
    }

    /// `chat.stop(botId)`: cancels this process's running turn of the bot; false when none
    /// runs here.
    ///
    /// # Errors
    /// 400/404 for the id.
    pub async fn stop(&self, bot: &str) -> Result<bool, FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        self.bot_doc(&id).await?;
        let state = self.state.borrow();
        Ok(match state.running.get(&id) {
            Some(running) => {
                running.cancel.cancel();
                true
            }
            None => false,
        })
    }
}
