//! The model catalog (`GET /coding-agent/v1/models`): parsing, capabilities (tags, effort
//! levels, Fast, limits), the default model, the local context-window fallback table, the full
//! sorted view, and the catalog failure classes.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::Code;

/// The model used when nothing else is configured.
pub const DEFAULT_MODEL_ID: &str = "moonshotai/kimi-k3";

/// Largest catalog response body accepted.
pub const MAX_CATALOG_BYTES: usize = 4 * 1024 * 1024;

/// At most this many effort levels are kept per model.
pub const MAX_EFFORT_LEVELS: usize = 16;

/// Longest effort name accepted.
pub const MAX_EFFORT_NAME_BYTES: usize = 64;

/// Why the catalog could not be loaded. A failed catalog never stops a turn whose model is
/// already chosen; the caller falls back to the chosen id and the local tables.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    /// HTTP 401/403.
    #[error("the model catalog refused the credentials (HTTP {status})")]
    Authentication {
        /// The status.
        status: u16,
    },
    /// HTTP 429.
    #[error("the model catalog is rate limited (HTTP 429)")]
    RateLimited,
    /// HTTP 500/502/503/504.
    #[error("the model catalog is unavailable (HTTP {status})")]
    GatewayUnavailable {
        /// The status.
        status: u16,
    },
    /// Any other non-200 status.
    #[error("the model catalog answered HTTP {status}")]
    HttpStatus {
        /// The status.
        status: u16,
    },
    /// The request failed before a response arrived.
    #[error("the model catalog could not be reached: {detail}")]
    Transport {
        /// What the transport reported.
        detail: String,
    },
    /// The body is not a catalog.
    #[error("the model catalog response is malformed: {detail}")]
    Malformed {
        /// What was wrong.
        detail: &'static str,
    },
    /// The request was cancelled.
    #[error("loading the model catalog was cancelled")]
    Cancelled,
}

impl CatalogError {
    /// Classifies a non-200 status.
    #[must_use]
    pub fn from_status(status: u16) -> Self {
        match status {
            401 | 403 => Self::Authentication { status },
            429 => Self::RateLimited,
            500 | 502 | 503 | 504 => Self::GatewayUnavailable { status },
            _ => Self::HttpStatus { status },
        }
    }

    /// Whether trying again later may help (429 and 500/502/503/504).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::RateLimited | Self::GatewayUnavailable { .. } => true,
            Self::Authentication { .. }
            | Self::HttpStatus { .. }
            | Self::Transport { .. }
            | Self::Malformed { .. }
            | Self::Cancelled => false,
        }
    }

    /// Whether this was a 401/403: with authenticated access, the caller retries once without
    /// credentials (the public catalog).
    #[must_use]
    pub fn is_authentication(&self) -> bool {
        matches!(self, Self::Authentication { .. })
    }

    /// Stable error code.
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::Authentication { .. } => Code::CatalogAuthentication,
            Self::RateLimited => Code::CatalogRateLimited,
            Self::GatewayUnavailable { .. } => Code::CatalogUnavailable,
            Self::HttpStatus { .. } => Code::CatalogHttpStatus,
            Self::Transport { .. } => Code::CatalogTransport,
            Self::Malformed { .. } => Code::CatalogMalformed,
            Self::Cancelled => Code::CatalogCancelled,
        }
    }
}

/// Capability tags a catalog entry may carry (matched case-insensitively).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelTags {
    /// `tool-use`.
    pub tool_use: bool,
    /// `reasoning`.
    pub reasoning: bool,
    /// `vision`.
    pub vision: bool,
    /// `file-input`.
    pub file_input: bool,
    /// `web-search`.
    pub web_search: bool,
    /// `explicit-caching`.
    pub explicit_caching: bool,
    /// `implicit-caching`.
    pub implicit_caching: bool,
}

/// One language model of the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelInfo {
    /// Model id, e.g. `moonshotai/kimi-k3`.
    pub id: String,
    /// Release stamp (newer sorts first).
    pub released: Option<i64>,
    /// Capability tags.
    pub tags: ModelTags,
    /// Effort levels, verbatim from the first `reasoning_options` entry of type `effort`
    /// (at most [`MAX_EFFORT_LEVELS`], each matching `[A-Za-z0-9._-]{1,64}`).
    pub efforts: Vec<String>,
    /// Whether Fast (`providerOptions.gateway.speed = "fast"`) is supported.
    pub fast: bool,
    /// Context window in tokens.
    pub context_window: Option<u64>,
    /// Largest output in tokens.
    pub max_tokens: Option<u64>,
    /// `pricing.web_search`, when given as a string.
    pub web_search_price: Option<String>,
}

