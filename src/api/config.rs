//! The `config()` object js/host.js builds (`{ env, workspace }`), read once for both classes.

use std::collections::HashMap;

use wasm_bindgen::JsValue;

use crate::agent::{AgentConfig, AgentError};
use crate::tools::workspace::RawWorkspace;

/// Why the configuration was refused: a `TypeError` for JS.
pub enum ConfigError {
    /// `workspace` does not have the shape of the contract (serde's description).
    Shape(String),
    /// A value breaks its rule (the chat URL policy, the workspace's version-1 rules).
    Invalid(AgentError),
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The agent's configuration from `config()`: `env` (js/host.js already normalized it) and the
/// workspace description.
///
/// # Errors
/// [`ConfigError`] for a workspace of the wrong shape or a value outside its rules.
pub fn agent_config(config: &JsValue) -> Result<AgentConfig, ConfigError> {
    let env: HashMap<String, String> =
        serde_wasm_bindgen::from_value(get(config, "env")).unwrap_or_default();
    let workspace = get(config, "workspace");
    let workspace: Option<RawWorkspace> = if workspace.is_null() || workspace.is_undefined() {
        None
    } else {
        Some(
            serde_wasm_bindgen::from_value(workspace)
                .map_err(|error| ConfigError::Shape(error.to_string()))?,
        )
    };
    AgentConfig::from_env(&env, workspace.as_ref()).map_err(ConfigError::Invalid)
}

/// The `TypeError` a shape error becomes.
pub fn shape_error(message: &str) -> JsValue {
    crate::host::type_error(&format!("workspace is invalid: {message}"))
}
