//! The pins document `pins` (fxbot DESIGN §5.2–§5.3): which bots are pinned, in the order they
//! were pinned. It is the one place a pin lives, so the limit of [`MAX_PINNED`] is one
//! compare-and-set of one document and holds under concurrent pins, in one process and across
//! tabs (a count over the bot documents, each written on its own, did not).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::SCHEMA;
use crate::bot::fields::{check_pin, PinError, MAX_PINNED};
use crate::bot::ids::BotId;

/// `pins`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinsDoc {
    pub schema: u32,
    /// Pinned bots, oldest pin first. An id whose bot was removed may linger (a removal that
    /// stopped halfway); it pins nothing and does not count.
    pub bots: Vec<BotId>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl Default for PinsDoc {
    fn default() -> Self {
        PinsDoc {
            schema: SCHEMA,
            bots: Vec::new(),
            extra: BTreeMap::new(),
        }
    }
}

impl PinsDoc {
    /// The pins of a store written before this document existed: the bots whose own document
    /// says `pinned: true`, at most [`MAX_PINNED`] of them.
    pub fn from_legacy<'a>(pinned: impl IntoIterator<Item = &'a BotId>) -> PinsDoc {
        PinsDoc {
            bots: pinned.into_iter().take(MAX_PINNED).cloned().collect(),
            ..PinsDoc::default()
        }
    }

    pub fn is_pinned(&self, bot: &BotId) -> bool {
        self.bots.contains(bot)
    }

    /// Pins or unpins `bot`; `exists` says which ids are bots now. Returns whether the document
    /// changed. Unpinning is always allowed; a pin fails when [`MAX_PINNED`] other bots are
    /// pinned.
    ///
    /// # Errors
    /// [`PinError`] for a pin over the limit (nothing changes).
    pub fn set(
        &mut self,
        bot: &BotId,
        pinned: bool,
        exists: impl Fn(&BotId) -> bool,
    ) -> Result<bool, PinError> {
        if pinned == self.is_pinned(bot) {
            return Ok(false);
        }
        if !pinned {
            self.bots.retain(|b| b != bot);
            return Ok(true);
        }
        check_pin(
            self.bots.iter().filter(|b| exists(b)).map(|b| (b, true)),
            bot,
            true,
        )?;
        self.bots.push(bot.clone());
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::docs::{decode, encode};

    fn id(n: u8) -> BotId {
        BotId::from_random_bytes([0, 0, 0, 0, 0, n])
    }

    #[test]
    fn three_pins_of_bots_that_exist() {
        let mut pins = PinsDoc::default();
        let all = |_: &BotId| true;
        for n in 1..=3 {
            assert_eq!(pins.set(&id(n), true, all), Ok(true));
        }
        assert_eq!(pins.set(&id(2), true, all), Ok(false), "already pinned");
        let before = pins.clone();
        assert_eq!(pins.set(&id(4), true, all), Err(PinError { max: 3 }));
        assert_eq!(pins, before, "a refused pin changes nothing");
        // A removed bot's lingering pin does not count.
        let not_2 = |b: &BotId| *b != id(2);
        assert_eq!(pins.set(&id(4), true, not_2), Ok(true));
        assert!(pins.is_pinned(&id(4)));
        assert_eq!(pins.set(&id(1), false, all), Ok(true));
        assert_eq!(pins.set(&id(1), false, all), Ok(false));
        assert_eq!(pins.bots, [id(2), id(3), id(4)]);
        let bytes = encode(&pins);
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"schema":1,"bots":["000000000002","000000000003","000000000004"]}"#
        );
        assert_eq!(decode::<PinsDoc>("pins", &bytes).unwrap(), pins);
        assert_eq!(
            PinsDoc::from_legacy([id(5), id(6), id(7), id(8)].iter()).bots,
            [id(5), id(6), id(7)]
        );
    }
}
