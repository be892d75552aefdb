//! Frames (§2) and the ten event kinds with their payloads (§3): decoding from a parsed frame
//! and canonical encoding of a whole line.

use base64::Engine as _;

use super::checkpoint::RecoveryCheckpoint;
use super::error::Reason;
use super::json::read::{fields, Path};
use super::json::tree::Value;
use super::json::write::Writer;
use super::turn::HistoryTurn;
use super::types::{
    check_language, check_model, check_root, check_session_id, check_work_id, normalize_effort,
};
use super::types::{Preferences, Provider};
use super::usage::UsageSnapshot;

/// The first frame's payload: the session's identity and initial settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionStarted {
    pub id: String,
    pub created_at_ms: i64,
    pub origin_workspace_root: String,
    pub workspace_root: String,
    pub conversation_language: String,
    pub preferences: Preferences,
    pub usage: Option<UsageSnapshot>,
}

/// A partial preferences update (at least one field).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreferencesChange {
    pub provider: Option<Provider>,
    pub model: Option<String>,
    pub effort: Option<String>,
    pub fast_mode: Option<bool>,
}

/// A committed history turn with the session totals after it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnCommitted {
    pub conversation_language: String,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub turn: HistoryTurn,
    pub work_id: Option<String>,
}

/// Why a state replacement was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementReason {
    Compaction,
    Migration,
    Recovery,
    LogCompaction,
}

impl ReplacementReason {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "compaction" => Some(Self::Compaction),
            "migration" => Some(Self::Migration),
            "recovery" => Some(Self::Recovery),
            "log_compaction" => Some(Self::LogCompaction),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Compaction => "compaction",
            Self::Migration => "migration",
            Self::Recovery => "recovery",
            Self::LogCompaction => "log_compaction",
        }
    }
}

/// Opens a state replacement transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacementStarted {
    pub replacement_id: [u8; 16],
    pub reason: ReplacementReason,
    pub encoded_bytes: u64,
    pub sha256: [u8; 32],
    pub chunk_count: u64,
}

/// One chunk of the state document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacementChunk {
    pub replacement_id: [u8; 16],
    pub chunk_index: u64,
    pub raw_bytes: u64,
    pub chunk_sha256: [u8; 32],
    /// The decoded chunk bytes (written as base64).
    pub data: Vec<u8>,
}

/// Closes a state replacement transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacementCommitted {
    pub replacement_id: [u8; 16],
    pub encoded_bytes: u64,
    pub sha256: [u8; 32],
    pub chunk_count: u64,
}

/// The payload of a frame, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    SessionStarted(SessionStarted),
    PreferencesChanged(PreferencesChange),
    WorkspaceRebound {
        previous_workspace_root: String,
        workspace_root: String,
    },
    HistoryTurnCommitted(TurnCommitted),
    UsageCheckpointed(UsageSnapshot),
    RecoveryCheckpointSet(RecoveryCheckpoint),
    RecoveryCheckpointCleared,
    StateReplacementStarted(ReplacementStarted),
    StateReplacementChunk(ReplacementChunk),
    StateReplacementCommitted(ReplacementCommitted),
}

impl Event {
    /// The wire kind name.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SessionStarted(_) => "session_started",
            Self::PreferencesChanged(_) => "preferences_changed",
            Self::WorkspaceRebound { .. } => "workspace_rebound",
            Self::HistoryTurnCommitted(_) => "history_turn_committed",
            Self::UsageCheckpointed(_) => "usage_checkpointed",
            Self::RecoveryCheckpointSet(_) => "recovery_checkpoint_set",
            Self::RecoveryCheckpointCleared => "recovery_checkpoint_cleared",
            Self::StateReplacementStarted(_) => "state_replacement_started",
            Self::StateReplacementChunk(_) => "state_replacement_chunk",
            Self::StateReplacementCommitted(_) => "state_replacement_committed",
        }
    }
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub generation: [u8; 16],
    pub seq: u64,
    pub event_id: [u8; 16],
    pub timestamp_ms: i64,
    pub event: Event,
}

const FRAME_KEYS: [&str; 7] = [
    "schema_version",
    "log_generation",
    "seq",
    "event_id",
    "timestamp_ms",
    "kind",
    "payload",
];

