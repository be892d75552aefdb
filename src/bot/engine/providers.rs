//! `settings.*` and `providers.*` (fxbot DESIGN §3.2, §3.4, §7 for part 1): the settings
//! document, and providers with their secrets (a gateway key, or a Vercel sign-in's OAuth
//! record).

use serde_json::Value;

use crate::auth::OAuthRecord;
use crate::caps::{DocStore, Host};

use super::super::args::Object;
use super::super::docs::{encode, keys, SCHEMA};
use super::super::error::{Entity, FxbotError};
use super::super::ids::ProviderId;
use super::super::kinds::Window;
use super::super::models::{llama_context, models_json, ollama_context, parse_model_list};
use super::super::settings::{
    self, check_new_provider, check_provider_patch, provider_key, secret_key, Kind, ModelEntry,
    ModelList, NewProviderArg, ProviderDoc, ProviderPatchArg, SecretDoc, SettingsArg, SettingsDoc,
};
use super::super::store::{self, load, Step};
use super::{not_found, Fxbot};

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    pub(super) async fn settings_doc(&self) -> Result<SettingsDoc, FxbotError> {
        Ok(load::<SettingsDoc, D>(&self.docs, keys::SETTINGS)
            .await?
            .map(|l| l.doc)
            .unwrap_or_default())
    }

    /// `settings.get()`.
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn settings_get(&self) -> Result<Value, FxbotError> {
        self.check_open()?;
        Ok(settings::settings_json(&self.settings_doc().await?))
    }

    /// `settings.update(patch)`: `defaultProvider` and `messageVectors` in part 1.
    ///
    /// # Errors
    /// 400 for a value outside the rules, an unknown provider or a memory-search change.
    pub async fn settings_update(&self, patch: Object<SettingsArg>) -> Result<Value, FxbotError> {
        self.check_open()?;
        let patch = settings::settings_patch(patch)?;
        if patch.is_empty() {
            return self.settings_get().await;
        }
        if let Some(Some(provider)) = &patch.default_provider {
            if self.provider_doc(provider).await?.is_none() {
                return Err(FxbotError::Invalid {
                    message: format!("defaultProvider {provider} is not a provider"),
                });
            }
        }
        // The embedder the update would leave: checked (and asked to embed a test string when
        // its source is new) before anything is stored, so a refused update changes nothing.
        let before = self.settings_doc().await?;
        let mut after = before.clone();
        patch.apply(&mut after);
        self.check_embedder(&before, &after).await?;
        let doc = store::update::<SettingsDoc, D, SettingsDoc>(
            &self.docs,
            keys::SETTINGS,
            || Some(SettingsDoc::default()),
            |doc| {
                let doc = doc.ok_or_else(|| FxbotError::Internal {
                    message: "no settings".to_owned(),
                })?;
                patch.apply(doc);
                Ok(Step::Write(doc.clone()))
            },
        )
        .await?;
        Ok(settings::settings_json(&doc))
    }

    pub(super) async fn provider_doc(
        &self,
        id: &ProviderId,
    ) -> Result<Option<ProviderDoc>, FxbotError> {
        Ok(load::<ProviderDoc, D>(&self.docs, &provider_key(id))
            .await?
            .map(|l| l.doc))
    }

    fn new_provider_doc(&self, kind: Kind, name: String, model: String) -> ProviderDoc {
        ProviderDoc {
            schema: SCHEMA,
            id: self.mint(|fill| ProviderId::mint(fill)),
            kind,
            name,
            base_url: None,
            model,
            context_window: None,
            team_id: None,
            has_key: false,
            signed_in: false,
            error: None,
            teams: Vec::new(),
            models: None,
            extra: std::collections::BTreeMap::new(),
        }
    }

    /// `providers.add(provider)`: a key or server provider, after the key check (§7.4): the
    /// kind's model list is asked for with the key; its answer is kept. The AI Gateway's list
    /// is public, so a `gateway` key is not checked (its first turn says whether it works).
    ///
    /// # Errors
    /// 400 by the rules of [`check_new_provider`], or when the provider rejects the key (401,
    /// 403); 502 when it fails (5xx, no answer within 10 s).
    pub async fn providers_add(
        &self,
        provider: Object<NewProviderArg>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let new = check_new_provider(provider)?;
        let mut doc = ProviderDoc {
            has_key: new.api_key.is_some(),
            base_url: new.base_url,
            context_window: new.context_window,
            ..self.new_provider_doc(new.kind, new.name, new.model)
        };
        if new.kind != Kind::Gateway {
            doc.models = self.fetch_models(&doc, new.api_key.as_deref()).await?;
        }
        let secret = SecretDoc {
            schema: SCHEMA,
            api_key: new.api_key,
        };
        self.store_provider(&encode(&secret), &doc).await
    }

    /// `providers.update(providerId, patch)`: a new key or address is checked as `add` checks
    /// it; a new key, address or team drops the kept model list (a checked one replaces it).
    ///
    /// # Errors
    /// 404 for an unknown provider; 400 by [`check_provider_patch`] (and for a team the account
    /// does not have) or a rejected key; 502 when the check fails.
    pub async fn providers_update(
        &self,
        id: &ProviderId,
        patch: Object<ProviderPatchArg>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let Some(old) = self.provider_doc(id).await? else {
            return Err(not_found(Entity::Provider, id));
        };
        let patch = check_provider_patch(old.kind, patch)?;
        if let Some(team) = &patch.team_id {
            if !old.teams.contains(team) {
                return Err(FxbotError::Invalid {
                    message: format!(
                        "teamId {} is not a team of this Vercel account",
                        super::super::shown::shown(team)
                    ),
                });
            }
        }
        let mut doc = old.clone();
        if let Some(name) = patch.name {
            doc.name = name;
        }
        if let Some(model) = patch.model {
            doc.model = model;
        }
        if let Some(window) = patch.context_window {
            doc.context_window = Some(window);
        }
        let new_address = patch.base_url.is_some() && patch.base_url != old.base_url;
        if let Some(url) = patch.base_url {
            doc.base_url = Some(url);
        }
        let new_team = patch.team_id.is_some() && patch.team_id != old.team_id;
        if patch.team_id.is_some() {
            doc.team_id = patch.team_id;
        }
        let new_key = patch.api_key.is_some();
        if new_key || new_address || new_team {
            doc.models = None;
        }
        if (new_key || new_address) && doc.kind != Kind::Gateway {
            let key = match &patch.api_key {
                Some(key) => Some(key.clone()),
                None => self.credential(id, &old).await?,
            };
            doc.models = self.fetch_models(&doc, key.as_deref()).await?;
        }
        if let Some(key) = patch.api_key {
            let secret = SecretDoc {
                schema: SCHEMA,
                api_key: Some(key),
            };
            store::commit(&self.docs, &secret_key(id), &encode(&secret), None).await?;
            doc.has_key = true;
        }
        let stored = doc.clone();
        let doc = store::update::<ProviderDoc, D, ProviderDoc>(
            &self.docs,
            &provider_key(id),
            || None,
            |current| match current {
                Some(current) => {
                    *current = ProviderDoc {
                        extra: current.extra.clone(),
                        ..stored.clone()
                    };
                    Ok(Step::Write(current.clone()))
                }
                None => Err(not_found(Entity::Provider, id)),
            },
        )
        .await?;
        Ok(doc.to_json())
    }

    /// `providers.models(providerId, {refresh})`: the kept model list, fetched first when there
    /// is none (or `refresh`), each `{id, contextWindow}` (the provider's `contextWindow` over
    /// what its server reports).
    ///
    /// # Errors
    /// 404 for an unknown provider; 400 for a rejected key; 502 when the list cannot be had.
    pub async fn providers_models(
        &self,
        id: &ProviderId,
        refresh: bool,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let Some(doc) = self.provider_doc(id).await? else {
            return Err(not_found(Entity::Provider, id));
        };
        if let (Some(list), false) = (&doc.models, refresh) {
            return Ok(models_json(&list.models, doc.context_window));
        }
        let key = self.credential(id, &doc).await?;
        let fetched = match self.fetch_models(&doc, key.as_deref()).await {
            Ok(fetched) => fetched,
            Err(error) => {
                self.set_provider_error(id, Some(error.to_string())).await;
                return Err(error);
            }
        };
        let models = fetched
            .as_ref()
            .map(|l| l.models.clone())
            .unwrap_or_default();
        store::update::<ProviderDoc, D, ()>(
            &self.docs,
            &provider_key(id),
            || None,
            |current| match current {
                Some(current) => {
                    current.models = fetched.clone();
                    current.error = None;
                    Ok(Step::Write(()))
                }
                None => Ok(Step::Keep(())),
            },
        )
        .await?;
        Ok(models_json(&models, doc.context_window))
    }

    /// Sets (or clears) `Provider.error`, why its agent didn't start (best effort: a store
    /// failure here leaves it as it was).
    pub(super) async fn set_provider_error(&self, id: &ProviderId, error: Option<String>) {
        let _ = store::update::<ProviderDoc, D, ()>(
            &self.docs,
            &provider_key(id),
            || None,
            |current| match current {
                Some(current) if current.error != error => {
                    current.error = error.clone();
                    Ok(Step::Write(()))
                }
                _ => Ok(Step::Keep(())),
            },
        )
        .await;
    }

    /// The base URL model calls of `doc` go under.
    pub(super) fn base_of(&self, doc: &ProviderDoc) -> String {
        match (doc.kind, &doc.base_url, doc.kind.info().base_url) {
            (Kind::Gateway | Kind::Vercel, _, _) => self.config.endpoint.origin().to_owned(),
            (_, Some(url), _) => url.clone(),
            (_, None, Some(url)) => url.to_owned(),
            (_, None, None) => String::new(),
        }
    }

    /// A GET (or POST) of `path` under the provider's base with its credential, answered
    /// within 10 s.
    async fn provider_call(
        &self,
        doc: &ProviderDoc,
        key: Option<&str>,
        path: &str,
        post: Option<Value>,
    ) -> Result<(u16, Vec<u8>), FxbotError> {
        use crate::caps::http::fetch_whole;
        use crate::caps::{Cancel, HttpRequest, Method};
        let base = self.base_of(doc);
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        if post.is_some() {
            headers.push(("content-type".to_owned(), "application/json".to_owned()));
        }
        headers.extend(crate::providers::auth_headers(doc.kind, key));
        let request = HttpRequest {
            method: if post.is_some() {
                Method::Post
            } else {
                Method::Get
            },
            url: format!("{base}{path}"),
            headers,
            body: post.map(|v| v.to_string().into_bytes()).unwrap_or_default(),
        };
        let failed = |why: String| FxbotError::ProviderFailed {
            message: format!(
                "the {} provider at {base} could not be reached: {why}",
                doc.kind.as_str()
            ),
        };
        let response = fetch_whole(
            &self.host,
            &self.host,
            request,
            8 << 20,
            10_000,
            &Cancel::new(),
        )
        .await
        .map_err(|e| failed(e.to_string()))?;
        Ok((response.status, response.body.to_vec()))
    }

    /// The key check and model list of §7.4: 2xx keeps the list, 404 passes with none, 401 and
    /// 403 are 400 "The provider rejected this key.", anything else is 502. A server kind's own
    /// context-window report fills the entries in.
    async fn fetch_models(
        &self,
        doc: &ProviderDoc,
        key: Option<&str>,
    ) -> Result<Option<ModelList>, FxbotError> {
        let info = doc.kind.info();
        let check = |status: u16, body: &[u8]| match status {
            200..=299 => Ok(true),
            404 => Ok(false),
            401 | 403 => Err(rejected()),
            // Gemini and xAI answer a bad key with 400 (`API_KEY_INVALID`, "Incorrect API key").
            400 if names_a_bad_key(body) => Err(rejected()),
            other => Err(FxbotError::ProviderFailed {
                message: format!(
                    "the {} provider answered {other} to the model list; try again later",
                    doc.kind.as_str()
                ),
            }),
        };
        if info.check_path != info.models_path {
            let (status, body) = self.provider_call(doc, key, info.check_path, None).await?;
            check(status, &body)?;
        }
        let (status, body) = self.provider_call(doc, key, info.models_path, None).await?;
        if !check(status, &body)? {
            return Ok(None);
        }
        let Some(mut models) = parse_model_list(&body) else {
            return Ok(None);
        };
        self.server_windows(doc, key, &mut models).await;
        Ok(Some(ModelList {
            fetched_at: self.host.now_ms(),
            models,
        }))
    }

    /// The context windows a server reports of its models (best effort: a failed report
    /// leaves the entry as the list had it).
    async fn server_windows(
        &self,
        doc: &ProviderDoc,
        key: Option<&str>,
        models: &mut [ModelEntry],
    ) {
        match doc.kind.info().window {
            Window::OllamaShow => {
                for model in models.iter_mut().take(32) {
                    let body = serde_json::json!({ "model": model.id });
                    if let Ok((200, body)) =
                        self.provider_call(doc, key, "/api/show", Some(body)).await
                    {
                        model.context_window = ollama_context(&body).or(model.context_window);
                    }
                }
            }
            Window::LmStudio => {
                if let Ok((200, body)) = self.provider_call(doc, key, "/api/v0/models", None).await
                {
                    for entry in parse_model_list(&body).unwrap_or_default() {
                        if let Some(model) = models.iter_mut().find(|m| m.id == entry.id) {
                            model.context_window = entry.context_window.or(model.context_window);
                        }
                    }
                }
            }
            Window::LlamaProps => {
                if let Ok((200, body)) = self.provider_call(doc, key, "/props", None).await {
                    if let Some(n) = llama_context(&body) {
                        models.iter_mut().for_each(|m| m.context_window = Some(n));
                    }
                }
            }
            Window::Catalog | Window::ModelList | Window::None => {}
        }
    }

    /// Stores a new provider: its secret first, then the document that names it.
    async fn store_provider(&self, secret: &[u8], doc: &ProviderDoc) -> Result<Value, FxbotError> {
        store::commit(&self.docs, &secret_key(&doc.id), secret, None).await?;
        store::commit(&self.docs, &provider_key(&doc.id), &encode(doc), None).await?;
        Ok(doc.to_json())
    }

    /// `providers.list()`.
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn providers_list(&self) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        let listed = store::list(&self.docs, settings::PROVIDER_PREFIX).await?;
        let mut out = Vec::new();
        for doc in listed {
            if let Some(p) = load::<ProviderDoc, D>(&self.docs, &doc.key).await? {
                out.push(p.doc.to_json());
            }
        }
        Ok(out)
    }

    /// `providers.get(providerId)`.
    ///
    /// # Errors
    /// 404 for an unknown provider.
    pub async fn providers_get(&self, id: &ProviderId) -> Result<Value, FxbotError> {
        self.check_open()?;
        self.provider_doc(id)
            .await?
            .map(|p| p.to_json())
            .ok_or_else(|| not_found(Entity::Provider, id))
    }

    /// `providers.remove(providerId)`: bots keep the id (their provider is gone); a default
    /// provider setting pointing at it is reset.
    ///
    /// # Errors
    /// 404 for an unknown provider.
    pub async fn providers_remove(&self, id: &ProviderId) -> Result<(), FxbotError> {
        self.check_open()?;
        if self.provider_doc(id).await?.is_none() {
            return Err(not_found(Entity::Provider, id));
        }
        store::remove(&self.docs, &provider_key(id)).await?;
        store::remove(&self.docs, &secret_key(id)).await?;
        let text = id.to_string();
        store::update::<SettingsDoc, D, ()>(
            &self.docs,
            keys::SETTINGS,
            || None,
            |doc| match doc {
                Some(doc) if doc.default_provider == text => {
                    doc.default_provider.clear();
                    Ok(Step::Write(()))
                }
                _ => Ok(Step::Keep(())),
            },
        )
        .await
    }

    /// Records a Vercel sign-in as a provider: its OAuth record (the access and refresh tokens:
    /// a turn refreshes an expiring token through it), and the one-team rule (exactly one team
    /// is taken; several leave `teamId` null).
    ///
    /// # Errors
    /// 500 for a store failure or a record too large to store.
    pub async fn providers_add_signed_in(
        &self,
        record: &OAuthRecord,
        teams: Vec<String>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let bytes = record.encode().map_err(|e| FxbotError::Internal {
            message: format!("the sign-in could not be recorded: {e}"),
        })?;
        let doc = ProviderDoc {
            team_id: settings::team_of(&teams),
            signed_in: true,
            teams,
            ..self.new_provider_doc(Kind::Vercel, Kind::Vercel.label().to_owned(), String::new())
        };
        let stored = self.store_provider(&bytes, &doc).await;
        crate::auth::secret::wipe(bytes);
        stored
    }
}

fn rejected() -> FxbotError {
    FxbotError::Invalid {
        message: "The provider rejected this key.".to_owned(),
    }
}

/// A 400's body that says the key is bad (`API_KEY_INVALID`, "API key not valid", "Incorrect
/// API key provided", "invalid api key").
fn names_a_bad_key(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body).to_ascii_lowercase();
    text.contains("api_key_invalid")
        || (text.contains("api key")
            && ["invalid", "incorrect", "not valid"]
                .iter()
                .any(|w| text.contains(w)))
}