impl ModelInfo {
    /// Reasoning is supported when tagged `reasoning` or at least one effort level is listed.
    #[must_use]
    pub fn supports_reasoning(&self) -> bool {
        self.tags.reasoning || !self.efforts.is_empty()
    }

    /// Whether the catalog lists this effort name.
    #[must_use]
    pub fn lists_effort(&self, effort: &str) -> bool {
        self.efforts.iter().any(|e| e == effort)
    }

    /// The context window from the catalog, else from the local fallback table.
    #[must_use]
    pub fn effective_context_window(&self) -> Option<u64> {
        self.context_window
            .or_else(|| fallback_context_window(&self.id))
    }
}

/// A parsed catalog: the language models, in response order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// The entries kept (type absent or `language`, string id).
    pub models: Vec<ModelInfo>,
}

impl Catalog {
    /// Parses a catalog response body.
    ///
    /// The envelope must be an object with a `data` array (`{"data":[]}` is a valid empty
    /// catalog). Entries that are not objects, lack a string `id`, or have a `type` other than
    /// `language` are skipped; fields of the wrong type are ignored.
    ///
    /// # Errors
    /// [`CatalogError::Malformed`] for a body over [`MAX_CATALOG_BYTES`], invalid JSON, or a bad
    /// envelope.
    pub fn parse(body: &[u8]) -> Result<Self, CatalogError> {
        if body.len() > MAX_CATALOG_BYTES {
            return Err(CatalogError::Malformed {
                detail: "the body is larger than 4 MiB",
            });
        }
        let root: Value = serde_json::from_slice(body).map_err(|_| CatalogError::Malformed {
            detail: "the body is not JSON",
        })?;
        let Some(data) = root.get("data").and_then(Value::as_array) else {
            return Err(CatalogError::Malformed {
                detail: "the body has no data array",
            });
        };
        let models = data
            .iter()
            .filter_map(Value::as_object)
            .filter_map(parse_entry)
            .collect();
        Ok(Self { models })
    }

    /// The entry for a model id.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&ModelInfo> {
        self.models.iter().find(|m| m.id == id)
    }

    /// Up to `n` catalog ids nearest `query` (see [`nearest`]), best first.
    #[must_use]
    pub fn nearest(&self, query: &str, n: usize) -> Vec<String> {
        let ids: Vec<&str> = self.sorted().into_iter().map(|m| m.id.as_str()).collect();
        nearest(query, ids, n)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The full view: tool-use first, then tier, then provider rank, then newest, then id.
    #[must_use]
    pub fn sorted(&self) -> Vec<&ModelInfo> {
        let mut view: Vec<&ModelInfo> = self.models.iter().collect();
        view.sort_by(|a, b| {
            (!a.tags.tool_use, model_tier(&a.id), provider_rank(&a.id))
                .cmp(&(!b.tags.tool_use, model_tier(&b.id), provider_rank(&b.id)))
                .then_with(|| b.released.cmp(&a.released))
                .then_with(|| a.id.cmp(&b.id))
        });
        view
    }
}

