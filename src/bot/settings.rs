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
    /// `off`, `local` or `remote`.
    pub embedder: Option<String>,
    pub embedding_provider: Option<String>,
    pub embedding_model: Option<String>,
}

impl SettingsPatch {
    /// True when the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.default_provider.is_none()
            && self.message_vectors.is_none()
            && self.embedder.is_none()
            && self.embedding_provider.is_none()
            && self.embedding_model.is_none()
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
        if let Some(embedder) = &self.embedder {
            doc.embedder.clone_from(embedder);
        }
        if let Some(provider) = &self.embedding_provider {
            doc.embedding_provider.clone_from(provider);
        }
        if let Some(model) = &self.embedding_model {
            doc.embedding_model.clone_from(model);
        }
    }
}

/// Checks a `settings.update` patch: `defaultProvider` (`""` or a provider id),
/// `messageVectors` (a whole number from 0 to 100,000), `embedder` (`off`, `local`, `remote`),
/// `embeddingProvider` (`""` or a provider id) and `embeddingModel` (what needs the other
/// documents, such as a local embedder being there, is the engine's check).
///
/// # Errors
/// 400 for a value outside the rules.
pub fn settings_patch(arg: Object<SettingsArg>) -> Result<SettingsPatch, FxbotError> {
    let fields = arg
        .required()
        .map_err(|found| bad(format!("settings.update takes an object, not {found}")))?;
    let text = |arg: Arg<String>, key: &str| match arg {
        Arg::Absent => Ok(None),
        Arg::Given(text) if text.len() <= 256 && !text.chars().any(char::is_control) => {
            Ok(Some(text))
        }
        Arg::Given(_) => Err(bad(format!(
            "{key} must be at most 256 characters without control characters"
        ))),
        Arg::Wrong(found) => Err(bad(format!("{key} must be a string, not {found}"))),
    };
    let embedder = text(fields.embedder, "embedder")?;
    if let Some(embedder) = &embedder {
        if !["off", "local", "remote"].contains(&embedder.as_str()) {
            return Err(bad(format!(
                "embedder must be \"off\", \"local\" or \"remote\", not {}",
                crate::bot::shown::shown(embedder)
            )));
        }
    }
    let embedding_provider = text(fields.embedding_provider, "embeddingProvider")?;
    if let Some(provider) = embedding_provider.as_deref().filter(|p| !p.is_empty()) {
        ProviderId::parse(provider)?;
    }
    let embedding_model = text(fields.embedding_model, "embeddingModel")?;
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
        embedder,
        embedding_provider,
        embedding_model,
    })
}

use super::kinds::Class;
pub use super::kinds::Kind;

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
    /// The kept model list (dropped on a new key, address or team), with when it was fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<ModelList>,
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

/// A provider's kept model list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelList {
    /// Milliseconds since the Unix epoch.
    pub fetched_at: i64,
    pub models: Vec<ModelEntry>,
}

/// One model of a provider's list: its id, and the context window its server or list reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelEntry {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
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

/// A checked `providers.add` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProvider {
    pub kind: Kind,
    pub name: String,
    pub model: String,
    pub api_key: Option<String>,
    /// Normalised; a server kind's default when none was given; `None` for key kinds.
    pub base_url: Option<String>,
    pub context_window: Option<u64>,
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

/// A `providers.update` patch as the boundary decodes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ProviderPatchArg {
    pub name: Arg<String>,
    pub base_url: Arg<String>,
    pub api_key: Arg<String>,
    pub model: Arg<String>,
    pub context_window: Arg<f64>,
    pub team_id: Arg<String>,
}

/// A checked `providers.update` patch (absent: unchanged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderPatch {
    pub name: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
    pub context_window: Option<u64>,
    pub team_id: Option<String>,
}

/// The largest `contextWindow` taken (100M tokens).
pub const MAX_CONTEXT_WINDOW: u64 = 100_000_000;

fn check_key(arg: Arg<String>) -> Result<Option<String>, FxbotError> {
    let key = match arg {
        Arg::Absent => return Ok(None),
        Arg::Given(key) => key.trim().to_owned(),
        Arg::Wrong(found) => return Err(bad(format!("apiKey must be a string, not {found}"))),
    };
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS {
        return Err(bad(format!(
            "apiKey must be 1 to {MAX_KEY_CHARS} characters"
        )));
    }
    if key.chars().any(char::is_control) {
        return Err(bad("apiKey must not contain control characters".to_owned()));
    }
    Ok(Some(key))
}

