//! Reading JSON response bodies and stored records member by member.
//!
//! Every body is parsed into one `serde_json` object and members are taken out of it, instead of
//! deriving `Deserialize` per shape: one shared parser keeps the wasm small. A `null` member
//! counts as absent, as an `Option` field would. (Unlike a derived struct, a repeated key keeps
//! its last value rather than failing.)

use serde_json::{Map, Value};

/// The top-level object of `body`, or `None` when it is not a JSON object.
pub(crate) fn object(body: &[u8]) -> Option<Map<String, Value>> {
    serde_json::from_slice(body).ok()
}

/// Takes member `key`; `null` is `None`.
pub(crate) fn take(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    map.remove(key).filter(|value| !value.is_null())
}

/// Takes string member `key`: `Ok(None)` when absent or `null`, `Err(())` for another type.
pub(crate) fn take_string(map: &mut Map<String, Value>, key: &str) -> Result<Option<String>, ()> {
    match take(map, key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(()),
    }
}
