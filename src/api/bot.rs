//! `FxbotCore`: the class js/fxbot/index.js drives (fx-bot.wasm). Each method clones the engine
//! handle, decodes its arguments once into the boundary's types (`bot::args`: serde, a field of
//! the wrong kind kept for the rule's 400), runs the pure-Rust [`Fxbot`] on the page's event
//! loop, and converts results and errors (an `Error` named `FxbotError` with `status` and
//! `code`).

use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, spawn_local};

use crate::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use crate::bot::args::Arg;
use crate::bot::cursor::Cursor;
use crate::bot::engine::chat::Outgoing;
use crate::bot::engine::{default_library_url, EngineConfig, Fxbot};
use crate::bot::ids::{BotId, LibraryId, ProviderId};
use crate::bot::FxbotError;
use crate::gateway::ChatEndpoint;
use crate::host::fxbot_error;
use crate::host::js_host::{to_js, JsHost, JsHostAdapter};

/// The engine over the page's host: its stores, the session store and the document store alike.
type Engine = Fxbot<JsHostAdapter, JsHostAdapter>;

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// One argument decoded into its boundary type. The types keep a wrong kind rather than fail,
/// so only a value serde cannot walk at all fails here (a 400). Every argument goes through one
/// deserializer (plain data first, then the type): one copy of the decoding code in fx-bot.wasm
/// rather than one per argument type.
fn arg<T: DeserializeOwned>(value: &JsValue) -> Result<T, FxbotError> {
    serde_json::from_value(json(value)?).map_err(|e| FxbotError::Invalid {
        message: format!("an argument could not be read: {e}"),
    })
}

fn bot_id(value: &JsValue) -> Result<BotId, FxbotError> {
    Ok(BotId::from_arg(arg(value)?)?)
}

fn cursor(value: &JsValue) -> Result<Cursor, FxbotError> {
    Ok(Cursor::from_arg(arg(value)?)?)
}

/// A sign-in id: the text `signIns.start` returned.
fn signin_id(value: &JsValue) -> Result<String, FxbotError> {
    match arg::<Arg<String>>(value)? {
        Arg::Given(id) => Ok(id),
        other => Err(FxbotError::Invalid {
            message: format!("signInId must be a string, not {}", other.found()),
        }),
    }
}

/// An argument as plain data (`undefined` is `null`); what JSON cannot hold is a 400.
fn json(value: &JsValue) -> Result<Value, FxbotError> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| FxbotError::Invalid {
        message: format!("an argument is not plain data: {e}"),
    })
}

fn done<T: Serialize>(result: Result<T, FxbotError>) -> Result<JsValue, JsValue> {
    result.map(|v| to_js(&v)).map_err(|e| fxbot_error(&e))
}

/// One row of the code table as js/fxbot/ takes it.
#[derive(Serialize)]
struct CodeRow {
    code: &'static str,
    status: u16,
}

/// The bots rows of the one code table (`FXBOT_*` with their statuses): scripts/build.mjs
/// writes them into the package as `fxbot/codes.js`, which js/fxbot/ reads them from.
#[wasm_bindgen(js_name = fxbotCodes)]
pub fn fxbot_codes() -> JsValue {
    let rows: Vec<CodeRow> = crate::Code::ALL
        .iter()
        .filter_map(|code| {
            code.status().map(|status| CodeRow {
                code: code.as_str(),
                status,
            })
        })
        .collect();
    to_js(&rows)
}

/// The bots engine.
#[wasm_bindgen]
pub struct FxbotCore {
    engine: Rc<Engine>,
}

/// A call of the engine: 409 after `close` comes first (before an argument is looked at), then
/// the arguments' errors, then the call's.
macro_rules! call {
    ($self:ident, |$engine:ident| $body:expr) => {{
        let $engine = $self.engine.clone();
        future_to_promise(async move {
            done(
                async {
                    $engine.check_open()?;
                    $body
                }
                .await,
            )
        })
    }};
}

