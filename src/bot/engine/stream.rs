//! `chat.stream` (fxbot DESIGN §8.3–§8.4) as batches, served from memory: `release` and `close`.
//!
//! - [`Fxbot::stream`] opens a stream (and `turns()` reads one): it checks the bot and its
//!   provider and reads the chat from the store, the truth. The chat's replay is kept per bot
//!   ([`KeptReplay`]) with the revisions it came from, so a store that has not changed is not
//!   parsed again; another process's turns appear here.
//! - [`Fxbot::follow`] is every later batch of an open stream: from the kept replay and the live
//!   journal alone, no store call, so following a turn costs the same whatever the chat's
//!   length. A kept replay that leaves a turn out (another process ran one before this process
//!   started the next) is read again from the store.
//! - [`Fxbot::wait`] waits for the bot's next line: a chunk of one bot's turn wakes only that
//!   bot's consumers.
//! - The end of a turn run here refreshes the kept replay from the session just saved
//!   ([`Fxbot::keep_saved_turn`]).

use std::collections::HashMap;

use serde::Serialize;

use crate::agent::session::LiveSession;
use crate::caps::{DocStore, Host, StoredRecord};

use super::super::cursor::Cursor;
use super::super::docs::chat::ChatDoc;
use super::super::docs::keys;
use super::super::error::FxbotError;
use super::super::ids::{BotId, LibraryId};
use super::super::library::{item_key, ItemDoc};
use super::super::replay::{replay, KeptReplay, Replay, TurnMeta};
use super::super::resume::{is_gapless, journal_applies, resume};
use super::super::store::{load, Loaded};
use super::super::stream::{ChatEnd, ChatEndReason, SavedFile, StreamLine};
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

impl Batch {
    fn ended(epoch: u64) -> Batch {
        Batch {
            lines: Vec::new(),
            end: true,
            live: false,
            epoch,
        }
    }
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    fn epoch(&self, bot: &BotId) -> u64 {
        self.state.borrow().epochs.get(bot).copied().unwrap_or(0)
    }

    /// The replay metadata of `session_id` from the chat document: what each turn's
    /// `turn_start` carries (its files as library URLs: one read per file).
    async fn metas_of(
        &self,
        chat: &ChatDoc,
        session_id: &str,
    ) -> Result<std::collections::BTreeMap<u32, TurnMeta>, FxbotError> {
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
        Ok(chat.turn_metas(session_id, |id| files.get(id).cloned()))
    }

    /// Derives the replay of `session_id` from its stored bytes and chat document.
    async fn derive_replay(
        &self,
        session_id: &str,
        bytes: Option<&[u8]>,
        chat: Option<&Loaded<ChatDoc>>,
    ) -> Result<Replay, FxbotError> {
        let empty = ChatDoc::default();
        let metas = self
            .metas_of(chat.map_or(&empty, |c| &c.doc), session_id)
            .await?;
        match bytes {
            Some(bytes) => replay(bytes, &metas).map_err(|e| FxbotError::Internal {
                message: format!("the chat {session_id} could not be read: {e}"),
            }),
            None => Ok(Replay::empty(session_id)),
        }
    }

