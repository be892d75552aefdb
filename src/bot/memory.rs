//! Memories (fxbot DESIGN §11.1, §11.5): the document `memory/<botId>/<memId>`, the seed's
//! `Memory` view, the text rule, and the newest memories a turn's instructions carry within 2 %
//! of the model's context window.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::docs::SCHEMA;
use super::ids::{BotId, MemoryId, MEMORY_PREFIX, MESSAGE_PREFIX};
use crate::agent::context::estimate_tokens;

/// Longest memory text, in characters.
pub const MAX_TEXT_CHARS: usize = 4000;

/// Prefix of every memory document.
pub const MEMORY_DOC_PREFIX: &str = "memory/";

/// `memory/<botId>/` (the prefix of one bot's memories).
pub fn bot_prefix(bot: &BotId) -> String {
    format!("{MEMORY_DOC_PREFIX}{bot}/")
}

/// `memory/<botId>/<memId>`.
pub fn memory_key(bot: &BotId, id: &MemoryId) -> String {
    format!("{MEMORY_DOC_PREFIX}{bot}/{id}")
}

/// A memory text that breaks the rule (a 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("a memory's text must be a string, not {0}")]
    NotAString(&'static str),
    #[error("a memory's text is empty")]
    Empty,
    #[error("a memory's text is {0} characters; at most 4000 are allowed")]
    TooLong(usize),
}

/// Checks a memory's text (trimmed: 1 to 4,000 characters).
///
/// # Errors
/// [`MemoryError`].
pub fn check_text(text: &str) -> Result<String, MemoryError> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(MemoryError::Empty);
    }
    if chars > MAX_TEXT_CHARS {
        return Err(MemoryError::TooLong(chars));
    }
    Ok(text.to_owned())
}

/// Checks a JSON argument as a memory's text.
///
/// # Errors
/// [`MemoryError`].
pub fn text_of(value: &Value) -> Result<String, MemoryError> {
    match value {
        Value::String(text) => check_text(text),
        other => Err(MemoryError::NotAString(super::shown::kind_of(other))),
    }
}

/// Who saved a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SavedBy {
    Owner,
    Bot,
}

/// `memory/<botId>/<memId>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryDoc {
    pub schema: u32,
    pub id: MemoryId,
    pub text: String,
    pub saved_by: SavedBy,
    /// The `messageId` of the turn that saved it (`savedBy: "bot"`), without `msg:`.
    pub message_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl MemoryDoc {
    pub fn new(
        id: MemoryId,
        text: String,
        saved_by: SavedBy,
        message_id: Option<String>,
        at: &str,
    ) -> Self {
        MemoryDoc {
            schema: SCHEMA,
            id,
            text,
            saved_by,
            message_id,
            created_at: at.to_owned(),
            updated_at: at.to_owned(),
            extra: BTreeMap::new(),
        }
    }

    /// The seed's `Memory`.
    pub fn view(&self) -> Value {
        json!({
            "id": self.id,
            "text": self.text,
            "savedBy": self.saved_by,
            "messageId": self.message_id.as_ref().map(|m| format!("{MESSAGE_PREFIX}{m}")),
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        })
    }

    /// How a memory appears in the instructions and the tools' answers.
    pub fn line(&self) -> String {
        let text = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        format!("- [{MEMORY_PREFIX}{}] {text}", self.id)
    }
}

/// Newest first (by `updatedAt`, then id), the order of `memories.list` and of the budget.
pub fn newest_first(memories: &mut [MemoryDoc]) {
    memories.sort_by(|a, b| {
        b.updated_at
            .cmp(&a.updated_at)
            .then_with(|| b.id.cmp(&a.id))
    });
}