impl Frame {
    /// Decodes a parsed frame.
    pub(crate) fn decode(value: &Value<'_>) -> Result<Self, Reason> {
        let path = Path::root("frame");
        // The schema version is checked first: a future frame layout is "unsupported", not
        // "invalid".
        if let Value::Obj(entries) = value {
            if let Some((_, Value::Num(text))) = entries.iter().find(|(k, _)| k == "schema_version")
            {
                let digits = text.strip_prefix('-').unwrap_or(text);
                if *text != "1" && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(Reason::UnsupportedSchema((*text).to_owned()));
                }
            }
        }
        let f = fields(value, &path, &FRAME_KEYS, &[])?;
        match f.req("schema_version")? {
            Value::Num(text) if *text == "1" => {}
            Value::Num(_) => {
                return Err(Reason::BadInteger {
                    path: path.key("schema_version").render(),
                    expected: "an integer",
                });
            }
            _ => return Err(path.key("schema_version").wrong("an integer")),
        }
        let generation = f.hex16("log_generation")?;
        let seq = f.u64("seq")?;
        let event_id = f.hex16("event_id")?;
        let timestamp_ms = f.i64("timestamp_ms")?;
        if timestamp_ms < 0 {
            return Err(path.key("timestamp_ms").invalid("must not be negative"));
        }
        let kind = f.str("kind")?;
        let event = decode_payload(kind, f.req("payload")?)?;
        Ok(Self {
            generation,
            seq,
            event_id,
            timestamp_ms,
            event,
        })
    }

    /// Encodes the canonical line, including its trailing newline.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw("{\"schema_version\":1,\"log_generation\":");
        w.hex(&self.generation);
        w.raw(",\"seq\":");
        w.u64(self.seq);
        w.raw(",\"event_id\":");
        w.hex(&self.event_id);
        w.raw(",\"timestamp_ms\":");
        w.i64(self.timestamp_ms);
        w.raw(",\"kind\":\"");
        w.raw(self.event.kind());
        w.raw("\",\"payload\":");
        encode_payload(&mut w, &self.event);
        w.raw("}\n");
        w.into_bytes()
    }
}

