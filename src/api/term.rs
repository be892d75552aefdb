//! `TermCore`: the class js/terminal.js drives. It owns the terminal [`Shell`] (the app and the
//! agent over the same JS host as `AgentCore`) and forwards input, resizes and aborts to it.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::agent::AgentConfig;
use crate::host::js_host::{JsHost, JsHostAdapter};
use crate::host::term_io::{JsTermEnv, JsTermIo, Ticker};
use crate::term::app::shell::Shell;
use crate::term::app::Capabilities;
use crate::tools::workspace::RawWorkspace;

fn flag(caps: &JsValue, key: &str) -> bool {
    js_sys::Reflect::get(caps, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
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
    /// (`historyStore`, `sessionStore`, `downloads`, `oauth`).
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
        let (env, workspace) = JsHostAdapter::read_config(&config);
        let workspace: Option<RawWorkspace> = if workspace.is_null() || workspace.is_undefined() {
            None
        } else {
            Some(serde_wasm_bindgen::from_value(workspace).map_err(|error| {
                JsValue::from(js_sys::TypeError::new(&format!(
                    "workspace is invalid: {error}"
                )))
            })?)
        };
        let config = AgentConfig::from_env(&env, workspace.as_ref())
            .map_err(|error| JsValue::from(js_sys::TypeError::new(&error.to_string())))?;
        let capabilities = Capabilities {
            history_store: flag(&caps, "historyStore"),
            session_store: flag(&caps, "sessionStore"),
            downloads: flag(&caps, "downloads"),
            oauth: flag(&caps, "oauth"),
            workspace: config.workspace.is_some(),
            credential: config.api_key.is_some() || !config.endpoint.is_canonical(),
            // Shell::new reads it from the workspace.
            sandboxed: false,
        };
        let env = JsTermEnv::new(io);
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
            .map_err(|error| crate::host::to_js_error(&error))
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