/// The lines of the newest memories within `floor(0.02 · window)` tokens: a strict prefix of
/// `memories` newest first (the first one that does not fit ends the list, so it really is the
/// newest ones).
pub fn within_budget(memories: &[MemoryDoc], window: u64) -> Vec<String> {
    let budget = window / 50;
    let mut sorted: Vec<MemoryDoc> = memories.to_vec();
    newest_first(&mut sorted);
    let mut total = 0u64;
    let mut out = Vec::new();
    for memory in &sorted {
        let line = memory.line();
        let cost = estimate_tokens(&line);
        if total + cost > budget {
            break;
        }
        total += cost;
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(n: u32, words: usize) -> MemoryDoc {
        let id = MemoryId::parse(&format!("{n:012x}")).unwrap();
        // "abcd " words: one token each.
        let text = vec!["abcd"; words].join(" ");
        MemoryDoc::new(
            id,
            text,
            SavedBy::Owner,
            None,
            &format!(
                "2026-12-01T{:02}:{:02}:{:02}.000Z",
                n / 3600,
                n / 60 % 60,
                n % 60
            ),
        )
    }

    #[test]
    fn text_rule() {
        assert_eq!(check_text("  tea  "), Ok("tea".to_owned()));
        assert_eq!(check_text(" \n "), Err(MemoryError::Empty));
        assert!(check_text(&"é".repeat(4000)).is_ok());
        assert_eq!(
            check_text(&"é".repeat(4001)),
            Err(MemoryError::TooLong(4001))
        );
        assert_eq!(text_of(&json!(5)), Err(MemoryError::NotAString("a number")));
    }

    #[test]
    fn views_and_lines() {
        let mut m = memory(1, 2);
        m.saved_by = SavedBy::Bot;
        m.message_id = Some("m1".into());
        let view = m.view();
        assert_eq!(view["savedBy"], "bot");
        assert_eq!(view["messageId"], "msg:m1");
        assert_eq!(view["id"], "000000000001");
        assert_eq!(m.line(), "- [mem:000000000001] abcd abcd");
        assert_eq!(
            memory_key(&BotId::parse("0123456789ab").unwrap(), &m.id),
            "memory/0123456789ab/000000000001"
        );
    }

    /// The cost of one memory's line: `- [mem:<12 hex>] ` is 1 + 5 tokens, then one per word.
    fn cost(words: usize) -> u64 {
        estimate_tokens(&memory(1, words).line())
    }

    #[test]
    fn the_budget_is_a_strict_prefix_by_updated_at_at_its_exact_edge() {
        assert_eq!(cost(10), 16);
        for window in [8_192u64, 200_000] {
            // 163 and 4000 tokens; the memories, newest first, are 16 tokens each.
            let budget = window / 50;
            let memories: Vec<MemoryDoc> = (1..=400).map(|n| memory(n, 10)).collect();
            let fit = usize::try_from(budget / 16).unwrap();
            let lines = within_budget(&memories, window);
            assert_eq!(lines.len(), fit, "W = {window}");
            assert!(lines[0].starts_with(&format!("- [mem:{:012x}]", 400)));
            // One token either side of the limit: `fit - 1` older memories and a newest one
            // that makes the total exactly the budget all fit; with one token more in the
            // newest, the oldest is the first that does not fit, which ends the list (a smaller
            // one older still is not taken either).
            let base = fit - 1;
            let spare = budget - u64::try_from(base).unwrap() * 16;
            assert!(spare >= 16);
            let mut older: Vec<MemoryDoc> = (2..=u32::try_from(base).unwrap() + 1)
                .map(|n| memory(n, 10))
                .collect();
            let mut edge = memory(500, usize::try_from(spare - 6).unwrap());
            edge.updated_at = "2026-12-02T00:00:00.000Z".into();
            assert_eq!(estimate_tokens(&edge.line()), spare);
            older.push(edge.clone());
            let tiny = memory(1, 1);
            older.push(tiny);
            let lines = within_budget(&older, window);
            assert_eq!(lines.len(), fit, "exactly at the limit, W = {window}");
            assert!(lines[0].starts_with("- [mem:0000000001f4]"));
            older.retain(|m| m.id != edge.id);
            let mut over = memory(500, usize::try_from(spare - 5).unwrap());
            over.updated_at = edge.updated_at.clone();
            older.push(over);
            let lines = within_budget(&older, window);
            assert_eq!(lines.len(), base, "one token over, W = {window}");
            assert!(lines[0].starts_with("- [mem:0000000001f4]"));
            let oldest = format!("- [mem:{:012x}]", 2);
            assert!(!lines.iter().any(|l| l.starts_with(&oldest)));
            assert!(!lines.iter().any(|l| l.starts_with("- [mem:000000000001]")));
            // The budget itself: a single memory of exactly `budget` tokens fits, one more does not.
            let single = memory(1, usize::try_from(budget - 6).unwrap());
            assert_eq!(
                within_budget(std::slice::from_ref(&single), window).len(),
                1
            );
            let single = memory(1, usize::try_from(budget - 5).unwrap());
            assert!(within_budget(&[single], window).is_empty());
        }
    }
}
