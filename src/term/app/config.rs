//! The session's settings: the model (checked against the catalog), the permission mode
//! (switched at once when idle, else when the running turn ends) and the reasoning effort, as
//! they are asked for and as the driver reports them applied.

use crate::agent::modes::Mode;

use super::{App, Effect};
use crate::gateway::Effort;

impl App {
    /// Sets the session's model and mode (after start, restore or a config change).
    pub(crate) fn set_session(&mut self, session_id: &str, model: &str, mode: &str) {
        self.session.id = session_id.to_owned();
        self.session.model = model.to_owned();
        self.session.mode = Mode::parse(mode).unwrap_or_default();
        self.set_title();
    }

    /// The catalog's model ids with their reasoning efforts, for `/model` and `/models`.
    pub(crate) fn set_models(&mut self, models: Vec<(String, Vec<String>)>) {
        self.catalog.set(models);
        self.screens.touch();
    }

    /// The catalog could not be loaded (the current model keeps working).
    pub(crate) fn on_catalog_failed(&mut self, message: &str) {
        self.catalog.failed(message);
        self.screens.touch();
    }

    /// Asks the driver for the catalog unless it was asked already.
    pub(super) fn want_catalog(&mut self) {
        if self.catalog.request() {
            self.effects.push(Effect::LoadCatalog);
        }
    }

    /// `/model <id> [effort]`, or a model picked on the screen.
    pub(super) fn set_model(&mut self, id: &str, effort: Option<String>) {
        if crate::agent::modes::validate_model_id(id).is_err() {
            self.notice(&format!("Model: \"{id}\" is not a valid model id"));
            return;
        }
        if self.turn.is_running() {
            self.notice("Model: wait for the turn to finish (or press Esc) before switching");
            return;
        }
        self.effects.push(Effect::SetModel {
            model: id.to_owned(),
            effort,
        });
    }

    /// The catalog does not list model `id`, which was taken anyway (the gateway serves more
    /// models than it lists): say so and offer the nearest ones it does list.
    pub(crate) fn on_unlisted_model(&mut self, id: &str, nearest: &[String]) {
        let suggestion = match nearest {
            [] => String::new(),
            [one] => format!(" Did you mean /model {one}?"),
            [first, rest @ ..] => format!(" Did you mean /model {first} (or {})?", rest.join(", ")),
        };
        self.notice(&format!(
            "Model: {id} is not in the model catalog; using it anyway, the gateway may still serve it.{suggestion} /models lists them all."
        ));
    }

    /// Switches the permission mode: at once when idle, else when the running turn ends.
    ///
    /// # Errors
    /// Why not: `ask` under a host that runs every command without asking.
    pub(crate) fn switch_mode(
        &mut self,
        mode: Mode,
        source: &'static str,
    ) -> Result<(), &'static str> {
        if self.caps.sandboxed && mode == Mode::Ask {
            return Err("this host runs every command without asking (its workspace permission is allow-sandboxed), so ask is not available");
        }
        if self.turn.is_running() || self.session.applying_config {
            self.session.pending_mode = Some(mode);
            self.notice(&format!(
                "Permissions: switching to {} when this turn ends",
                mode.permission_mode()
            ));
            return Ok(());
        }
        self.session.pending_mode = None;
        self.session.applying_config = true;
        self.effects.push(Effect::SetConfig {
            id: "mode",
            value: mode.id().to_owned(),
            source,
        });
        Ok(())
    }

    /// Shift+Tab: ask ⇄ auto.
    pub(super) fn toggle_mode(&mut self) {
        let next = match self.permission() {
            Mode::Ask => Mode::Code,
            Mode::Code => Mode::Ask,
        };
        if let Err(why) = self.switch_mode(next, "terminal") {
            self.notice(&format!("Permissions: {why}"));
        }
    }

    /// A config change ended (applied or not): queued prompts may go on.
    pub(crate) fn on_config_done(&mut self) {
        self.session.applying_config = false;
        if !self.turn.is_running() {
            if let Some(mode) = self.session.pending_mode.take() {
                let _ = self.switch_mode(mode, "terminal");
                return;
            }
        }
        if !self.queue.is_held() {
            self.start_queued();
        }
    }

    /// The driver applied a reasoning effort.
    pub(crate) fn on_effort_applied(&mut self, effort: &str) {
        self.session.effort = Effort::parse(effort).unwrap_or_default();
        self.notice(&format!("Effort: {effort}"));
    }

    /// The driver applied a config value.
    pub(crate) fn on_config_applied(&mut self, id: &str, value: &str) {
        match id {
            "model" => {
                self.session.model = value.to_owned();
                self.notice(&format!("Switched to {value}"));
                self.set_title();
            }
            "mode" => {
                self.session.mode = Mode::parse(value).unwrap_or_default();
                let text = match self.permission() {
                    Mode::Code => "Permissions: auto · commands run without asking",
                    Mode::Ask => "Permissions: ask · fx asks before each command",
                };
                self.notice(text);
            }
            _ => {}
        }
    }
}
