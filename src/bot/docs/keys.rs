//! Store keys of the bots layer (fxbot DESIGN §5.2). Ids in keys are checked ids, so a key never
//! holds a `/` or other text from outside.

use crate::bot::ids::BotId;

/// Prefix of every bot document; `list(BOT_PREFIX)` lists the bots.
pub const BOT_PREFIX: &str = "bot/";
/// Prefix of every chat document.
pub const CHAT_PREFIX: &str = "chat/";
/// The settings document.
pub const SETTINGS: &str = "settings";
/// The pins document.
pub const PINS: &str = "pins";

/// `bot/<id>`.
pub fn bot(id: &BotId) -> String {
    format!("{BOT_PREFIX}{id}")
}

/// `chat/<botId>`.
pub fn chat(id: &BotId) -> String {
    format!("{CHAT_PREFIX}{id}")
}

/// The bot id of a `bot/<id>` key (`None` for any other key, e.g. one a newer version added).
pub fn bot_of(key: &str) -> Option<BotId> {
    BotId::parse(key.strip_prefix(BOT_PREFIX)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let id = BotId::parse("0123456789ab").unwrap();
        assert_eq!(bot(&id), "bot/0123456789ab");
        assert_eq!(chat(&id), "chat/0123456789ab");
        assert_eq!(bot_of("bot/0123456789ab"), Some(id));
        assert_eq!(bot_of("bot/0123456789ab/x"), None);
        assert_eq!(bot_of("chat/0123456789ab"), None);
        assert_eq!(SETTINGS, "settings");
    }
}
