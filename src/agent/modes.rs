//! Session modes and the config options a session advertises (`model`, `mode`).
//!
//! `code` runs the workspace's commands under the host's policy without asking; `ask` asks the
//! user before each command when the host's workspace permission is `prompt`. The model option
//! lists the catalog's models (the current one appended when the catalog lacks it).

use serde::Serialize;

/// The product modes, in the order they are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    Code,
    #[default]
    Ask,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Code, Mode::Ask];

    pub fn id(self) -> &'static str {
        match self {
            Mode::Code => "code",
            Mode::Ask => "ask",
        }
    }

    pub fn parse(id: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|mode| mode.id() == id)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Code => "Code",
            Mode::Ask => "Ask",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Mode::Code => "Work freely: commands run without asking first",
            Mode::Ask => "Ask before running each command that needs approval",
        }
    }

    /// fx's permission-mode name for this mode.
    pub fn permission_mode(self) -> &'static str {
        match self {
            Mode::Code => "auto",
            Mode::Ask => "ask",
        }
    }
}

/// Why a model id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelIdError {
    #[error("model id is empty")]
    Empty,
    #[error("model id is longer than 1024 bytes")]
    TooLong,
    #[error("model id has leading or trailing whitespace")]
    Whitespace,
    #[error("model id contains a control character")]
    Control,
}

/// Checks a model id the way fx does before accepting it (no catalog membership check).
///
/// # Errors
/// The first rule the id breaks.
pub fn validate_model_id(id: &str) -> Result<(), ModelIdError> {
    if id.is_empty() {
        return Err(ModelIdError::Empty);
    }
    if id.len() > 1024 {
        return Err(ModelIdError::TooLong);
    }
    if id.trim() != id {
        return Err(ModelIdError::Whitespace);
    }
    if id.chars().any(char::is_control) {
        return Err(ModelIdError::Control);
    }
    Ok(())
}

/// One entry of `configOptions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOption {
    pub id: &'static str,
    pub name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
    pub category: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub current_value: String,
    pub options: Vec<ConfigValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigValue {
    pub value: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<&'static str>,
}

/// The `configOptions` list: the model (catalog ids, current appended if missing) then the mode.
pub fn config_options(catalog_ids: &[String], model: &str, mode: Mode) -> Vec<ConfigOption> {
    let mut models: Vec<ConfigValue> = catalog_ids
        .iter()
        .map(|id| ConfigValue {
            value: id.clone(),
            name: id.clone(),
            description: None,
            permission_mode: None,
        })
        .collect();
    if !catalog_ids.iter().any(|id| id == model) {
        models.push(ConfigValue {
            value: model.to_owned(),
            name: model.to_owned(),
            description: None,
            permission_mode: None,
        });
    }
    let modes = Mode::ALL
        .into_iter()
        .map(|m| ConfigValue {
            value: m.id().to_owned(),
            name: m.name().to_owned(),
            description: Some(m.description()),
            permission_mode: Some(m.permission_mode()),
        })
        .collect();
    vec![
        ConfigOption {
            id: "model",
            name: "Model",
            description: None,
            category: "model",
            kind: "select",
            current_value: model.to_owned(),
            options: models,
        },
        ConfigOption {
            id: "mode",
            name: "Session Mode",
            description: Some("How the agent asks before running commands"),
            category: "mode",
            kind: "select",
            current_value: mode.id().to_owned(),
            options: modes,
        },
    ]
}

/// The ACP `modes` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Modes {
    pub current_mode_id: &'static str,
    pub available_modes: Vec<ModeInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
}

pub fn modes(current: Mode) -> Modes {
    Modes {
        current_mode_id: current.id(),
        available_modes: Mode::ALL
            .into_iter()
            .map(|m| ModeInfo {
                id: m.id(),
                name: m.name(),
                description: m.description(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids() {
        assert!(validate_model_id("moonshotai/kimi-k3").is_ok());
        assert_eq!(validate_model_id(""), Err(ModelIdError::Empty));
        assert_eq!(validate_model_id(" a"), Err(ModelIdError::Whitespace));
        assert_eq!(validate_model_id("a\nb"), Err(ModelIdError::Control));
        assert_eq!(
            validate_model_id(&"a".repeat(1025)),
            Err(ModelIdError::TooLong)
        );
    }

    #[test]
    fn options_append_the_current_model() {
        let options = config_options(&["a/one".into()], "b/two", Mode::Code);
        let json = serde_json::to_value(&options).unwrap();
        assert_eq!(json[0]["currentValue"], "b/two");
        assert_eq!(json[0]["options"][1]["value"], "b/two");
        assert_eq!(json[1]["currentValue"], "code");
        assert_eq!(json[1]["options"][0]["permissionMode"], "auto");
        assert_eq!(json[1]["options"][1]["value"], "ask");
        assert!(json[0].get("description").is_none());
        assert_eq!(Mode::parse("ask"), Some(Mode::Ask));
        assert_eq!(Mode::parse("yolo"), None);
    }
}
