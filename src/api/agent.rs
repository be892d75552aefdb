//! `AgentCore`: the class js/agent.js drives. Each method clones the agent handle, runs the
//! pure-Rust [`Agent`] on the page's event loop, and converts results and errors.

use std::rc::Rc;

use js_sys::Promise;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::agent::prompt::{Block, Prompt};
use crate::agent::{Agent, Opened};
use crate::host::js_host::{error_message, to_js, JsHost, JsHostAdapter};
use crate::host::{to_js_error, type_error};

use super::config::{agent_config, shape_error, ConfigError};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OpenedJs<'a> {
    session_id: &'a str,
    config_options: &'a [crate::agent::modes::ConfigOption],
    modes: &'a crate::agent::modes::Modes,
    history: &'a [crate::caps::acp::Update],
}

fn opened_js(opened: &Opened) -> JsValue {
    to_js(&OpenedJs {
        session_id: &opened.session_id,
        config_options: &opened.config_options,
        modes: &opened.modes,
        history: &crate::agent::replay::history_updates(&opened.history),
    })
}

/// The headless agent.
#[wasm_bindgen]
pub struct AgentCore {
    agent: Rc<Agent<JsHostAdapter>>,
}

#[wasm_bindgen]
impl AgentCore {
    /// Validates the configuration (`{ env, workspace }` from `host.config()`).
    ///
    /// # Errors
    /// A `TypeError` for an `FX_GATEWAY_CHAT_URL` outside the policy or an invalid workspace.
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsHost, config: JsValue) -> Result<AgentCore, JsValue> {
        let config = agent_config(&config).map_err(|error| match error {
            ConfigError::Shape(message) => shape_error(&message),
            ConfigError::Invalid(error) => to_js_error(&error),
        })?;
        Ok(AgentCore {
            agent: Rc::new(Agent::new(JsHostAdapter::new(host), config)),
        })
    }

    /// The `configOptions` for `model` and `mode` with the catalog's models, fetching the
    /// catalog first if it was not (waiting at most 2 s). Never rejects: a failed catalog is a
    /// `catalog.error` event and the model select lists `model` alone.
    #[wasm_bindgen(js_name = configOptions)]
    pub fn config_options(&self, model: String, mode: String) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            let _ = agent
                .ensure_catalog(crate::agent::core::CATALOG_WAIT_MS)
                .await;
            let mode = crate::agent::modes::Mode::parse(&mode).unwrap_or_default();
            Ok(to_js(&crate::agent::modes::config_options(
                &agent.catalog_ids(),
                &model,
                mode,
            )))
        })
    }

    #[wasm_bindgen(js_name = createSession)]
    pub fn create_session(&self) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            let opened = agent.create_session().await.map_err(|e| to_js_error(&e))?;
            Ok(opened_js(&opened))
        })
    }

    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&self, id: String) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            let opened = agent.open_session(&id).await.map_err(|e| to_js_error(&e))?;
            Ok(opened_js(&opened))
        })
    }

    /// Stores what session `id` has not stored yet, then forgets it. Never rejects: what
    /// cannot be stored is a `session.unsaved` event.
    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&self, id: String) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            agent.close_session(&id).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    #[wasm_bindgen(js_name = listSessions)]
    pub fn list_sessions(&self) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            let listed = agent.list_sessions().await.map_err(|e| to_js_error(&e))?;
            Ok(to_js(&listed))
        })
    }

    #[wasm_bindgen(js_name = removeSession)]
    pub fn remove_session(&self, id: String) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            agent
                .remove_session(&id)
                .await
                .map_err(|e| to_js_error(&e))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Resolves `{ configOptions, modes }`.
    #[wasm_bindgen(js_name = setConfigOption)]
    pub fn set_config_option(
        &self,
        id: String,
        config_id: String,
        value: String,
        source: String,
    ) -> Promise {
        let agent = self.agent.clone();
        future_to_promise(async move {
            let source: &'static str = if source == "restore" {
                "restore"
            } else {
                "sdk"
            };
            let opened = agent
                .set_config(&id, &config_id, &value, source)
                .await
                .map_err(|e| to_js_error(&e))?;
            Ok(opened_js(&opened))
        })
    }

    /// Runs a turn; updates go to `host.update(turn, …)` / `host.text(turn, …)`. Resolves
    /// `{ stopReason, sessionId, forkedFrom, usage: { inputTokens, outputTokens } }`.
    pub fn prompt(&self, id: String, turn: u32, blocks: JsValue) -> Promise {
        let blocks: Vec<Block> = match serde_wasm_bindgen::from_value(blocks) {
            Ok(blocks) => blocks,
            Err(e) => {
                return Promise::reject(&type_error(&format!(
                    "invalid prompt blocks: {}",
                    error_message(&e.into())
                )))
            }
        };
        let agent = self.agent.clone();
        // Registered now, not when the future first runs: `turn.cancel()` right after
        // `session.prompt()` must find the turn.
        agent.register_turn(turn);
        future_to_promise(async move {
            let end = agent
                .prompt_with(&id, turn, Prompt::from_blocks(blocks))
                .await
                .map_err(|e| to_js_error(&e))?;
            Ok(to_js(&end))
        })
    }

    #[wasm_bindgen(js_name = cancelTurn)]
    pub fn cancel_turn(&self, turn: u32) {
        self.agent.cancel(turn);
    }

    pub fn shutdown(&self) {
        self.agent.shutdown();
    }
}
