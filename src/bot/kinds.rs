//! The provider kinds table (fxbot DESIGN §4.3): 9 key kinds (a fixed `baseUrl` and an API
//! key), 5 server kinds (a model server at an address, the key optional) and 3 sign-in kinds
//! (added by `signIns`). Each row has its label (a provider's default `name`), the wire protocol
//! its model calls speak (§7.1), its base URL, the paths of its model calls, model list and key
//! check under that base, its auth header, and where a model's context window comes from.
//!
//! A server kind's base URL is the server's root (`http://127.0.0.1:11434`) and its paths start
//! with `/v1`; `custom` takes the API base itself (`…/v1`), so its paths do not.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A provider kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Gateway,
    Openai,
    Anthropic,
    Google,
    Xai,
    Openrouter,
    Groq,
    Mistral,
    Deepseek,
    Ollama,
    Lmstudio,
    Llamacpp,
    Vllm,
    Custom,
    Vercel,
    Chatgpt,
    Grok,
}

/// How a kind is added and addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A fixed `baseUrl`, an API key required.
    Key,
    /// A model server: `baseUrl` optional (with a default, except `custom`), key optional,
    /// `contextWindow` allowed.
    Server,
    /// Added by `signIns` only.
    SignIn,
}

/// The wire protocol of a kind's model calls (§7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// The AI Gateway v3 language-model protocol (`src/gateway`).
    Gateway,
    /// OpenAI Chat Completions.
    Chat,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Gateway => "gateway",
            Protocol::Chat => "chat-completions",
            Protocol::Responses => "responses",
            Protocol::Anthropic => "anthropic-messages",
            Protocol::Gemini => "gemini",
        }
    }
}

/// The header that carries the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `authorization: Bearer <key>`.
    Bearer,
    /// `x-api-key: <key>` (Anthropic, with its version and browser-access headers).
    XApiKey,
    /// `x-goog-api-key: <key>`.
    GoogApiKey,
}

impl Auth {
    pub fn header(self) -> &'static str {
        match self {
            Auth::Bearer => "authorization",
            Auth::XApiKey => "x-api-key",
            Auth::GoogApiKey => "x-goog-api-key",
        }
    }
}

/// Where a model's context window comes from (before the 128,000 fallback).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The AI Gateway catalog.
    Catalog,
    /// The entries of the model list (`context_length`, `inputTokenLimit`, `max_model_len`, …).
    ModelList,
    /// Ollama: `POST /api/show {model}` → `model_info["<arch>.context_length"]`.
    OllamaShow,
    /// LM Studio: `GET /api/v0/models` → `loaded_context_length` / `max_context_length`.
    LmStudio,
    /// llama.cpp: `GET /props` → `default_generation_settings.n_ctx`.
    LlamaProps,
    /// Nothing reports one (only `contextWindow`).
    None,
}

impl Window {
    pub fn as_str(self) -> &'static str {
        match self {
            Window::Catalog => "catalog",
            Window::ModelList => "model list",
            Window::OllamaShow => "POST /api/show",
            Window::LmStudio => "GET /api/v0/models",
            Window::LlamaProps => "GET /props",
            Window::None => "none",
        }
    }
}

/// One row of the kinds table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindInfo {
    pub kind: Kind,
    pub label: &'static str,
    pub class: Class,
    pub protocol: Protocol,
    /// The fixed base (key and sign-in kinds) or the default one (server kinds; `None` for
    /// `custom`, which requires one).
    pub base_url: Option<&'static str>,
    /// The model call's path under the base (`{model}` is the model id).
    pub chat_path: &'static str,
    /// The model list's path under the base.
    pub models_path: &'static str,
    /// The key check's path (the model list's, except where the list is public).
    pub check_path: &'static str,
    pub auth: Auth,
    pub window: Window,
}

