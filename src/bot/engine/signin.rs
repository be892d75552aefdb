//! `signIns.*` for part 1 (fxbot DESIGN §12.1): a Vercel account through the existing device
//! login (`src/auth`). `start` asks for a device code, opens the verification page through the
//! host and returns the pending `SignIn`; the polling runs as a [`SignInTask`]. An approved
//! sign-in adds a `vercel` provider whose secret is the login's OAuth record: exactly one team
//! is taken, several leave `teamId` null. Sign-ins live in memory only (a reload loses a
//! pending one, whose code expires in minutes).
//!
//! A turn's credential ([`Fxbot::credential`]): a key provider's API key, or a signed-in
//! provider's access token, refreshed first when it is within a minute of expiry, by the same
//! refresh as the terminal's login (`auth::resolve_credential`) over the provider's secret
//! record ([`SecretRecord`]: one record under compare-and-set, the `OAuthStore` contract).

use std::rc::Rc;

use serde_json::{json, Value};

use crate::agent::time::rfc3339_ms;
use crate::auth::{resolve_credential, DeviceLogin, PollOutcome, Resolution, TeamChoice};
use crate::caps::{Cancel, DocStore, Host, OAuthStore, RemoveOutcome, StoreError, StoredRecord};

use super::super::args::Arg;
use super::super::docs::decode;
use super::super::error::{Entity, FxbotError};
use super::super::ids::ProviderId;
use super::super::settings::{secret_key, Kind, ProviderDoc, SecretDoc};
use super::super::shown::shown;
use super::super::store::store_error;
use super::{not_found, Fxbot};

/// A provider's secret record in the document store, as the one stored login the `OAuthStore`
/// contract describes (the sign-in's refresh reads and writes it with compare-and-set).
pub struct SecretRecord<'a, D> {
    docs: &'a D,
    key: String,
}

impl<D: DocStore> OAuthStore for SecretRecord<'_, D> {
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        self.docs.doc_load(&self.key).await
    }
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let revision = self.docs.doc_commit(&self.key, &bytes, expected).await;
        crate::auth::secret::wipe(bytes);
        revision
    }
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        self.docs.doc_remove(&self.key, expected).await
    }
}

/// The polling of one sign-in, for [`Fxbot::signin_run`].
pub struct SignInTask {
    id: String,
    login: Rc<DeviceLogin>,
    cancel: Cancel,
}

impl std::fmt::Debug for SignInTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInTask")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A sign-in this process knows.
pub(super) struct SignIn {
    pub view: Value,
    pub cancel: Cancel,
    pub login: Rc<DeviceLogin>,
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    fn set_signin(&self, id: &str, change: impl FnOnce(&mut Value)) {
        let mut state = self.state.borrow_mut();
        if let Some(signin) = state.signins.get_mut(id) {
            change(&mut signin.view);
        }
        state.waiters.wake_signins();
    }

