//! The session state (`DurableSessionState`) and its state-document codec (§4.13): fixed key
//! order checked on read, canonical order on write.

use super::checkpoint::{PermissionState, RecoveryCheckpoint};
use super::error::Reason;
use super::json::read::{fields, keys, Path};
use super::json::tree::{self, Value};
use super::json::write::Writer;
use super::turn::HistoryTurn;
use super::types::{check_language, check_model, check_root, check_session_id, Preferences};
use super::usage::UsageSnapshot;

/// Everything a session knows: what replaying its log yields.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionState {
    pub id: String,
    pub origin_workspace_root: String,
    pub workspace_root: String,
    pub created_at_ms: i64,
    /// The timestamp of the last applied frame.
    pub updated_at_ms: i64,
    pub conversation_language: String,
    pub preferences: Preferences,
    /// The full, never truncated, history.
    pub history: Vec<HistoryTurn>,
    /// Cumulative session totals (as last committed).
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    /// How many leading turns are compacted for the model (`/compact`).
    pub context_history_start: u64,
    pub permission_state: PermissionState,
    pub usage: Option<UsageSnapshot>,
    pub last_subagent_work_id: Option<String>,
    /// A pending in-flight turn saved for `/continue`.
    pub recovery_checkpoint: Option<RecoveryCheckpoint>,
}

const ORDER: [&str; 15] = [
    "id",
    "origin_workspace_root",
    "workspace_root",
    "created_at_ms",
    "updated_at_ms",
    "conversation_language",
    "preferences",
    "history",
    "total_input_tokens",
    "total_output_tokens",
    "context_history_start",
    "permission_state",
    "usage",
    "last_subagent_work_id",
    "recovery_checkpoint",
];

/// Largest state document: 16 MiB.
pub const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

fn check_order(value: &Value<'_>, order: &[&str], path: &Path<'_>) -> Result<(), Reason> {
    let mut last = None;
    for key in keys(value) {
        let pos = order.iter().position(|k| *k == key);
        if pos <= last {
            return Err(path.invalid("state document keys are out of order"));
        }
        last = pos;
    }
    Ok(())
}

