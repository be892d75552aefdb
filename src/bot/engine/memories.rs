//! `memories.*` (fxbot DESIGN §3.2, §11.5) and the store steps the memory tools share with them:
//! a bot's memories listed newest first, saved by the owner or by the bot (with the `msg:` of the
//! turn), updated, forgotten, and searched (lexical ranking, [`crate::bot::search`]).

use serde_json::{json, Value};

use crate::agent::time::rfc3339_ms;
use crate::caps::{Clock, DocStore, Host, Random};

use super::super::embed::{combined, cosine, from_bytes, vector_prefix};
use super::super::error::{Entity, FxbotError};
use super::super::ids::{BotId, IdKind, MemoryId};
use super::super::memory::{bot_prefix, memory_key, text_of, MemoryDoc, SavedBy};
use super::super::search::rank;
use super::super::store::{self, load, Step};
use super::super::{docs::encode, memory};
use super::{not_found, Fxbot};

/// The most hits a search returns, and its default.
pub const MAX_HITS: usize = 20;
pub const DEFAULT_HITS: usize = 8;

/// A bot's memories, newest first.
///
/// # Errors
/// 500 for the store.
pub async fn list_memories<D: DocStore>(
    docs: &D,
    bot: &BotId,
) -> Result<Vec<MemoryDoc>, FxbotError> {
    let mut out = Vec::new();
    for listed in store::list(docs, &bot_prefix(bot)).await? {
        if let Some(m) = load::<MemoryDoc, D>(docs, &listed.key).await? {
            out.push(m.doc);
        }
    }
    memory::newest_first(&mut out);
    Ok(out)
}

/// Saves a new memory.
///
/// # Errors
/// 500 for the store.
pub async fn save_memory<H: Clock + Random + ?Sized, D: DocStore>(
    host: &H,
    docs: &D,
    bot: &BotId,
    text: String,
    saved_by: SavedBy,
    message_id: Option<String>,
) -> Result<MemoryDoc, FxbotError> {
    let id = MemoryId::mint(|b| host.fill_random(b));
    let doc = MemoryDoc::new(id, text, saved_by, message_id, &rfc3339_ms(host.now_ms()));
    store::commit(docs, &memory_key(bot, &doc.id), &encode(&doc), None).await?;
    Ok(doc)
}

/// Replaces a memory's text.
///
/// # Errors
/// 404 for an unknown memory, 500 for the store.
pub async fn update_memory<H: Clock + ?Sized, D: DocStore>(
    host: &H,
    docs: &D,
    bot: &BotId,
    id: &MemoryId,
    text: &str,
) -> Result<MemoryDoc, FxbotError> {
    let at = rfc3339_ms(host.now_ms());
    store::update::<MemoryDoc, D, MemoryDoc>(
        docs,
        &memory_key(bot, id),
        || None,
        |doc| {
            let doc = doc.ok_or_else(|| not_found(Entity::Memory, id))?;
            text.clone_into(&mut doc.text);
            doc.updated_at.clone_from(&at);
            Ok(Step::Write(doc.clone()))
        },
    )
    .await
}

/// Forgets a memory.
///
/// # Errors
/// 404 for an unknown memory, 500 for the store.
pub async fn forget_memory<D: DocStore>(
    docs: &D,
    bot: &BotId,
    id: &MemoryId,
) -> Result<(), FxbotError> {
    let key = memory_key(bot, id);
    if load::<MemoryDoc, D>(docs, &key).await?.is_none() {
        return Err(not_found(Entity::Memory, id));
    }
    store::remove(docs, &key).await
}

