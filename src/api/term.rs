//! `TermCore`: the class js/terminal.js drives. It owns the terminal [`Shell`] (the app and the
//! agent over the same JS host as `AgentCore`) and forwards input, resizes and aborts to it.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use serde::Deserialize;

use crate::host::js_host::{JsHost, JsHostAdapter};
use crate::host::term_io::{JsTermEnv, JsTermIo, Ticker};
use crate::host::to_js_error;
use crate::term::app::Capabilities;
use crate::term::driver::Shell;

use super::config::{agent_config, shape_error, ConfigError};

/// Which host options exist, as js/terminal.js reports them.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct HostOptions {
    history_store: bool,
    session_store: bool,
    downloads: bool,
    oauth: bool,
    esc_then_tab_leaves: bool,
}

fn size(n: u32) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The interactive terminal.
#[wasm_bindgen]
pub struct TermCore {
    shell: Shell<JsHostAdapter, JsTermEnv>,
}

#[wasm_bindgen]
impl TermCore {
    /// `config` is `host.config()`; `caps` says which host options exist
    /// (`historyStore`, `sessionStore`, `downloads`, `oauth`, `escThenTabLeaves`).
    ///
    /// # Errors
    /// A `TypeError` for an invalid workspace or chat URL.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsHost,
        config: JsValue,
        io: JsTermIo,
        cols: u32,
        rows: u32,
        caps: JsValue,
    ) -> Result<TermCore, JsValue> {
        let config = agent_config(&config).map_err(|error| match error {
            ConfigError::Shape(message) => shape_error(&message),
            ConfigError::Invalid(error) => to_js_error(&error),
        })?;
        let options: HostOptions = serde_wasm_bindgen::from_value(caps).unwrap_or_default();
        let capabilities = Capabilities {
            history_store: options.history_store,
            session_store: options.session_store,
            downloads: options.downloads,
            oauth: options.oauth,
            workspace: config.workspace.is_some(),
            credential: config.has_credential(),
            // Shell::new reads it from the workspace.
            sandboxed: false,
            esc_then_tab_leaves: options.esc_then_tab_leaves,
        };
        let env = JsTermEnv::new(io, host.clone());
        let slot = env.ticker_slot();
        let shell = Shell::new(
            JsHostAdapter::new(host),
            config,
            env,
            (size(cols), size(rows)),
            capabilities,
        );
        let ticking = shell.clone();
        let ticker: Ticker = Rc::new(move || ticking.tick());
        *slot.borrow_mut() = Some(ticker);
        Ok(TermCore { shell })
    }

    /// Restores history and config, opens the session (`resume`: `last` or an id) and paints.
    pub fn start(&self, resume: Option<String>) -> Promise {
        let shell = self.shell.clone();
        future_to_promise(async move {
            shell.start(resume).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Input bytes from the terminal.
    pub fn write(&self, bytes: &[u8]) {
        self.shell.input(bytes);
    }

    /// The interrupt key arrived: cancel the running turn.
    pub fn interrupt(&self) {
        self.shell.interrupt();
    }

    pub fn resize(&self, cols: u32, rows: u32) {
        self.shell.resize(size(cols), size(rows));
    }

    /// Stops every turn; nothing more is written.
    pub fn abort(&self) {
        self.shell.abort();
    }

    /// Switches the permission mode (`ask` or `code`), as `/permissions` does.
    ///
    /// # Errors
    /// An `FxError` with code `FX_INVALID_MODE` for an unknown or unavailable mode.
    #[wasm_bindgen(js_name = setMode)]
    pub fn set_mode(&self, value: &str) -> Result<(), JsValue> {
        self.shell
            .set_mode(value)
            .map_err(|error| to_js_error(&error))
    }

    /// The id of the session on screen (it follows `/new`, `/resume` and forks); empty before
    /// `start` opened one, or while the app is busy (never blocks on a borrow).
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.shell
            .app()
            .try_borrow()
            .map(|app| app.session_id().to_owned())
            .unwrap_or_default()
    }
}
