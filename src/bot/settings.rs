//! `settings` and `provider/<id>` documents (fxbot DESIGN §5.2), for WP1: `defaultProvider`
//! in the settings (the memory-search fields keep their defaults until memories land), and the
//! two provider kinds of part 1: `gateway` (an AI Gateway key) and `vercel` (a Vercel sign-in).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::{Arg, Object};
use super::docs::SCHEMA;
use super::error::FxbotError;
use super::ids::ProviderId;
use super::shown::shown;

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

/// The most `messageVectors` takes.
pub const MAX_MESSAGE_VECTORS: u32 = 100_000;

/// A `settings.update` argument as the boundary decodes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SettingsArg {
    pub default_provider: Arg<String>,
    pub embedder: Arg<String>,
    pub embedding_provider: Arg<String>,
    pub embedding_model: Arg<String>,
    pub message_vectors: Arg<f64>,
}

/// What a `settings.update` changes (absent: nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsPatch {
    /// `Some(None)` is `""`: no default provider.
    pub default_provider: Option<Option<ProviderId>>,
    /// How many messages get vectors (§11.3).
    pub message_vectors: Option<u32>,
}

impl SettingsPatch {
    /// True when the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.default_provider.is_none() && self.message_vectors.is_none()
    }

    /// Applies the patch (whether `defaultProvider` names a provider is the engine's check).
    pub fn apply(&self, doc: &mut SettingsDoc) {
        if let Some(provider) = &self.default_provider {
            doc.default_provider = provider
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
        }
        if let Some(count) = self.message_vectors {
            doc.message_vectors = count;
        }
    }
}