/// The memories that best match `query`, best first, with their scores: by words, and with
/// `vector` (the query's, and the model key its memories' vectors are under) by
/// `0.8·cosine + 0.2·lexical` for those that have one.
///
/// # Errors
/// 500 for the store.
pub async fn search_memories<D: DocStore>(
    docs: &D,
    bot: &BotId,
    query: &str,
    limit: usize,
    vector: Option<(&str, &[f32])>,
) -> Result<Vec<(MemoryDoc, f64)>, FxbotError> {
    let mut memories = list_memories(docs, bot).await?;
    // Oldest first, as the ranking reads recency.
    memories.reverse();
    let texts: Vec<&str> = memories.iter().map(|m| m.text.as_str()).collect();
    let mut lexical = vec![0.0; memories.len()];
    for (index, score) in rank(query, &texts) {
        if let Some(slot) = lexical.get_mut(index) {
            *slot = score;
        }
    }
    let mut scored: Vec<(usize, f64)> = Vec::new();
    for (index, memory) in memories.iter().enumerate() {
        let words = lexical.get(index).copied().unwrap_or(0.0);
        let cosine = match vector {
            Some((key, query)) => {
                let vkey = format!("{}{}", vector_prefix(key, "mem", bot.as_str()), memory.id);
                docs.doc_load(&vkey)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|v| from_bytes(&v.bytes))
                    .map(|v| cosine(query, &v))
            }
            None => None,
        };
        let score = combined(cosine, words);
        if cosine.is_some() || words > 0.0 {
            scored.push((index, score));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    Ok(scored
        .into_iter()
        .take(limit)
        .filter_map(|(index, score)| memories.get(index).map(|m| (m.clone(), score)))
        .collect())
}

/// A memory id argument: `<id>` or `mem:<id>`.
fn memory_id(value: &Value) -> Result<MemoryId, FxbotError> {
    match value.as_str() {
        Some(text) => Ok(MemoryId::parse_ref(text)?),
        None => Err(super::super::ids::IdError::NotAString {
            kind: IdKind::Memory,
            found: super::super::shown::kind_of(value),
        }
        .into()),
    }
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// `memories.list(botId)`: newest first.
    ///
    /// # Errors
    /// 400/404 for the bot.
    pub async fn memories_list(&self, bot: &BotId) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        self.bot_doc(bot).await?;
        Ok(list_memories(&self.docs, bot)
            .await?
            .iter()
            .map(MemoryDoc::view)
            .collect())
    }

    /// `memories.add(botId, text)`: `savedBy: "owner"`.
    ///
    /// # Errors
    /// 400 for the text, 400/404 for the bot.
    pub async fn memories_add(&self, bot: &BotId, text: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        self.bot_doc(bot).await?;
        let text = text_of(text)?;
        Ok(
            save_memory(&self.host, &self.docs, bot, text, SavedBy::Owner, None)
                .await?
                .view(),
        )
    }

    /// `memories.update(botId, memoryId, text)`.
    ///
    /// # Errors
    /// 400 for the id or text, 404 for an unknown bot or memory.
    pub async fn memories_update(
        &self,
        bot: &BotId,
        id: &Value,
        text: &Value,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        self.bot_doc(bot).await?;
        let id = memory_id(id)?;
        let text = text_of(text)?;
        Ok(update_memory(&self.host, &self.docs, bot, &id, &text)
            .await?
            .view())
    }

    /// `memories.remove(botId, memoryId)`.
    ///
    /// # Errors
    /// 400 for the id, 404 for an unknown bot or memory.
    pub async fn memories_remove(&self, bot: &BotId, id: &Value) -> Result<(), FxbotError> {
        self.check_open()?;
        self.bot_doc(bot).await?;
        let id = memory_id(id)?;
        forget_memory(&self.docs, bot, &id).await?;
        self.forget_vectors(bot, Some(id.as_str())).await
    }

    /// `memories.search(botId, query, { limit })`: `Memory & { score }`, best first.
    ///
    /// # Errors
    /// 400 for the query or limit, 400/404 for the bot.
    pub async fn memories_search(
        &self,
        bot: &BotId,
        query: &Value,
        options: &Value,
    ) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        self.bot_doc(bot).await?;
        let Some(query) = query.as_str() else {
            return Err(FxbotError::Invalid {
                message: format!(
                    "query must be a string, not {}",
                    super::super::shown::kind_of(query)
                ),
            });
        };
        let limit = match options.get("limit") {
            None | Some(Value::Null) => DEFAULT_HITS,
            Some(value) => match value.as_u64() {
                Some(n @ 1..=20) => usize::try_from(n).unwrap_or(DEFAULT_HITS),
                _ => {
                    return Err(FxbotError::Invalid {
                        message: "limit must be a whole number from 1 to 20".to_owned(),
                    })
                }
            },
        };
        let vector = self.query_vector(query).await;
        let vector = vector.as_ref().map(|(k, v)| (k.as_str(), v.as_slice()));
        Ok(search_memories(&self.docs, bot, query, limit, vector)
            .await?
            .into_iter()
            .map(|(m, score)| {
                let mut view = m.view();
                if let Some(object) = view.as_object_mut() {
                    object.insert("score".to_owned(), json!((score * 1e6).round() / 1e6));
                }
                view
            })
            .collect())
    }

    /// Removes every memory of a removed bot.
    pub(super) async fn forget_all(&self, bot: &BotId) -> Result<(), FxbotError> {
        for listed in store::list(&self.docs, &bot_prefix(bot)).await? {
            store::remove(&self.docs, &listed.key).await?;
        }
        self.forget_vectors(bot, None).await
    }
}
