//! The provider switch (fxbot DESIGN §10): `bots.update(id, {provider})` on a bot with a chat
//! compacts the chat into a summary, its `handoff`. The old provider summarizes it, or, when it
//! can't (gone, no model, or its request fails), the new one summarizes the stored messages;
//! 400 when the old one can't and the new one has no model, 502 when neither could, and then
//! nothing changes. The bot starts a new chat (`sessionId` new, the summary in every later
//! turn's instructions) and the old chat moves to `earlier`.
//!
//! Both summaries read the same plain transcript of the stored chat (the user's messages and
//! the final replies, the newest kept within 60 % of the new provider's window); the request
//! offers no tools.

use crate::agent::model::{run_step, StepSink};
use crate::agent::modes::Mode;
use crate::agent::protocol::{AiGateway, ModelCall, ModelProtocol};
use crate::bot::kinds::{Protocol, FALLBACK_CONTEXT_WINDOW};
use crate::caps::{Cancel, DocStore, Host};
use crate::gateway::request::ToolChoice;
use crate::gateway::{Effort, Message};
use crate::log::types::{Preferences, Provider};
use crate::log::view::TurnView;
use crate::log::SessionLog;
use crate::providers::BotProtocol;

use super::super::docs::bot::BotDoc;
use super::super::docs::chat::{ChatDoc, EarlierChat};
use super::super::docs::keys;
use super::super::error::{Entity, FxbotError};
use super::super::fields::FieldsPatch;
use super::super::ids::{BotId, ProviderId};
use super::super::settings::{Kind, ProviderDoc};
use super::super::store::{self, load, Step};
use super::{not_found, Fxbot};

/// What a summary is asked to keep.
pub const SUMMARY_INSTRUCTION: &str = "You are handing this conversation over to another assistant. Summarize it for them in at most 600 words: what the person wants, what was decided, the open threads, and the facts about the person worth remembering. Write the summary only.";

/// Longest transcript sent, in characters, whatever the window.
const MAX_TRANSCRIPT_CHARS: u64 = 400_000;

struct Quiet;

