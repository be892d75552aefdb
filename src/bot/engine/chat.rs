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
use crate::agent::front::Loaded;
use crate::agent::prompt::{Prompt, PromptImage};
use crate::agent::turn::{TurnPlan, DEFAULT_STEP_LIMIT};
use crate::bot::kinds::Kind;
use crate::caps::acp::{StopReason, Usage};
use crate::caps::{DocStore, Host};
use crate::log::view::TurnView;

use super::super::docs::bot::BotDoc;
use super::super::docs::chat::{
    ChatDoc, Claim, ClaimOutcome, MessageState, OwnClaim, Sent, TurnOutcome,
};
use super::super::docs::keys;
use super::super::error::FxbotError;
use super::super::ids::{BotId, LibraryId, MessageId, ProviderId};
use super::super::instructions;
use super::super::journal::Journal;
use super::super::library::{self as lib, ItemDoc, Origin};
use super::super::store::{self, load};
use super::super::stream::{Ending, SavedFile, TurnStart};
use super::super::tools::{mcp_names, BotTools, ServerTools};
use super::super::upload::{check_message, message_id, CheckedMessage, FileKind, MessageError};
use super::super::{memory, skill};
use super::addons::TurnAddons;
use super::claim::CLAIM_ROUNDS;
use super::memories::list_memories;
use super::ui::{prompt_text, LockGuard};
use super::Fxbot;

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
    /// The provider's kind and the base URL its model calls go under.
    kind: Kind,
    base: String,
    /// The provider, and whether its `error` is set (a turn that works clears it).
    provider: ProviderId,
    had_error: bool,
    /// The model's context window (the share the memories and skills list may take).
    window: u64,
}

/// What the claim of a message gave.
enum ClaimedTurn {
    /// The message's turn, to run.
    Run(Sent),
    /// The message was claimed before: its turn, and nothing runs.
    Duplicate(Sent),
}

/// A step of `send` that failed: before its claim was stored, or after (the claim is then
/// marked interrupted with the error).
enum SendFailure {
    Unclaimed(FxbotError),
    Claimed(FxbotError),
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
    addons: TurnAddons,
}

/// What a turn takes from the bot's add-ons: all of them, and the skills its message names.
struct TurnSkills {
    addons: TurnAddons,
    named: Vec<String>,
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

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
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
        let checked = message?;
        let route = self.route(&bot_doc).await?;
        let addons = self.turn_addons(&id).await?;
        let names: Vec<&str> = addons.skills.iter().map(|s| s.name.as_str()).collect();
        let named = skill::mentioned(&checked.text, &names)
            .into_iter()
            .map(str::to_owned)
            .collect();
        let skills = TurnSkills { addons, named };
        // The in-process lock. While the same message is being sent here (a double click), its
        // answer is ours; if that send fails, this one tries itself.
        let turn_id = loop {
            match self.lock(&id, &message_id)? {
                Some(turn_id) => break turn_id,
                None => {
                    if let Some(joined) = self.join(&id, &message_id) {
                        if let Some(sent) = joined.await {
                            return Ok((sent, None));
                        }
                    }
                }
            }
        };
        let mut guard = LockGuard {
            state: &self.state,
            bot: id.clone(),
            armed: true,
        };
        let result = self
            .claim_and_start(&id, &message_id, &checked, &bot_doc, route, skills, turn_id)
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
            let answer = result.as_ref().ok().map(|(sent, _)| Sent {
                duplicate: true,
                ..sent.clone()
            });
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
    /// journal's `turn_start`. A step after the claim that fails marks the claim interrupted.
    #[allow(clippy::too_many_arguments)]
    async fn claim_and_start(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &CheckedMessage,
        bot: &BotDoc,
        route: Route,
        skills: TurnSkills,
        turn_id: u32,
    ) -> Result<(Sent, Option<PendingTurn>), FxbotError> {
        let (mut loaded, opened_as) = self.chat_session(bot, &route.model).await?;
        let at = self.now();
        let claimed = self
            .claim_turn(
                id,
                message_id,
                checked,
                &skills.named,
                &mut loaded,
                &opened_as,
                &at,
            )
            .await;
        let started = match claimed {
            Ok(ClaimedTurn::Duplicate(sent)) => {
                self.agent.release_session(&loaded.session_id);
                return Ok((sent, None));
            }
            Ok(ClaimedTurn::Run(sent)) => {
                let chat = match self.take_chat(id, bot, &loaded.session_id).await {
                    Ok(true) => self.set_model(&loaded.session_id, &route.model),
                    Ok(false) => {
                        // Another process started the bot's chat since the bot was read here:
                        // the claim is taken back and the send is refused (a retry goes on in
                        // that chat).
                        self.withdraw(id, message_id).await;
                        self.agent.release_session(&loaded.session_id);
                        return Err(FxbotError::Busy { running: None });
                    }
                    Err(error) => Err(error),
                };
                let started = match chat {
                    Ok(()) => {
                        self.start_turn(
                            id,
                            message_id,
                            checked,
                            &skills,
                            route.window,
                            &loaded.session_id,
                            sent.turn,
                            &at,
                            bot,
                        )
                        .await
                    }
                    Err(error) => Err(error),
                };
                started
                    .map(|started| (sent, started))
                    .map_err(SendFailure::Claimed)
            }
            Err(failure) => Err(failure),
        };
        match started {
            Ok((sent, (text, images, system))) => {
                self.state
                    .borrow_mut()
                    .turn_bots
                    .push((turn_id, id.clone()));
                let pending = PendingTurn {
                    bot: id.clone(),
                    message_id: message_id.clone(),
                    session_id: loaded.session_id,
                    turn_id,
                    text,
                    images,
                    system,
                    route,
                    addons: skills.addons,
                };
                Ok((sent, Some(pending)))
            }
            Err(failure) => {
                self.agent.release_session(&loaded.session_id);
                Err(match failure {
                    SendFailure::Unclaimed(error) => error,
                    SendFailure::Claimed(error) => {
                        self.settle_failed(id, message_id, &error).await;
                        error
                    }
                })
            }
        }
    }

