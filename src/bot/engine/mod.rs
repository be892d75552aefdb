//! The fxbot engine (fxbot DESIGN §3.2): every call of `createFxbot()`'s object, over the
//! host's capabilities ([`Host`]: fetch, clock, randomness, the session store for chats) and a
//! [`DocStore`] for everything else. Plain Rust: `src/api/bot.rs` only crosses the boundary.
//!
//! - this file: the engine, bots, settings and providers;
//! - [`chat`]: `chat.send` (checks, the idempotency claim, files, the turn) and `chat.stop`;
//! - [`stream`]: `chat.stream`'s batches and waits, `release` and `close`;
//! - [`library`]: the `library.*` calls.
//! - [`signin`]: the `signIns.*` calls (a Vercel account).
//!
//! One turn runs per bot in this process (the in-process lock), and the `messageId` claim in
//! `chat/<botId>` (compare-and-set) decides across processes: the same id runs once, another id
//! while one runs is 409.

pub mod chat;
pub mod library;
pub mod signin;
pub mod stream;
mod ui;

use std::cell::RefCell;
use std::collections::HashMap;

use futures::channel::oneshot;
use serde_json::Value;

use crate::agent::time::rfc3339_ms;
use crate::caps::{Cancel, DocStore, Host};
use crate::gateway::ChatEndpoint;

use super::docs::bot::{list_order, BotDoc, Profile};
use super::docs::keys;
use super::error::{Entity, FxbotError};
use super::fields::{Color, Fields, FieldsPatch, PatchFor};
use super::ids::{BotId, MessageId, ProviderId};
use super::journal::Journal;
use super::replay::KeptReplay;
use super::settings::{
    self, check_new_provider, provider_key, secret_key, ProviderDoc, SecretDoc, SettingsDoc,
};
use super::store::{self, load, store_error, Step};

/// How an engine is set up.
pub struct EngineConfig {
    /// This process's name in claims (`owner`): random per engine.
    pub owner: String,
    /// Where gateway providers send model calls (the canonical AI Gateway, or a loopback
    /// development gateway from `env`).
    pub endpoint: ChatEndpoint,
    /// A library item's `url` from its id (the default is the seed's route).
    pub library_url: Box<dyn Fn(&str) -> String>,
}

/// The seed's route for a library item.
pub fn default_library_url(id: &str) -> String {
    format!("/api/library/{id}/file")
}

/// A turn running in this process.
struct Running {
    message_id: Option<MessageId>,
    cancel: Cancel,
}

/// Who waits in this process: stream consumers by bot (a line of one bot's turn wakes that
/// bot's consumers only), and `signIns.wait` calls.
#[derive(Default)]
struct Waiters {
    bots: HashMap<BotId, Vec<oneshot::Sender<()>>>,
    signins: Vec<oneshot::Sender<()>>,
}

impl Waiters {
    /// A wait for the next change of `bot`'s stream.
    fn bot(&mut self, bot: &BotId) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        self.bots.entry(bot.clone()).or_default().push(sender);
        receiver
    }

    /// A wait for the next change of a sign-in.
    fn signin(&mut self) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        self.signins.push(sender);
        receiver
    }

    fn wake_bot(&mut self, bot: &BotId) {
        for waiter in self.bots.remove(bot).unwrap_or_default() {
            let _ = waiter.send(());
        }
    }

    fn wake_signins(&mut self) {
        for waiter in self.signins.drain(..) {
            let _ = waiter.send(());
        }
    }

    fn wake_all(&mut self) {
        for waiter in self.bots.drain().flat_map(|(_, w)| w) {
            let _ = waiter.send(());
        }
        self.wake_signins();
    }
}

#[derive(Default)]
struct State {
    closed: bool,
    running: HashMap<BotId, Running>,
    journals: HashMap<BotId, Journal>,
    /// The replay of each bot's current chat, kept between stream calls (§8.4).
    kept: HashMap<BotId, KeptReplay>,
    /// Bumped by `release(bot)`: a stream of an older epoch ends.
    epochs: HashMap<BotId, u64>,
    waiters: Waiters,
    signins: HashMap<String, signin::SignIn>,
}

impl State {
    /// Applies `change` to `bot`'s live journal (if it has one) and wakes that bot's consumers.
    fn with_journal(&mut self, bot: &BotId, change: impl FnOnce(&mut Journal)) {
        if let Some(journal) = self.journals.get_mut(bot) {
            change(journal);
        }
        self.waiters.wake_bot(bot);
    }
}