#[allow(clippy::too_many_arguments)]
const fn row(
    kind: Kind,
    label: &'static str,
    class: Class,
    protocol: Protocol,
    base_url: Option<&'static str>,
    paths: [&'static str; 3],
    auth: Auth,
    window: Window,
) -> KindInfo {
    let [chat_path, models_path, check_path] = paths;
    KindInfo {
        kind,
        label,
        class,
        protocol,
        base_url,
        chat_path,
        models_path,
        check_path,
        auth,
        window,
    }
}

const CHAT: [&str; 3] = ["/chat/completions", "/models", "/models"];
const SERVER: [&str; 3] = ["/v1/chat/completions", "/v1/models", "/v1/models"];

use {Auth::*, Class::*, Kind as K, Protocol as P};

/// The kinds table, in the order `providers.kinds` lists it (the part-1 kinds first).
pub const KINDS: [KindInfo; 17] = [
    row(
        K::Gateway,
        "AI Gateway",
        Key,
        P::Gateway,
        Some("https://ai-gateway.vercel.sh"),
        [
            "/v3/ai/language-model",
            "/coding-agent/v1/models",
            "/coding-agent/v1/models",
        ],
        Bearer,
        Window::Catalog,
    ),
    row(
        K::Vercel,
        "Vercel",
        SignIn,
        P::Gateway,
        Some("https://ai-gateway.vercel.sh"),
        [
            "/v3/ai/language-model",
            "/coding-agent/v1/models",
            "/coding-agent/v1/models",
        ],
        Bearer,
        Window::Catalog,
    ),
    row(
        K::Openai,
        "OpenAI",
        Key,
        P::Responses,
        Some("https://api.openai.com/v1"),
        ["/responses", "/models", "/models"],
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Anthropic,
        "Anthropic",
        Key,
        P::Anthropic,
        Some("https://api.anthropic.com/v1"),
        ["/messages", "/models", "/models"],
        XApiKey,
        Window::ModelList,
    ),
    row(
        K::Google,
        "Google Gemini",
        Key,
        P::Gemini,
        Some("https://generativelanguage.googleapis.com/v1beta"),
        [
            "/models/{model}:streamGenerateContent?alt=sse",
            "/models?pageSize=1000",
            "/models?pageSize=1000",
        ],
        GoogApiKey,
        Window::ModelList,
    ),
    row(
        K::Xai,
        "xAI",
        Key,
        P::Chat,
        Some("https://api.x.ai/v1"),
        CHAT,
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Openrouter,
        "OpenRouter",
        Key,
        P::Chat,
        Some("https://openrouter.ai/api/v1"),
        ["/chat/completions", "/models", "/key"],
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Groq,
        "Groq",
        Key,
        P::Chat,
        Some("https://api.groq.com/openai/v1"),
        CHAT,
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Mistral,
        "Mistral",
        Key,
        P::Chat,
        Some("https://api.mistral.ai/v1"),
        CHAT,
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Deepseek,
        "DeepSeek",
        Key,
        P::Chat,
        Some("https://api.deepseek.com/v1"),
        CHAT,
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Ollama,
        "Ollama",
        Server,
        P::Chat,
        Some("http://127.0.0.1:11434"),
        ["/v1/chat/completions", "/api/tags", "/api/tags"],
        Bearer,
        Window::OllamaShow,
    ),
    row(
        K::Lmstudio,
        "LM Studio",
        Server,
        P::Chat,
        Some("http://127.0.0.1:1234"),
        SERVER,
        Bearer,
        Window::LmStudio,
    ),
    row(
        K::Llamacpp,
        "llama.cpp",
        Server,
        P::Chat,
        Some("http://127.0.0.1:8080"),
        SERVER,
        Bearer,
        Window::LlamaProps,
    ),
    row(
        K::Vllm,
        "vLLM",
        Server,
        P::Chat,
        Some("http://127.0.0.1:8000"),
        SERVER,
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Custom,
        "Custom (OpenAI-compatible)",
        Server,
        P::Chat,
        None,
        CHAT,
        Bearer,
        Window::None,
    ),
    row(
        K::Chatgpt,
        "ChatGPT plan",
        SignIn,
        P::Responses,
        Some("https://chatgpt.com/backend-api/codex"),
        [
            "/responses",
            "/models?client_version=1.0.0",
            "/models?client_version=1.0.0",
        ],
        Bearer,
        Window::ModelList,
    ),
    row(
        K::Grok,
        "Grok plan",
        SignIn,
        P::Responses,
        Some("https://cli-chat-proxy.grok.com/v1"),
        ["/responses", "/models", "/models"],
        Bearer,
        Window::ModelList,
    ),
];

/// The context window when nothing reports one.
pub const FALLBACK_CONTEXT_WINDOW: u64 = 128_000;

impl Kind {
    /// This kind's row.
    pub fn info(self) -> &'static KindInfo {
        // Every kind has its row (the table test checks the order holds each once).
        KINDS
            .iter()
            .find(|row| row.kind == self)
            .unwrap_or(&KINDS[0])
    }

    /// The kind named `text`.
    pub fn parse(text: &str) -> Option<Kind> {
        KINDS
            .iter()
            .find(|row| row.kind.as_str() == text)
            .map(|row| row.kind)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            K::Gateway => "gateway",
            K::Openai => "openai",
            K::Anthropic => "anthropic",
            K::Google => "google",
            K::Xai => "xai",
            K::Openrouter => "openrouter",
            K::Groq => "groq",
            K::Mistral => "mistral",
            K::Deepseek => "deepseek",
            K::Ollama => "ollama",
            K::Lmstudio => "lmstudio",
            K::Llamacpp => "llamacpp",
            K::Vllm => "vllm",
            K::Custom => "custom",
            K::Vercel => "vercel",
            K::Chatgpt => "chatgpt",
            K::Grok => "grok",
        }
    }

    pub fn label(self) -> &'static str {
        self.info().label
    }

    pub fn class(self) -> Class {
        self.info().class
    }

    /// The kinds table as the JS surface shows it (`providers.kinds`).
    pub fn table() -> Value {
        Value::Array(KINDS.iter().map(KindInfo::to_json).collect())
    }
}

