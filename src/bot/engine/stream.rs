//! `chat.stream` (fxbot DESIGN §8.3–§8.4) as batches: the lines owed at a cursor (the log's
//! replay, then this process's live journal), and a wait for more; `release` and `close`.

use std::collections::HashMap;

use futures::channel::oneshot;
use serde::Serialize;
use serde_json::Value;

use crate::caps::{DocStore, Host};

use super::super::cursor::Cursor;
use super::super::docs::chat::ChatDoc;
use super::super::docs::keys;
use super::super::error::FxbotError;
use super::super::ids::{BotId, LibraryId};
use super::super::library::{item_key, ItemDoc};
use super::super::replay::{replay, Replay};
use super::super::resume::{journal_applies, resume};
use super::super::store::load;
use super::super::stream::{SavedFile, StreamLine};
use super::Fxbot;

/// One batch of a stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batch {
    pub lines: Vec<StreamLine>,
    /// Nothing more will come (no chat, its provider is gone, the consumer fell too far
    /// behind): the iterator ends after these lines.
    pub end: bool,
    /// A turn of this chat runs in this process (more lines will come).
    pub live: bool,
    /// The bot's release epoch: a wait with an older one ends.
    pub epoch: u64,
}

impl<H: Host + Clone, D: DocStore> Fxbot<H, D> {
    fn epoch(&self, bot: &BotId) -> u64 {
        self.state.borrow().epochs.get(bot).copied().unwrap_or(0)
    }

    /// The replay of `session_id`, with what the chat document saved.
    async fn replay_of(&self, bot: &BotId, session_id: &str) -> Result<Replay, FxbotError> {
        let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(bot))
            .await?
            .map(|l| l.doc)
            .unwrap_or_default();
        let mut files: HashMap<LibraryId, SavedFile> = HashMap::new();
        for record in chat
            .messages
            .values()
            .filter(|r| r.session_id == session_id)
        {
            for id in &record.files {
                if let Some(item) = load::<ItemDoc, D>(&self.docs, &item_key(id)).await? {
                    files.insert(
                        id.clone(),
                        SavedFile {
                            name: item.doc.name,
                            media_type: item.doc.media_type,
                            url: (self.config.library_url)(id.as_str()),
                        },
                    );
                }
            }
        }
        let metas = chat.turn_metas(session_id, |id| files.get(id).cloned());
        let stored =
            self.host
                .load_session(session_id)
                .await
                .map_err(|error| FxbotError::Store {
                    key: session_id.to_owned(),
                    error,
                })?;
        match stored {
            Some(stored) => replay(&stored.bytes, &metas).map_err(|e| FxbotError::Internal {
                message: format!("the chat {session_id} could not be read: {e}"),
            }),
            None => Ok(Replay {
                session_id: session_id.to_owned(),
                lines: Vec::new(),
                turns: Vec::new(),
            }),
        }
    }

    /// The lines of the bot's chat (or of `session_id`) after `cursor`.
    ///
    /// # Errors
    /// 400 for the id or a cursor that is not a whole number; 404 for an unknown bot.
    pub async fn stream(
        &self,
        bot: &str,
        cursor: &Value,
        session_id: Option<&str>,
    ) -> Result<Batch, FxbotError> {
        self.check_open()?;
        let id = BotId::parse(bot)?;
        let cursor = Cursor::from_json(cursor)?;
        let doc = self.bot_doc(&id).await?.doc;
        let epoch = self.epoch(&id);
        let ended = Batch {
            lines: Vec::new(),
            end: true,
            live: false,
            epoch,
        };
        let provider_gone = match &doc.fields.provider {
            Some(provider) => self.provider_doc(provider).await?.is_none(),
            None => true,
        };
        let current = doc.session_id.clone();
        let Some(session) = session_id.map(str::to_owned).or(current.clone()) else {
            return Ok(ended);
        };
        let earlier = session_id.is_some() && current.as_deref() != session_id;
        if provider_gone && !earlier {
            return Ok(ended);
        }
        let replay = self.replay_of(&id, &session).await?;
        let journal = self.state.borrow().journals.get(&id).cloned();
        let journal = journal.filter(|j| !earlier && journal_applies(&replay, j));
        let live = journal.as_ref().is_some_and(|j| !j.is_ended());
        match resume(&replay, journal.as_ref(), cursor) {
            Ok(resumed) => Ok(Batch {
                lines: resumed.lines().cloned().collect(),
                end: earlier,
                live,
                epoch,
            }),
            Err(_) => Ok(ended),
        }
    }

    /// Waits until the bot's stream has something after `cursor` in this process (a line of
    /// its live turn, or a new turn), or ends; false when the stream should end instead
    /// (`release`, `close`, another epoch).
    pub async fn wait(&self, bot: &str, cursor: &Value, epoch: u64) -> bool {
        let Ok(id) = BotId::parse(bot) else {
            return false;
        };
        let Ok(cursor) = Cursor::from_json(cursor) else {
            return false;
        };
        loop {
            let receiver = {
                let mut state = self.state.borrow_mut();
                if state.closed || state.epochs.get(&id).copied().unwrap_or(0) != epoch {
                    return false;
                }
                if let Some(journal) = state.journals.get(&id) {
                    if journal.turn() > cursor.turn() || journal.last_cursor() > cursor {
                        return true;
                    }
                }
                let (sender, receiver) = oneshot::channel();
                state.waiters.push(sender);
                receiver
            };
            if receiver.await.is_err() {
                return false;
            }
        }
    }

    /// `release(botId?)`: stops this process's running turns (of one bot, or all), drops their
    /// journals and ends their streams. Nothing stored changes.
    pub fn release(&self, bot: Option<&str>) {
        {
            let mut state = self.state.borrow_mut();
            let bots: Vec<BotId> = match bot.map(BotId::parse) {
                Some(Ok(id)) => vec![id],
                Some(Err(_)) => Vec::new(),
                None => state
                    .running
                    .keys()
                    .chain(state.journals.keys())
                    .chain(state.epochs.keys())
                    .cloned()
                    .collect(),
            };
            for id in bots {
                if let Some(running) = state.running.get(&id) {
                    running.cancel.cancel();
                }
                state.journals.remove(&id);
                *state.epochs.entry(id).or_insert(0) += 1;
            }
        }
        self.notify();
    }

    /// `close()`: releases everything; every later call fails with 409. Idempotent.
    pub fn close(&self) {
        self.release(None);
        for signin in self.state.borrow().signins.values() {
            signin.login.cancel();
            signin.cancel.cancel();
        }
        self.state.borrow_mut().closed = true;
        self.notify();
    }

    /// Whether a turn of `bot` runs in this process.
    pub fn busy(&self, bot: &str) -> bool {
        BotId::parse(bot).is_ok_and(|id| self.is_busy(&id))
    }
}