/// Checks the document-wide limits: numbers up to 32 characters, keys up to 64 bytes.
fn check_limits(value: &Value<'_>) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Num(text) if text.len() > 32 => return false,
            Value::Arr(items) => stack.extend(items.iter()),
            Value::Obj(entries) => {
                for (k, v) in entries {
                    if k.len() > 64 {
                        return false;
                    }
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    true
}

impl SessionState {
    /// Decodes a state document (the whole input must be one compact-or-spaced JSON object).
    ///
    /// # Errors
    /// A [`Reason`] naming the offending path (`state.…`).
    pub fn decode_document(bytes: &[u8]) -> Result<Self, Reason> {
        if bytes.len() as u64 > MAX_STATE_BYTES {
            return Err(Reason::BlobTooLarge {
                what: "state document",
                bytes: bytes.len() as u64,
            });
        }
        let text = std::str::from_utf8(bytes).map_err(|_| Reason::InvalidUtf8)?;
        let value = tree::parse(text)?;
        let path = Path::root("state");
        if bytes.last() != Some(&b'}') {
            return Err(path.invalid("the document must end at its closing brace"));
        }
        if !check_limits(&value) {
            return Err(
                path.invalid("numbers must be at most 32 characters and keys at most 64 bytes")
            );
        }
        let required = ORDER.get(..10).unwrap_or_default();
        let optional = ORDER.get(10..).unwrap_or_default();
        let f = fields(&value, &path, required, optional)?;
        check_order(&value, &ORDER, &path)?;
        let prefs = f.req("preferences")?;
        let prefs_path = path.key("preferences");
        check_order(
            prefs,
            &["model", "effort", "fast_mode", "provider"],
            &prefs_path,
        )?;
        let preferences = Preferences::decode(prefs, &prefs_path)?;
        let id = check_session_id(f.str("id")?, &path.key("id"))?.to_owned();
        let history = f.list("history", HistoryTurn::decode)?;
        let context_history_start = match f.get("context_history_start") {
            None => 0,
            Some(_) => f.u64("context_history_start")?,
        };
        if context_history_start > history.len() as u64 {
            return Err(path
                .key("context_history_start")
                .invalid("exceeds the history length"));
        }
        let usage = match f.get("usage") {
            None | Some(Value::Null) => None,
            Some(v) => Some(UsageSnapshot::decode(v, &path.key("usage"), true)?),
        };
        let last_subagent_work_id = match f.get("last_subagent_work_id") {
            None | Some(Value::Null) => None,
            Some(v) => {
                Some(super::types::check_work_id(v, &path.key("last_subagent_work_id"))?.to_owned())
            }
        };
        let recovery_checkpoint = match f.get("recovery_checkpoint") {
            None | Some(Value::Null) => None,
            Some(v) => Some(RecoveryCheckpoint::decode(
                v,
                &path.key("recovery_checkpoint"),
            )?),
        };
        Ok(Self {
            id,
            origin_workspace_root: check_root(
                f.str("origin_workspace_root")?,
                &path.key("origin_workspace_root"),
            )?
            .to_owned(),
            workspace_root: check_root(f.str("workspace_root")?, &path.key("workspace_root"))?
                .to_owned(),
            created_at_ms: f.i64("created_at_ms")?,
            updated_at_ms: f.i64("updated_at_ms")?,
            conversation_language: check_language(
                f.str("conversation_language")?,
                &path.key("conversation_language"),
            )?
            .to_owned(),
            preferences,
            history,
            total_input_tokens: f.u64("total_input_tokens")?,
            total_output_tokens: f.u64("total_output_tokens")?,
            context_history_start,
            permission_state: match f.get("permission_state") {
                None => PermissionState::default(),
                Some(v) => PermissionState::decode(v, &path.key("permission_state"))?,
            },
            usage,
            last_subagent_work_id,
            recovery_checkpoint,
        })
    }

    /// Encodes the canonical state document (no trailing newline).
    pub fn encode_document(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw("{\"id\":");
        w.str(&self.id);
        w.raw(",\"origin_workspace_root\":");
        w.str(&self.origin_workspace_root);
        w.raw(",\"workspace_root\":");
        w.str(&self.workspace_root);
        w.raw(",\"created_at_ms\":");
        w.i64(self.created_at_ms);
        w.raw(",\"updated_at_ms\":");
        w.i64(self.updated_at_ms);
        w.raw(",\"conversation_language\":");
        w.str(&self.conversation_language);
        w.raw(",\"preferences\":");
        self.preferences.encode(&mut w);
        w.raw(",\"history\":");
        w.list(&self.history, |w, t| t.encode(w));
        w.raw(",\"total_input_tokens\":");
        w.u64(self.total_input_tokens);
        w.raw(",\"total_output_tokens\":");
        w.u64(self.total_output_tokens);
        w.raw(",\"context_history_start\":");
        w.u64(self.context_history_start);
        w.raw(",\"permission_state\":");
        self.permission_state.encode(&mut w);
        if let Some(usage) = &self.usage {
            w.raw(",\"usage\":");
            usage.encode(&mut w);
        }
        if let Some(work_id) = &self.last_subagent_work_id {
            w.raw(",\"last_subagent_work_id\":");
            w.str(work_id);
        }
        if let Some(checkpoint) = &self.recovery_checkpoint {
            w.raw(",\"recovery_checkpoint\":");
            checkpoint.encode(&mut w);
        }
        w.raw("}");
        w.into_bytes()
    }
}

/// Validates a model id (for callers building preferences).
///
/// # Errors
/// The rule the model id breaks.
pub fn validate_model(model: &str) -> Result<(), Reason> {
    check_model(model, &Path::root("model")).map(|_| ())
}