    /// The claim of the message for the session's next turn, by rounds: claimed turns the log
    /// lacks (a send or a save that failed) are settled into it first, as interrupted turns,
    /// and a turn a closed page left unfinished once the claim is ours.
    #[allow(clippy::too_many_arguments)]
    async fn claim_turn(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &CheckedMessage,
        skills: &[String],
        loaded: &mut Loaded,
        opened_as: &str,
        at: &str,
    ) -> Result<ClaimedTurn, SendFailure> {
        let mut rounds = 0;
        let mut claimed_sent = None;
        loop {
            rounds += 1;
            let turn = u32::try_from(loaded.turns + 1 + usize::from(loaded.unfinished))
                .unwrap_or(u32::MAX);
            let claim = Claim {
                message_id: message_id.clone(),
                session_id: loaded.session_id.clone(),
                turn,
                input: checked.text.clone(),
                skills: skills.to_vec(),
                at: at.to_owned(),
                owner: self.config.owner.clone(),
            };
            let renamed = (opened_as != loaded.session_id).then_some(opened_as);
            let claimed = match self.claim(id, claim, renamed).await {
                Ok(claimed) => claimed,
                Err(error) => {
                    // The write may land after its deadline: take it back next time.
                    self.unsettle(id, message_id, OwnClaim::Withdraw);
                    return Err(SendFailure::Unclaimed(error));
                }
            };
            let unlogged = match claimed.outcome {
                ClaimOutcome::Claimed { sent, .. } if !loaded.unfinished => {
                    return Ok(ClaimedTurn::Run(sent))
                }
                // The turn a closed page left running was this process's: settle it now.
                ClaimOutcome::Claimed { sent, .. } => {
                    claimed_sent = Some(sent);
                    Vec::new()
                }
                ClaimOutcome::Duplicate(sent) => return Ok(ClaimedTurn::Duplicate(sent)),
                ClaimOutcome::Busy { running } => {
                    return Err(SendFailure::Unclaimed(FxbotError::Busy {
                        running: Some(running.to_string()),
                    }))
                }
                ClaimOutcome::TurnTaken { .. } if rounds < CLAIM_ROUNDS => {
                    // Another process may have run those turns since the session was opened
                    // here: read it again, and settle only turns its stored log still lacks
                    // (settling a logged turn again would fork the chat without it).
                    let before = (loaded.turns, loaded.unfinished);
                    if let Err(error) = self.reopen(loaded).await {
                        return Err(SendFailure::Unclaimed(error));
                    }
                    if (loaded.turns, loaded.unfinished) != before {
                        continue;
                    }
                    claimed.unlogged
                }
                ClaimOutcome::TurnTaken { .. } => {
                    return Err(SendFailure::Unclaimed(FxbotError::Busy { running: None }))
                }
            };
            let settled = self.settle_chat(loaded, unlogged).await;
            match (settled, claimed_sent.take()) {
                (Ok(()), Some(sent)) => return Ok(ClaimedTurn::Run(sent)),
                (Ok(()), None) => {}
                (Err(error), Some(_)) => return Err(SendFailure::Claimed(error)),
                (Err(error), None) => return Err(SendFailure::Unclaimed(error)),
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
        let base = self.base_of(&provider);
        let window = instructions::window_of(&provider, &model);
        Ok(Route {
            window,
            model,
            token,
            team: provider.team_id,
            kind: provider.kind,
            base,
            provider: provider_id.clone(),
            had_error: provider.error.is_some(),
        })
    }

    /// After the claim and [`Fxbot::take_chat`]: the files in the library, the journal's
    /// `turn_start`. Returns the user's text as the model sees it (with the named skills'
    /// instructions), the images and the system prompt (with the skills list within 1 % of the
    /// model's context window).
    #[allow(clippy::too_many_arguments)]
    async fn start_turn(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &CheckedMessage,
        skills: &TurnSkills,
        window: u64,
        session_id: &str,
        turn: u32,
        at: &str,
        bot: &BotDoc,
    ) -> Result<(String, Vec<PromptImage>, String), FxbotError> {
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
            self.update_chat(id, &mut |doc| {
                doc.attach_files(message_id, &owner, ids.clone());
            })
            .await?;
        }
        let mut text = prompt_text(&checked.text, &checked.files);
        for name in &skills.named {
            if let Some(found) = skills.addons.skills.iter().find(|s| s.name == *name) {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(&skill::attached(&found.name, &found.instructions));
            }
        }
        let has_files = !saved.is_empty();
        let has_skills = !skills.named.is_empty();
        let start = TurnStart {
            cursor: super::super::cursor::Cursor::START,
            session_id: session_id.to_owned(),
            turn,
            message_id: message_id.to_string(),
            at: at.to_owned(),
            prompt: text.clone(),
            input: (has_files || has_skills).then(|| checked.text.clone()),
            files: (has_files || has_skills).then_some(saved),
            skills: has_skills.then(|| skills.named.clone()),
        };
        self.state
            .borrow_mut()
            .journals
            .insert(id.clone(), Journal::start(start));
        self.notify();
        let listed: Vec<(&str, &str)> = skills
            .addons
            .skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        let memories = list_memories(&self.docs, id).await?;
        let system = instructions::assemble(
            &bot.fields.name,
            &bot.fields.instructions,
            bot.handoff.as_deref(),
            &memory::within_budget(&memories, window),
            &skill::list_within(&listed, window),
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
            addons,
        } = pending;
        let TurnAddons { skills, servers } = addons;
        let servers: Vec<ServerTools> = servers
            .into_iter()
            .map(|(doc, headers)| ServerTools::new(doc, headers))
            .collect();
        let tools = BotTools {
            sessions: &self.host,
            docs: &self.docs,
            bot: &bot,
            session_id: &session_id,
            message_id: message_id.as_str(),
            embedder: match self.settings_doc().await {
                Ok(settings) => self.source_of(&settings).await,
                Err(_) => None,
            },
            skills: &skills,
            mcp_names: mcp_names(&servers),
            servers,
        };
        let protocol = self.protocol_for(route.kind, route.base.clone());
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
        // A provider that refuses its key at use says so in its `error`; one that answers
        // clears it.
        let rejected = match &result {
            Err(crate::agent::AgentError::Turn(crate::agent::turn::TurnError::Step(
                crate::agent::model::StepError::Http(http),
            ))) => matches!(http.status(), Some(401 | 403)),
            _ => false,
        };
        if rejected || (route.had_error && result.is_ok()) {
            let error = rejected.then(|| "The provider rejected this key.".to_owned());
            self.set_provider_error(&route.provider, error).await;
        }
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
        let _ = self
            .update_bot(&bot, &mut |doc| {
                if let Some(doc) = doc {
                    doc.record_reply(&reply, &at);
                    if forked {
                        doc.session_id = Some(now.clone());
                    }
                }
                Ok(())
            })
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
            state.turn_bots.retain(|(t, _)| *t != turn_id);
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