    /// `signIns.start(kind)`: `vercel` only in part 1.
    ///
    /// # Errors
    /// 400 for another kind; 502 when the device authorization fails.
    pub async fn signin_start(&self, kind: Arg<String>) -> Result<(Value, SignInTask), FxbotError> {
        self.check_open()?;
        match &kind {
            Arg::Given(k) if k == "vercel" => {}
            Arg::Given(other) if other == "chatgpt" || other == "grok" => {
                return Err(FxbotError::Invalid {
                    message: format!(
                        "signing in to {other} is not available in this version; only \"vercel\" is"
                    ),
                })
            }
            other => {
                let got = match other {
                    Arg::Given(text) => shown(text),
                    _ => other.found().to_owned(),
                };
                return Err(FxbotError::Invalid {
                    message: format!("signIns.start takes \"vercel\" in this version; got {got}"),
                });
            }
        }
        let cancel = Cancel::new();
        let login = DeviceLogin::start(&self.host, &self.host, &cancel, &self.config.auth)
            .await
            .map_err(|e| FxbotError::ProviderFailed {
                message: format!("the Vercel sign-in could not start: {e}"),
            })?;
        let login = Rc::new(login);
        let mut bytes = [0u8; 6];
        self.host.fill_random(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let code = login.code().clone();
        let view = json!({
            "id": id,
            "kind": "vercel",
            "status": "pending",
            "userCode": code.user_code,
            "verificationUri": code.verification_uri,
            "verificationUriComplete": code.verification_uri_complete,
            "expiresAt": rfc3339_ms(i64::try_from(code.expires_at_ms).unwrap_or(i64::MAX)),
            "provider": null,
            "error": null,
        });
        self.state.borrow_mut().signins.insert(
            id.clone(),
            SignIn {
                view: view.clone(),
                cancel: cancel.clone(),
                login: login.clone(),
            },
        );
        let _ = self.host.open_url(code.browser_url()).await;
        Ok((view, SignInTask { id, login, cancel }))
    }

    /// Polls a started sign-in to its end and records it (a `vercel` provider when approved).
    pub async fn signin_run(&self, task: SignInTask) {
        let SignInTask { id, login, cancel } = task;
        let outcome = login.wait(&self.host, &self.host, &cancel).await;
        let (status, error, provider) = match outcome {
            PollOutcome::Authorized(authorized) => {
                let choice = authorized
                    .team_choice(&self.host, &self.host, &cancel)
                    .await;
                let (teams, team) = match choice {
                    TeamChoice::NoTeams => (Vec::new(), None),
                    TeamChoice::Single(team) => (vec![team.id.clone()], Some(team)),
                    TeamChoice::Pick(teams) => (teams.into_iter().map(|t| t.id).collect(), None),
                };
                let record = authorized.into_record(team.as_ref());
                match self.providers_add_signed_in(&record, teams).await {
                    Ok(provider) => ("complete", None, provider),
                    Err(e) => ("failed", Some(e.to_string()), Value::Null),
                }
            }
            PollOutcome::Denied => ("denied", None, Value::Null),
            PollOutcome::Expired => ("expired", None, Value::Null),
            PollOutcome::Cancelled => ("cancelled", None, Value::Null),
            PollOutcome::Failed(e) => ("failed", Some(e.to_string()), Value::Null),
            other => (
                "failed",
                Some(format!("the sign-in ended unexpectedly ({other:?})")),
                Value::Null,
            ),
        };
        self.set_signin(&id, |view| {
            view["status"] = json!(status);
            view["error"] = json!(error);
            view["provider"] = provider;
        });
    }

    /// `signIns.get(id)`.
    ///
    /// # Errors
    /// 404 for a sign-in this process does not know.
    pub fn signin_get(&self, id: &str) -> Result<Value, FxbotError> {
        self.check_open()?;
        self.state
            .borrow()
            .signins
            .get(id)
            .map(|s| s.view.clone())
            .ok_or_else(|| not_found(Entity::SignIn, &id))
    }

    /// `signIns.wait(id)`: resolves once the sign-in is no longer pending.
    ///
    /// # Errors
    /// 404 for an unknown sign-in; 409 after `close`.
    pub async fn signin_wait(&self, id: &str) -> Result<Value, FxbotError> {
        loop {
            let view = self.signin_get(id)?;
            if view.get("status").and_then(Value::as_str) != Some("pending") {
                return Ok(view);
            }
            let receiver = self.state.borrow_mut().waiters.signin();
            if receiver.await.is_err() {
                return self.signin_get(id);
            }
        }
    }

    /// `signIns.cancel(id)`: stops the polling.
    ///
    /// # Errors
    /// 404 for an unknown sign-in.
    pub fn signin_cancel(&self, id: &str) -> Result<(), FxbotError> {
        self.check_open()?;
        let state = self.state.borrow();
        let signin = state
            .signins
            .get(id)
            .ok_or_else(|| not_found(Entity::SignIn, &id))?;
        signin.login.cancel();
        signin.cancel.cancel();
        Ok(())
    }
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    /// The credential of a turn on `provider` (id `id`): a key provider's API key, or a
    /// signed-in provider's access token, refreshed first when it expires within a minute
    /// (the refreshed record, with a rotated refresh token, is stored). `None`: no credential
    /// is stored.
    ///
    /// # Errors
    /// 502 when the sign-in cannot be refreshed (sign in again); 500 for the store.
    pub(super) async fn credential(
        &self,
        id: &ProviderId,
        provider: &ProviderDoc,
    ) -> Result<Option<String>, FxbotError> {
        let key = secret_key(id);
        match provider.kind {
            // ChatGPT and Grok sign-ins are not built yet: no such provider can be added.
            Kind::Chatgpt | Kind::Grok => Ok(None),
            Kind::Vercel => {
                let record = SecretRecord {
                    docs: &self.docs,
                    key,
                };
                let resolved =
                    resolve_credential(&record, &self.host, &self.host, &self.config.auth)
                        .await
                        .map_err(|e| FxbotError::ProviderFailed {
                            message: format!(
                                "the Vercel sign-in of provider {id} could not be refreshed ({e}); sign in again with signIns.start(\"vercel\")"
                            ),
                        })?;
                Ok(match resolved {
                    Resolution::Current(c) | Resolution::Refreshed(c) | Resolution::Adopted(c) => {
                        Some(c.access_token().to_owned())
                    }
                    Resolution::Absent | Resolution::Unusable(_) => None,
                })
            }
            // A key provider: its API key (none for a server without one).
            _ => {
                let stored = self
                    .docs
                    .doc_load(&key)
                    .await
                    .map_err(|e| store_error(&key, e))?;
                let Some(stored) = stored else {
                    return Ok(None);
                };
                Ok(decode::<SecretDoc>(&key, &stored.bytes)?.api_key)
            }
        }
    }
}
