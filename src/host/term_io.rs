//! The terminal's environment over the `io` object js/terminal.js builds: output to the
//! terminal adapter, prompt history, downloads, the exit signal; tasks on the page's event loop,
//! repaints at its animation frames, and a 50 ms ticker (on the host's `sleep` timer) that runs only while the app animates.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::host::js_host::{error_message, JsHost};
use crate::term::driver::{Task, TermEnv};

/// How often the ticker calls the app while something animates.
const TICK_MS: u32 = 50;

#[wasm_bindgen]
extern "C" {
    /// The object js/terminal.js builds.
    pub type JsTermIo;
    #[wasm_bindgen(method, structural)]
    fn write(this: &JsTermIo, bytes: &[u8]);
    /// A Promise of the stored entries, or `null` when the host keeps no history.
    #[wasm_bindgen(method, structural, js_name = historyLoad)]
    fn history_load(this: &JsTermIo) -> JsValue;
    #[wasm_bindgen(method, structural, js_name = historyAppend)]
    fn history_append(this: &JsTermIo, text: &str) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn download(this: &JsTermIo, paths: Array, contents: Array) -> Promise;
    #[wasm_bindgen(method, structural)]
    fn exited(this: &JsTermIo, code: i32);
    /// A Promise that resolves at the next animation frame.
    #[wasm_bindgen(method, structural, js_name = nextFrame)]
    fn next_frame(this: &JsTermIo) -> Promise;
}

/// The callback the ticker calls; false stops it.
pub type Ticker = Rc<dyn Fn() -> bool>;

/// [`TermEnv`] for the browser and Node.
pub struct JsTermEnv {
    io: JsTermIo,
    /// The agent's host, whose `sleep` paces the ticker.
    host: JsHost,
    ticking: Rc<Cell<bool>>,
    ticker: Rc<RefCell<Option<Ticker>>>,
}

impl JsTermEnv {
    pub fn new(io: JsTermIo, host: JsHost) -> Self {
        JsTermEnv {
            io,
            host,
            ticking: Rc::new(Cell::new(false)),
            ticker: Rc::new(RefCell::new(None)),
        }
    }

    /// Where the driver installs its tick callback once it exists.
    pub fn ticker_slot(&self) -> Rc<RefCell<Option<Ticker>>> {
        self.ticker.clone()
    }
}

impl TermEnv for JsTermEnv {
    fn write(&self, out: &crate::term::ansi::Ansi) {
        self.io.write(out.as_bytes());
    }

    fn spawn(&self, task: Task) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn frame(&self, task: Task) {
        let frame = self.io.next_frame();
        wasm_bindgen_futures::spawn_local(async move {
            // Never rejects (see js/terminal.js); a rejection only repaints sooner.
            let _ = JsFuture::from(frame).await;
            task.await;
        });
    }

    fn animate(&self) {
        if self.ticking.replace(true) {
            return;
        }
        let ticking = self.ticking.clone();
        let ticker = self.ticker.clone();
        let host = self.host.clone();
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                // Never rejects (a plain setTimeout); a rejection would only end this tick early.
                let _ = JsFuture::from(host.sleep(TICK_MS)).await;
                let tick = ticker.borrow().clone();
                let more = tick.is_some_and(|tick| tick());
                if !more {
                    break;
                }
            }
            ticking.set(false);
        });
    }

    async fn history_load(&self) -> Option<Result<Vec<String>, String>> {
        let value = self.io.history_load();
        let promise: Promise = value.dyn_into().ok()?;
        Some(match JsFuture::from(promise).await {
            Ok(list) => Ok(Array::from(&list)
                .iter()
                .filter_map(|entry| entry.as_string())
                .collect()),
            Err(error) => Err(error_message(&error)),
        })
    }

    async fn history_append(&self, text: &str) -> Result<String, String> {
        JsFuture::from(self.io.history_append(text))
            .await
            .map(|outcome| outcome.as_string().unwrap_or_else(|| "appended".into()))
            .map_err(|error| error_message(&error))
    }

    async fn download(&self, files: Vec<(String, Vec<u8>)>) -> Result<(), String> {
        let paths = Array::new();
        let contents = Array::new();
        for (path, bytes) in files {
            paths.push(&JsValue::from_str(&path));
            contents.push(&Uint8Array::from(bytes.as_slice()));
        }
        JsFuture::from(self.io.download(paths, contents))
            .await
            .map(|_| ())
            .map_err(|error| error_message(&error))
    }

    fn exited(&self, code: i32) {
        self.io.exited(code);
    }
}
