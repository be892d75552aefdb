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
use super::super::settings::{
    self, check_new_provider, provider_key, secret_key, Kind, NewProviderArg, ProviderDoc,
    SecretDoc, SettingsArg, SettingsDoc,
};
use super::super::store::{self, load, Step};
use super::{not_found, Fxbot};

impl<H: Host + Clone, D: DocStore> Fxbot<H, D> {
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
            extra: std::collections::BTreeMap::new(),
        }
    }

    /// `providers.add(provider)`: a `gateway` provider with its key.
    ///
    /// # Errors
    /// 400 by the rules of [`check_new_provider`].
    pub async fn providers_add(
        &self,
        provider: Object<NewProviderArg>,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let new = check_new_provider(provider)?;
        let secret = SecretDoc {
            schema: SCHEMA,
            api_key: Some(new.api_key),
        };
        let doc = ProviderDoc {
            has_key: true,
            ..self.new_provider_doc(new.kind, new.name, new.model)
        };
        self.store_provider(&encode(&secret), &doc).await
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