/// `baseUrl` and `contextWindow` for `kind`: only server kinds take them.
fn check_address(
    kind: Kind,
    base_url: Arg<String>,
    context_window: Arg<f64>,
) -> Result<(Option<String>, Option<u64>), FxbotError> {
    let label = format!("kind \"{}\"", kind.as_str());
    let server = kind.class() == Class::Server;
    let base_url = match base_url {
        Arg::Absent => None,
        Arg::Given(_) if !server => {
            return Err(bad(format!(
                "baseUrl is fixed for {label}; leave it out (only a model server's kind takes one: ollama, lmstudio, llamacpp, vllm, custom)"
            )))
        }
        Arg::Given(text) => Some(super::kinds::check_base_url(&text).map_err(bad)?),
        Arg::Wrong(found) => return Err(bad(format!("baseUrl must be a string, not {found}"))),
    };
    let context_window = match context_window {
        Arg::Absent => None,
        _ if !server => {
            return Err(bad(format!(
                "contextWindow is for a model server's provider; {label} knows its models' windows (leave it out, or null)"
            )))
        }
        // Whole and in range, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Arg::Given(n) if n.fract() == 0.0 && (1.0..=MAX_CONTEXT_WINDOW as f64).contains(&n) => {
            Some(n as u64)
        }
        Arg::Given(n) => {
            return Err(bad(format!(
                "contextWindow must be a whole number of tokens from 1 to {MAX_CONTEXT_WINDOW}, or null; got {n}"
            )))
        }
        Arg::Wrong(found) => {
            return Err(bad(format!(
                "contextWindow must be a whole number of tokens, or null, not {found}"
            )))
        }
    };
    Ok((base_url, context_window))
}

/// Checks a `providers.add` argument (fxbot DESIGN §4.3, §7.3).
///
/// # Errors
/// 400 for an unknown kind, a kind that signs in, a `baseUrl` or a `contextWindow` for a kind
/// without one, a `baseUrl` outside the rules (or none for `custom`), or a missing (key kinds),
/// long or control-character key.
pub fn check_new_provider(arg: Object<NewProviderArg>) -> Result<NewProvider, FxbotError> {
    let fields = arg
        .required()
        .map_err(|found| bad(format!("providers.add takes an object, not {found}")))?;
    let kind = match &fields.kind {
        Arg::Given(text) => Kind::parse(text),
        _ => None,
    };
    let Some(kind) = kind else {
        let got = match &fields.kind {
            Arg::Given(text) => shown(text),
            other => other.found().to_owned(),
        };
        let names: Vec<&str> = super::kinds::KINDS
            .iter()
            .filter(|row| row.class != Class::SignIn)
            .map(|row| row.kind.as_str())
            .collect();
        return Err(bad(format!(
            "kind must be one of {}; got {got}",
            names.join(", ")
        )));
    };
    let label = format!("kind \"{}\"", kind.as_str());
    if kind.class() == Class::SignIn {
        let text = kind.as_str();
        return Err(bad(format!(
            "a {text} provider is added by signing in: use signIns.start(\"{text}\")"
        )));
    }
    let (base_url, context_window) = check_address(kind, fields.base_url, fields.context_window)?;
    let base_url = match (base_url, kind.info().base_url) {
        (Some(url), _) => Some(url),
        (None, _) if kind.class() == Class::Key => None,
        (None, Some(default)) => Some(default.to_owned()),
        (None, None) => {
            return Err(bad(format!(
                "baseUrl is required for {label}: the API base of the server, such as https://models.example/v1"
            )))
        }
    };
    let api_key = check_key(fields.api_key)?;
    if api_key.is_none() && kind.class() == Class::Key {
        return Err(bad(format!("apiKey is required for {label}")));
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
        base_url,
        context_window,
    })
}

