//! Vectors for memories and messages (fxbot DESIGN §11.2–§11.4): the embedder the settings name
//! (the host's local one; `off` ranks by words alone), the fill-in that gives every memory and
//! the newest `messageVectors` messages of each bot a vector under the model's key, in batches,
//! with progress through `onEvent`, `settings.embedding()`, and the query vector a search
//! combines with the lexical score.

use std::rc::Rc;

use serde_json::{json, Value};

use std::pin::pin;

use futures::future::{select, Either};

use crate::caps::{DocStore, Host, HostEvent, StoreError};

use super::super::docs::keys;
use super::super::embed::{
    self, model_key, model_name, normalised, to_bytes, vector_prefix, LocalEmbedder,
    RemoteEmbedder, BATCH, PROBE_TIMEOUT_MS, REPLY_CHARS,
};
use super::super::error::FxbotError;
use super::super::history::chat_entries;
use super::super::ids::{BotId, ProviderId};
use super::super::kinds::Protocol;
use super::super::settings::SettingsDoc;
use super::super::store;
use super::memories::list_memories;
use super::Fxbot;
use crate::providers::auth_headers;

/// The embedder of the settings, ready to embed.
pub struct Source {
    /// `local:<model>` (the name `embedding().model` shows).
    pub name: String,
    /// Its store key (`vec/<key>/…`).
    pub key: String,
    embedder: Rc<dyn LocalEmbedder>,
}

impl Source {
    /// Embeds `texts`: one normalised vector each, of one length.
    ///
    /// # Errors
    /// The embedder's failure, or an answer of the wrong shape, as a message.
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, String> {
        let count = texts.len();
        let vectors = self.embedder.embed(texts).await?;
        if vectors.len() != count {
            return Err(format!(
                "the embedder gave {} vectors for {count} texts",
                vectors.len()
            ));
        }
        let mut out = Vec::with_capacity(count);
        for vector in &vectors {
            let vector = normalised(vector).ok_or_else(|| {
                "the embedder gave an empty, zero or non-finite vector".to_owned()
            })?;
            if out
                .first()
                .is_some_and(|f: &Vec<f32>| f.len() != vector.len())
            {
                return Err("the embedder gave vectors of different lengths".to_owned());
            }
            out.push(vector);
        }
        Ok(out)
    }
}

/// One item the fill-in gives a vector: its key and its text.
struct Pending {
    key: String,
    text: String,
}

/// The state of this process's fill-in.
#[derive(Debug, Default)]
pub struct FillState {
    pub running: bool,
    /// Something changed while a pass ran: run another.
    pub again: bool,
    pub last_error: Option<String>,
}

