//! `FxbotCore`: the class js/fxbot/index.js drives (fx-bot.wasm). Each method clones the engine
//! handle, runs the pure-Rust [`Fxbot`] on the page's event loop, and converts arguments,
//! results and errors (an `Error` named `FxbotError` with `status` and `code`).

use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, spawn_local};

use crate::bot::engine::{default_library_url, EngineConfig, Fxbot};
use crate::bot::FxbotError;
use crate::gateway::ChatEndpoint;
use crate::host::fxbot_error;
use crate::host::js_host::{to_js, JsHost, JsHostAdapter};

/// The engine over the page's host: its stores, the session store and the document store alike.
type Engine = Fxbot<JsHostAdapter, JsHostAdapter>;

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A JS argument as JSON (`undefined` is `null`); what JSON cannot hold is a 400.
fn json(value: &JsValue) -> Result<Value, FxbotError> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| FxbotError::Invalid {
        message: format!("an argument is not plain data: {e}"),
    })
}

/// An id argument as text (a non-string shows as its JSON, so the id check names it).
fn text(value: &JsValue) -> String {
    match value.as_string() {
        Some(text) => text,
        None => json(value).map(|v| v.to_string()).unwrap_or_default(),
    }
}

fn done<T: Serialize>(result: Result<T, FxbotError>) -> Result<JsValue, JsValue> {
    result.map(|v| to_js(&v)).map_err(|e| fxbot_error(&e))
}

/// The bots engine.
#[wasm_bindgen]
pub struct FxbotCore {
    engine: Rc<Engine>,
    /// The Vercel issuer and client id (`FX_E2E_OAUTH_ISSUER_URL`, `FX_OAUTH_CLIENT_ID`).
    auth: Rc<crate::auth::AuthConfig>,
}

macro_rules! call {
    ($self:ident, |$engine:ident| $body:expr) => {{
        let $engine = $self.engine.clone();
        future_to_promise(async move { done(async { $body }.await) })
    }};
}