/// The engine.
pub struct Fxbot<H: Host + Clone, D: DocStore> {
    host: H,
    docs: D,
    config: EngineConfig,
    state: RefCell<State>,
}

fn not_found(what: Entity, id: &impl ToString) -> FxbotError {
    FxbotError::NotFound {
        what,
        id: id.to_string(),
    }
}

impl<H: Host + Clone, D: DocStore> Fxbot<H, D> {
    pub fn new(host: H, docs: D, config: EngineConfig) -> Self {
        Fxbot {
            host,
            docs,
            config,
            state: RefCell::new(State::default()),
        }
    }

    pub fn host(&self) -> &H {
        &self.host
    }

    pub fn docs(&self) -> &D {
        &self.docs
    }

    fn now(&self) -> String {
        rfc3339_ms(self.host.now_ms())
    }

    fn check_open(&self) -> Result<(), FxbotError> {
        if self.state.borrow().closed {
            return Err(FxbotError::Closed);
        }
        Ok(())
    }

    fn mint<T>(&self, make: impl FnOnce(&mut dyn FnMut(&mut [u8])) -> T) -> T {
        let host = &self.host;
        make(&mut |buf: &mut [u8]| host.fill_random(buf))
    }

    /// Wakes every waiter (a turn starts or ends, a release, the close).
    fn notify(&self) {
        self.state.borrow_mut().waiters.wake_all();
    }

    fn is_busy(&self, bot: &BotId) -> bool {
        self.state.borrow().running.contains_key(bot)
    }

    // ---- bots ----

    async fn bot_doc(&self, bot: &BotId) -> Result<store::Loaded<BotDoc>, FxbotError> {
        load::<BotDoc, D>(&self.docs, &keys::bot(bot))
            .await?
            .ok_or_else(|| not_found(Entity::Bot, bot))
    }

    async fn all_bots(&self) -> Result<Vec<BotDoc>, FxbotError> {
        let listed = store::list(&self.docs, keys::BOT_PREFIX).await?;
        let mut bots = Vec::new();
        for doc in listed {
            if keys::bot_of(&doc.key).is_none() {
                continue;
            }
            if let Some(bot) = load::<BotDoc, D>(&self.docs, &doc.key).await? {
                bots.push(bot.doc);
            }
        }
        Ok(bots)
    }

    /// `bots.list()`: pinned first, then the latest activity.
    ///
    /// # Errors
    /// 409 after `close`, 500 for a store failure.
    pub async fn bots_list(&self) -> Result<Vec<Profile>, FxbotError> {
        self.check_open()?;
        let mut bots = self.all_bots().await?;
        bots.sort_by(list_order);
        Ok(bots
            .iter()
            .map(|b| b.profile(self.is_busy(&b.id)))
            .collect())
    }

