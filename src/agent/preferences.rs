//! The session preferences an agent changes on the host's or the user's behalf: `model` and
//! `mode` (host config options, persisted through the config store and restored at open), the
//! reasoning effort and the session's name (both stored in the session log).
//!
//! A change stored in the session log is committed before it counts: one the store refuses is
//! taken back, so it is applied nowhere. The config store write comes after, without holding
//! the session (a slow or hanging `configStore.set` never blocks a prompt).

use crate::log::event::PreferencesChange;

use super::core::{Agent, AgentError, Opened};
use super::modes::{validate_model_id, Mode};
use super::session::LiveSession;
use crate::caps::{Host, HostEvent};

impl<H: Host> Agent<H> {
    /// Sets `model` or `mode` and writes it to the config store. Returns the session's options
    /// after.
    ///
    /// A well-formed model the loaded catalog does not list is taken (the gateway serves more
    /// models than the catalog lists), with a `config.model_unlisted` event naming the nearest
    /// catalog ids.
    ///
    /// # Errors
    /// [`AgentError::InvalidModel`] for a malformed id, [`AgentError::InvalidMode`],
    /// [`AgentError::InvalidConfigOption`] for an id other than `model` and `mode`;
    /// [`AgentError::Session`] when the model change cannot be stored (it is then not
    /// applied). A refused value changes nothing and emits nothing.
    pub async fn set_config(
        &self,
        id: &str,
        config_id: &str,
        value: &str,
        source: &'static str,
    ) -> Result<Opened, AgentError> {
        let (opened, previous, _) = self
            .apply_config_option(id, config_id, value, source)
            .await?;
        self.store_config(config_id, value, previous, source).await;
        Ok(opened)
    }

    /// The first half of [`Self::set_config`]: applies the value to session `id` (committing a
    /// model change to its log). Returns the options after, the value it replaced and, for a
    /// model the catalog does not list, the nearest ids it does (also reported as
    /// `config.model_unlisted`); the session is free again when this returns.
    ///
    /// # Errors
    /// As [`Self::set_config`].
    pub async fn apply_config_option(
        &self,
        id: &str,
        config_id: &str,
        value: &str,
        source: &'static str,
    ) -> Result<(Opened, String, Option<Vec<String>>), AgentError> {
        self.check_open()?;
        if config_id == "model" && validate_model_id(value).is_ok() {
            // The catalog tells whether it lists the model (fetched now if it was not; the
            // session is not held meanwhile).
            let _ = self.ensure_catalog(super::core::CATALOG_WAIT_MS).await;
        }
        let mut session = self.take_for_change(id)?;
        let result = self
            .apply_config(&mut session, config_id, value, source)
            .await;
        let opened = self.describe(&session, Vec::new());
        self.put_back_changed(id, session);
        result.map(|(previous, unlisted)| (opened, previous, unlisted))
    }

    /// The second half of [`Self::set_config`]: writes an applied value to the config store
    /// (a failure, or no answer by the deadline, is `config.persist_error`), then reports
    /// `config.changed`.
    pub async fn store_config(
        &self,
        config_id: &str,
        value: &str,
        previous: String,
        source: &'static str,
    ) {
        if let Err(error) = self.host.config_set(config_id, value).await {
            self.host.event(HostEvent::ConfigPersistError {
                id: config_id.to_owned(),
                message: error.message().to_owned(),
            });
        }
        self.host.event(HostEvent::ConfigChanged {
            id: config_id.to_owned(),
            previous: Some(previous),
            value: value.to_owned(),
            source,
        });
    }

    /// Applies `model` or `mode` to the session; returns the value it replaced and, for a
    /// changed model the loaded catalog does not list, the nearest ids it does (reported as
    /// `config.model_unlisted` once the change is stored).
    async fn apply_config(
        &self,
        session: &mut LiveSession,
        config_id: &str,
        value: &str,
        source: &'static str,
    ) -> Result<(String, Option<Vec<String>>), AgentError> {
        match config_id {
            "model" => {
                validate_model_id(value).map_err(|e| AgentError::InvalidModel(e.to_string()))?;
                let previous = session.state().preferences.model.clone();
                if previous == value {
                    return Ok((previous, None));
                }
                if source == "restore" && session.is_blank() {
                    // Restored into a session that has nothing yet: where it starts, not a
                    // change to keep (it stays unstored until its first turn).
                    let mut preferences = session.state().preferences.clone();
                    preferences.model = value.to_owned();
                    session.restart_blank(&self.host, preferences)?;
                } else {
                    let change = PreferencesChange {
                        model: Some(value.to_owned()),
                        ..PreferencesChange::default()
                    };
                    session
                        .change_and_persist(&self.host, |s| {
                            s.change_preferences(&self.host, change)
                        })
                        .await?;
                }
                let unlisted = self.unlisted(value);
                if let Some(nearest) = &unlisted {
                    self.host.event(HostEvent::ModelUnlisted {
                        model: value.to_owned(),
                        nearest: nearest.clone(),
                        source,
                    });
                }
                Ok((previous, unlisted))
            }
            "mode" => {
                let mode =
                    Mode::parse(value).ok_or_else(|| AgentError::InvalidMode(value.to_owned()))?;
                let previous = session.mode.id().to_owned();
                session.mode = mode;
                Ok((previous, None))
            }
            _ => Err(AgentError::InvalidConfigOption(config_id.to_owned())),
        }
    }

