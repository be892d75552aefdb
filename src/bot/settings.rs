//! `settings` and `provider/<id>` documents (fxbot DESIGN §5.2), for WP1: `defaultProvider`
//! in the settings (the memory-search fields keep their defaults until memories land), and the
//! two provider kinds of part 1: `gateway` (an AI Gateway key) and `vercel` (a Vercel sign-in).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::docs::SCHEMA;
use super::error::FxbotError;
use super::ids::ProviderId;
use super::shown::{kind_of as kind, shown};

/// Prefix of every provider document.
pub const PROVIDER_PREFIX: &str = "provider/";
/// Prefix of every provider secret.
pub const SECRET_PREFIX: &str = "secret/provider/";
/// Longest API key.
pub const MAX_KEY_CHARS: usize = 4096;

/// `provider/<id>`.
pub fn provider_key(id: &ProviderId) -> String {
    format!("{PROVIDER_PREFIX}{id}")
}

/// `secret/provider/<id>`.
pub fn secret_key(id: &ProviderId) -> String {
    format!("{SECRET_PREFIX}{id}")
}

/// The `settings` document: the `Settings` of the JS surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsDoc {
    pub schema: u32,
    pub default_provider: String,
    pub embedder: String,
    pub embedding_provider: String,
    pub embedding_model: String,
    pub message_vectors: u32,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl Default for SettingsDoc {
    fn default() -> Self {
        SettingsDoc {
            schema: SCHEMA,
            default_provider: String::new(),
            embedder: "off".to_owned(),
            embedding_provider: String::new(),
            embedding_model: String::new(),
            message_vectors: 1000,
            extra: BTreeMap::new(),
        }
    }
}

/// The public view of the settings (without `schema`).
pub fn settings_json(doc: &SettingsDoc) -> Value {
    serde_json::json!({
        "defaultProvider": doc.default_provider,
        "embedder": doc.embedder,
        "embeddingProvider": doc.embedding_provider,
        "embeddingModel": doc.embedding_model,
        "messageVectors": doc.message_vectors,
    })
}

/// The `settings.update` patch of part 1: `defaultProvider` (`""` or a provider id); the
/// memory-search fields may only repeat their values (vectors come with memories).
///
/// # Errors
/// 400 for a value outside the rules.
pub fn settings_patch(patch: &Value) -> Result<Option<Option<ProviderId>>, FxbotError> {
    let Some(object) = patch.as_object() else {
        return Err(bad(format!(
            "settings.update takes an object, not {}",
            kind(patch)
        )));
    };
    let default = SettingsDoc::default();
    for (key, value) in object {
        let same = match key.as_str() {
            "embedder" => value.as_str() == Some(default.embedder.as_str()),
            "embeddingProvider" | "embeddingModel" => value.as_str() == Some(""),
            "messageVectors" => value.as_u64().is_some_and(|n| n <= 100_000),
            _ => true,
        };
        if !same {
            return Err(bad(format!(
                "{key} cannot be changed yet: memory search arrives with memories (only embedder \"off\" is available)"
            )));
        }
    }
    match object.get("defaultProvider") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.is_empty() => Ok(Some(None)),
        Some(Value::String(text)) => Ok(Some(Some(ProviderId::parse(text)?))),
        Some(other) => Err(bad(format!(
            "defaultProvider must be a string, not {}",
            kind(other)
        ))),
    }
}

/// A provider kind of part 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The AI Gateway with an API key.
    Gateway,
    /// A Vercel account, added by signing in.
    Vercel,
}

/// The kinds table of part 1: `(kind, label, signs in)`.
pub const KINDS: &[(Kind, &str, bool)] = &[
    (Kind::Gateway, "AI Gateway", false),
    (Kind::Vercel, "Vercel", true),
];

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Gateway => "gateway",
            Kind::Vercel => "vercel",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::Gateway => "AI Gateway",
            Kind::Vercel => "Vercel",
        }
    }

    /// The kinds table as the JS surface shows it (`providers.kinds`).
    pub fn table() -> Value {
        Value::Array(
            KINDS
                .iter()
                .map(|(kind, label, signs_in)| {
                    serde_json::json!({
                        "kind": kind.as_str(),
                        "label": label,
                        "signIn": signs_in,
                        "baseUrl": "https://ai-gateway.vercel.sh",
                        "needsKey": !signs_in,
                    })
                })
                .collect(),
        )
    }
}

/// A stored provider (`provider/<id>`), the `Provider` of the JS surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderDoc {
    pub schema: u32,
    pub id: ProviderId,
    pub kind: Kind,
    pub name: String,
    pub base_url: Option<String>,
    pub model: String,
    pub context_window: Option<u64>,
    pub team_id: Option<String>,
    pub has_key: bool,
    pub signed_in: bool,
    pub error: Option<String>,
    /// The teams of a signed-in account (to check `providers.update({teamId})`).
    #[serde(default)]
    pub teams: Vec<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl ProviderDoc {
    /// The public view (without `schema` and `teams`).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "baseUrl": self.base_url,
            "model": self.model,
            "contextWindow": self.context_window,
            "teamId": self.team_id,
            "hasKey": self.has_key,
            "signedIn": self.signed_in,
            "error": self.error,
        })
    }
}