/// Up to `n` of `candidates` nearest `query`, best first (ties keep the candidates' order).
/// A candidate scores the best of: the Jaro-Winkler similarity (`strsim`) of the names (ASCII
/// case folded), that of their last `/` segments, and a shared start of at least three
/// characters (`gpt-nonexistent` is near `openai/gpt-5`); one containing the other's last
/// segment adds a bonus. Candidates scoring below 0.7 are left out, so an unrelated word
/// suggests nothing.
#[must_use]
pub fn nearest<'a>(
    query: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let query = query.to_ascii_lowercase();
    let tail_of = |s: &str| s.rsplit('/').next().unwrap_or("").to_owned();
    let query_tail = tail_of(&query);
    // The best `n` so far, best first; a later candidate must score higher to pass an earlier
    // one (no sort: this runs on a handful of names and keeps the wasm small).
    let mut best: Vec<(f64, &str)> = Vec::with_capacity(n + 1);
    for candidate in candidates {
        let lower = candidate.to_ascii_lowercase();
        let tail = tail_of(&lower);
        let shared = query_tail
            .bytes()
            .zip(tail.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let prefix = if shared >= 3 {
            0.7 + 0.3 * shared as f64 / query_tail.len().min(tail.len()).max(1) as f64
        } else {
            0.0
        };
        let mut score = strsim::jaro_winkler(&query_tail, &tail)
            .max(strsim::jaro_winkler(&query, &lower))
            .max(prefix);
        if query_tail.len() >= 2 && (tail.contains(&query_tail) || query_tail.contains(&tail)) {
            score += 0.3;
        }
        if score < 0.7 {
            continue;
        }
        let at = best
            .iter()
            .position(|(s, _)| score > *s)
            .unwrap_or(best.len());
        if at < n {
            best.insert(at, (score, candidate));
            best.truncate(n);
        }
    }
    best.into_iter().map(|(_, c)| c).collect()
}

fn parse_entry(entry: &Map<String, Value>) -> Option<ModelInfo> {
    let id = entry.get("id")?.as_str()?;
    if id.is_empty() {
        return None;
    }
    match entry.get("type") {
        None => {}
        Some(Value::String(kind)) if kind.eq_ignore_ascii_case("language") => {}
        Some(_) => return None,
    }
    let mut tags = ModelTags::default();
    for tag in entry
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let tag = tag.to_ascii_lowercase();
        match tag.as_str() {
            "tool-use" => tags.tool_use = true,
            "reasoning" => tags.reasoning = true,
            "vision" => tags.vision = true,
            "file-input" => tags.file_input = true,
            "web-search" => tags.web_search = true,
            "explicit-caching" => tags.explicit_caching = true,
            "implicit-caching" => tags.implicit_caching = true,
            _ => {}
        }
    }
    let pricing = entry.get("pricing").and_then(Value::as_object);
    Some(ModelInfo {
        id: id.to_owned(),
        released: entry.get("released").and_then(Value::as_i64),
        tags,
        efforts: parse_efforts(entry.get("reasoning_options")),
        fast: parse_fast(entry, pricing),
        context_window: positive_int(entry.get("context_window")),
        max_tokens: positive_int(entry.get("max_tokens")),
        web_search_price: pricing
            .and_then(|p| p.get("web_search"))
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

fn positive_int(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64).filter(|v| *v > 0)
}

fn parse_efforts(options: Option<&Value>) -> Vec<String> {
    let Some(effort) = options
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|o| o.get("type").and_then(Value::as_str) == Some("effort"))
    else {
        return Vec::new();
    };
    let mut levels: Vec<String> = Vec::new();
    for value in effort
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if levels.len() >= MAX_EFFORT_LEVELS {
            break;
        }
        if is_effort_name(value) && !levels.iter().any(|l| l == value) {
            levels.push(value.to_owned());
        }
    }
    levels
}

fn parse_fast(entry: &Map<String, Value>, pricing: Option<&Map<String, Value>>) -> bool {
    let toggle = entry
        .get("fast_options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|o| o.get("type").and_then(Value::as_str) == Some("toggle"));
    let fast_price = pricing
        .and_then(|p| p.get("fast"))
        .is_some_and(Value::is_object);
    let openai_priority = entry.get("owned_by").and_then(Value::as_str) == Some("openai")
        && pricing
            .and_then(|p| p.get("service_tiers"))
            .and_then(|t| t.get("priority"))
            .is_some_and(Value::is_object);
    toggle || fast_price || openai_priority
}

/// Whether a string is a valid named effort (`[A-Za-z0-9._-]{1,64}`).
#[must_use]
pub fn is_effort_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_EFFORT_NAME_BYTES
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The reasoning effort preference.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Effort {
    /// The model's default; never sent.
    #[default]
    Auto,
    /// A named level, sent as `reasoning` when the catalog lists it.
    Named(String),
}

impl Effort {
    /// Parses a configured effort: `auto`, `adaptive` and `default` (any case) mean
    /// [`Effort::Auto`]; anything else must match `[A-Za-z0-9._-]{1,64}`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if ["auto", "adaptive", "default"]
            .iter()
            .any(|a| text.eq_ignore_ascii_case(a))
        {
            return Some(Self::Auto);
        }
        is_effort_name(text).then(|| Self::Named(text.to_owned()))
    }

    /// The effort as the session log and the screens name it: `auto`, or the level.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::Auto => "auto",
            Self::Named(name) => name,
        }
    }
}