    /// The chat document and the session record of `session_id`, as the store holds them now.
    async fn stored_chat(
        &self,
        bot: &BotId,
        session_id: &str,
    ) -> Result<(Option<Loaded<ChatDoc>>, Option<StoredRecord>), FxbotError> {
        let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(bot)).await?;
        let stored =
            self.host
                .load_session(session_id)
                .await
                .map_err(|error| FxbotError::Store {
                    key: session_id.to_owned(),
                    error,
                })?;
        Ok((chat, stored))
    }

    /// Makes `bot`'s kept replay that of `session_id` as the store holds it now: kept as it is
    /// when neither the session nor the chat document changed since it was derived, else
    /// derived again.
    async fn refresh_kept(&self, bot: &BotId, session_id: &str) -> Result<(), FxbotError> {
        let (chat, stored) = self.stored_chat(bot, session_id).await?;
        let session_revision = stored.as_ref().map(|s| s.revision.as_str());
        let chat_revision = chat.as_ref().map(|c| c.revision.as_str());
        let current = self
            .state
            .borrow()
            .kept
            .get(bot)
            .is_some_and(|k| k.is_current(session_id, session_revision, chat_revision));
        if current {
            return Ok(());
        }
        let replay = self
            .derive_replay(
                session_id,
                stored.as_ref().map(|s| s.bytes.as_slice()),
                chat.as_ref(),
            )
            .await?;
        self.state.borrow_mut().kept.insert(
            bot.clone(),
            KeptReplay {
                replay,
                session_revision: session_revision.map(str::to_owned),
                chat_revision: chat_revision.map(str::to_owned),
            },
        );
        Ok(())
    }

    /// The lines after `cursor` of `replay` and, when it applies, `bot`'s live journal.
    fn serve(&self, bot: &BotId, replay: &Replay, cursor: Cursor, epoch: u64) -> Batch {
        let state = self.state.borrow();
        let journal = state
            .journals
            .get(bot)
            .filter(|j| journal_applies(replay, j));
        let live = journal.is_some_and(|j| !j.is_ended());
        match resume(replay, journal, cursor) {
            Ok(resumed) => Batch {
                lines: resumed.lines().cloned().collect(),
                end: false,
                live,
                epoch,
            },
            Err(_) => Batch::ended(epoch),
        }
    }

    /// [`Fxbot::serve`] of `bot`'s kept replay; `None` when nothing is kept, or (`gapless`) when
    /// the kept replay and the journal leave a turn out.
    fn serve_kept(&self, bot: &BotId, cursor: Cursor, epoch: u64, gapless: bool) -> Option<Batch> {
        let state = self.state.borrow();
        let kept = state.kept.get(bot)?;
        if gapless && !is_gapless(&kept.replay, state.journals.get(bot)) {
            return None;
        }
        Some(self.serve(bot, &kept.replay, cursor, epoch))
    }

    /// Opens a stream: the lines of the bot's chat (or of the earlier chat `session_id`) after
    /// `cursor`, read from the store.
    ///
    /// # Errors
    /// 404 for an unknown bot; 500 for a store failure.
    pub async fn stream(
        &self,
        id: &BotId,
        cursor: Cursor,
        session_id: Option<&str>,
    ) -> Result<Batch, FxbotError> {
        self.check_open()?;
        let doc = self.bot_doc(id).await?.doc;
        let epoch = self.epoch(id);
        let provider_gone = match &doc.fields.provider {
            Some(provider) => self.provider_doc(provider).await?.is_none(),
            None => true,
        };
        let current = doc.session_id.clone();
        let Some(session) = session_id.map(str::to_owned).or(current.clone()) else {
            return Ok(Batch::ended(epoch));
        };
        let earlier = session_id.is_some() && current.as_deref() != session_id;
        if provider_gone && !earlier {
            return Ok(Batch::ended(epoch));
        }
        if earlier {
            // An earlier chat: replayed once, never followed, not kept.
            let (chat, stored) = self.stored_chat(id, &session).await?;
            let replay = self
                .derive_replay(
                    &session,
                    stored.as_ref().map(|s| s.bytes.as_slice()),
                    chat.as_ref(),
                )
                .await?;
            return Ok(match resume(&replay, None, cursor) {
                Ok(resumed) => Batch {
                    lines: resumed.lines().cloned().collect(),
                    end: true,
                    live: false,
                    epoch,
                },
                Err(_) => Batch::ended(epoch),
            });
        }
        self.refresh_kept(id, &session).await?;
        // The store is the truth here: what it holds is served with the journal, whatever the
        // journal's turn.
        Ok(self
            .serve_kept(id, cursor, epoch, false)
            .unwrap_or_else(|| Batch::ended(epoch)))
    }

    /// The next batch of a stream opened by [`Fxbot::stream`] at release epoch `epoch`, from
    /// memory (the store is read only when nothing usable is kept).
    ///
    /// # Errors
    /// As [`Fxbot::stream`], when the store must be read.
    pub async fn follow(
        &self,
        id: &BotId,
        cursor: Cursor,
        epoch: u64,
    ) -> Result<Batch, FxbotError> {
        if self.state.borrow().closed {
            return Ok(Batch::ended(epoch));
        }
        if self.epoch(id) != epoch {
            let next = self
                .state
                .borrow()
                .handoffs
                .get(id)
                .filter(|(e, _)| *e == epoch)
                .map(|(_, next)| next.clone());
            let mut ended = Batch::ended(epoch);
            if let Some(next_session_id) = next {
                ended.lines.push(StreamLine::ChatEnd(ChatEnd {
                    cursor: Cursor::before_turn(cursor.turn().saturating_add(1)),
                    reason: ChatEndReason::Handoff,
                    next_session_id,
                }));
            }
            return Ok(ended);
        }
        match self.serve_kept(id, cursor, epoch, true) {
            Some(batch) => Ok(batch),
            None => {
                let batch = self.stream(id, cursor, None).await?;
                Ok(if batch.epoch == epoch {
                    batch
                } else {
                    Batch::ended(epoch)
                })
            }
        }
    }

    /// After a turn of `bot` ran here and `session` was saved: its kept replay becomes the
    /// saved log's, with the chat document as it is now. A session the store does not hold as
    /// it is in memory is not kept (the next stream call reads the store).
    pub(super) async fn keep_saved_turn(&self, bot: &BotId, session: &LiveSession) {
        let kept = async {
            if !session.is_saved() {
                return None;
            }
            let chat = load::<ChatDoc, D>(&self.docs, &keys::chat(bot))
                .await
                .ok()?;
            let replay = self
                .derive_replay(session.id(), Some(session.log().bytes()), chat.as_ref())
                .await
                .ok()?;
            Some(KeptReplay {
                replay,
                session_revision: session.revision().map(str::to_owned),
                chat_revision: chat.map(|c| c.revision),
            })
        }
        .await;
        let mut state = self.state.borrow_mut();
        match kept {
            Some(kept) => state.kept.insert(bot.clone(), kept),
            None => state.kept.remove(bot),
        };
    }

    /// Waits until the bot's stream has something after `cursor` in this process (a line of
    /// its live turn, or a new turn), or ends; false when the stream should end instead
    /// (`release`, `close`, another epoch).
    pub async fn wait(&self, id: &BotId, cursor: Cursor, epoch: u64) -> bool {
        loop {
            let receiver = {
                let mut state = self.state.borrow_mut();
                if state.closed {
                    return false;
                }
                if state.epochs.get(id).copied().unwrap_or(0) != epoch {
                    // A stream of a chat handed off gets its `chat_end` from `follow`.
                    return state.handoffs.get(id).is_some_and(|(e, _)| *e == epoch);
                }
                if let Some(journal) = state.journals.get(id) {
                    if journal.turn() > cursor.turn() || journal.last_cursor() > cursor {
                        return true;
                    }
                }
                state.waiters.bot(id)
            };
            if receiver.await.is_err() {
                return false;
            }
        }
    }

    /// After a provider switch of `bot` to `next`: the old chat's streams get `chat_end` and
    /// end; what was kept of it is dropped.
    pub(super) fn handed_off(&self, bot: &BotId, next: &str) {
        {
            let mut state = self.state.borrow_mut();
            let epoch = state.epochs.get(bot).copied().unwrap_or(0);
            state.handoffs.insert(bot.clone(), (epoch, next.to_owned()));
            state.epochs.insert(bot.clone(), epoch.saturating_add(1));
            state.journals.remove(bot);
            state.kept.remove(bot);
        }
        self.notify();
    }

    /// `release(botId?)`: stops this process's running turns (of one bot, or all), drops their
    /// journals and kept replays and ends their streams. Nothing stored changes.
    pub fn release(&self, bot: Option<&BotId>) {
        {
            let mut state = self.state.borrow_mut();
            let bots: Vec<BotId> = match bot {
                Some(id) => vec![id.clone()],
                None => state
                    .running
                    .keys()
                    .chain(state.journals.keys())
                    .chain(state.epochs.keys())
                    .chain(state.kept.keys())
                    .cloned()
                    .collect(),
            };
            for id in bots {
                if let Some(running) = state.running.get(&id) {
                    running.cancel.cancel();
                }
                state.journals.remove(&id);
                state.kept.remove(&id);
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
    pub fn busy(&self, bot: &BotId) -> bool {
        self.is_busy(bot)
    }
}
