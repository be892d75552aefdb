//! Arguments of the bots engine from JSON, as the boundary (src/api/bot.rs) decodes them from
//! JavaScript: the same serde types, fed by serde_json.
#![allow(dead_code, clippy::expect_used)]

use fx_wasm::bot::args::Arg;
use fx_wasm::bot::cursor::{Cursor, CursorError};
use fx_wasm::bot::ids::{BotId, IdError, LibraryId, ProviderId};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Any argument type (`Object<FieldsArg>`, `Arg<…>`, …) from JSON.
pub fn arg<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("every JSON value decodes")
}

pub fn bid(text: impl AsRef<str>) -> BotId {
    BotId::parse(text.as_ref()).expect("a bot id")
}

pub fn pid(text: impl AsRef<str>) -> ProviderId {
    ProviderId::parse(text.as_ref()).expect("a provider id")
}

pub fn lid(text: impl AsRef<str>) -> LibraryId {
    LibraryId::parse(text.as_ref()).expect("a library id")
}

/// A cursor from JSON, as the boundary checks it.
pub fn cursor(value: Value) -> Result<Cursor, CursorError> {
    Cursor::from_arg(arg::<Arg<f64>>(value))
}

pub fn at(value: Value) -> Cursor {
    cursor(value).expect("a cursor")
}

/// A bot id from JSON, as the boundary checks it.
pub fn bot_arg(value: Value) -> Result<BotId, IdError> {
    BotId::from_arg(arg(value))
}