fn decode_payload(kind: &str, value: &Value<'_>) -> Result<Event, Reason> {
    let path = Path::root("payload");
    let p = &path;
    match kind {
        "session_started" => {
            let keys = [
                "id",
                "created_at_ms",
                "origin_workspace_root",
                "workspace_root",
                "conversation_language",
                "preferences",
            ];
            let f = fields(value, p, &keys, &["usage"])?;
            Ok(Event::SessionStarted(SessionStarted {
                id: check_session_id(f.str("id")?, &p.key("id"))?.to_owned(),
                created_at_ms: f.i64("created_at_ms")?,
                origin_workspace_root: check_root(
                    f.str("origin_workspace_root")?,
                    &p.key("origin_workspace_root"),
                )?
                .to_owned(),
                workspace_root: check_root(f.str("workspace_root")?, &p.key("workspace_root"))?
                    .to_owned(),
                conversation_language: check_language(
                    f.str("conversation_language")?,
                    &p.key("conversation_language"),
                )?
                .to_owned(),
                preferences: Preferences::decode(f.req("preferences")?, &p.key("preferences"))?,
                usage: match f.get("usage") {
                    None => None,
                    Some(v) => Some(UsageSnapshot::decode(v, &p.key("usage"), false)?),
                },
            }))
        }
        "preferences_changed" => {
            let f = fields(value, p, &[], &["provider", "model", "effort", "fast_mode"])?;
            if f.len() == 0 {
                return Err(p.invalid("preferences_changed needs at least one key"));
            }
            let mut change = PreferencesChange::default();
            if f.has("provider") {
                change.provider = Some(f.enumeration("provider", Provider::parse)?);
            }
            if f.has("model") {
                change.model = Some(check_model(f.str("model")?, &p.key("model"))?.to_owned());
            }
            if f.has("effort") {
                change.effort = Some(normalize_effort(f.str("effort")?, &p.key("effort"))?);
            }
            if f.has("fast_mode") {
                change.fast_mode = Some(f.bool("fast_mode")?);
            }
            Ok(Event::PreferencesChanged(change))
        }
        "workspace_rebound" => {
            let f = fields(
                value,
                p,
                &["previous_workspace_root", "workspace_root"],
                &[],
            )?;
            let previous = f.str("previous_workspace_root")?;
            let root = f.str("workspace_root")?;
            if previous.is_empty() || root.is_empty() {
                return Err(Reason::InvalidRebound("both roots must be non-empty"));
            }
            Ok(Event::WorkspaceRebound {
                previous_workspace_root: previous.to_owned(),
                workspace_root: root.to_owned(),
            })
        }
        "history_turn_committed" => {
            let keys = [
                "conversation_language",
                "total_input_tokens",
                "total_output_tokens",
                "turn",
            ];
            let f = fields(value, p, &keys, &["work_id"])?;
            Ok(Event::HistoryTurnCommitted(TurnCommitted {
                conversation_language: check_language(
                    f.str("conversation_language")?,
                    &p.key("conversation_language"),
                )?
                .to_owned(),
                total_input_tokens: f.u64("total_input_tokens")?,
                total_output_tokens: f.u64("total_output_tokens")?,
                turn: HistoryTurn::decode(f.req("turn")?, &p.key("turn"))?,
                work_id: match f.get("work_id") {
                    None => None,
                    Some(v) => Some(check_work_id(v, &p.key("work_id"))?.to_owned()),
                },
            }))
        }
        "usage_checkpointed" => {
            let f = fields(value, p, &["usage"], &[])?;
            Ok(Event::UsageCheckpointed(UsageSnapshot::decode(
                f.req("usage")?,
                &p.key("usage"),
                false,
            )?))
        }
        "recovery_checkpoint_set" => {
            let f = fields(value, p, &["checkpoint"], &[])?;
            Ok(Event::RecoveryCheckpointSet(RecoveryCheckpoint::decode(
                f.req("checkpoint")?,
                &p.key("checkpoint"),
            )?))
        }
        "recovery_checkpoint_cleared" => {
            fields(value, p, &[], &[])?;
            Ok(Event::RecoveryCheckpointCleared)
        }
        "state_replacement_started" => {
            let keys = [
                "replacement_id",
                "reason",
                "encoded_bytes",
                "sha256",
                "chunk_count",
            ];
            let f = fields(value, p, &keys, &[])?;
            Ok(Event::StateReplacementStarted(ReplacementStarted {
                replacement_id: f.hex16("replacement_id")?,
                reason: f.enumeration("reason", ReplacementReason::parse)?,
                encoded_bytes: f.u64("encoded_bytes")?,
                sha256: f.hex32("sha256")?,
                chunk_count: f.u64("chunk_count")?,
            }))
        }
        "state_replacement_chunk" => {
            let keys = [
                "replacement_id",
                "chunk_index",
                "raw_bytes",
                "chunk_sha256",
                "base64",
            ];
            let f = fields(value, p, &keys, &[])?;
            let data = super::json::read::decode_base64(f.str("base64")?).ok_or_else(|| {
                Reason::BadBase64 {
                    path: p.key("base64").render(),
                }
            })?;
            Ok(Event::StateReplacementChunk(ReplacementChunk {
                replacement_id: f.hex16("replacement_id")?,
                chunk_index: f.u64("chunk_index")?,
                raw_bytes: f.u64("raw_bytes")?,
                chunk_sha256: f.hex32("chunk_sha256")?,
                data,
            }))
        }
        "state_replacement_committed" => {
            let f = fields(
                value,
                p,
                &["replacement_id", "encoded_bytes", "sha256", "chunk_count"],
                &[],
            )?;
            Ok(Event::StateReplacementCommitted(ReplacementCommitted {
                replacement_id: f.hex16("replacement_id")?,
                encoded_bytes: f.u64("encoded_bytes")?,
                sha256: f.hex32("sha256")?,
                chunk_count: f.u64("chunk_count")?,
            }))
        }
        other => Err(Reason::UnknownEventKind(other.to_owned())),
    }
}