/// Checks a `settings.update` patch of part 1: `defaultProvider` (`""` or a provider id) and
/// `messageVectors` (a whole number from 0 to 100,000); the other memory-search fields may only
/// repeat their values (other embedders come with memories).
///
/// # Errors
/// 400 for a value outside the rules.
pub fn settings_patch(arg: Object<SettingsArg>) -> Result<SettingsPatch, FxbotError> {
    let fields = arg
        .required()
        .map_err(|found| bad(format!("settings.update takes an object, not {found}")))?;
    let default = SettingsDoc::default();
    let unavailable = |key: &str| {
        bad(format!(
            "{key} cannot be changed yet: memory search arrives with memories (only embedder \"off\" is available)"
        ))
    };
    let same = |arg: Arg<String>, value: &str, key: &str| match arg {
        Arg::Absent => Ok(()),
        Arg::Given(text) if text == value => Ok(()),
        _ => Err(unavailable(key)),
    };
    same(fields.embedder, &default.embedder, "embedder")?;
    same(fields.embedding_provider, "", "embeddingProvider")?;
    same(fields.embedding_model, "", "embeddingModel")?;
    let whole = |n: f64| n.fract() == 0.0 && (0.0..=f64::from(MAX_MESSAGE_VECTORS)).contains(&n);
    let message_vectors = match fields.message_vectors {
        Arg::Absent => None,
        // In range and whole, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Arg::Given(n) if whole(n) => Some(n as u32),
        Arg::Given(n) => {
            return Err(bad(format!(
                "messageVectors must be a whole number from 0 to 100,000; got {n}"
            )))
        }
        Arg::Wrong(found) => {
            return Err(bad(format!(
                "messageVectors must be a whole number from 0 to 100,000, not {found}"
            )))
        }
    };
    let default_provider = match fields.default_provider {
        Arg::Absent => None,
        Arg::Given(text) if text.is_empty() => Some(None),
        Arg::Given(text) => Some(Some(ProviderId::parse(&text)?)),
        Arg::Wrong(found) => {
            return Err(bad(format!(
                "defaultProvider must be a string, not {found}"
            )))
        }
    };
    Ok(SettingsPatch {
        default_provider,
        message_vectors,
    })
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

/// The secret of a key provider (`secret/provider/<id>`): its API key. (A sign-in provider's
/// secret is its OAuth record, `auth::OAuthRecord`'s bytes.)
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretDoc {
    pub schema: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
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

/// A `providers.add` argument as the boundary decodes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NewProviderArg {
    pub kind: Arg<String>,
    pub name: Arg<String>,
    pub base_url: Arg<String>,
    pub api_key: Arg<String>,
    pub model: Arg<String>,
    pub context_window: Arg<f64>,
}

/// Checks a `providers.add` argument.
///
/// # Errors
/// 400 for an unknown kind, a kind that signs in, a `baseUrl` or a `contextWindow` for a kind
/// without one, or a missing, long or control-character key.
pub fn check_new_provider(arg: Object<NewProviderArg>) -> Result<NewProvider, FxbotError> {
    let fields = arg
        .required()
        .map_err(|found| bad(format!("providers.add takes an object, not {found}")))?;
    let kind_text = match &fields.kind {
        Arg::Given(text) => text.as_str(),
        _ => "",
    };
    let kind = match kind_text {
        "gateway" => Kind::Gateway,
        "vercel" | "chatgpt" | "grok" => {
            return Err(bad(format!(
                "a {kind_text} provider is added by signing in: use signIns.start(\"{kind_text}\")"
            )))
        }
        _ => {
            let got = match &fields.kind {
                Arg::Given(text) => shown(text),
                other => other.found().to_owned(),
            };
            return Err(bad(format!(
                "kind must be one of \"gateway\", \"vercel\" in this version; got {got}"
            )));
        }
    };
    if !fields.base_url.is_absent() {
        return Err(bad(
            "baseUrl is fixed for a gateway provider; leave it out".to_owned()
        ));
    }
    // Only the server kinds (ollama, lmstudio, ...) take a context window; the others know their
    // models' own.
    if !fields.context_window.is_absent() {
        return Err(bad(
            "contextWindow is for a local server's provider; a gateway provider knows its models' windows (leave it out, or null)".to_owned(),
        ));
    }
    let api_key = match fields.api_key {
        Arg::Given(key) => key.trim().to_owned(),
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
    let name = match fields.name {
        Arg::Given(name) if !name.trim().is_empty() => super::fields::check_name(&name)?,
        _ => kind.label().to_owned(),
    };
    let model = match fields.model {
        Arg::Given(model) => super::fields::check_model(&model)?,
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
    use serde_json::{json, Value};

    fn arg<T: serde::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn new_provider_rules() {
        let ok = check_new_provider(arg(
            json!({"kind": "gateway", "apiKey": " k1 ", "model": "fx-demo/scripted"}),
        ))
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
            (
                json!({"kind": "gateway", "apiKey": "k", "contextWindow": 8192}),
                "contextWindow is for a local server's provider; a gateway provider knows its models' windows (leave it out, or null)",
            ),
            (
                json!({"kind": 7}),
                "kind must be one of \"gateway\", \"vercel\" in this version; got a number",
            ),
            (json!([]), "providers.add takes an object, not an array"),
        ] {
            let error = check_new_provider(arg(value)).unwrap_err();
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
        let patch = |value: Value| settings_patch(arg(value));
        assert!(patch(json!({})).unwrap().is_empty());
        assert_eq!(
            patch(json!({"defaultProvider": ""}))
                .unwrap()
                .default_provider,
            Some(None)
        );
        assert!(
            patch(json!({"defaultProvider": "0123456789ab", "embedder": "off"}))
                .unwrap()
                .default_provider
                .is_some()
        );
        assert_eq!(
            patch(json!({"messageVectors": 5})).unwrap().message_vectors,
            Some(5)
        );
        for n in [0, 100_000] {
            assert_eq!(
                patch(json!({"messageVectors": n})).unwrap().message_vectors,
                Some(n)
            );
        }
        for (value, message) in [
            (json!({"defaultProvider": "xyz"}), "providerId must be 12 lowercase hex characters (0-9, a-f); got \"xyz\""),
            (json!({"defaultProvider": 3}), "defaultProvider must be a string, not a number"),
            (json!({"embedder": "local"}), "embedder cannot be changed yet: memory search arrives with memories (only embedder \"off\" is available)"),
            (json!({"messageVectors": 1.5}), "messageVectors must be a whole number from 0 to 100,000; got 1.5"),
            (json!({"messageVectors": 100_001}), "messageVectors must be a whole number from 0 to 100,000; got 100001"),
            (json!({"messageVectors": -1}), "messageVectors must be a whole number from 0 to 100,000; got -1"),
            (json!({"messageVectors": "5"}), "messageVectors must be a whole number from 0 to 100,000, not a string"),
            (json!(3), "settings.update takes an object, not a number"),
        ] {
            let error = patch(value).unwrap_err();
            assert_eq!((error.status(), error.to_string()), (400, message.to_owned()));
        }
        let mut doc = SettingsDoc::default();
        patch(json!({"messageVectors": 7, "defaultProvider": "0123456789ab"}))
            .unwrap()
            .apply(&mut doc);
        assert_eq!(
            (doc.message_vectors, doc.default_provider.as_str()),
            (7, "0123456789ab")
        );
    }
}
