//! `addons.oauth` and `addons.completeOAuth` (fxbot DESIGN §9.3 "OAuth"): a sign-in to an MCP
//! server that needs one, started in one tab and completed from any (the pending `state`, PKCE
//! verifier and redirect live in `secret/addon/<id>.pending` for 10 minutes), its tokens kept
//! only in the server's secret and refreshed before they expire.

use serde_json::Value;

use crate::caps::{Cancel, Clock, DocStore, Host, Http};
use crate::mcp::client::McpClient;
use crate::mcp::names::initially_allowed;
use crate::mcp::oauth::{self, OAuthError, PENDING_TTL_MS, REDIRECT_PATH, REFRESH_MARGIN_MS};

use super::super::addon::{
    check_origin, pending_key, secret_key, AddonError, AddonRef, OAuthClient, PendingSignIn,
    ServerDoc, ServerSecret, TokenRecord, SECRET_PREFIX,
};
use super::super::docs::SCHEMA;
use super::super::error::{Entity, FxbotError};
use super::super::store::{self, load, Step};
use super::{not_found, Fxbot};

fn oauth_failed(error: OAuthError) -> FxbotError {
    match error {
        OAuthError::Callback(message) => AddonError::Callback(format!(
            "the callback URL is not a sign-in answer: {message}"
        ))
        .into(),
        OAuthError::Refused(code) => AddonError::Callback(format!(
            "the authorization server refused the sign-in ({code})"
        ))
        .into(),
        other => FxbotError::ProviderFailed {
            message: other.to_string(),
        },
    }
}

/// The options of `oauth(ref, options)`: the page's origin, and where its callback page is.
fn read_options(options: &Value) -> Result<(String, String), FxbotError> {
    let object = options.as_object().ok_or(AddonError::OAuthOptions)?;
    let origin = object
        .get("origin")
        .and_then(Value::as_str)
        .ok_or(AddonError::OAuthOptions)?;
    let origin = check_origin(origin)?;
    let path = match object.get("redirectPath") {
        None | Some(Value::Null) => REDIRECT_PATH.to_owned(),
        Some(Value::String(path))
            if path.starts_with('/')
                && !path.starts_with("//")
                && path.len() <= 256
                && !path.contains(['?', '#', '\\'])
                && !path.chars().any(char::is_control) =>
        {
            path.clone()
        }
        Some(_) => return Err(AddonError::OAuthOptions.into()),
    };
    let client_metadata = object
        .get("clientMetadataUrl")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok((format!("{origin}{path}"), client_metadata))
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    async fn server_doc(&self, reference: &AddonRef) -> Result<ServerDoc, FxbotError> {
        let missing = || not_found(Entity::Addon, reference);
        match reference {
            AddonRef::Server(_) => Ok(load::<ServerDoc, D>(&self.docs, &reference.key())
                .await?
                .ok_or_else(missing)?
                .doc),
            AddonRef::Skill(_) => Err(AddonError::NotFor {
                field: "oauth",
                kind: "skill",
            }
            .into()),
        }
    }

    /// `addons.oauth(ref, { origin })`: the URL the owner opens to sign in.
    ///
    /// # Errors
    /// 400 for the reference, the origin or a server that does not use OAuth; 404 for an unknown
    /// server; 502 when its metadata cannot be read or it offers no way to register a client.
    pub async fn addons_oauth(
        &self,
        reference: &Value,
        options: &Value,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let reference = AddonRef::from_json(reference)?;
        let doc = self.server_doc(&reference).await?;
        if doc.auth != "oauth" {
            return Err(AddonError::NotOAuth(doc.id.to_string()).into());
        }
        let (redirect_uri, client_metadata) = read_options(options)?;
        let cancel = Cancel::new();
        let found = oauth::discover(
            &self.host,
            &doc.url,
            doc.resource_metadata.as_deref(),
            &cancel,
        )
        .await
        .map_err(oauth_failed)?;
        let client_id = match &doc.oauth_client {
            Some(client)
                if client.issuer == found.issuer && client.redirect_uri == redirect_uri =>
            {
                client.client_id.clone()
            }
            _ if found.client_id_metadata && !client_metadata.is_empty() => client_metadata,
            _ => {
                let Some(endpoint) = &found.registration_endpoint else {
                    return Err(oauth_failed(OAuthError::NoClient));
                };
                let client_id = oauth::register(&self.host, endpoint, &redirect_uri, &cancel)
                    .await
                    .map_err(oauth_failed)?;
                let client = OAuthClient {
                    issuer: found.issuer.clone(),
                    client_id: client_id.clone(),
                    redirect_uri: redirect_uri.clone(),
                };
                store::update::<ServerDoc, D, ()>(
                    &self.docs,
                    &reference.key(),
                    || None,
                    |d| {
                        if let Some(d) = d {
                            d.oauth_client = Some(client.clone());
                        }
                        Ok(Step::Write(()))
                    },
                )
                .await?;
                client_id
            }
        };
        let mut bytes = [0u8; 32];
        self.host.fill_random(&mut bytes);
        let verifier = oauth::random_token(&bytes);
        self.host.fill_random(&mut bytes);
        let state = oauth::random_token(&bytes);
        let url = oauth::authorize_url(&found, &client_id, &redirect_uri, &verifier, &state);
        let pending = PendingSignIn {
            schema: SCHEMA,
            server: doc.id.clone(),
            state,
            verifier,
            redirect_uri,
            client_id,
            token_endpoint: found.token_endpoint,
            resource: found.resource,
            created_at_ms: self.host.now_ms(),
        };
        // A newer sign-in replaces an older one of the same server.
        let key = pending_key(&doc.id);
        store::update::<PendingSignIn, D, ()>(
            &self.docs,
            &key,
            || Some(pending.clone()),
            |p| {
                if let Some(p) = p {
                    p.clone_from(&pending);
                }
                Ok(Step::Write(()))
            },
        )
        .await?;
        Ok(serde_json::json!({ "url": url }))
    }

    /// `addons.completeOAuth(callbackUrl)`: from any tab on the same stores.
    ///
    /// # Errors
    /// 400 for a callback of no waiting sign-in (a wrong `state`), an expired one, or one the
    /// authorization server refused; 502 when the code exchange or the listing fails.
    pub async fn addons_complete_oauth(&self, callback: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let Some(url) = callback.as_str() else {
            return Err(AddonError::Callback(
                "completeOAuth takes the callback URL, a string".into(),
            )
            .into());
        };
        let answer = oauth::read_callback(url).map_err(oauth_failed)?;
        let mut found = None;
        for listed in store::list(&self.docs, SECRET_PREFIX).await? {
            if !listed.key.ends_with(".pending") {
                continue;
            }
            if let Some(p) = load::<PendingSignIn, D>(&self.docs, &listed.key).await? {
                if p.doc.state == answer.state {
                    found = Some((listed.key, p.doc));
                    break;
                }
            }
        }
        let Some((key, pending)) = found else {
            return Err(AddonError::UnknownState.into());
        };
        // The state is spent whatever happens next: a callback is answered once.
        store::remove(&self.docs, &key).await?;
        if self.host.now_ms().saturating_sub(pending.created_at_ms) > PENDING_TTL_MS {
            return Err(AddonError::Expired.into());
        }
        let reference = AddonRef::Server(pending.server.clone());
        let doc = self.server_doc(&reference).await?;
        let cancel = Cancel::new();
        let tokens = oauth::exchange_code(
            &self.host,
            &pending.token_endpoint,
            &pending.client_id,
            &answer.code,
            &pending.verifier,
            &pending.redirect_uri,
            &pending.resource,
            &cancel,
        )
        .await
        .map_err(oauth_failed)?;
        let record = TokenRecord {
            access: tokens.access,
            refresh: tokens.refresh,
            expires_at_ms: tokens.expires_at_ms,
            token_endpoint: pending.token_endpoint,
            client_id: pending.client_id,
            resource: pending.resource,
        };
        store_tokens(&self.docs, &doc, record.clone()).await?;
        let headers = vec![(
            "authorization".to_owned(),
            format!("Bearer {}", record.access),
        )];
        let client = McpClient::new(doc.url.clone(), headers);
        let tools = client.list_tools(&self.host, &cancel).await;
        let version = client.version().map(str::to_owned);
        let first = doc.tools.is_empty() && doc.allowed.is_empty();
        store::update::<ServerDoc, D, ServerDoc>(
            &self.docs,
            &reference.key(),
            || None,
            |d| {
                let d = d.ok_or_else(|| not_found(Entity::Addon, &reference))?;
                d.signed_in = true;
                match &tools {
                    Ok(tools) => {
                        d.relisted(tools);
                        if first {
                            d.allowed = initially_allowed(tools);
                        }
                        d.protocol_version.clone_from(&version);
                        d.error = None;
                    }
                    Err(error) => d.error = Some(error.to_string()),
                }
                Ok(Step::Write(d.clone()))
            },
        )
        .await
        .map(|d| d.view())
    }
}