impl KindInfo {
    /// The row as `providers.kinds` lists it.
    pub fn to_json(&self) -> Value {
        let class = match self.class {
            Key => "key",
            Server => "server",
            SignIn => "signIn",
        };
        json!({
            "kind": self.kind.as_str(),
            "label": self.label,
            "class": class,
            "signIn": self.class == SignIn,
            "needsKey": self.class == Key,
            "protocol": self.protocol.as_str(),
            "baseUrl": self.base_url,
            "baseUrlFixed": self.class != Server,
            "chatPath": self.chat_path,
            "modelsPath": self.models_path,
            "keyCheckPath": self.check_path,
            "authHeader": self.auth.header(),
            "contextWindow": self.window.as_str(),
        })
    }
}

/// Checks and normalises a `baseUrl` (§7.3): `https://host[:port][/path]`, or `http://` on
/// `localhost`, `127.0.0.1` or `[::1]` only; no credentials, query or fragment. The scheme and
/// host come out lowercase, a default port is dropped and so is one trailing `/`.
///
/// # Errors
/// The reason, as the 400's message says it.
pub fn check_base_url(text: &str) -> Result<String, String> {
    check_url("baseUrl", "give the key as apiKey", text)
}

/// The rule of [`check_base_url`] for any address fxbot sends a secret to (an MCP server's
/// `url`, a skill's): `field` names it in the message, `credentials` says where a credential
/// goes instead.
///
/// # Errors
/// The reason, as the 400's message says it.
pub fn check_url(field: &str, credentials: &str, text: &str) -> Result<String, String> {
    use crate::net::url::{parse, Host, Scheme};
    let shown = crate::bot::shown::shown(text);
    let url = parse(text).map_err(|e| format!("{field} {shown} is not a URL: {}", e.reason()))?;
    if url.userinfo {
        return Err(format!(
            "{field} {shown} carries credentials (user:password@); {credentials}"
        ));
    }
    if url.query.is_some() || url.fragment {
        return Err(format!(
            "{field} {shown} has a query or a fragment; give the address without ? or #"
        ));
    }
    let host = match &url.host {
        Host::Name(name) => name.clone(),
        Host::Ipv6(_) if url.host.is_loopback() => "[::1]".to_owned(),
        Host::Ipv6(groups) => {
            let parts: Vec<String> = groups.iter().map(|g| format!("{g:x}")).collect();
            format!("[{}]", parts.join(":"))
        }
    };
    let (scheme, default_port) = match url.scheme {
        Scheme::Https => ("https", 443),
        Scheme::Http if url.host.is_loopback() => ("http", 80),
        Scheme::Http => {
            return Err(format!(
                "{field} {shown} must use https (http only on localhost, 127.0.0.1 or [::1])"
            ))
        }
    };
    let port = match url.port {
        Some(port) if port != default_port => format!(":{port}"),
        _ => String::new(),
    };
    let path = url.path.strip_suffix('/').unwrap_or(url.path);
    Ok(format!("{scheme}://{host}{port}{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_row() {
        let classes = |class| KINDS.iter().filter(|row| row.class == class).count();
        assert_eq!((classes(Key), classes(Server), classes(SignIn)), (9, 5, 3));
        for row in &KINDS {
            assert_eq!(row.kind.info(), row);
            assert_eq!(Kind::parse(row.kind.as_str()), Some(row.kind));
            let json = serde_json::to_value(row.kind).ok();
            assert_eq!(json, Some(Value::String(row.kind.as_str().to_owned())));
            assert_eq!(row.base_url.is_none(), row.kind == K::Custom);
        }
        assert_eq!(Kind::parse("ollama2"), None);
        assert_eq!(KINDS[0].label, "AI Gateway");
    }

    #[test]
    fn base_url_rules() {
        for (text, normal) in [
            ("https://api.example.com/v1/", "https://api.example.com/v1"),
            (
                "HTTPS://API.Example.com:443/v1",
                "https://api.example.com/v1",
            ),
            ("https://x.test:8443", "https://x.test:8443"),
            ("http://localhost:11434", "http://localhost:11434"),
            ("http://127.0.0.1/", "http://127.0.0.1"),
            ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
            ("http://LOCALHOST:80/api//", "http://localhost/api/"),
            (
                "https://[2001:db8::1]/v1",
                "https://[2001:db8:0:0:0:0:0:1]/v1",
            ),
        ] {
            assert_eq!(check_base_url(text).as_deref(), Ok(normal), "{text}");
        }
        for (text, says) in [
            ("http://192.168.1.2:11434", "must use https"),
            ("http://example.com", "must use https"),
            ("http://[2001:db8::1]", "must use https"),
            ("https://u:p@x", "credentials"),
            ("https://u@x", "credentials"),
            ("https://x/?q", "query or a fragment"),
            ("https://x/#f", "query or a fragment"),
            ("ftp://x", "not a URL"),
            ("x.example", "not a URL"),
            ("", "not a URL"),
            ("https://b\u{fc}cher.example", "not a URL"),
            ("https://:443", "not a URL"),
        ] {
            let error = check_base_url(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
