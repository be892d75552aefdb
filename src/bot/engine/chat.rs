//! `chat.send` and `chat.stop` (fxbot DESIGN §8.1): the checks, the `messageId` claim, the
//! chat's fx session, the files saved to the library, and the turn itself over the AI Gateway
//! protocol with the bot tools; its updates go to the bot's live journal.

use serde_json::Value;

use crate::agent::context::ContextPolicy;
use crate::agent::modes::Mode;
use crate::agent::prompt::{Prompt, PromptImage};
use crate::agent::protocol::AiGateway;
use crate::agent::session::{LiveSession, SessionError};
use crate::agent::turn::{run_turn, TurnSettings, DEFAULT_STEP_LIMIT};
use crate::caps::{Cancel, DocStore, Host, WithUi};
use crate::log::types::{Preferences, Provider};
use crate::log::view::TurnView;

use super::super::docs::bot::BotDoc;
use super::super::docs::chat::{
    ChatDoc, Claim, ClaimOutcome, MessageState, OtherClaims, Sent, TurnOutcome,
};
use super::super::docs::keys;
use super::super::error::{Entity, FxbotError};
use super::super::ids::{BotId, LibraryId, MessageId};
use super::super::instructions;
use super::super::journal::Journal;
use super::super::library::{self as lib, ItemDoc, Origin};
use super::super::store::{self, load, Step};
use super::super::stream::{SavedFile, StopReason, TurnStart, Usage};
use super::super::tools::BotTools;
use super::super::upload::{check_message, message_id, FileKind};
use super::ui::{prompt_text, BotUi, LockGuard};
use super::{not_found, Fxbot, Running};

/// A turn `send` claimed and prepared; [`Fxbot::run`] runs it.
pub struct PendingTurn {
    bot: BotId,
    message_id: MessageId,
    session: LiveSession,
    turn: u32,
    prompt: Prompt,
    system: String,
    token: Option<String>,
    team: Option<String>,
    cancel: Cancel,
}

impl std::fmt::Debug for PendingTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingTurn")
            .field("bot", &self.bot)
            .field("message_id", &self.message_id)
            .field("turn", &self.turn)
            .finish_non_exhaustive()
    }
}