impl StepSink for Quiet {
    fn text(&mut self, _text: &str) {}
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// The protocol a provider of `kind` speaks, at `base`.
    pub(super) fn protocol_for(&self, kind: Kind, base: String) -> BotProtocol<'_> {
        match kind.info().protocol {
            Protocol::Gateway => BotProtocol::Gateway(AiGateway {
                endpoint: &self.config.endpoint,
            }),
            _ => BotProtocol::wire(kind, base),
        }
    }

    /// The chat `session_id` as text: `User: …` and `Assistant: …` paragraphs, the newest
    /// kept within `max_chars`.
    async fn transcript(&self, session_id: &str, max_chars: u64) -> Result<String, FxbotError> {
        let stored =
            self.host
                .load_session(session_id)
                .await
                .map_err(|error| FxbotError::Store {
                    key: session_id.to_owned(),
                    error,
                })?;
        let Some(stored) = stored else {
            return Ok(String::new());
        };
        let view = SessionLog::load(stored.bytes)
            .map_err(|e| FxbotError::Internal {
                message: format!("the chat {session_id} could not be read: {e}"),
            })?
            .view();
        let mut parts: Vec<String> = Vec::new();
        for turn in &view.turns {
            let (user, reply) = match turn {
                TurnView::Assistant(t) => (&t.user.text, t.assistant.clone()),
                TurnView::Interrupted(t) => (&t.user.text, t.assistant.clone().unwrap_or_default()),
                TurnView::BackgroundCommand(t) => {
                    (&t.user.text, t.assistant.clone().unwrap_or_default())
                }
                TurnView::CompactedSummary(s) => {
                    parts.push(format!("Summary of the chat before: {}", s.summary));
                    continue;
                }
            };
            parts.push(format!("User: {user}"));
            if !reply.is_empty() {
                parts.push(format!("Assistant: {reply}"));
            }
        }
        let budget = usize::try_from(max_chars.min(MAX_TRANSCRIPT_CHARS)).unwrap_or(usize::MAX);
        let mut kept = Vec::new();
        let mut used = 0usize;
        for part in parts.iter().rev() {
            used = used.saturating_add(part.chars().count()).saturating_add(2);
            if used > budget && !kept.is_empty() {
                break;
            }
            kept.push(part.as_str());
        }
        kept.reverse();
        Ok(kept.join("\n\n"))
    }

    /// One summary request to `provider` with `model` (no tools).
    async fn summarize(
        &self,
        id: &ProviderId,
        provider: &ProviderDoc,
        model: &str,
        transcript: &str,
    ) -> Result<String, FxbotError> {
        let token = self.credential(id, provider).await?;
        let protocol = self.protocol_for(provider.kind, self.base_of(provider));
        let messages = [
            Message::system(SUMMARY_INSTRUCTION),
            Message::user_text(format!("The conversation:\n\n{transcript}")),
        ];
        let call = ModelCall {
            model,
            messages: &messages,
            tools: &[],
            tool_choice: ToolChoice::None,
            session_id: None,
            token: token.as_deref(),
            team: provider.team_id.as_deref(),
            effort: Effort::default(),
            fast: false,
            model_info: None,
        };
        let failed = |why: String| FxbotError::ProviderFailed {
            message: format!("provider {id} could not summarize the chat: {why}"),
        };
        let request = protocol.build(&call).map_err(|e| failed(e.to_string()))?;
        let completion = run_step(
            self.agent.host(),
            &protocol,
            &Cancel::new(),
            &request,
            None,
            self.config.model_idle_timeout_ms,
            &mut Quiet,
        )
        .await
        .map_err(|f| failed(f.error.to_string()))?;
        let text = completion.text.trim();
        if text.is_empty() {
            return Err(failed("the answer was empty".to_owned()));
        }
        Ok(text.to_owned())
    }

    /// The switch of `old` (a bot with a chat) to the provider of `patch`: the summary, the new
    /// chat, the old one in `earlier`; the bot as stored after it.
    ///
    /// # Errors
    /// 400 when the old provider can't summarize and the new one has no model; 502 when
    /// neither summary came; 409 when the bot's chat changed meanwhile.
    pub(super) async fn switch_provider(
        &self,
        id: &BotId,
        old: &BotDoc,
        patch: &FieldsPatch,
    ) -> Result<BotDoc, FxbotError> {
        let (Some(Some(new_id)), Some(old_session)) = (&patch.provider, &old.session_id) else {
            return Err(FxbotError::Internal {
                message: "a provider switch needs a new provider and a chat".to_owned(),
            });
        };
        let Some(new) = self.provider_doc(new_id).await? else {
            return Err(not_found(Entity::Provider, new_id));
        };
        let new_model = patch
            .model
            .clone()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| new.model.clone());
        let window = new.context_window.unwrap_or(FALLBACK_CONTEXT_WINDOW);
        // About four characters a token; 60 % of the window.
        let transcript = self
            .transcript(old_session, window.saturating_mul(4) / 10 * 6)
            .await?;
        let mut old_model = String::new();
        let mut summary = None;
        let mut old_error = None;
        if let Some(old_id) = &old.fields.provider {
            if let Some(provider) = self.provider_doc(old_id).await? {
                old_model = if old.fields.model.is_empty() {
                    provider.model.clone()
                } else {
                    old.fields.model.clone()
                };
                if !old_model.is_empty() {
                    match self
                        .summarize(old_id, &provider, &old_model, &transcript)
                        .await
                    {
                        Ok(text) => summary = Some(text),
                        Err(error) => old_error = Some(error.to_string()),
                    }
                }
            }
        }
        let summary = match summary {
            Some(text) => text,
            None if new_model.is_empty() => {
                return Err(FxbotError::Invalid {
                    message: format!(
                        "the old provider cannot summarize this chat{}, and provider {new_id} has no default model: give the bot a model with this update",
                        old_error.map(|e| format!(" ({e})")).unwrap_or_default()
                    ),
                })
            }
            None => self
                .summarize(new_id, &new, &new_model, &transcript)
                .await
                .map_err(|error| FxbotError::ProviderFailed {
                    message: format!(
                        "neither provider could summarize the chat: {}{error}",
                        old_error.map(|e| format!("{e}; ")).unwrap_or_default()
                    ),
                })?,
        };
        let preferences = Preferences {
            model: new_model,
            effort: "auto".to_owned(),
            fast_mode: false,
            provider: Provider::Gateway,
        };
        let new_session =
            self.agent
                .start_session(&format!("/fxbot/{id}"), preferences, Mode::Ask)?;
        let key = keys::bot(id);
        let written = store::update::<BotDoc, D, BotDoc>(
            &self.docs,
            &key,
            || None,
            |stored| {
                let Some(stored) = stored else {
                    return Err(not_found(Entity::Bot, id));
                };
                if stored.session_id.as_ref() != Some(old_session) {
                    return Err(FxbotError::Busy { running: None });
                }
                stored.update(patch)?;
                stored.session_id = Some(new_session.clone());
                stored.handoff = Some(summary.clone());
                Ok(Step::Write(stored.clone()))
            },
        );
        let written = match written.await {
            Ok(written) => written,
            Err(error) => {
                self.agent.release_session(&new_session);
                return Err(error);
            }
        };
        let started_at = load::<ChatDoc, D>(&self.docs, &keys::chat(id))
            .await?
            .and_then(|chat| {
                chat.doc
                    .messages
                    .values()
                    .filter(|r| &r.session_id == old_session)
                    .map(|r| r.at.clone())
                    .min()
            })
            .unwrap_or_else(|| old.created_at.clone());
        let earlier = EarlierChat {
            session_id: old_session.clone(),
            started_at,
            ended_at: self.now(),
            provider: old
                .fields
                .provider
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            model: old_model,
            handoff: old.handoff.clone(),
        };
        self.update_chat(id, &mut |doc| doc.earlier.push(earlier.clone()))
            .await?;
        self.agent.release_session(old_session);
        self.handed_off(id, &new_session);
        Ok(written)
    }

    /// `chat.earlier(botId)`: the bot's earlier chats, oldest first.
    ///
    /// # Errors
    /// 404 for an unknown bot.
    pub async fn chat_earlier(&self, id: &BotId) -> Result<Vec<EarlierChat>, FxbotError> {
        self.check_open()?;
        self.bot_doc(id).await?;
        Ok(load::<ChatDoc, D>(&self.docs, &keys::chat(id))
            .await?
            .map(|chat| chat.doc.earlier)
            .unwrap_or_default())
    }
}