#[wasm_bindgen]
impl FxbotCore {
    /// `config`: `{ env, owner, libraryUrl, modelIdleTimeoutMs }` (`libraryUrl` a function of
    /// the item id, or absent for the seed's route; `modelIdleTimeoutMs` absent for the
    /// default).
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
            auth,
            model_idle_timeout_ms: super::config::model_idle_timeout_ms(&config)
                .unwrap_or(DEFAULT_MODEL_IDLE_TIMEOUT_MS),
            embedder: crate::host::bot_embedder::JsEmbedder::from_config(&config)
                .map(|e| Rc::new(e) as Rc<dyn crate::bot::embed::LocalEmbedder>),
        };
        let host = JsHostAdapter::new(host);
        Ok(FxbotCore {
            engine: Rc::new(Fxbot::new(host.clone(), host, config)),
        })
    }

    #[wasm_bindgen(js_name = botsList)]
    pub fn bots_list(&self) -> Promise {
        call!(self, |e| e.bots_list().await)
    }

    #[wasm_bindgen(js_name = botsGet)]
    pub fn bots_get(&self, bot: JsValue) -> Promise {
        call!(self, |e| e.bots_get(&bot_id(&bot)?).await)
    }

    #[wasm_bindgen(js_name = botsCreate)]
    pub fn bots_create(&self, fields: JsValue) -> Promise {
        call!(self, |e| e.bots_create(arg(&fields)?).await)
    }

    #[wasm_bindgen(js_name = botsUpdate)]
    pub fn bots_update(&self, bot: JsValue, patch: JsValue) -> Promise {
        call!(self, |e| e.bots_update(&bot_id(&bot)?, arg(&patch)?).await)
    }

    #[wasm_bindgen(js_name = botsRemove)]
    pub fn bots_remove(&self, bot: JsValue) -> Promise {
        call!(self, |e| e.bots_remove(&bot_id(&bot)?).await)
    }

    #[wasm_bindgen(js_name = settingsGet)]
    pub fn settings_get(&self) -> Promise {
        call!(self, |e| e.settings_get().await)
    }

    /// `settings.embedding()`.
    #[wasm_bindgen(js_name = settingsEmbedding)]
    pub fn settings_embedding(&self) -> Promise {
        call!(self, |e| e.embedding_status().await)
    }

    /// Starts the fill-in in the background (a call while it runs asks it for another pass).
    pub fn fill(&self) {
        let engine = self.engine.clone();
        spawn_local(async move { engine.fill_in().await });
    }

    #[wasm_bindgen(js_name = settingsUpdate)]
    pub fn settings_update(&self, patch: JsValue) -> Promise {
        call!(self, |e| e.settings_update(arg(&patch)?).await)
    }

    /// The kinds table (`providers.kinds`).
    pub fn kinds(&self) -> JsValue {
        to_js(&crate::bot::settings::Kind::table())
    }

    #[wasm_bindgen(js_name = providersAdd)]
    pub fn providers_add(&self, provider: JsValue) -> Promise {
        call!(self, |e| e.providers_add(arg(&provider)?).await)
    }

    #[wasm_bindgen(js_name = providersList)]
    pub fn providers_list(&self) -> Promise {
        call!(self, |e| e.providers_list().await)
    }

    #[wasm_bindgen(js_name = providersGet)]
    pub fn providers_get(&self, id: JsValue) -> Promise {
        call!(self, |e| e
            .providers_get(&ProviderId::from_arg(arg(&id)?)?)
            .await)
    }

    #[wasm_bindgen(js_name = providersUpdate)]
    pub fn providers_update(&self, id: JsValue, patch: JsValue) -> Promise {
        call!(self, |e| e
            .providers_update(&ProviderId::from_arg(arg(&id)?)?, arg(&patch)?)
            .await)
    }

    /// `providers.models(providerId, {refresh})`.
    #[wasm_bindgen(js_name = providersModels)]
    pub fn providers_models(&self, id: JsValue, refresh: bool) -> Promise {
        call!(self, |e| e
            .providers_models(&ProviderId::from_arg(arg(&id)?)?, refresh)
            .await)
    }

    /// `chat.earlier(botId)`: the chats provider switches moved aside.
    pub fn earlier(&self, bot: JsValue) -> Promise {
        call!(self, |e| e.chat_earlier(&bot_id(&bot)?).await)
    }

    #[wasm_bindgen(js_name = providersRemove)]
    pub fn providers_remove(&self, id: JsValue) -> Promise {
        call!(self, |e| e
            .providers_remove(&ProviderId::from_arg(arg(&id)?)?)
            .await)
    }

    /// `signIns.start(kind)`: resolves the pending `SignIn`; the polling runs on.
    #[wasm_bindgen(js_name = signInStart)]
    pub fn sign_in_start(&self, kind: JsValue) -> Promise {
        let engine = self.engine.clone();
        future_to_promise(async move {
            let started = async {
                engine.check_open()?;
                engine.signin_start(arg(&kind)?).await
            };
            let (view, task) = started.await.map_err(|e| fxbot_error(&e))?;
            let runner = engine.clone();
            spawn_local(async move { runner.signin_run(task).await });
            Ok(to_js(&view))
        })
    }

    #[wasm_bindgen(js_name = signInGet)]
    pub fn sign_in_get(&self, id: JsValue) -> Result<JsValue, JsValue> {
        done(signin_id(&id).and_then(|id| self.engine.signin_get(&id)))
    }

    #[wasm_bindgen(js_name = signInWait)]
    pub fn sign_in_wait(&self, id: JsValue) -> Promise {
        call!(self, |e| e.signin_wait(&signin_id(&id)?).await)
    }

    #[wasm_bindgen(js_name = signInCancel)]
    pub fn sign_in_cancel(&self, id: JsValue) -> Result<(), JsValue> {
        signin_id(&id)
            .and_then(|id| self.engine.signin_cancel(&id))
            .map_err(|e| fxbot_error(&e))
    }

    #[wasm_bindgen(js_name = libraryList)]
    pub fn library_list(&self, filter: JsValue) -> Promise {
        call!(self, |e| e.library_list(arg(&filter)?).await)
    }

    #[wasm_bindgen(js_name = libraryGet)]
    pub fn library_get(&self, id: JsValue) -> Promise {
        call!(self, |e| e
            .library_get(&LibraryId::from_arg(arg(&id)?)?)
            .await)
    }

    #[wasm_bindgen(js_name = libraryAdd)]
    pub fn library_add(&self, upload: JsValue, tags: JsValue) -> Promise {
        call!(self, |e| e.library_add(arg(&upload)?, arg(&tags)?).await)
    }

    /// `{ name, type, data }` with `data` in base64.
    #[wasm_bindgen(js_name = libraryRead)]
    pub fn library_read(&self, id: JsValue) -> Promise {
        call!(self, |e| e
            .library_read_json(&LibraryId::from_arg(arg(&id)?)?)
            .await)
    }

    #[wasm_bindgen(js_name = libraryRemove)]
    pub fn library_remove(&self, id: JsValue) -> Promise {
        call!(self, |e| e
            .library_remove(&LibraryId::from_arg(arg(&id)?)?)
            .await)
    }

    /// `memories.*` through one entry (`op`: `list`, `add`, `update`, `remove`, `search`; the
    /// bot id, then `a` and `b` the call's other arguments).
    pub fn memories(&self, op: String, bot: JsValue, a: JsValue, b: JsValue) -> Promise {
        call!(self, |e| {
            let bot = bot_id(&bot)?;
            let (a, b) = (json(&a)?, json(&b)?);
            match op.as_str() {
                "list" => e.memories_list(&bot).await.map(Value::Array),
                "add" => e.memories_add(&bot, &a).await,
                "update" => e.memories_update(&bot, &a, &b).await,
                "remove" => e.memories_remove(&bot, &a).await.map(|()| Value::Null),
                "search" => e.memories_search(&bot, &a, &b).await.map(Value::Array),
                other => Err(FxbotError::Internal {
                    message: format!("no memories call {other}"),
                }),
            }
        })
    }

    /// `addons.*`, one entry for the nine calls (`op`: `list`, `get`, `addSkill`,
    /// `addServer`, `update`, `remove`, `refresh`, `oauth`, `completeOAuth`; `a` and `b` their arguments): one promise
    /// wrapper in fx-bot.wasm rather than nine.
    pub fn addons(&self, op: String, a: JsValue, b: JsValue) -> Promise {
        call!(self, |e| {
            let (a, b) = (json(&a)?, json(&b)?);
            match op.as_str() {
                "list" => e.addons_list().await.map(Value::Array),
                "get" => e.addons_get(&a).await,
                "addSkill" => e.addons_add_skill(&a).await,
                "addServer" => e.addons_add_server(&a).await,
                "update" => e.addons_update(&a, &b).await,
                "remove" => e.addons_remove(&a).await.map(|()| Value::Null),
                "refresh" => e.addons_refresh(&a).await,
                "oauth" => e.addons_oauth(&a, &b).await,
                "completeOAuth" => e.addons_complete_oauth(&a).await,
                other => Err(FxbotError::Internal {
                    message: format!("no add-on call {other}"),
                }),
            }
        })
    }

    /// `chat.send`: resolves `Sent` once the turn started; the turn runs on in the background.
    pub fn send(&self, bot: JsValue, message: JsValue) -> Promise {
        let engine = self.engine.clone();
        future_to_promise(async move {
            let sent = async {
                engine.check_open()?;
                let bot = bot_id(&bot)?;
                let message = Outgoing::from_json(&json(&message)?)?;
                engine.send(bot.as_str(), message).await
            };
            let (sent, pending) = sent.await.map_err(|e| fxbot_error(&e))?;
            if let Some(pending) = pending {
                let runner = engine.clone();
                spawn_local(async move {
                    runner.run(pending).await;
                    // The finished turn's message gets its vector.
                    runner.fill_in().await;
                });
            }
            Ok(to_js(&sent))
        })
    }

    /// Opens `chat.stream` (and reads `turns()`): the first batch, `{ lines, end, live, epoch }`,
    /// read from the store.
    pub fn stream(&self, bot: JsValue, at: JsValue, session_id: JsValue) -> Promise {
        let session = session_id.as_string();
        call!(self, |e| e
            .stream(&bot_id(&bot)?, cursor(&at)?, session.as_deref())
            .await)
    }

    /// The next batch of an open stream, from memory: `{ lines, end, live, epoch }`.
    pub fn follow(&self, bot: JsValue, at: JsValue, epoch: f64) -> Promise {
        call!(self, |e| e
            .follow(&bot_id(&bot)?, cursor(&at)?, epoch as u64)
            .await)
    }

    /// Resolves true when the stream has more after `cursor`, false when it should end.
    pub fn wait(&self, bot: JsValue, at: JsValue, epoch: f64) -> Promise {
        let engine = self.engine.clone();
        future_to_promise(async move {
            let more = match (bot_id(&bot), cursor(&at)) {
                (Ok(bot), Ok(at)) => engine.wait(&bot, at, epoch as u64).await,
                _ => false,
            };
            Ok(JsValue::from_bool(more))
        })
    }

    pub fn stop(&self, bot: JsValue) -> Promise {
        call!(self, |e| e.stop(bot_id(&bot)?.as_str()).await)
    }

    pub fn busy(&self, bot: JsValue) -> bool {
        bot_id(&bot).is_ok_and(|bot| self.engine.busy(&bot))
    }

    /// `release(botId?)`: of one bot (400/404 for its id) or of every bot.
    pub fn release(&self, bot: JsValue) -> Promise {
        call!(self, |e| {
            let bot = match arg::<Arg<String>>(&bot)? {
                Arg::Absent => None,
                given => Some(BotId::from_arg(given)?),
            };
            e.release_bot(bot.as_ref()).await
        })
    }

    pub fn close(&self) {
        self.engine.close();
    }
}