impl<H: Host + Clone, D: DocStore> Fxbot<H, D> {
    /// `chat.send(botId, message)`: resolves once the turn has started (or with the earlier
    /// turn of the same `messageId`, `duplicate: true`); the turn is [`PendingTurn`], which the
    /// caller runs with [`Fxbot::run`].
    ///
    /// # Errors
    /// 400 for the id, the message, no provider or no model; 404 for an unknown bot; 409 while
    /// another message's turn runs for this bot (in this process or, by its claim, another).
    pub async fn send(
        &self,
        bot: &str,
        message: &Value,
    ) -> Result<(Sent, Option<PendingTurn>), FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let message_id = message_id(message)?;
        let bot_doc = self.bot_doc(&id).await?.doc;
        let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(&id)).await?;
        if let Some(sent) = chat.as_ref().and_then(|c| c.doc.sent(&message_id)) {
            return Ok((sent, None));
        }
        let checked = check_message(message)?;
        let (model, token, team) = self.route(&bot_doc).await?;
        // The in-process lock, taken before the first await that follows.
        let cancel = Cancel::new();
        {
            let mut state = self.state.borrow_mut();
            if let Some(running) = state.running.get(&id) {
                return Err(FxbotError::Busy {
                    running: running
                        .message_id
                        .as_ref()
                        .map_or_else(|| "another message".to_owned(), ToString::to_string),
                });
            }
            state.running.insert(
                id.clone(),
                Running {
                    message_id: Some(message_id.clone()),
                    cancel: cancel.clone(),
                },
            );
        }
        let mut guard = LockGuard {
            state: &self.state,
            bot: id.clone(),
            armed: true,
        };
        let session = self.chat_session(&id, &bot_doc, &model).await?;
        let turn = u32::try_from(session.state().history.len() + 1).unwrap_or(u32::MAX);
        let at = self.now();
        let claim = Claim {
            message_id: message_id.clone(),
            session_id: session.id().to_owned(),
            turn,
            input: checked.text.clone(),
            skills: Vec::new(),
            at: at.clone(),
            owner: self.config.owner.clone(),
        };
        let outcome = store::update::<ChatDoc, D, ClaimOutcome>(
            &self.docs,
            &keys::chat(&id),
            || Some(ChatDoc::default()),
            |doc| {
                let doc = doc.ok_or_else(|| FxbotError::Internal {
                    message: "no chat document".to_owned(),
                })?;
                Ok(match doc.claim(claim.clone(), OtherClaims::Live) {
                    claimed @ ClaimOutcome::Claimed { .. } => Step::Write(claimed),
                    other => Step::Keep(other),
                })
            },
        )
        .await?;
        let sent = match outcome {
            ClaimOutcome::Claimed { sent, .. } => sent,
            ClaimOutcome::Duplicate(sent) => return Ok((sent, None)),
            ClaimOutcome::Busy { running } => {
                return Err(FxbotError::Busy {
                    running: running.to_string(),
                })
            }
            ClaimOutcome::TurnTaken { .. } => {
                return Err(FxbotError::Busy {
                    running: "a turn another process claimed and has not saved yet".to_owned(),
                })
            }
        };
        let result = self
            .start_turn(&id, &message_id, &checked, session, turn, &at, &bot_doc)
            .await;
        let (session, prompt, system) = match result {
            Ok(started) => started,
            Err(error) => {
                self.settle_failed(&id, &message_id, &error).await;
                return Err(error);
            }
        };
        guard.armed = false;
        Ok((
            sent,
            Some(PendingTurn {
                bot: id,
                message_id,
                session,
                turn,
                prompt,
                system,
                token,
                team,
                cancel,
            }),
        ))
    }

    /// The model and credential of a bot's turn.
    async fn route(
        &self,
        bot: &BotDoc,
    ) -> Result<(String, Option<String>, Option<String>), FxbotError> {
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
        Ok((model, token, provider.team_id))
    }

    /// The bot's chat session: its current one, or a new one (not stored until its first turn
    /// ends).
    async fn chat_session(
        &self,
        id: &BotId,
        bot: &BotDoc,
        model: &str,
    ) -> Result<LiveSession, FxbotError> {
        let session_error = |e: SessionError| FxbotError::session(bot.session_id.as_deref(), e);
        if let Some(session_id) = &bot.session_id {
            match LiveSession::open(&self.host, session_id, Mode::Ask).await {
                Ok(mut session) => {
                    // A new model for the bot (or its provider's default) goes on in the same
                    // chat, as a preferences change in the log.
                    if session.state().preferences.model != model {
                        let change = crate::log::event::PreferencesChange {
                            provider: None,
                            model: Some(model.to_owned()),
                            effort: None,
                            fast_mode: None,
                        };
                        session
                            .change_preferences(&self.host, change)
                            .map_err(session_error)?;
                    }
                    return Ok(session);
                }
                Err(SessionError::NotFound(_)) => {}
                Err(other) => return Err(session_error(other)),
            }
        }
        let preferences = Preferences {
            model: model.to_owned(),
            effort: "auto".to_owned(),
            fast_mode: false,
            provider: Provider::Gateway,
        };
        LiveSession::create(&self.host, &format!("/fxbot/{id}"), preferences, Mode::Ask)
            .map_err(session_error)
    }

    /// After the claim: the bot's `sessionId`, the files in the library, the journal's
    /// `turn_start`.
    #[allow(clippy::too_many_arguments)]
    async fn start_turn(
        &self,
        id: &BotId,
        message_id: &MessageId,
        checked: &super::super::upload::CheckedMessage,
        session: LiveSession,
        turn: u32,
        at: &str,
        bot: &BotDoc,
    ) -> Result<(LiveSession, Prompt, String), FxbotError> {
        let session_id = session.id().to_owned();
        if bot.session_id.as_deref() != Some(session_id.as_str()) {
            let sid = session_id.clone();
            store::update::<BotDoc, D, ()>(
                &self.docs,
                &keys::bot(id),
                || None,
                |doc| {
                    let doc = doc.ok_or_else(|| not_found(Entity::Bot, id))?;
                    doc.session_id = Some(sid.clone());
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
                    session_id: Some(session_id.clone()),
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
            session_id,
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
        Ok((session, Prompt { text, images }, system))
    }

    /// Applies `change` to the bot's chat document, if it has one (compare-and-set, retried).
    async fn update_chat(
        &self,
        bot: &BotId,
        mut change: impl FnMut(&mut ChatDoc),
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

    /// Marks a claimed message interrupted with `error` (its turn never ran).
    async fn settle_failed(&self, id: &BotId, message_id: &MessageId, error: &FxbotError) {
        let outcome = TurnOutcome {
            state: MessageState::Interrupted,
            ended_at: self.now(),
            stop_reason: Some(StopReason::Error),
            usage: None,
            error: Some(error.to_line_error()),
        };
        let owner = self.config.owner.clone();
        let _ = self
            .update_chat(id, |doc| {
                doc.finish(message_id, &owner, outcome.clone());
            })
            .await;
    }

    /// Runs a turn `send` prepared, to its end: the journal gets its lines and `turn_end`, the
    /// claim its outcome, the bot its preview.
    pub async fn run(&self, pending: PendingTurn) {
        let PendingTurn {
            bot,
            message_id,
            mut session,
            turn,
            prompt,
            system,
            token,
            team,
            cancel,
        } = pending;
        let old_session = session.id().to_owned();
        let ui_host = WithUi {
            host: self.host.clone(),
            ui: BotUi {
                state: &self.state,
                bot: bot.clone(),
            },
        };
        let tools = BotTools {
            sessions: &self.host,
            docs: &self.docs,
            bot: &bot,
            session_id: &old_session,
        };
        let protocol = AiGateway {
            endpoint: &self.config.endpoint,
        };
        let settings = TurnSettings {
            protocol: &protocol,
            system_prompt: &system,
            token: token.as_deref(),
            team: team.as_deref(),
            reauth: None,
            model_info: None,
            workspace: None,
            policy: ContextPolicy::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            model_idle_timeout_ms: self.config.model_idle_timeout_ms,
        };
        let turn_future: std::pin::Pin<Box<dyn std::future::Future<Output = _> + '_>> =
            Box::pin(run_turn(
                &ui_host,
                &tools,
                &cancel,
                &mut session,
                &settings,
                turn,
                prompt,
            ));
        let result = turn_future.await;
        let (stop, usage, error, forked) = match result {
            Ok(end) => (
                StopReason::from_agent(end.stop_reason),
                Usage {
                    input_tokens: end.usage.input_tokens,
                    output_tokens: end.usage.output_tokens,
                },
                None,
                end.forked_from.is_some(),
            ),
            Err(error) => {
                let line = super::super::stream::LineError {
                    status: 502,
                    code: super::super::error::Code::ProviderFailed
                        .as_str()
                        .to_owned(),
                    message: error.to_string(),
                };
                (StopReason::Error, Usage::default(), Some(line), false)
            }
        };
        let stop = if cancel.is_cancelled() && error.is_none() {
            StopReason::Cancelled
        } else {
            stop
        };
        let state = if stop == StopReason::EndTurn || stop == StopReason::MaxTokens {
            MessageState::Done
        } else {
            MessageState::Interrupted
        };
        let new_session = session.id().to_owned();
        let reply = match session.log().view().turns.last() {
            Some(TurnView::Assistant(t)) => t.assistant.clone(),
            Some(TurnView::Interrupted(t)) => t.assistant.clone().unwrap_or_default(),
            _ => String::new(),
        };
        let outcome = TurnOutcome {
            state,
            ended_at: self.now(),
            stop_reason: Some(stop),
            usage: Some(usage),
            error: error.clone(),
        };
        let owner = self.config.owner.clone();
        let _ = self
            .update_chat(&bot, |doc| {
                doc.finish(&message_id, &owner, outcome.clone());
                if forked {
                    doc.rename_session(&old_session, &new_session);
                }
            })
            .await;
        let at = self.now();
        let _ = store::update::<BotDoc, D, ()>(
            &self.docs,
            &keys::bot(&bot),
            || None,
            |doc| {
                if let Some(doc) = doc {
                    doc.record_reply(&reply, &at);
                    if forked {
                        doc.session_id = Some(new_session.clone());
                    }
                }
                Ok(Step::Write(()))
            },
        )
        .await;
        self.keep_saved_turn(&bot, &session).await;
        {
            let mut state = self.state.borrow_mut();
            if let Some(journal) = state.journals.get_mut(&bot) {
                journal.end(stop, usage, error);
            }
            state.running.remove(&bot);
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
