//! The bot document `bot/<id>` (fxbot DESIGN §5.2): the [`Fields`], times, the current chat,
//! `preview` and `handoff`; the pure update step (`bots.update`'s rules that need only this
//! document), the list order, and the seed's `Profile`. Whether a bot is pinned is the pins
//! document's ([`super::pins`]).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::SCHEMA;
use crate::bot::fields::{Changed, Fields, FieldsPatch};
use crate::bot::ids::BotId;

/// How much of the latest reply `preview` keeps (characters).
pub const PREVIEW_CHARS: usize = 140;

/// `bot/<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotDoc {
    pub schema: u32,
    pub id: BotId,
    #[serde(flatten)]
    pub fields: Fields,
    /// RFC 3339.
    pub created_at: String,
    /// The latest send or reply (RFC 3339): the list order after pins.
    pub activity_at: String,
    /// The current chat's fx session id, from the first message.
    pub session_id: Option<String>,
    /// The start of the latest reply.
    pub preview: Option<String>,
    /// The summary a provider switch carried over.
    pub handoff: Option<String>,
    /// Keys a newer version wrote, kept as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// An update a bot's state refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    #[error("provider cannot be \"\" for a bot with a chat; choose another provider instead")]
    ProviderNeededForChat,
}

/// What an update did, for the engine to act on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Updated {
    pub changed: Changed,
    /// The provider changed on a bot with a chat: the chat must be compacted and handed off
    /// (§10) before the update is committed.
    pub needs_handoff: bool,
}

/// The seed's `Profile`: the fields and the bot's state, as `bots.*` return it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    #[serde(flatten)]
    pub fields: Fields,
    pub id: BotId,
    pub session_id: Option<String>,
    pub preview: Option<String>,
    pub handoff: Option<String>,
    pub busy: bool,
    pub pinned: bool,
}

impl BotDoc {
    /// A new bot created at `now`.
    pub fn new(id: BotId, fields: Fields, now: &str) -> BotDoc {
        BotDoc {
            schema: SCHEMA,
            id,
            fields,
            created_at: now.to_owned(),
            activity_at: now.to_owned(),
            session_id: None,
            preview: None,
            handoff: None,
            extra: BTreeMap::new(),
        }
    }

    /// Applies a `bots.update` patch (its `pinned` is the pins document's).
    ///
    /// Nothing changes when it fails. The provider's existence and the handoff itself are the
    /// engine's: a provider change on a bot with a chat is reported in [`Updated::needs_handoff`].
    ///
    /// # Errors
    /// [`UpdateError::ProviderNeededForChat`] for `provider: ""` on a bot with a chat.
    pub fn update(&mut self, patch: &FieldsPatch) -> Result<Updated, UpdateError> {
        if self.session_id.is_some()
            && patch.provider == Some(None)
            && self.fields.provider.is_some()
        {
            return Err(UpdateError::ProviderNeededForChat);
        }
        let changed = self.fields.apply(patch);
        Ok(Updated {
            changed,
            needs_handoff: changed.provider && self.session_id.is_some(),
        })
    }

    /// Marks activity (a send) at `at`.
    pub fn touch(&mut self, at: &str) {
        at.clone_into(&mut self.activity_at);
    }

    /// Records a finished reply: `preview` becomes its first 140 characters (whitespace runs
    /// folded to one space, trimmed), and activity moves to `at`. An empty reply keeps the old
    /// preview.
    pub fn record_reply(&mut self, reply: &str, at: &str) {
        let folded = reply.split_whitespace().collect::<Vec<_>>().join(" ");
        if !folded.is_empty() {
            self.preview = Some(folded.chars().take(PREVIEW_CHARS).collect());
        }
        self.touch(at);
    }

    /// The bot as `bots.get` returns it; `busy` is whether a turn runs in this process.
    pub fn profile(&self, busy: bool, pinned: bool) -> Profile {
        Profile {
            fields: self.fields.clone(),
            id: self.id.clone(),
            session_id: self.session_id.clone(),
            preview: self.preview.clone(),
            handoff: self.handoff.clone(),
            busy,
            pinned,
        }
    }
}