/// Keeps `record` as the server's tokens.
async fn store_tokens<D: DocStore>(
    docs: &D,
    doc: &ServerDoc,
    record: TokenRecord,
) -> Result<(), FxbotError> {
    store::update::<ServerSecret, D, ()>(
        docs,
        &secret_key(&doc.id),
        || {
            Some(ServerSecret {
                schema: SCHEMA,
                ..ServerSecret::default()
            })
        },
        |secret| {
            if let Some(secret) = secret {
                secret.oauth = Some(record.clone());
            }
            Ok(Step::Write(()))
        },
    )
    .await
}

/// The headers of a request to `doc`: its own, and an OAuth server's bearer (refreshed first
/// when it expires within a minute, or when `renew`: the server answered 401).
///
/// # Errors
/// 400 for an OAuth server that is not signed in; 502 when a refresh fails; 500 for the store.
pub async fn server_headers<H: Http + Clock + ?Sized, D: DocStore>(
    host: &H,
    docs: &D,
    doc: &ServerDoc,
    renew: bool,
) -> Result<Vec<(String, String)>, FxbotError> {
    let secret = load::<ServerSecret, D>(docs, &secret_key(&doc.id))
        .await?
        .map(|l| l.doc)
        .unwrap_or_default();
    let mut headers = secret.headers;
    if doc.auth != "oauth" {
        return Ok(headers);
    }
    let Some(mut record) = secret.oauth else {
        return Err(AddonError::Callback(format!(
            "server:{} is not signed in; sign in with addons.oauth",
            doc.id
        ))
        .into());
    };
    let stale = record
        .expires_at_ms
        .is_some_and(|at| at - REFRESH_MARGIN_MS <= host.now_ms());
    if renew || stale {
        if let Some(refresh_token) = record.refresh.clone() {
            let tokens = oauth::refresh(
                host,
                &record.token_endpoint,
                &record.client_id,
                &refresh_token,
                &record.resource,
                &Cancel::new(),
            )
            .await
            .map_err(oauth_failed)?;
            record.access = tokens.access;
            record.refresh = tokens.refresh;
            record.expires_at_ms = tokens.expires_at_ms;
            store_tokens(docs, doc, record.clone()).await?;
        }
    }
    headers.push((
        "authorization".to_owned(),
        format!("Bearer {}", record.access),
    ));
    Ok(headers)
}