/// The secret of a provider (`secret/provider/<id>`): an API key, or a sign-in's tokens.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretDoc {
    pub schema: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The sign-in's access token and when it expires (ms), for a `vercel` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

impl std::fmt::Debug for SecretDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretDoc([redacted])")
    }
}

/// A checked `providers.add` argument of part 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProvider {
    pub kind: Kind,
    pub name: String,
    pub model: String,
    pub api_key: String,
}

/// Checks a `providers.add` argument.
///
/// # Errors
/// 400 for an unknown kind, a kind that signs in, a `baseUrl` for a key kind, or a missing,
/// long or control-character key.
pub fn check_new_provider(value: &Value) -> Result<NewProvider, FxbotError> {
    let Some(object) = value.as_object() else {
        return Err(bad(format!(
            "providers.add takes an object, not {}",
            kind(value)
        )));
    };
    let kind_text = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let kind = match kind_text {
        "gateway" => Kind::Gateway,
        "vercel" | "chatgpt" | "grok" => {
            return Err(bad(format!(
                "a {kind_text} provider is added by signing in: use signIns.start(\"{kind_text}\")"
            )))
        }
        other => {
            return Err(bad(format!(
                "kind must be one of \"gateway\", \"vercel\" in this version; got {}",
                shown(other)
            )))
        }
    };
    if object.get("baseUrl").is_some_and(|v| !v.is_null()) {
        return Err(bad(
            "baseUrl is fixed for a gateway provider; leave it out".to_owned()
        ));
    }
    let api_key = match object.get("apiKey") {
        Some(Value::String(key)) => key.trim().to_owned(),
        _ => return Err(bad("apiKey is required for a gateway provider".to_owned())),
    };
    if api_key.is_empty() || api_key.chars().count() > MAX_KEY_CHARS {
        return Err(bad(format!(
            "apiKey must be 1 to {MAX_KEY_CHARS} characters"
        )));
    }
    if api_key.chars().any(char::is_control) {
        return Err(bad("apiKey must not contain control characters".to_owned()));
    }
    let name = match object.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => super::fields::check_name(name)?,
        _ => kind.label().to_owned(),
    };
    let model = match object.get("model") {
        Some(Value::String(model)) => super::fields::check_model(model)?,
        _ => String::new(),
    };
    Ok(NewProvider {
        kind,
        name,
        model,
        api_key,
    })
}

fn bad(message: String) -> FxbotError {
    FxbotError::Invalid { message }
}

/// The one-team rule of a Vercel sign-in: exactly one team is taken, several (or none) leave
/// `teamId` null for the host to pick.
pub fn team_of(teams: &[String]) -> Option<String> {
    match teams {
        [one] => Some(one.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn new_provider_rules() {
        let ok = check_new_provider(
            &json!({"kind": "gateway", "apiKey": " k1 ", "model": "fx-demo/scripted"}),
        )
        .unwrap();
        assert_eq!(
            (ok.name.as_str(), ok.api_key.as_str()),
            ("AI Gateway", "k1")
        );
        for (value, message) in [
            (
                json!({"kind": "vercel"}),
                "a vercel provider is added by signing in: use signIns.start(\"vercel\")",
            ),
            (
                json!({"kind": "openai", "apiKey": "k"}),
                "kind must be one of \"gateway\", \"vercel\" in this version; got \"openai\"",
            ),
            (
                json!({"kind": "gateway"}),
                "apiKey is required for a gateway provider",
            ),
            (
                json!({"kind": "gateway", "apiKey": "k", "baseUrl": "https://x"}),
                "baseUrl is fixed for a gateway provider; leave it out",
            ),
            (
                json!({"kind": "gateway", "apiKey": "a\u{7}"}),
                "apiKey must not contain control characters",
            ),
            (
                json!({"kind": "gateway", "apiKey": "k".repeat(4097)}),
                "apiKey must be 1 to 4096 characters",
            ),
        ] {
            let error = check_new_provider(&value).unwrap_err();
            assert_eq!(
                (error.status(), error.to_string()),
                (400, message.to_owned())
            );
        }
    }

    #[test]
    fn one_team_is_taken() {
        assert_eq!(team_of(&["t1".into()]), Some("t1".into()));
        assert_eq!(team_of(&["t1".into(), "t2".into()]), None);
        assert_eq!(team_of(&[]), None);
    }

    #[test]
    fn settings_patches() {
        assert_eq!(settings_patch(&json!({})).unwrap(), None);
        assert_eq!(
            settings_patch(&json!({"defaultProvider": ""})).unwrap(),
            Some(None)
        );
        assert!(
            settings_patch(&json!({"defaultProvider": "0123456789ab", "embedder": "off"}))
                .unwrap()
                .is_some()
        );
        assert_eq!(
            settings_patch(&json!({"defaultProvider": "xyz"}))
                .unwrap_err()
                .status(),
            400
        );
        assert_eq!(
            settings_patch(&json!({"embedder": "local"}))
                .unwrap_err()
                .status(),
            400
        );
        assert_eq!(settings_patch(&json!(3)).unwrap_err().status(), 400);
    }
}