/// Checks a `providers.update` patch for a provider of `kind`.
///
/// # Errors
/// 400 for `apiKey` on a kind that signs in, `baseUrl` or `contextWindow` on a kind that is
/// not a server, `teamId` on a kind other than `vercel`, or a value outside its rule.
pub fn check_provider_patch(
    kind: Kind,
    arg: Object<ProviderPatchArg>,
) -> Result<ProviderPatch, FxbotError> {
    let fields = arg
        .required()
        .map_err(|found| bad(format!("providers.update takes an object, not {found}")))?;
    let label = format!("kind \"{}\"", kind.as_str());
    if kind.class() == Class::SignIn && !fields.api_key.is_absent() {
        return Err(bad(format!(
            "{label} signs in: it takes no apiKey (sign in again with signIns.start(\"{}\"))",
            kind.as_str()
        )));
    }
    let (base_url, context_window) = check_address(kind, fields.base_url, fields.context_window)?;
    let api_key = check_key(fields.api_key)?;
    let team_id = match fields.team_id {
        Arg::Absent => None,
        Arg::Given(team) if kind == Kind::Vercel => Some(team),
        Arg::Given(_) => return Err(bad(format!("teamId is for a Vercel account, not {label}"))),
        Arg::Wrong(found) => return Err(bad(format!("teamId must be a string, not {found}"))),
    };
    let name = match fields.name {
        Arg::Absent => None,
        Arg::Given(name) => Some(super::fields::check_name(&name)?),
        Arg::Wrong(found) => return Err(bad(format!("name must be a string, not {found}"))),
    };
    let model = match fields.model {
        Arg::Absent => None,
        Arg::Given(model) => Some(super::fields::check_model(&model)?),
        Arg::Wrong(found) => return Err(bad(format!("model must be a string, not {found}"))),
    };
    Ok(ProviderPatch {
        name,
        base_url,
        api_key,
        model,
        context_window,
        team_id,
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
            (ok.name.as_str(), ok.api_key.as_deref(), ok.base_url),
            ("AI Gateway", Some("k1"), None)
        );
        let ollama =
            check_new_provider(arg(json!({"kind": "ollama", "contextWindow": 4096}))).unwrap();
        assert_eq!(
            (
                ollama.name.as_str(),
                ollama.base_url.as_deref(),
                ollama.context_window,
                ollama.api_key
            ),
            ("Ollama", Some("http://127.0.0.1:11434"), Some(4096), None)
        );
        let custom = check_new_provider(arg(
            json!({"kind": "custom", "baseUrl": "http://LOCALHOST:9000/v1/", "apiKey": null}),
        ))
        .unwrap();
        assert_eq!(custom.base_url.as_deref(), Some("http://localhost:9000/v1"));
        let anthropic =
            check_new_provider(arg(json!({"kind": "anthropic", "apiKey": "sk-ant"}))).unwrap();
        assert_eq!(
            (anthropic.kind, anthropic.name.as_str()),
            (Kind::Anthropic, "Anthropic")
        );
        let long = "k".repeat(4096);
        assert!(check_new_provider(arg(json!({"kind": "openai", "apiKey": long}))).is_ok());
        for (value, message) in [
            (
                json!({"kind": "vercel"}),
                "a vercel provider is added by signing in: use signIns.start(\"vercel\")",
            ),
            (
                json!({"kind": "chatgpt"}),
                "a chatgpt provider is added by signing in: use signIns.start(\"chatgpt\")",
            ),
            (
                json!({"kind": "bedrock", "apiKey": "k"}),
                "kind must be one of gateway, openai, anthropic, google, xai, openrouter, groq, mistral, deepseek, ollama, lmstudio, llamacpp, vllm, custom; got \"bedrock\"",
            ),
            (
                json!({"kind": "openai"}),
                "apiKey is required for kind \"openai\"",
            ),
            (
                json!({"kind": "gateway", "apiKey": "k", "baseUrl": "https://x"}),
                "baseUrl is fixed for kind \"gateway\"; leave it out (only a model server's kind takes one: ollama, lmstudio, llamacpp, vllm, custom)",
            ),
            (
                json!({"kind": "openai", "apiKey": "k", "baseUrl": "https://api.openai.com/v1"}),
                "baseUrl is fixed for kind \"openai\"; leave it out (only a model server's kind takes one: ollama, lmstudio, llamacpp, vllm, custom)",
            ),
            (
                json!({"kind": "custom"}),
                "baseUrl is required for kind \"custom\": the API base of the server, such as https://models.example/v1",
            ),
            (
                json!({"kind": "ollama", "baseUrl": "http://192.168.1.2:11434"}),
                "baseUrl \"http://192.168.1.2:11434\" must use https (http only on localhost, 127.0.0.1 or [::1])",
            ),
            (
                json!({"kind": "custom", "baseUrl": "https://u:p@x"}),
                "baseUrl \"https://u:p@x\" carries credentials (user:password@); give the key as apiKey",
            ),
            (
                json!({"kind": "custom", "baseUrl": "https://x/?q"}),
                "baseUrl \"https://x/?q\" has a query or a fragment; give the address without ? or #",
            ),
            (
                json!({"kind": "custom", "baseUrl": 5}),
                "baseUrl must be a string, not a number",
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
                json!({"kind": "openai", "apiKey": "k", "contextWindow": 8192}),
                "contextWindow is for a model server's provider; kind \"openai\" knows its models' windows (leave it out, or null)",
            ),
            (
                json!({"kind": "vllm", "contextWindow": 1.5}),
                "contextWindow must be a whole number of tokens from 1 to 100000000, or null; got 1.5",
            ),
            (
                json!({"kind": "vllm", "contextWindow": 0}),
                "contextWindow must be a whole number of tokens from 1 to 100000000, or null; got 0",
            ),
            (
                json!({"kind": 7}),
                "kind must be one of gateway, openai, anthropic, google, xai, openrouter, groq, mistral, deepseek, ollama, lmstudio, llamacpp, vllm, custom; got a number",
            ),
            (json!([]), "providers.add takes an object, not an array"),
        ] {
            let error = check_new_provider(arg(value.clone())).unwrap_err();
            assert_eq!(
                (error.status(), error.to_string()),
                (400, message.to_owned()),
                "{value}"
            );
        }
    }

    #[test]
    fn provider_patch_rules() {
        let patch = check_provider_patch(
            Kind::Ollama,
            arg(json!({"baseUrl": "http://[::1]:11434/", "contextWindow": 4096, "apiKey": "k"})),
        )
        .unwrap();
        assert_eq!(
            (
                patch.base_url.as_deref(),
                patch.context_window,
                patch.api_key.as_deref()
            ),
            (Some("http://[::1]:11434"), Some(4096), Some("k"))
        );
        let team = check_provider_patch(Kind::Vercel, arg(json!({"teamId": "t2"}))).unwrap();
        assert_eq!(team.team_id.as_deref(), Some("t2"));
        for (kind, value, says) in [
            (Kind::Vercel, json!({"apiKey": "k"}), "takes no apiKey"),
            (Kind::Chatgpt, json!({"apiKey": "k"}), "takes no apiKey"),
            (
                Kind::Openai,
                json!({"baseUrl": "https://x"}),
                "baseUrl is fixed",
            ),
            (
                Kind::Vercel,
                json!({"baseUrl": "https://x"}),
                "baseUrl is fixed",
            ),
            (
                Kind::Anthropic,
                json!({"contextWindow": 10}),
                "contextWindow is for",
            ),
            (
                Kind::Openai,
                json!({"teamId": "t"}),
                "teamId is for a Vercel account",
            ),
            (
                Kind::Custom,
                json!({"baseUrl": "http://10.0.0.1"}),
                "must use https",
            ),
            (
                Kind::Openai,
                json!({"apiKey": ""}),
                "apiKey must be 1 to 4096",
            ),
            (Kind::Openai, json!("x"), "providers.update takes an object"),
        ] {
            let error = check_provider_patch(kind, arg(value.clone())).unwrap_err();
            assert_eq!(error.status(), 400);
            assert!(error.to_string().contains(says), "{value}: {error}");
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
            (
                json!({"defaultProvider": "xyz"}),
                "providerId must be 12 lowercase hex characters (0-9, a-f); got \"xyz\"",
            ),
            (
                json!({"defaultProvider": 3}),
                "defaultProvider must be a string, not a number",
            ),
            (
                json!({"embedder": "magic"}),
                "embedder must be \"off\", \"local\" or \"remote\", not \"magic\"",
            ),
            (
                json!({"embedder": 1}),
                "embedder must be a string, not a number",
            ),
            (
                json!({"embeddingProvider": "nope"}),
                "providerId must be 12 lowercase hex characters (0-9, a-f); got \"nope\"",
            ),
            (
                json!({"embeddingModel": "m".repeat(257)}),
                "embeddingModel must be at most 256 characters without control characters",
            ),
            (
                json!({"messageVectors": 1.5}),
                "messageVectors must be a whole number from 0 to 100,000; got 1.5",
            ),
            (
                json!({"messageVectors": 100_001}),
                "messageVectors must be a whole number from 0 to 100,000; got 100001",
            ),
            (
                json!({"messageVectors": -1}),
                "messageVectors must be a whole number from 0 to 100,000; got -1",
            ),
            (
                json!({"messageVectors": "5"}),
                "messageVectors must be a whole number from 0 to 100,000, not a string",
            ),
            (json!(3), "settings.update takes an object, not a number"),
        ] {
            let error = patch(value).unwrap_err();
            assert_eq!(
                (error.status(), error.to_string()),
                (400, message.to_owned())
            );
        }
        assert_eq!(
            patch(json!({"embedder": "local"}))
                .unwrap()
                .embedder
                .as_deref(),
            Some("local")
        );
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
