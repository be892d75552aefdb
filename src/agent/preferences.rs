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
    /// # Errors
    /// [`AgentError::InvalidModel`] for a malformed id, [`AgentError::UnknownModel`] for one the
    /// loaded catalog does not list (any well-formed id is taken while no catalog is loaded),
    /// [`AgentError::InvalidMode`], [`AgentError::InvalidConfigOption`] for an id other than
    /// `model` and `mode`; [`AgentError::Session`] when the model change cannot be stored (it
    /// is then not applied). A refused value changes nothing and emits nothing.
    pub async fn set_config(
        &self,
        id: &str,
        config_id: &str,
        value: &str,
        source: &'static str,
    ) -> Result<Opened, AgentError> {
        let (opened, previous) = self.apply_config_option(id, config_id, value).await?;
        self.store_config(config_id, value, previous, source).await;
        Ok(opened)
    }

    /// The first half of [`Self::set_config`]: applies the value to session `id` (committing a
    /// model change to its log). Returns the options after and the value it replaced; the
    /// session is free again when this returns.
    ///
    /// # Errors
    /// As [`Self::set_config`].
    pub async fn apply_config_option(
        &self,
        id: &str,
        config_id: &str,
        value: &str,
    ) -> Result<(Opened, String), AgentError> {
        self.check_open()?;
        let mut session = self.take(id)?;
        let result = self
            .apply_config(&mut session, config_id, value, true)
            .await;
        let opened = self.describe(&session, Vec::new());
        self.put_back(id, session);
        result.map(|previous| (opened, previous))
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

    /// Applies `model` or `mode` to the session; returns the value it replaced. With
    /// `check_catalog`, a model the loaded catalog does not list is refused.
    async fn apply_config(
        &self,
        session: &mut LiveSession,
        config_id: &str,
        value: &str,
        check_catalog: bool,
    ) -> Result<String, AgentError> {
        match config_id {
            "model" => {
                validate_model_id(value).map_err(|e| AgentError::InvalidModel(e.to_string()))?;
                let previous = session.state().preferences.model.clone();
                if check_catalog && previous != value {
                    self.check_in_catalog(value)?;
                }
                if previous != value && !check_catalog && session.is_blank() {
                    // Restored into a session that has nothing yet: where it starts, not a
                    // change to keep (it stays unstored until its first turn).
                    let mut preferences = session.state().preferences.clone();
                    preferences.model = value.to_owned();
                    session.restart_blank(&self.host, preferences)?;
                } else if previous != value {
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
                Ok(previous)
            }
            "mode" => {
                let mode =
                    Mode::parse(value).ok_or_else(|| AgentError::InvalidMode(value.to_owned()))?;
                let previous = session.mode.id().to_owned();
                session.mode = mode;
                Ok(previous)
            }
            _ => Err(AgentError::InvalidConfigOption(config_id.to_owned())),
        }
    }

    /// Refuses a model the loaded catalog does not list, naming the nearest ones it does.
    fn check_in_catalog(&self, id: &str) -> Result<(), AgentError> {
        let catalog = self.catalog.borrow();
        match catalog.as_ref() {
            Some(catalog) if !catalog.models.is_empty() && catalog.get(id).is_none() => {
                Err(AgentError::UnknownModel {
                    id: id.to_owned(),
                    nearest: catalog.nearest(id, 3),
                })
            }
            _ => Ok(()),
        }
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
                    // A stored model is not checked against the catalog: it was accepted when it
                    // was saved, perhaps under another credential's catalog (reference §5.2).
                    match self.apply_config(session, id, &value, false).await {
                        Ok(previous) => self.host.event(HostEvent::ConfigChanged {
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