    /// `bots.get(botId)`.
    ///
    /// # Errors
    /// 400 for an id of another shape, 404 for an unknown bot.
    pub async fn bots_get(&self, bot: &str) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let doc = self.bot_doc(&id).await?.doc;
        Ok(doc.profile(self.is_busy(&id)))
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
    pub async fn bots_create(&self, fields: &Value) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let fields = (!fields.is_null()).then_some(fields);
        let patch = FieldsPatch::from_json(fields, PatchFor::Create)?;
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
                .doc_commit(&keys::bot(&id), &super::docs::encode(&doc), None)
                .await
            {
                Ok(_) => return Ok(doc.profile(false)),
                Err(crate::caps::StoreError::RevisionConflict { .. }) => {}
                Err(other) => return Err(store_error(&keys::bot(&id), other)),
            }
        }
        Err(FxbotError::Internal {
            message: "no free bot id was found".to_owned(),
        })
    }

    /// `bots.update(botId, patch)`.
    ///
    /// # Errors
    /// 400 for a field outside its rules, an unknown provider, a fourth pin, `provider: ""` or
    /// a new provider for a bot with a chat (the provider switch comes with part 2); 404 for an
    /// unknown bot; 409 for a provider change while a turn runs.
    pub async fn bots_update(&self, bot: &str, patch: &Value) -> Result<Profile, FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let patch = FieldsPatch::from_json(Some(patch), PatchFor::Update)?;
        self.bot_doc(&id).await?;
        self.check_provider_known(&patch).await?;
        let pins: Vec<(BotId, bool)> = self
            .all_bots()
            .await?
            .into_iter()
            .map(|b| (b.id, b.pinned))
            .collect();
        let busy = self.is_busy(&id);
        let doc = store::update::<BotDoc, D, BotDoc>(
            &self.docs,
            &keys::bot(&id),
            || None,
            |doc| {
                let Some(doc) = doc else {
                    return Err(not_found(Entity::Bot, &id));
                };
                let before = doc.clone();
                let updated = doc.update(&patch, pins.iter().map(|(b, p)| (b, *p)))?;
                if updated.changed.provider && busy {
                    *doc = before;
                    return Err(FxbotError::Busy {
                        running: "the running turn".to_owned(),
                    });
                }
                if updated.needs_handoff {
                    *doc = before;
                    return Err(FxbotError::Invalid {
                        message: "this bot has a chat: switching its provider (with a handoff) is not available in this version".to_owned(),
                    });
                }
                Ok(Step::Write(doc.clone()))
            },
        )
        .await?;
        Ok(doc.profile(busy))
    }

    /// `bots.remove(botId)`: the bot, its chats (sessions) and its chat record; a running turn
    /// is stopped first. Library items stay (they may be shared).
    ///
    /// # Errors
    /// 400/404 for the id.
    pub async fn bots_remove(&self, bot: &str) -> Result<(), FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let doc = self.bot_doc(&id).await?.doc;
        self.release(Some(bot));
        let chat = load::<super::docs::chat::ChatDoc, D>(&self.docs, &keys::chat(&id)).await?;
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
        store::remove(&self.docs, &keys::chat(&id)).await?;
        store::remove(&self.docs, &keys::bot(&id)).await?;
        Ok(())
    }

    // ---- settings ----

    async fn settings_doc(&self) -> Result<SettingsDoc, FxbotError> {
        Ok(load::<SettingsDoc, D>(&self.docs, keys::SETTINGS)
            .await?
            .map(|l| l.doc)
            .unwrap_or_default())
    }

    /// `settings.get()`.
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn settings_get(&self) -> Result<Value, FxbotError> {
        self.check_open()?;
        Ok(settings::settings_json(&self.settings_doc().await?))
    }

    /// `settings.update(patch)`: `defaultProvider` for now.
    ///
    /// # Errors
    /// 400 for an unknown provider or a memory-search change.
    pub async fn settings_update(&self, patch: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let default = settings::settings_patch(patch)?;
        let Some(default) = default else {
            return self.settings_get().await;
        };
        if let Some(provider) = &default {
            if self.provider_doc(provider).await?.is_none() {
                return Err(FxbotError::Invalid {
                    message: format!("defaultProvider {provider} is not a provider"),
                });
            }
        }
        let text = default.map(String::from).unwrap_or_default();
        let doc = store::update::<SettingsDoc, D, SettingsDoc>(
            &self.docs,
            keys::SETTINGS,
            || Some(SettingsDoc::default()),
            |doc| {
                let doc = doc.ok_or_else(|| FxbotError::Internal {
                    message: "no settings".to_owned(),
                })?;
                doc.default_provider.clone_from(&text);
                Ok(Step::Write(doc.clone()))
            },
        )
        .await?;
        Ok(settings::settings_json(&doc))
    }

    // ---- providers ----

    async fn provider_doc(&self, id: &ProviderId) -> Result<Option<ProviderDoc>, FxbotError> {
        Ok(load::<ProviderDoc, D>(&self.docs, &provider_key(id))
            .await?
            .map(|l| l.doc))
    }

    /// `providers.add(provider)`: a `gateway` provider with its key.
    ///
    /// # Errors
    /// 400 by the rules of [`check_new_provider`].
    pub async fn providers_add(&self, provider: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let new = check_new_provider(provider)?;
        let id = self.mint(|fill| ProviderId::mint(fill));
        let secret = SecretDoc {
            schema: super::docs::SCHEMA,
            api_key: Some(new.api_key),
            access_token: None,
            expires_at_ms: None,
            refresh_token: None,
        };
        let doc = ProviderDoc {
            schema: super::docs::SCHEMA,
            id: id.clone(),
            kind: new.kind,
            name: new.name,
            base_url: None,
            model: new.model,
            context_window: None,
            team_id: None,
            has_key: true,
            signed_in: false,
            error: None,
            teams: Vec::new(),
            extra: std::collections::BTreeMap::new(),
        };
        self.store_provider(&secret, &doc).await
    }

    /// Stores a new provider: its secret first, then the document that names it.
    async fn store_provider(
        &self,
        secret: &SecretDoc,
        doc: &ProviderDoc,
    ) -> Result<Value, FxbotError> {
        store::commit(
            &self.docs,
            &secret_key(&doc.id),
            &super::docs::encode(secret),
            None,
        )
        .await?;
        store::commit(
            &self.docs,
            &provider_key(&doc.id),
            &super::docs::encode(doc),
            None,
        )
        .await?;
        Ok(doc.to_json())
    }

    /// `providers.list()`.
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn providers_list(&self) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        let listed = store::list(&self.docs, settings::PROVIDER_PREFIX).await?;
        let mut out = Vec::new();
        for doc in listed {
            if let Some(p) = load::<ProviderDoc, D>(&self.docs, &doc.key).await? {
                out.push(p.doc.to_json());
            }
        }
        Ok(out)
    }

    /// `providers.get(providerId)`.
    ///
    /// # Errors
    /// 400 for the id's shape, 404 for an unknown provider.
    pub async fn providers_get(&self, id: &str) -> Result<Value, FxbotError> {
        self.check_open()?;
        let id = ProviderId::parse(id)?;
        self.provider_doc(&id)
            .await?
            .map(|p| p.to_json())
            .ok_or_else(|| not_found(Entity::Provider, &id))
    }

    /// `providers.remove(providerId)`: bots keep the id (their provider is gone); a default
    /// provider setting pointing at it is reset.
    ///
    /// # Errors
    /// 400/404 for the id.
    pub async fn providers_remove(&self, id: &str) -> Result<(), FxbotError> {
        self.check_open()?;
        let id = ProviderId::parse(id)?;
        if self.provider_doc(&id).await?.is_none() {
            return Err(not_found(Entity::Provider, &id));
        }
        store::remove(&self.docs, &provider_key(&id)).await?;
        store::remove(&self.docs, &secret_key(&id)).await?;
        let text = id.to_string();
        store::update::<SettingsDoc, D, ()>(
            &self.docs,
            keys::SETTINGS,
            || None,
            |doc| match doc {
                Some(doc) if doc.default_provider == text => {
                    doc.default_provider.clear();
                    Ok(Step::Write(()))
                }
                _ => Ok(Step::Keep(())),
            },
        )
        .await
    }

    /// Records a Vercel sign-in as a provider: the token, and the one-team rule (exactly one
    /// team is taken; several leave `teamId` null).
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn providers_add_signed_in(
        &self,
        access_token: &str,
        expires_at_ms: Option<i64>,
        teams: Vec<String>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let id = self.mint(|fill| ProviderId::mint(fill));
        let secret = SecretDoc {
            schema: super::docs::SCHEMA,
            api_key: None,
            access_token: Some(access_token.to_owned()),
            expires_at_ms,
            refresh_token: None,
        };
        let doc = ProviderDoc {
            schema: super::docs::SCHEMA,
            id: id.clone(),
            kind: settings::Kind::Vercel,
            name: settings::Kind::Vercel.label().to_owned(),
            base_url: None,
            model: String::new(),
            context_window: None,
            team_id: settings::team_of(&teams),
            has_key: false,
            signed_in: true,
            error: None,
            teams,
            extra: std::collections::BTreeMap::new(),
        };
        self.store_provider(&secret, &doc).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(n: u8) -> BotId {
        BotId::from_random_bytes([n; 6])
    }

    #[test]
    fn a_line_of_one_bot_wakes_only_its_consumers() {
        let (a, b) = (bot(1), bot(2));
        let mut state = State::default();
        let mut of_a = state.waiters.bot(&a);
        let mut of_b = state.waiters.bot(&b);
        let mut signin = state.waiters.signin();
        state.with_journal(&a, |_| {});
        assert_eq!(of_a.try_recv(), Ok(Some(())));
        assert_eq!(of_b.try_recv(), Ok(None), "bot b's consumer sleeps on");
        assert_eq!(signin.try_recv(), Ok(None));
        assert!(!state.waiters.bots.contains_key(&a));
        assert_eq!(state.waiters.bots.get(&b).map(Vec::len), Some(1));
        state.waiters.wake_signins();
        assert_eq!(signin.try_recv(), Ok(Some(())));
        assert_eq!(of_b.try_recv(), Ok(None));
        state.waiters.wake_all();
        assert_eq!(of_b.try_recv(), Ok(Some(())));
        assert!(state.waiters.bots.is_empty());
    }
}
