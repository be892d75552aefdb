//! Shared value types of the log ([`DurableBytes`], [`Preferences`], [`Provider`]) and the
//! value rules of §3.1 (session id, workspace roots, language, model, effort).

pub use super::durable::DurableBytes;
use super::error::Reason;
use super::json::read::{as_str, fields, Path};
use super::json::tree::Value;
use super::json::write::Writer;

/// The model provider route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    /// The Vercel AI Gateway.
    #[default]
    Gateway,
    /// OpenAI Codex.
    Codex,
    /// xAI Grok.
    Grok,
}

impl Provider {
    /// Reads a provider name case-insensitively.
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "gateway" => Some(Self::Gateway),
            "codex" => Some(Self::Codex),
            "grok" => Some(Self::Grok),
            _ => None,
        }
    }

    /// The canonical (lowercase) name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gateway => "gateway",
            Self::Codex => "codex",
            Self::Grok => "grok",
        }
    }
}

/// Model preferences of a session (§3.1, §4.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preferences {
    /// Model id, 1–1024 bytes, no control characters, no surrounding whitespace.
    pub model: String,
    /// `auto` or a name of `[A-Za-z0-9._-]{1,64}`.
    pub effort: String,
    /// Fast mode.
    pub fast_mode: bool,
    /// Provider route.
    pub provider: Provider,
}

impl Preferences {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(
            value,
            path,
            &["model", "effort", "fast_mode"],
            &["provider"],
        )?;
        let provider = match f.get("provider") {
            None => Provider::Gateway,
            Some(_) => f.enumeration("provider", Provider::parse)?,
        };
        Ok(Self {
            model: check_model(f.str("model")?, &path.key("model"))?.to_owned(),
            effort: normalize_effort(f.str("effort")?, &path.key("effort"))?,
            fast_mode: f.bool("fast_mode")?,
            provider,
        })
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"model\":");
        w.str(&self.model);
        w.raw(",\"effort\":");
        w.str(&self.effort);
        w.raw(",\"fast_mode\":");
        w.bool(self.fast_mode);
        w.raw(",\"provider\":");
        w.str(self.provider.as_str());
        w.raw("}");
    }
}

fn has_control(text: &str) -> bool {
    text.bytes().any(|b| b < 0x20 || b == 0x7f)
}

fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn has_outer_ws(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(|&b| is_ascii_ws(b)) || bytes.last().is_some_and(|&b| is_ascii_ws(b))
}

/// A model id: 1–1024 bytes, no control characters, no leading/trailing ASCII whitespace.
pub(crate) fn check_model<'t>(text: &'t str, path: &Path<'_>) -> Result<&'t str, Reason> {
    if text.is_empty() || text.len() > 1024 || has_control(text) || has_outer_ws(text) {
        return Err(path.invalid(
            "a model id must be 1-1024 bytes without control characters or surrounding whitespace",
        ));
    }
    Ok(text)
}

/// An effort name: `auto` (also `adaptive`/`default`, any case) or `[A-Za-z0-9._-]{1,64}`.
pub(crate) fn normalize_effort(text: &str, path: &Path<'_>) -> Result<String, Reason> {
    let lower = text.to_ascii_lowercase();
    if matches!(lower.as_str(), "auto" | "adaptive" | "default") {
        return Ok("auto".to_owned());
    }
    if text.is_empty() || text.len() > 64 || !text.bytes().all(is_name_byte) {
        return Err(path.invalid("an effort must be auto or 1-64 characters of [A-Za-z0-9._-]"));
    }
    Ok(text.to_owned())
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// A session id: 1–255 bytes of `[A-Za-z0-9._-]`, not `.` or `..`.
pub fn is_valid_session_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 255 && id != "." && id != ".." && id.bytes().all(is_name_byte)
}

pub(crate) fn check_session_id<'t>(text: &'t str, path: &Path<'_>) -> Result<&'t str, Reason> {
    if !is_valid_session_id(text) {
        return Err(path.invalid("a session id must be 1-255 bytes of [A-Za-z0-9._-], not . or .."));
    }
    Ok(text)
}

/// A workspace root: an absolute path of at most 4096 bytes.
pub(crate) fn check_root<'t>(text: &'t str, path: &Path<'_>) -> Result<&'t str, Reason> {
    if !text.starts_with('/') || text.len() > 4096 {
        return Err(path.invalid("a workspace root must be an absolute path of at most 4096 bytes"));
    }
    Ok(text)
}

/// A conversation language: 1–24 bytes, no control characters, no surrounding whitespace.
pub(crate) fn check_language<'t>(text: &'t str, path: &Path<'_>) -> Result<&'t str, Reason> {
    if text.is_empty() || text.len() > 24 || has_control(text) || has_outer_ws(text) {
        return Err(path.invalid("a conversation language must be 1-24 bytes without control characters or surrounding whitespace"));
    }
    Ok(text)
}

/// A `work_id`: 1–128 bytes without NUL.
pub(crate) fn check_work_id<'t>(value: &'t Value<'_>, path: &Path<'_>) -> Result<&'t str, Reason> {
    let text = as_str(value, path)?;
    if text.is_empty() || text.len() > 128 || text.contains('\0') {
        return Err(path.invalid("a work_id must be 1-128 bytes without NUL"));
    }
    Ok(text)
}