/// A message's text for its vector: the input and the start of the reply.
fn message_text(input: &str, reply: &str) -> String {
    let reply: String = reply.chars().take(REPLY_CHARS).collect();
    format!("{input}\n{reply}")
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// The embedder the settings name (`None` when it is off, `local` without a host embedder,
    /// or `remote` on a provider that is gone or has no embeddings endpoint).
    pub(super) async fn source_of(&self, settings: &SettingsDoc) -> Option<Source> {
        let (name, embedder): (String, Rc<dyn LocalEmbedder>) = match settings.embedder.as_str() {
            "local" => {
                let embedder = self.config.embedder.clone()?;
                (model_name(true, "", &embedder.model()), embedder)
            }
            "remote" => {
                let id = ProviderId::parse(&settings.embedding_provider).ok()?;
                let provider = self.provider_doc(&id).await.ok()??;
                let token = self.credential(&id, &provider).await.ok()?;
                let base = self.base_of(&provider);
                let model = settings.embedding_model.clone();
                let (url, gemini) = match provider.kind.info().protocol {
                    Protocol::Anthropic => return None,
                    Protocol::Gemini => (format!("{base}/models/{model}:batchEmbedContents"), true),
                    Protocol::Gateway => (format!("{base}/v1/embeddings"), false),
                    Protocol::Chat | Protocol::Responses => (format!("{base}/embeddings"), false),
                };
                let remote = RemoteEmbedder {
                    host: self.host.clone(),
                    url,
                    headers: auth_headers(provider.kind, token.as_deref()),
                    model: model.clone(),
                    gemini,
                };
                (model_name(false, id.as_str(), &model), Rc::new(remote))
            }
            _ => return None,
        };
        Some(Source {
            key: model_key(&name),
            name,
            embedder,
        })
    }

    /// The rules of the embedding fields that need more than the patch: `local` needs the
    /// host's embedder, `remote` a provider and a model; a new source must embed a test string.
    ///
    /// # Errors
    /// 400 naming what is missing or why the test string failed.
    pub(super) async fn check_embedder(
        &self,
        before: &SettingsDoc,
        after: &SettingsDoc,
    ) -> Result<(), FxbotError> {
        let bad = |message: String| FxbotError::Invalid { message };
        match after.embedder.as_str() {
            "local" if self.config.embedder.is_none() => {
                return Err(bad(
                    "embedder \"local\" needs a local embedder: pass createFxbot({ embedder })"
                        .to_owned(),
                ))
            }
            "remote" => {
                if after.embedding_provider.is_empty() || after.embedding_model.is_empty() {
                    return Err(bad(
                        "embedder \"remote\" needs both embeddingProvider and embeddingModel"
                            .to_owned(),
                    ));
                }
                let id = ProviderId::parse(&after.embedding_provider)?;
                let Some(provider) = self.provider_doc(&id).await? else {
                    return Err(bad(format!("embeddingProvider {id} is not a provider")));
                };
                if provider.kind.info().protocol == Protocol::Anthropic {
                    return Err(bad(format!(
                        "embeddingProvider {id} ({}) has no embeddings endpoint",
                        provider.kind.info().label
                    )));
                }
            }
            _ => {}
        }
        let same_source = before.embedder == after.embedder
            && before.embedding_provider == after.embedding_provider
            && before.embedding_model == after.embedding_model;
        if !same_source {
            if let Some(source) = self.source_of(after).await {
                if let Err(message) = source.embed(vec![embed::CHECK_TEXT.to_owned()]).await {
                    return Err(bad(format!(
                        "the embedder failed its test string ({message}); the settings are unchanged"
                    )));
                }
            }
        }
        if !same_source || before.message_vectors != after.message_vectors {
            // A fill-in that runs starts again on the new key or count.
            self.state.borrow_mut().fill.again = true;
        }
        Ok(())
    }

    async fn bots(&self) -> Result<Vec<BotId>, FxbotError> {
        Ok(store::list(&self.docs, keys::BOT_PREFIX)
            .await?
            .iter()
            .filter_map(|d| keys::bot_of(&d.key))
            .collect())
    }

    /// The memories and messages that should have a vector under `key`, and which do.
    async fn wanted(
        &self,
        key: &str,
        settings: &SettingsDoc,
    ) -> Result<(Vec<Pending>, Counts), FxbotError> {
        let mut pending = Vec::new();
        let mut counts = Counts::default();
        let limit = usize::try_from(settings.message_vectors).unwrap_or(usize::MAX);
        for bot in self.bots().await? {
            let have: Vec<String> =
                store::list(&self.docs, &vector_prefix(key, "mem", bot.as_str()))
                    .await?
                    .into_iter()
                    .map(|d| d.key)
                    .collect();
            for memory in list_memories(&self.docs, &bot).await? {
                let vkey = format!("{}{}", vector_prefix(key, "mem", bot.as_str()), memory.id);
                counts.memories += 1;
                if have.contains(&vkey) {
                    counts.memories_with += 1;
                } else {
                    pending.push(Pending {
                        key: vkey,
                        text: memory.text,
                    });
                }
            }
            if limit == 0 {
                continue;
            }
            let Some(session) = self.bot_doc(&bot).await?.doc.session_id else {
                continue;
            };
            let have: Vec<String> =
                store::list(&self.docs, &vector_prefix(key, "msg", bot.as_str()))
                    .await?
                    .into_iter()
                    .map(|d| d.key)
                    .collect();
            let entries = chat_entries(&self.host, &self.docs, &bot, &session)
                .await
                .map_err(|message| FxbotError::Internal { message })?;
            for entry in entries.iter().rev().take(limit) {
                let vkey = format!(
                    "{}{}",
                    vector_prefix(key, "msg", bot.as_str()),
                    entry.message_id
                );
                counts.messages += 1;
                if have.contains(&vkey) {
                    counts.messages_with += 1;
                } else {
                    pending.push(Pending {
                        key: vkey,
                        text: message_text(&entry.input, &entry.reply),
                    });
                }
            }
        }
        Ok((pending, counts))
    }

    /// Runs the fill-in until nothing is missing (one worker per process: a call while one
    /// runs asks it for another pass). Each pass starts with an `embedding_progress` of 0 and
    /// reports after every batch.
    pub async fn fill_in(&self) {
        {
            let mut state = self.state.borrow_mut();
            if state.fill.running {
                state.fill.again = true;
                return;
            }
            state.fill.running = true;
        }
        loop {
            self.state.borrow_mut().fill.again = false;
            let outcome = self.fill_pass().await;
            let mut state = self.state.borrow_mut();
            match outcome {
                Ok(()) => {}
                Err(message) => state.fill.last_error = Some(message),
            }
            if !state.fill.again || state.closed {
                state.fill.running = false;
                return;
            }
        }
    }

    async fn fill_pass(&self) -> Result<(), String> {
        let settings = self.settings_doc().await.map_err(|e| e.to_string())?;
        let Some(source) = self.source_of(&settings).await else {
            return Ok(());
        };
        let (pending, _) = self
            .wanted(&source.key, &settings)
            .await
            .map_err(|e| e.to_string())?;
        let total = pending.len();
        self.host.event(HostEvent::EmbeddingProgress {
            model: source.name.clone(),
            done: 0,
            total,
        });
        let mut done = 0;
        for batch in pending.chunks(BATCH) {
            if self.state.borrow().fill.again || self.state.borrow().closed {
                return Ok(());
            }
            let texts = batch.iter().map(|p| p.text.clone()).collect();
            let vectors = source.embed(texts).await?;
            for (item, vector) in batch.iter().zip(vectors) {
                match self
                    .docs
                    .doc_commit(&item.key, &to_bytes(&vector), None)
                    .await
                {
                    // Another tab stored it first: the same text, the same vector.
                    Ok(_) | Err(StoreError::RevisionConflict { .. }) => {}
                    Err(other) => return Err(store::store_error(&item.key, other).to_string()),
                }
            }
            done += batch.len();
            self.host.event(HostEvent::EmbeddingProgress {
                model: source.name.clone(),
                done,
                total,
            });
            // Let the page breathe between batches.
            self.host.sleep(0).await;
        }
        self.state.borrow_mut().fill.last_error = None;
        Ok(())
    }

    /// `settings.embedding()`: the model in use (null when off or when the embedder does not
    /// answer within 5 s), the fill-in's last error, and the counts.
    ///
    /// # Errors
    /// 500 for the store.
    pub async fn embedding_status(&self) -> Result<Value, FxbotError> {
        self.check_open()?;
        let settings = self.settings_doc().await?;
        let source = self.source_of(&settings).await;
        let counts = match &source {
            Some(s) => self.wanted(&s.key, &settings).await?.1,
            None => Counts::default(),
        };
        let model = match &source {
            Some(s) => {
                let probe = pin!(s.embed(vec![embed::CHECK_TEXT.to_owned()]));
                let deadline = pin!(self.host.deadline(PROBE_TIMEOUT_MS));
                match select(probe, deadline).await {
                    Either::Left((Ok(_), _)) => Some(s.name.clone()),
                    _ => None,
                }
            }
            None => None,
        };
        let error = self.state.borrow().fill.last_error.clone();
        Ok(json!({
            "model": model,
            "error": error,
            "messages": counts.messages,
            "withVectors": counts.messages_with,
            "memories": counts.memories,
            "memoriesWithVectors": counts.memories_with,
            "local": source.as_ref().map(|_| "cpu"),
            "switching": null,
            "canSwitch": false,
        }))
    }

    /// The vector of `query` under the settings' embedder, with its key (`None` when off or
    /// when the embedder fails: the search ranks by words then).
    pub(super) async fn query_vector(&self, query: &str) -> Option<(String, Vec<f32>)> {
        let settings = self.settings_doc().await.ok()?;
        let source = self.source_of(&settings).await?;
        let vector = source.embed(vec![query.to_owned()]).await.ok()?.pop()?;
        Some((source.key, vector))
    }

    /// Removes the vectors of a removed bot (`memory: None`) or of one of its memories, under
    /// every model key.
    pub(super) async fn forget_vectors(
        &self,
        bot: &BotId,
        memory: Option<&str>,
    ) -> Result<(), FxbotError> {
        for listed in store::list(&self.docs, "vec/").await? {
            // vec/<modelKey>/<mem|msg>/<botId>/<id>
            let mut parts = listed.key.split('/').skip(2);
            let kind = parts.next();
            let of_bot = parts.next() == Some(bot.as_str());
            let id = parts.next();
            let gone = of_bot
                && match memory {
                    None => true,
                    Some(memory) => kind == Some("mem") && id == Some(memory),
                };
            if gone {
                store::remove(&self.docs, &listed.key).await?;
            }
        }
        Ok(())
    }
}

/// The counts of `embedding()`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub messages: usize,
    pub messages_with: usize,
    pub memories: usize,
    pub memories_with: usize,
}
