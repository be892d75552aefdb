//! `bots.*` (fxbot DESIGN §3.2, §3.4): the bot documents, and the pins document that holds which
//! bots are pinned (one compare-and-set per pin, so the limit holds under concurrent pins).

use crate::caps::{DocStore, Host, StoreError};

use super::super::args::Object;
use super::super::docs::bot::{list_order, BotDoc, Profile};
use super::super::docs::chat::ChatDoc;
use super::super::docs::pins::PinsDoc;
use super::super::docs::{encode, keys};
use super::super::error::{Entity, FxbotError};
use super::super::fields::{Color, Fields, FieldsArg, FieldsPatch, PatchFor};
use super::super::ids::{BotId, ProviderId};
use super::super::store::{self, load, store_error, Loaded, Step};
use super::{not_found, Fxbot};

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    pub(super) async fn bot_doc(&self, bot: &BotId) -> Result<Loaded<BotDoc>, FxbotError> {
        load::<BotDoc, D>(&self.docs, &keys::bot(bot))
            .await?
            .ok_or_else(|| not_found(Entity::Bot, bot))
    }

    /// The ids of every bot (one list call).
    async fn bot_ids(&self) -> Result<Vec<BotId>, FxbotError> {
        Ok(store::list(&self.docs, keys::BOT_PREFIX)
            .await?
            .iter()
            .filter_map(|d| keys::bot_of(&d.key))
            .collect())
    }

    async fn all_bots(&self) -> Result<Vec<BotDoc>, FxbotError> {
        let mut bots = Vec::new();
        for id in self.bot_ids().await? {
            if let Some(bot) = load::<BotDoc, D>(&self.docs, &keys::bot(&id)).await? {
                bots.push(bot.doc);
            }
        }
        Ok(bots)
    }

    /// The pins document, or (before it existed) the pins the bot documents recorded.
    async fn pins(&self) -> Result<Option<Loaded<PinsDoc>>, FxbotError> {
        load::<PinsDoc, D>(&self.docs, keys::PINS).await
    }

    async fn legacy_pins(&self) -> Result<PinsDoc, FxbotError> {
        let bots = self.all_bots().await?;
        let pinned = bots
            .iter()
            .filter(|b| b.extra.get("pinned") == Some(&serde_json::Value::Bool(true)))
            .map(|b| &b.id);
        Ok(PinsDoc::from_legacy(pinned))
    }

    /// The pins. A store written before the pins document existed gets it once, from the bot
    /// documents (a concurrent writer's wins: it is read back).
    async fn pins_now(&self) -> Result<PinsDoc, FxbotError> {
        if let Some(pins) = self.pins().await? {
            return Ok(pins.doc);
        }
        let legacy = self.legacy_pins().await?;
        match self
            .docs
            .doc_commit(keys::PINS, &encode(&legacy), None)
            .await
        {
            Ok(_) => Ok(legacy),
            Err(StoreError::RevisionConflict { .. }) => {
                Ok(self.pins().await?.map_or(legacy, |p| p.doc))
            }
            Err(other) => Err(store_error(keys::PINS, other)),
        }
    }

    /// Pins or unpins `bot` with compare-and-set on the pins document. The bots are listed after
    /// each read of it, so every pin it holds of a bot that exists is counted.
    ///
    /// # Errors
    /// 400 for a pin over the limit, 409 when the document kept changing, 500 for the store.
    async fn set_pinned(&self, bot: &BotId, pinned: bool) -> Result<(), FxbotError> {
        for _ in 0..store::CAS_ATTEMPTS {
            let loaded = self.pins().await?;
            let bots = self.bot_ids().await?;
            let (mut doc, revision) = match loaded {
                Some(l) => (l.doc, Some(l.revision)),
                None => (self.legacy_pins().await?, None),
            };
            if !doc.set(bot, pinned, |b| bots.contains(b))? {
                return Ok(());
            }
            match self
                .docs
                .doc_commit(keys::PINS, &encode(&doc), revision.as_deref())
                .await
            {
                Ok(_) => return Ok(()),
                Err(StoreError::RevisionConflict { .. }) => {}
                Err(other) => return Err(store_error(keys::PINS, other)),
            }
        }
        Err(FxbotError::Conflict {
            key: keys::PINS.to_owned(),
            attempts: store::CAS_ATTEMPTS,
        })
    }

    /// `bots.list()`: pinned first, then the latest activity.
    ///
    /// # Errors
    /// 409 after `close`, 500 for a store failure.
    pub async fn bots_list(&self) -> Result<Vec<Profile>, FxbotError> {
        self.check_open()?;
        let pins = self.pins_now().await?;
        let mut bots: Vec<(BotDoc, bool)> = self
            .all_bots()
            .await?
            .into_iter()
            .map(|b| {
                let pinned = pins.is_pinned(&b.id);
                (b, pinned)
            })
            .collect();
        bots.sort_by(list_order);
        Ok(bots
            .iter()
            .map(|(b, pinned)| b.profile(self.is_busy(&b.id), *pinned))
            .collect())
    }

    /// `bots.get(botId)`.
    ///
    /// # Errors
    /// 404 for an unknown bot.
    pub async fn bots_get(&self, id: &BotId) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let doc = self.bot_doc(id).await?.doc;
        let pinned = self.pins_now().await?.is_pinned(id);
        Ok(doc.profile(self.is_busy(id), pinned))
    }

    async fn check_provider_known(&self, patch: &FieldsPatch) -> Result<(), FxbotError> {
        if let Some(Some(provider)) = &patch.provider {
            if self.provider_doc(provider).await?.is_none() {
                return Err(FxbotError::Invalid {
                    message: format!(
                        "provider {provider} does not exist; add it with providers.add first"
                    ),
                });
            }
        }
        Ok(())
    }

    /// `bots.create(fields)`.
    ///
    /// # Errors
    /// 400 for a field outside its rules or an unknown provider.
    pub async fn bots_create(&self, fields: Object<FieldsArg>) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let patch = FieldsPatch::from_arg(fields, PatchFor::Create)?;
        self.check_provider_known(&patch).await?;
        let settings = self.settings_doc().await?;
        let default_provider = ProviderId::parse(&settings.default_provider).ok();
        let colors: Vec<Color> = self
            .all_bots()
            .await?
            .iter()
            .map(|b| b.fields.color)
            .collect();
        let fields = Fields::create(&patch, default_provider.as_ref(), &colors);
        for _ in 0..store::CAS_ATTEMPTS {
            let id = self.mint(|fill| BotId::mint(fill));
            let doc = BotDoc::new(id.clone(), fields.clone(), &self.now());
            match self
                .docs
                .doc_commit(&keys::bot(&id), &encode(&doc), None)
                .await
            {
                Ok(_) => return Ok(doc.profile(false, false)),
                Err(StoreError::RevisionConflict { .. }) => {}
                Err(other) => return Err(store_error(&keys::bot(&id), other)),
            }
        }
        Err(FxbotError::Internal {
            message: "no free bot id was found".to_owned(),
        })
    }

    /// What `patch` would do to `doc`, checked (nothing written).
    fn checked_update(doc: &mut BotDoc, patch: &FieldsPatch, busy: bool) -> Result<(), FxbotError> {
        let updated = doc.update(patch)?;
        if updated.changed.provider && busy {
            return Err(FxbotError::Busy { running: None });
        }
        if updated.needs_handoff {
            return Err(FxbotError::Invalid {
                message: "this bot has a chat: switching its provider (with a handoff) is not available in this version".to_owned(),
            });
        }
        Ok(())
    }

    /// `bots.update(botId, patch)`: the fields in the bot's document, `pinned` in the pins
    /// document. A patch refused for any rule changes nothing.
    ///
    /// # Errors
    /// 400 for a field outside its rules, an unknown provider, a fourth pin, `provider: ""` or
    /// a new provider for a bot with a chat whose summary the old provider can't make and the
    /// new one has no model for; 502 when neither provider could summarize it (§10); 404 for
    /// an unknown bot; 409 for a provider change while a turn runs.
    pub async fn bots_update(
        &self,
        id: &BotId,
        patch: Object<FieldsArg>,
    ) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let patch = FieldsPatch::from_arg(patch, PatchFor::Update)?;
        let busy = self.is_busy(id);
        let mut doc = self.bot_doc(id).await?.doc;
        self.check_provider_known(&patch).await?;
        // A new provider for a bot with a chat: the chat is handed off first (§10).
        let switch = matches!(doc.clone().update(&patch), Ok(u) if u.needs_handoff) && !busy;
        if !switch {
            Self::checked_update(&mut doc.clone(), &patch, busy)?;
        }
        let pinned_before = self.pins_now().await?.is_pinned(id);
        if switch {
            let doc = self.switch_provider(id, &doc, &patch).await?;
            if let Some(pinned) = patch.pinned {
                self.set_pinned(id, pinned).await?;
            }
            return Ok(doc.profile(false, patch.pinned.unwrap_or(pinned_before)));
        }
        if let Some(pinned) = patch.pinned {
            self.set_pinned(id, pinned).await?;
        }
        if patch.changes_fields() {
            let written = store::update::<BotDoc, D, BotDoc>(
                &self.docs,
                &keys::bot(id),
                || None,
                |stored| {
                    let Some(stored) = stored else {
                        return Err(not_found(Entity::Bot, id));
                    };
                    Self::checked_update(stored, &patch, busy)?;
                    Ok(Step::Write(stored.clone()))
                },
            )
            .await;
            match written {
                Ok(written) => doc = written,
                Err(error) => {
                    // The fields were refused after all (the bot changed meanwhile): the pin
                    // goes back as it was.
                    if patch.pinned.is_some_and(|p| p != pinned_before) {
                        let _ = self.set_pinned(id, pinned_before).await;
                    }
                    return Err(error);
                }
            }
        }
        let pinned = patch.pinned.unwrap_or(pinned_before);
        Ok(doc.profile(busy, pinned))
    }

    /// `bots.remove(botId)`: the bot, its pin, its chats (sessions) and its chat record; a
    /// running turn is stopped first. Library items stay (they may be shared).
    ///
    /// # Errors
    /// 404 for an unknown bot; 500 for a store failure.
    pub async fn bots_remove(&self, id: &BotId) -> Result<(), FxbotError> {
        self.check_open()?;
        let doc = self.bot_doc(id).await?.doc;
        self.release(Some(id));
        self.set_pinned(id, false).await?;
        let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(id)).await?;
        let mut sessions: Vec<String> = doc.session_id.into_iter().collect();
        if let Some(chat) = &chat {
            sessions.extend(chat.doc.messages.values().map(|r| r.session_id.clone()));
            sessions.extend(chat.doc.earlier.iter().map(|e| e.session_id.clone()));
        }
        sessions.sort();
        sessions.dedup();
        for session in sessions {
            // A session that is already gone is fine; a failing store is reported.
            self.host
                .remove_session(&session)
                .await
                .map_err(|error| FxbotError::Store {
                    key: session.clone(),
                    error,
                })?;
        }
        self.unassign(id).await?;
        self.forget_all(id).await?;
        store::remove(&self.docs, &keys::chat(id)).await?;
        store::remove(&self.docs, &keys::bot(id)).await?;
        Ok(())
    }

    /// `release(botId?)` of the JS surface: [`Fxbot::release`] of a bot that exists (or of
    /// every bot).
    ///
    /// # Errors
    /// 404 for an unknown bot, 409 after `close`.
    pub async fn release_bot(&self, id: Option<&BotId>) -> Result<(), FxbotError> {
        self.check_open()?;
        if let Some(id) = id {
            self.bot_doc(id).await?;
        }
        self.release(id);
        Ok(())
    }
}