fn encode_payload(w: &mut Writer, event: &Event) {
    match event {
        Event::SessionStarted(s) => {
            w.raw("{\"id\":");
            w.str(&s.id);
            w.raw(",\"created_at_ms\":");
            w.i64(s.created_at_ms);
            w.raw(",\"origin_workspace_root\":");
            w.str(&s.origin_workspace_root);
            w.raw(",\"workspace_root\":");
            w.str(&s.workspace_root);
            w.raw(",\"conversation_language\":");
            w.str(&s.conversation_language);
            w.raw(",\"preferences\":");
            s.preferences.encode(w);
            if let Some(usage) = &s.usage {
                w.raw(",\"usage\":");
                usage.encode(w);
            }
            w.raw("}");
        }
        Event::PreferencesChanged(c) => {
            let mut sep = "{";
            if let Some(provider) = c.provider {
                w.raw(sep);
                w.raw("\"provider\":");
                w.str(provider.as_str());
                sep = ",";
            }
            if let Some(model) = &c.model {
                w.raw(sep);
                w.raw("\"model\":");
                w.str(model);
                sep = ",";
            }
            if let Some(effort) = &c.effort {
                w.raw(sep);
                w.raw("\"effort\":");
                w.str(effort);
                sep = ",";
            }
            if let Some(fast) = c.fast_mode {
                w.raw(sep);
                w.raw("\"fast_mode\":");
                w.bool(fast);
                sep = ",";
            }
            w.raw(if sep == "{" { "{}" } else { "}" });
        }
        Event::WorkspaceRebound {
            previous_workspace_root,
            workspace_root,
        } => {
            w.raw("{\"previous_workspace_root\":");
            w.str(previous_workspace_root);
            w.raw(",\"workspace_root\":");
            w.str(workspace_root);
            w.raw("}");
        }
        Event::HistoryTurnCommitted(t) => {
            w.raw("{\"conversation_language\":");
            w.str(&t.conversation_language);
            w.raw(",\"total_input_tokens\":");
            w.u64(t.total_input_tokens);
            w.raw(",\"total_output_tokens\":");
            w.u64(t.total_output_tokens);
            w.raw(",\"turn\":");
            t.turn.encode(w);
            if let Some(work_id) = &t.work_id {
                w.raw(",\"work_id\":");
                w.str(work_id);
            }
            w.raw("}");
        }
        Event::UsageCheckpointed(u) => {
            w.raw("{\"usage\":");
            u.encode(w);
            w.raw("}");
        }
        Event::RecoveryCheckpointSet(c) => {
            w.raw("{\"checkpoint\":");
            c.encode(w);
            w.raw("}");
        }
        Event::RecoveryCheckpointCleared => w.raw("{}"),
        Event::StateReplacementStarted(s) => {
            w.raw("{\"replacement_id\":");
            w.hex(&s.replacement_id);
            w.raw(",\"reason\":\"");
            w.raw(s.reason.as_str());
            w.raw("\",\"encoded_bytes\":");
            w.u64(s.encoded_bytes);
            w.raw(",\"sha256\":");
            w.hex(&s.sha256);
            w.raw(",\"chunk_count\":");
            w.u64(s.chunk_count);
            w.raw("}");
        }
        Event::StateReplacementChunk(c) => {
            w.raw("{\"replacement_id\":");
            w.hex(&c.replacement_id);
            w.raw(",\"chunk_index\":");
            w.u64(c.chunk_index);
            w.raw(",\"raw_bytes\":");
            w.u64(c.raw_bytes);
            w.raw(",\"chunk_sha256\":");
            w.hex(&c.chunk_sha256);
            w.raw(",\"base64\":\"");
            w.raw(&base64::engine::general_purpose::STANDARD.encode(&c.data));
            w.raw("\"}");
        }
        Event::StateReplacementCommitted(c) => {
            w.raw("{\"replacement_id\":");
            w.hex(&c.replacement_id);
            w.raw(",\"encoded_bytes\":");
            w.u64(c.encoded_bytes);
            w.raw(",\"sha256\":");
            w.hex(&c.sha256);
            w.raw(",\"chunk_count\":");
            w.u64(c.chunk_count);
            w.raw("}");
        }
    }
}
