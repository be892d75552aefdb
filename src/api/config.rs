//! The `config()` object js/host.js builds (`{ env, workspace, modelIdleTimeoutMs }`), read once
//! for both classes (`modelIdleTimeoutMs` also from FxbotCore's config).

#[cfg(any(feature = "core-api", feature = "term"))]
use std::collections::HashMap;

use wasm_bindgen::JsValue;

#[cfg(any(feature = "core-api", feature = "term"))]
use crate::agent::{AgentConfig, AgentError};
#[cfg(any(feature = "core-api", feature = "term"))]
use crate::tools::workspace::RawWorkspace;

/// Why the configuration was refused: a `TypeError` for JS.
#[cfg(any(feature = "core-api", feature = "term"))]
pub enum ConfigError {
    /// `workspace` does not have the shape of the contract (serde's description).
    Shape(String),
    /// A value breaks its rule (the chat URL policy, the workspace's version-1 rules).
    Invalid(AgentError),
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The agent's configuration from `config()`: `env` (js/host.js already normalized it), the
/// workspace description and the model idle deadline (js/host.js checked it).
///
/// # Errors
/// [`ConfigError`] for a workspace of the wrong shape or a value outside its rules.
#[cfg(any(feature = "core-api", feature = "term"))]
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
    let mut agent =
        AgentConfig::from_env(&env, workspace.as_ref()).map_err(ConfigError::Invalid)?;
    if let Some(ms) = model_idle_timeout_ms(config) {
        agent.model_idle_timeout_ms = ms;
    }
    Ok(agent)
}

/// `modelIdleTimeoutMs` of a config object, when it holds a whole number of milliseconds from 1
/// (js/host.js refuses anything else before the core sees it).
pub fn model_idle_timeout_ms(config: &JsValue) -> Option<u32> {
    let ms = get(config, "modelIdleTimeoutMs").as_f64()?;
    (ms.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&ms)).then_some(ms as u32)
}

/// The `TypeError` a shape error becomes.
#[cfg(any(feature = "core-api", feature = "term"))]
pub fn shape_error(message: &str) -> JsValue {
    crate::host::type_error(&format!("workspace is invalid: {message}"))
}