/// Context window used when the catalog gives none (reference §1.8 item 5).
#[must_use]
pub fn fallback_context_window(model_id: &str) -> Option<u64> {
    let id = model_id.to_ascii_lowercase();
    if let Some(name) = id.strip_prefix("anthropic/") {
        const MILLION: [&str; 9] = [
            "claude-fable-5",
            "claude-opus-4.6",
            "claude-opus-4-6",
            "claude-opus-4.7",
            "claude-opus-4-7",
            "claude-opus-4.8",
            "claude-opus-4-8",
            "claude-sonnet-5",
            "claude-sonnet-4.6",
        ];
        let million =
            MILLION.iter().any(|m| name.contains(m)) || name.contains("claude-sonnet-4-6");
        return Some(if million { 1_000_000 } else { 200_000 });
    }
    if let Some(name) = id.strip_prefix("openai/") {
        if name.contains("gpt-5") {
            return Some(256_000);
        }
        if ["o1", "o3", "o4"].iter().any(|p| name.contains(p)) {
            return Some(200_000);
        }
        return Some(128_000);
    }
    if id.starts_with("xai/") {
        return Some(131_072);
    }
    if id.starts_with("google/") {
        return Some(1_000_000);
    }
    None
}

/// Whether `word` occurs in `name` between non-alphanumeric characters (or the ends), so `mini`
/// matches `gpt-5-mini` but not `gemini`.
fn contains_word(name: &str, word: &str) -> bool {
    name.match_indices(word).any(|(start, _)| {
        let before = name.get(..start).and_then(|s| s.chars().next_back());
        let after = name
            .get(start.saturating_add(word.len())..)
            .and_then(|s| s.chars().next());
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Sort tier of a model id: 0 flagship, 1 other, 2 flash, 3 small, 4 preview/beta, matching
/// whole words of the name. The weaker qualifier wins (`gpt-5-mini` is small,
/// `gemini-flash-preview` is preview).
#[must_use]
pub fn model_tier(model_id: &str) -> u8 {
    let id = model_id.to_ascii_lowercase();
    let name = id.rsplit('/').next().unwrap_or(&id);
    let has = |words: &[&str]| words.iter().any(|w| contains_word(name, w));
    if has(&["preview", "beta"]) {
        4
    } else if has(&["haiku", "mini", "lite"]) {
        3
    } else if has(&["flash"]) {
        2
    } else if has(&["opus", "sonnet", "gpt-5", "o1", "o3", "o4", "pro", "grok-4"]) {
        0
    } else {
        1
    }
}

/// Provider order of the full view (anthropic, openai, google, xai, deepseek, meta, mistral,
/// alibaba, then everything else).
#[must_use]
pub fn provider_rank(model_id: &str) -> u8 {
    const ORDER: [&str; 8] = [
        "anthropic",
        "openai",
        "google",
        "xai",
        "deepseek",
        "meta",
        "mistral",
        "alibaba",
    ];
    let provider = model_id.split('/').next().unwrap_or_default();
    ORDER
        .iter()
        .position(|p| provider.eq_ignore_ascii_case(p))
        .and_then(|p| u8::try_from(p).ok())
        .unwrap_or(u8::try_from(ORDER.len()).unwrap_or(u8::MAX))
}

/// The GET request for the catalog: URL and headers (`authorization` only for authenticated
/// access, `x-vercel-ai-gateway-team` when a non-empty team is known).
#[must_use]
pub fn catalog_request_headers(
    credential: Option<&str>,
    team: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut headers = Vec::new();
    if let Some(token) = credential.filter(|t| !t.is_empty()) {
        headers.push(("authorization", format!("Bearer {token}")));
    }
    if let Some(team) = team.filter(|t| !t.is_empty()) {
        headers.push(("x-vercel-ai-gateway-team", team.to_owned()));
    }
    headers
}