#[wasm_bindgen]
impl FxbotCore {
    /// `config`: `{ env, owner, libraryUrl }` (`libraryUrl` a function of the item id, or
    /// absent for the seed's route).
    ///
    /// # Errors
    /// A `TypeError` for an `FX_GATEWAY_CHAT_URL` outside the policy.
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsHost, config: JsValue) -> Result<FxbotCore, JsValue> {
        let env: HashMap<String, String> =
            serde_wasm_bindgen::from_value(get(&config, "env")).unwrap_or_default();
        let endpoint = ChatEndpoint::from_env(env.get("FX_GATEWAY_CHAT_URL").map(String::as_str))
            .map_err(|e| crate::host::type_error(&e.to_string()))?;
        let auth = crate::auth::AuthConfig::from_env(
            env.get(crate::auth::endpoints::ISSUER_OVERRIDE_ENV)
                .map(String::as_str),
            env.get(crate::auth::endpoints::CLIENT_ID_ENV)
                .map(String::as_str),
        )
        .map_err(|e| crate::host::type_error(&e.to_string()))?;
        let owner = get(&config, "owner").as_string().unwrap_or_default();
        let library_url: Box<dyn Fn(&str) -> String> =
            match get(&config, "libraryUrl").dyn_into::<Function>() {
                Ok(f) => Box::new(move |id: &str| {
                    f.call1(&JsValue::NULL, &JsValue::from_str(id))
                        .ok()
                        .and_then(|v| v.as_string())
                        .unwrap_or_else(|| default_library_url(id))
                }),
                Err(_) => Box::new(default_library_url),
            };
        let config = EngineConfig {
            owner,
            endpoint,
            library_url,
        };
        Ok(FxbotCore {
            engine: {
                let host = JsHostAdapter::new(host);
                Rc::new(Fxbot::new(host.clone(), host, config))
            },
            auth: Rc::new(auth),
        })
    }

    #[wasm_bindgen(js_name = botsList)]
    pub fn bots_list(&self) -> Promise {
        call!(self, |e| e.bots_list().await)
    }

    #[wasm_bindgen(js_name = botsGet)]
    pub fn bots_get(&self, bot: JsValue) -> Promise {
        let bot = text(&bot);
        call!(self, |e| e.bots_get(&bot).await)
    }

    #[wasm_bindgen(js_name = botsCreate)]
    pub fn bots_create(&self, fields: JsValue) -> Promise {
        let fields = json(&fields);
        call!(self, |e| e.bots_create(&fields?).await)
    }

    #[wasm_bindgen(js_name = botsUpdate)]
    pub fn bots_update(&self, bot: JsValue, patch: JsValue) -> Promise {
        let (bot, patch) = (text(&bot), json(&patch));
        call!(self, |e| e.bots_update(&bot, &patch?).await)
    }

    #[wasm_bindgen(js_name = botsRemove)]
    pub fn bots_remove(&self, bot: JsValue) -> Promise {
        let bot = text(&bot);
        call!(self, |e| e.bots_remove(&bot).await)
    }

    #[wasm_bindgen(js_name = settingsGet)]
    pub fn settings_get(&self) -> Promise {
        call!(self, |e| e.settings_get().await)
    }

    #[wasm_bindgen(js_name = settingsUpdate)]
    pub fn settings_update(&self, patch: JsValue) -> Promise {
        let patch = json(&patch);
        call!(self, |e| e.settings_update(&patch?).await)
    }

    /// The kinds table (`providers.kinds`).
    pub fn kinds(&self) -> JsValue {
        to_js(&crate::bot::settings::Kind::table())
    }

    #[wasm_bindgen(js_name = providersAdd)]
    pub fn providers_add(&self, provider: JsValue) -> Promise {
        let provider = json(&provider);
        call!(self, |e| e.providers_add(&provider?).await)
    }

    #[wasm_bindgen(js_name = providersList)]
    pub fn providers_list(&self) -> Promise {
        call!(self, |e| e.providers_list().await)
    }

    #[wasm_bindgen(js_name = providersGet)]
    pub fn providers_get(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.providers_get(&id).await)
    }

    #[wasm_bindgen(js_name = providersRemove)]
    pub fn providers_remove(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.providers_remove(&id).await)
    }

    /// Records a finished Vercel sign-in: `{ accessToken, expiresAtMs, teams }`.
    #[wasm_bindgen(js_name = providersAddSignedIn)]
    pub fn providers_add_signed_in(&self, record: JsValue) -> Promise {
        let record = json(&record);
        call!(self, |e| {
            let record = record?;
            let token = record["accessToken"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let teams = record["teams"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            e.providers_add_signed_in(&token, record["expiresAtMs"].as_i64(), teams)
                .await
        })
    }

    /// `signIns.start(kind)`: resolves the pending `SignIn`; the polling runs on.
    #[wasm_bindgen(js_name = signInStart)]
    pub fn sign_in_start(&self, kind: JsValue) -> Promise {
        let kind = json(&kind);
        let (engine, auth) = (self.engine.clone(), self.auth.clone());
        future_to_promise(async move {
            let kind = kind.map_err(|e| fxbot_error(&e))?;
            let (view, task) = engine
                .signin_start(&kind, &auth)
                .await
                .map_err(|e| fxbot_error(&e))?;
            let runner = engine.clone();
            spawn_local(async move { runner.signin_run(task).await });
            Ok(to_js(&view))
        })
    }

    #[wasm_bindgen(js_name = signInGet)]
    pub fn sign_in_get(&self, id: JsValue) -> Result<JsValue, JsValue> {
        done(self.engine.signin_get(&text(&id)))
    }

    #[wasm_bindgen(js_name = signInWait)]
    pub fn sign_in_wait(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.signin_wait(&id).await)
    }

    #[wasm_bindgen(js_name = signInCancel)]
    pub fn sign_in_cancel(&self, id: JsValue) -> Result<(), JsValue> {
        self.engine
            .signin_cancel(&text(&id))
            .map_err(|e| fxbot_error(&e))
    }

    #[wasm_bindgen(js_name = libraryList)]
    pub fn library_list(&self, filter: JsValue) -> Promise {
        let filter = json(&filter);
        call!(self, |e| e.library_list(&filter?).await)
    }

    #[wasm_bindgen(js_name = libraryGet)]
    pub fn library_get(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.library_get(&id).await)
    }

    #[wasm_bindgen(js_name = libraryAdd)]
    pub fn library_add(&self, upload: JsValue, tags: JsValue) -> Promise {
        let (upload, tags) = (json(&upload), json(&tags));
        call!(self, |e| e.library_add(&upload?, &tags?).await)
    }

    /// `{ name, type, data }` with `data` in base64.
    #[wasm_bindgen(js_name = libraryRead)]
    pub fn library_read(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.library_read_json(&id).await)
    }

    #[wasm_bindgen(js_name = libraryRemove)]
    pub fn library_remove(&self, id: JsValue) -> Promise {
        let id = text(&id);
        call!(self, |e| e.library_remove(&id).await)
    }

    /// `chat.send`: resolves `Sent` once the turn started; the turn runs on in the background.
    pub fn send(&self, bot: JsValue, message: JsValue) -> Promise {
        let (bot, message) = (text(&bot), json(&message));
        let engine = self.engine.clone();
        future_to_promise(async move {
            let message = message.map_err(|e| fxbot_error(&e))?;
            let (sent, pending) = engine
                .send(&bot, &message)
                .await
                .map_err(|e| fxbot_error(&e))?;
            if let Some(pending) = pending {
                let runner = engine.clone();
                spawn_local(async move { runner.run(pending).await });
            }
            Ok(to_js(&sent))
        })
    }

    /// One batch of `chat.stream`: `{ lines, end, live, epoch }`.
    pub fn stream(&self, bot: JsValue, cursor: JsValue, session_id: JsValue) -> Promise {
        let (bot, cursor) = (text(&bot), json(&cursor));
        let session = session_id.as_string();
        call!(self, |e| e.stream(&bot, &cursor?, session.as_deref()).await)
    }

    /// The next batch of an open stream (from memory): `{ lines, end, live, epoch }`.
    pub fn follow(&self, bot: JsValue, cursor: JsValue, epoch: f64) -> Promise {
        let (bot, cursor) = (text(&bot), json(&cursor));
        call!(self, |e| e.follow(&bot, &cursor?, epoch as u64).await)
    }

    /// Resolves true when the stream has more after `cursor`, false when it should end.
    pub fn wait(&self, bot: JsValue, cursor: JsValue, epoch: f64) -> Promise {
        let (bot, cursor) = (text(&bot), json(&cursor).unwrap_or(Value::Null));
        let engine = self.engine.clone();
        future_to_promise(async move {
            let more = engine.wait(&bot, &cursor, epoch as u64).await;
            Ok(JsValue::from_bool(more))
        })
    }

    pub fn stop(&self, bot: JsValue) -> Promise {
        let bot = text(&bot);
        call!(self, |e| e.stop(&bot).await)
    }

    pub fn busy(&self, bot: JsValue) -> bool {
        self.engine.busy(&text(&bot))
    }

    pub fn release(&self, bot: JsValue) {
        let bot = bot.as_string();
        self.engine.release(bot.as_deref());
    }

    pub fn close(&self) {
        self.engine.close();
    }
}