/// `bots.list()` order of `(bot, pinned)`: pinned first, then the latest activity, then the id
/// (so equal times still give one order).
pub fn list_order(a: &(BotDoc, bool), b: &(BotDoc, bool)) -> Ordering {
    b.1.cmp(&a.1)
        .then_with(|| b.0.activity_at.cmp(&a.0.activity_at))
        .then_with(|| a.0.id.cmp(&b.0.id))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bot::docs::{decode, encode};
    use crate::bot::fields::{Color, PatchFor};
    use crate::bot::ids::ProviderId;

    fn id(n: u8) -> BotId {
        BotId::from_random_bytes([0, 0, 0, 0, 0, n])
    }

    fn doc(n: u8) -> BotDoc {
        let fields = Fields::create(&FieldsPatch::default(), None, &[]);
        BotDoc::new(id(n), fields, "2026-12-01T00:00:00.000Z")
    }

    fn patch(value: Value) -> FieldsPatch {
        FieldsPatch::from_arg(serde_json::from_value(value).unwrap(), PatchFor::Update).unwrap()
    }

    #[test]
    fn canonical_json_round_trips_and_keeps_unknown_keys() {
        let mut bot = doc(1);
        bot.session_id = Some("1796004787807-1796004787807100283-5a7c3606642b8401".into());
        let bytes = encode(&bot);
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"schema":1,"id":"000000000001","name":"New bot","instructions":"","model":"","provider":"","shape":"circle","color":"gray","createdAt":"2026-12-01T00:00:00.000Z","activityAt":"2026-12-01T00:00:00.000Z","sessionId":"1796004787807-1796004787807100283-5a7c3606642b8401","preview":null,"handoff":null}"#
        );
        let back: BotDoc = decode("bot/000000000001", &bytes).unwrap();
        assert_eq!(back, bot);
        assert_eq!(encode(&back), bytes);
        // A key from a newer version survives a read-modify-write.
        let mut value: Value = serde_json::from_slice(&bytes).unwrap();
        value["avatarUrl"] = json!("https://example.test/a.png");
        let newer = serde_json::to_vec(&value).unwrap();
        let mut read: BotDoc = decode("bot/000000000001", &newer).unwrap();
        assert_eq!(
            read.extra.get("avatarUrl"),
            Some(&json!("https://example.test/a.png"))
        );
        read.touch("2026-12-02T00:00:00.000Z");
        let written: Value = serde_json::from_slice(&encode(&read)).unwrap();
        assert_eq!(written["avatarUrl"], "https://example.test/a.png");
        assert_eq!(written["activityAt"], "2026-12-02T00:00:00.000Z");
        // A damaged field is refused.
        value["color"] = json!("chartreuse");
        assert!(
            decode::<BotDoc>("bot/000000000001", &serde_json::to_vec(&value).unwrap()).is_err()
        );
    }

    #[test]
    fn provider_rules_with_a_chat() {
        let p1 = ProviderId::parse("00000000000a").unwrap();
        let mut bot = doc(1);
        bot.fields.provider = Some(p1.clone());
        bot.fields.model = "m".into();
        // Without a chat, "" is fine.
        let mut no_chat = bot.clone();
        let up = no_chat.update(&patch(json!({"provider": ""}))).unwrap();
        assert!(up.changed.provider && !up.needs_handoff);
        // With a chat, "" is refused, and a new provider needs a handoff.
        bot.session_id = Some("s".into());
        assert_eq!(
            bot.clone().update(&patch(json!({"provider": ""}))),
            Err(UpdateError::ProviderNeededForChat)
        );
        let up = bot
            .update(&patch(json!({"provider": "00000000000b"})))
            .unwrap();
        assert!(up.needs_handoff);
        assert_eq!(bot.fields.model, "");
        let again = bot
            .update(&patch(json!({"provider": "00000000000b", "color": "teal"})))
            .unwrap();
        assert!(!again.needs_handoff);
        assert_eq!(bot.fields.color, Color::Teal);
    }

    #[test]
    fn previews_profiles_and_the_list_order() {
        let mut bot = doc(1);
        bot.record_reply(
            &format!("  Hello\n\n  {}", "é".repeat(200)),
            "2026-12-03T00:00:00.000Z",
        );
        let preview = bot.preview.clone().unwrap();
        assert_eq!(preview.chars().count(), PREVIEW_CHARS);
        assert!(preview.starts_with("Hello é"));
        bot.record_reply("   ", "2026-12-04T00:00:00.000Z");
        assert_eq!(bot.preview.as_deref(), Some(preview.as_str()));
        assert_eq!(bot.activity_at, "2026-12-04T00:00:00.000Z");
        let profile = serde_json::to_value(bot.profile(true, false)).unwrap();
        assert_eq!(
            profile,
            json!({"name":"New bot","instructions":"","model":"","provider":"","shape":"circle","color":"gray","id":"000000000001","sessionId":null,"preview":preview,"handoff":null,"busy":true,"pinned":false})
        );

        let mut bots = [doc(1), doc(2), doc(3), doc(4)].map(|b| (b, false));
        bots[0].0.activity_at = "2026-12-05T00:00:00.000Z".into();
        bots[2].1 = true;
        bots[3].0.activity_at = "2026-12-06T00:00:00.000Z".into();
        bots.sort_by(list_order);
        let order: Vec<&str> = bots.iter().map(|b| b.0.id.as_str()).collect();
        assert_eq!(
            order,
            [
                "000000000003",
                "000000000004",
                "000000000001",
                "000000000002"
            ]
        );
    }
}
