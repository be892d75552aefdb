//! A chat's messages as the bot tools and the fill-in read them: each turn of the chat's fx
//! session log with its `messageId`, date and input from the chat document's claims.

use crate::caps::{DocStore, SessionStore};
use crate::log::view::TurnView;

use super::docs::chat::ChatDoc;
use super::docs::keys;
use super::ids::BotId;
use super::store::load;

/// One earlier message of a chat.
pub struct Entry {
    pub message_id: String,
    pub at: String,
    pub input: String,
    pub reply: String,
}

/// The messages of chat `session_id` of `bot`, oldest first: each turn's `messageId` (from the
/// chat document's claims), its date, the person's input and the reply.
///
/// # Errors
/// The store's failure or a damaged log, as a message.
pub async fn chat_entries<S: SessionStore + ?Sized, D: DocStore>(
    sessions: &S,
    docs: &D,
    bot: &BotId,
    session_id: &str,
) -> Result<Vec<Entry>, String> {
    let chat = load::<ChatDoc, D>(docs, &keys::chat(bot))
        .await
        .map_err(|e| e.to_string())?
        .map(|l| l.doc)
        .unwrap_or_default();
    let Some(stored) = sessions
        .load_session(session_id)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(Vec::new());
    };
    let view = crate::log::SessionLog::load(stored.bytes)
        .map_err(|e| e.to_string())?
        .view();
    let mut out = Vec::new();
    for (index, turn) in view.turns.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let (user, reply) = match turn {
            TurnView::Assistant(t) => (&t.user.text, t.assistant.clone()),
            TurnView::Interrupted(t) => (&t.user.text, t.assistant.clone().unwrap_or_default()),
            TurnView::BackgroundCommand(t) => {
                (&t.user.text, t.assistant.clone().unwrap_or_default())
            }
            TurnView::CompactedSummary(_) => continue,
        };
        let record = chat
            .messages
            .iter()
            .find(|(_, r)| r.session_id == session_id && r.turn == number && !r.withdrawn);
        let (message_id, at, input) = match record {
            Some((id, r)) => (id.as_str().to_owned(), r.at.clone(), r.input.clone()),
            None => (format!("turn-{number}"), String::new(), user.clone()),
        };
        out.push(Entry {
            message_id,
            at,
            input,
            reply,
        });
    }
    Ok(out)
}