    /// For a model the loaded catalog does not list, the nearest ids it does (`None` while no
    /// catalog is loaded: there is nothing to compare with; a restored value does not fetch
    /// it, so that a plain turn costs one request).
    fn unlisted(&self, id: &str) -> Option<Vec<String>> {
        let catalog = self.catalog.borrow();
        let catalog = catalog.as_ref()?;
        (!catalog.models.is_empty() && catalog.get(id).is_none()).then(|| catalog.nearest(id, 3))
    }

    /// The reasoning efforts the catalog lists for `model` (empty when it lists none or the
    /// catalog is not loaded).
    pub fn model_efforts(&self, model: &str) -> Vec<String> {
        self.catalog
            .borrow()
            .as_ref()
            .and_then(|catalog| catalog.get(model).map(|m| m.efforts.clone()))
            .unwrap_or_default()
    }

    /// Sets the session's reasoning effort (`auto` or a named level) and stores the change in
    /// the session log (it is not a host config option).
    ///
    /// # Errors
    /// [`AgentError::InvalidEffort`]; [`AgentError::Session`] when it cannot be stored.
    pub async fn set_effort(&self, id: &str, effort: &str) -> Result<(), AgentError> {
        self.check_open()?;
        let parsed = crate::gateway::catalog::Effort::parse(effort)
            .ok_or_else(|| AgentError::InvalidEffort(effort.to_owned()))?;
        let value = parsed.as_str().to_owned();
        let mut session = self.take(id)?;
        let result = if session.state().preferences.effort == value {
            Ok(())
        } else {
            let change = PreferencesChange {
                effort: Some(value),
                ..PreferencesChange::default()
            };
            session
                .change_and_persist(&self.host, |s| s.change_preferences(&self.host, change))
                .await
                .map_err(AgentError::from)
        };
        self.put_back(id, session);
        result
    }

    /// Names session `id` and stores the name; returns the title as stored (one line, at most
    /// 240 bytes).
    ///
    /// # Errors
    /// [`AgentError::Session`] when the title is empty or the session cannot be stored.
    pub async fn rename_session(&self, id: &str, title: &str) -> Result<String, AgentError> {
        self.check_open()?;
        let mut session = self.take(id)?;
        let result = session
            .change_and_persist(&self.host, |s| s.rename(title))
            .await
            .map_err(AgentError::from);
        self.put_back(id, session);
        result
    }

    /// Applies the host's stored `model` and `mode`; failures become events.
    pub(super) async fn restore_config(&self, session: &mut LiveSession) {
        for id in ["model", "mode"] {
            let current = match id {
                "model" => session.state().preferences.model.clone(),
                _ => session.mode.id().to_owned(),
            };
            match self.host.config_get(id).await {
                Ok(Some(value)) if value != current => {
                    let accepted = match id {
                        "model" => validate_model_id(&value).is_ok(),
                        _ => Mode::parse(&value).is_some(),
                    };
                    if !accepted {
                        self.host.event(HostEvent::ConfigRestoreError {
                            id: id.to_owned(),
                            message: format!("the stored {id} value is not valid"),
                        });
                        continue;
                    }
                    // A stored model the catalog does not list is taken as a new one is (with a
                    // `config.model_unlisted` warning when the catalog is loaded).
                    match self.apply_config(session, id, &value, "restore").await {
                        Ok((previous, _)) => self.host.event(HostEvent::ConfigChanged {
                            id: id.to_owned(),
                            previous: Some(previous),
                            value,
                            source: "restore",
                        }),
                        Err(error) => self.host.event(HostEvent::ConfigRestoreError {
                            id: id.to_owned(),
                            message: error.to_string(),
                        }),
                    }
                }
                Ok(_) => {}
                Err(error) => self.host.event(HostEvent::ConfigRestoreError {
                    id: id.to_owned(),
                    message: error.message().to_owned(),
                }),
            }
        }
    }
}
