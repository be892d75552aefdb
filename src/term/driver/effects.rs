//! What the driver does for each [`Effect`] of the app: turns, config changes, session
//! switches, the prompt history, exports and renames, each reported back to the app.

use crate::agent::AgentError;
use crate::caps::acp::PermissionAnswer;
use crate::caps::{ConfigStore, Host, HostEvent, SessionStore, Ui};
use crate::term::app::{Effect, SessionEntry, TurnOutcome};

use super::{current, Shell, TermEnv};

impl<H: Host + Clone + 'static, E: TermEnv + 'static> Shell<H, E> {
    /// Runs one effect of the app.
    pub(super) fn execute(&self, effect: Effect) {
        let shell = self.clone();
        let agent = &self.inner.agent;
        match effect {
            Effect::Prompt { turn, text } => self.spawn(async move {
                let session = shell.inner.session.borrow().clone();
                let result = shell.inner.agent.prompt(&session, turn, text).await;
                let outcome = match result {
                    Ok(end) => {
                        let mut current = shell.inner.session.borrow_mut();
                        if *current == session && end.session_id != session {
                            *current = end.session_id.clone();
                            shell.inner.app.borrow_mut().follow_session(&end.session_id);
                        }
                        TurnOutcome::Ended(end.stop_reason)
                    }
                    Err(AgentError::NoCredential) if shell.inner.app.borrow().caps().oauth => {
                        TurnOutcome::Failed(
                            "no AI Gateway credential yet: run /login to sign in with Vercel, or set env.AI_GATEWAY_API_KEY (FX_AUTH_REQUIRED)".to_owned(),
                        )
                    }
                    Err(error) => TurnOutcome::Failed(error_text(&error)),
                };
                shell.inner.app.borrow_mut().on_turn_end(turn, outcome);
                // A refresh during the turn may have changed (or dropped) the login.
                shell.sync_auth();
                shell.after();
            }),
            Effect::Cancel { turn } => {
                agent.cancel(turn);
                agent.host().ui.answer(PermissionAnswer::Cancelled);
            }
            Effect::SetConfig { id, value, source } => self.spawn(async move {
                shell.apply_option(id, &value, source).await;
                shell.inner.app.borrow_mut().on_config_done();
                shell.after();
            }),
            Effect::SetModel { model, effort } => self.spawn(async move {
                // The model is checked against the catalog, so it is needed now.
                shell.catalog_ready().await;
                let agent = &shell.inner.agent;
                let ok = shell.apply_option("model", &model, "terminal").await;
                if let (true, Some(effort)) = (ok, effort) {
                    let current = shell.inner.session.borrow().clone();
                    let result = agent.set_effort(&current, &effort).await;
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(()) => app.on_effort_applied(&effort),
                        Err(error) => app.warning(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::NewSession => self.spawn(async move {
                let result = shell.inner.agent.create_session().await;
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(opened) => {
                            *shell.inner.session.borrow_mut() = opened.session_id.clone();
                            app.on_new_session(&opened.session_id);
                        }
                        Err(error) => app.on_switch_failed(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::ListSessions => self.spawn(async move {
                let result = shell.inner.agent.list_sessions().await;
                let mut entries = Vec::new();
                if let Ok(listed) = &result {
                    for l in listed.iter().take(50) {
                        let title = shell.session_title(&l.session_id).await;
                        entries.push(SessionEntry {
                            id: l.session_id.clone(),
                            title,
                            updated_at_ms: l.updated_at_ms,
                        });
                    }
                }
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(_) => app.on_sessions(entries),
                        Err(error) => app.warning(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::OpenSession(id) => self.spawn(async move {
                let result = shell.inner.agent.open_session(&id).await;
                {
                    let mut app = shell.inner.app.borrow_mut();
                    match result {
                        Ok(opened) => {
                            *shell.inner.session.borrow_mut() = opened.session_id.clone();
                            app.on_session_opened(
                                &opened.session_id,
                                opened.title.as_deref(),
                                &current(&opened, "model"),
                                &current(&opened, "mode"),
                                opened.history,
                            );
                        }
                        Err(error) => app.on_switch_failed(&error_text(&error)),
                    }
                }
                shell.after();
            }),
            Effect::AppendHistory(text) => self.spawn(async move {
                let notice = match shell.inner.env.history_append(&text).await {
                    Ok(outcome) if outcome == "record_too_large" => Some(
                        "History: this entry is too large for the prompt history and was not saved"
                            .to_owned(),
                    ),
                    // `duplicate` and `appended` both mean the history holds it.
                    Ok(_) => None,
                    Err(message) => Some(format!(
                        "History: could not save the prompt ({message}); it was still sent"
                    )),
                };
                if let Some(notice) = notice {
                    shell.inner.app.borrow_mut().notice(&notice);
                    shell.after();
                }
            }),
            Effect::Export => self.spawn(async move {
                let message = shell.export().await;
                shell.inner.app.borrow_mut().notice(&message);
                shell.after();
            }),
            Effect::Rename(title) => self.spawn(async move {
                let session = shell.inner.session.borrow().clone();
                let result = shell.inner.agent.rename_session(&session, &title).await;
                match result {
                    Ok(title) => shell.inner.app.borrow_mut().on_renamed(&title),
                    Err(error) => shell
                        .inner
                        .app
                        .borrow_mut()
                        .warning(&format!("Session: {}", error_text(&error))),
                }
                shell.after();
            }),
            Effect::Permission(answer) => agent.host().ui.answer(answer),
            Effect::LoadCatalog => self.start_catalog(),
            Effect::Login { .. }
            | Effect::CancelLogin { .. }
            | Effect::ChooseTeam { .. }
            | Effect::OpenUrl(_)
            | Effect::Logout => self.login_effect(effect),
            Effect::Exit(code) => {
                self.stop_login();
                self.spawn(async move {
                    // As `agent.close()` does: store what an earlier commit failed to store
                    // (bounded by the host's deadline); what still fails is `session.unsaved`.
                    let agent = &shell.inner.agent;
                    agent.close_sessions().await;
                    agent.shutdown();
                    agent.host().ui.answer(PermissionAnswer::Cancelled);
                    shell.flush();
                    shell.inner.env.exited(code);
                });
            }
        }
    }

    /// Applies config option `id` to the session on screen and shows it at once; then writes it
    /// to the config store (a slow write holds nothing up). True when it was applied.
    /// Applies a config value and shows the outcome; once the session is free again (and the
    /// screen updated) writes it to the config store. True when it was applied.
    async fn apply_option(&self, id: &'static str, value: &str, source: &'static str) -> bool {
        let session = self.inner.session.borrow().clone();
        let agent = &self.inner.agent;
        let result = agent.apply_config_option(&session, id, value, source).await;
        let previous = {
            let mut app = self.inner.app.borrow_mut();
            match result {
                Ok((_, previous, unlisted)) => {
                    app.on_config_applied(id, value);
                    if let Some(nearest) = unlisted {
                        app.on_unlisted_model(value, &nearest);
                    }
                    Some(previous)
                }
                Err(error) => {
                    app.warning(&error_text(&error));
                    None
                }
            }
        };
        self.after();
        let applied = previous.is_some();
        if let Some(previous) = previous {
            self.store_option(id, value, previous, source).await;
        }
        applied
    }

    /// Writes an applied value to the config store. As fx's terminal does, `config.changed`
    /// says the value was kept: it follows only a write the store took; a failed write (or no
    /// answer by the deadline) is `config.persist_error` alone, and a store without `set`
    /// keeps nothing and emits nothing. (The agent reports `config.changed` either way, as the
    /// reference agent does.)
    async fn store_option(
        &self,
        id: &'static str,
        value: &str,
        previous: String,
        source: &'static str,
    ) {
        let host = self.inner.agent.host();
        let event = match host.config_set(id, value).await {
            Ok(true) => HostEvent::ConfigChanged {
                id: id.to_owned(),
                previous: Some(previous),
                value: value.to_owned(),
                source,
            },
            Ok(false) => return,
            Err(error) => HostEvent::ConfigPersistError {
                id: id.to_owned(),
                message: error.message().to_owned(),
            },
        };
        host.event(event);
    }

    async fn export(&self) -> String {
        let session = self.inner.session.borrow().clone();
        let stored = match self.inner.agent.host().load_session(&session).await {
            Ok(Some(stored)) => stored,
            Ok(None) => {
                return "Export: nothing to export yet: a session is saved with its first prompt"
                    .into()
            }
            Err(error) => return format!("Export: {error}"),
        };
        let files = match crate::log::export_native(&stored.bytes) {
            Ok(files) => files,
            Err(error) => return format!("Export: {error}"),
        };
        let n = files.len();
        match self.inner.env.download(files).await {
            Ok(()) => format!("Export: offered {n} files of session {session}"),
            Err(message) => format!("Export: the host refused the download ({message})"),
        }
    }

    /// A stored session's title, as the log reader derives it.
    async fn session_title(&self, id: &str) -> String {
        let Ok(Some(stored)) = self.inner.agent.host().load_session(id).await else {
            return String::new();
        };
        crate::log::read_session(&stored.bytes)
            .map(|view| view.title)
            .unwrap_or_default()
    }
}

fn error_text(error: &AgentError) -> String {
    format!("{error} ({})", error.code())
}
