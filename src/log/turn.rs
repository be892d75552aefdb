//! History turns (§4.1, §4.2, §4.6, §4.7): the user turn and its images, and the four
//! `HistoryTurn` variants with the legacy forms the reader accepts.

use super::error::Reason;
use super::execution::{
    decode_opt_replay, encode_opt_replay, CommandOutputReplay, Execution, ToolCall,
};
use super::json::read::{as_db, as_str, fields, parse_hex, Path};
use super::json::tree::Value;
use super::json::write::Writer;
use super::types::{check_work_id, DurableBytes};

/// The on-disk snapshot of an attached image: `images/image-<id>-<sha16>.bin` and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSnapshot {
    /// Relative path inside the session directory (the canonical locator).
    pub path: String,
    /// SHA-256 of the image bytes.
    pub sha256: [u8; 32],
}

/// An image attached to a user turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub id: u64,
    pub path: DurableBytes,
    pub media_type: DurableBytes,
    pub snapshot: Option<ImageSnapshot>,
}

/// The canonical snapshot locator of image `id` with digest `sha256`.
pub fn snapshot_locator(id: u64, sha256: &[u8; 32]) -> String {
    let hex = super::json::write::hex_string(sha256);
    format!(
        "images/image-{id}-{}.bin",
        hex.get(..16).unwrap_or_default()
    )
}

impl Image {
    fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(
            value,
            path,
            &["id", "path", "media_type"],
            &["snapshot_path", "snapshot_sha256"],
        )?;
        let id = f.u64("id")?;
        let snap_path = f.opt_db("snapshot_path")?;
        let snap_sha = f.opt_db("snapshot_sha256")?;
        let snapshot = match (snap_path, snap_sha) {
            (None, None) => None,
            (Some(p), Some(s)) => {
                let sha: [u8; 32] = s.as_str().and_then(parse_hex).ok_or_else(|| {
                    path.key("snapshot_sha256")
                        .invalid("must be 64 lowercase hex digits")
                })?;
                let locator = snapshot_locator(id, &sha);
                if id == 0 || p.as_bytes() != locator.as_bytes() {
                    return Err(path
                        .key("snapshot_path")
                        .invalid("must be images/image-<id>-<first 16 hex of sha>.bin"));
                }
                Some(ImageSnapshot {
                    path: locator,
                    sha256: sha,
                })
            }
            _ => {
                return Err(path
                    .invalid("snapshot_path and snapshot_sha256 must both be null or both be set"))
            }
        };
        Ok(Self {
            id,
            path: f.db("path")?,
            media_type: f.db("media_type")?,
            snapshot,
        })
    }

    fn encode(&self, w: &mut Writer) {
        w.raw("{\"id\":");
        w.u64(self.id);
        w.raw(",\"path\":");
        w.db(&self.path);
        w.raw(",\"media_type\":");
        w.db(&self.media_type);
        match &self.snapshot {
            None => w.raw(",\"snapshot_path\":null,\"snapshot_sha256\":null}"),
            Some(s) => {
                w.raw(",\"snapshot_path\":");
                w.str(&s.path);
                w.raw(",\"snapshot_sha256\":");
                w.hex(&s.sha256);
                w.raw("}");
            }
        }
    }
}

/// What the user sent: text, images, and an optional subagent `work_id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTurn {
    pub text: DurableBytes,
    pub images: Vec<Image>,
    pub work_id: Option<String>,
}

impl UserTurn {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(value, path, &["text", "images"], &["work_id"])?;
        let work_id = match f.get("work_id") {
            None => None,
            Some(v) => Some(check_work_id(v, &path.key("work_id"))?.to_owned()),
        };
        Ok(Self {
            text: f.db("text")?,
            images: f.list("images", Image::decode)?,
            work_id,
        })
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"text\":");
        w.db(&self.text);
        w.raw(",\"images\":");
        w.list(&self.images, |w, i| i.encode(w));
        if let Some(work_id) = &self.work_id {
            w.raw(",\"work_id\":");
            w.str(work_id);
        }
        w.raw("}");
    }
}

/// How an interrupted turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TerminalReason {
    #[default]
    Cancelled,
    Failed,
}

impl TerminalReason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }
}

/// Captured output of a command cancelled mid-run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelledCommand {
    pub output_replay: Option<CommandOutputReplay>,
    pub command_artifact_handle: Option<DurableBytes>,
}

/// A completed model turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssistantTurn {
    pub user: UserTurn,
    /// The final assistant text (may be empty, never null).
    pub assistant: DurableBytes,
    pub execution: Execution,
}

/// A turn that ended early (cancelled or failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptedTurn {
    pub user: UserTurn,
    /// Partial assistant text.
    pub assistant: Option<DurableBytes>,
    /// The call in flight when the turn ended.
    pub tool_call: Option<ToolCall>,
    pub completed_tool_names: Vec<DurableBytes>,
    pub terminal_reason: TerminalReason,
    /// Completed steps (written only when non-empty).
    pub execution: Execution,
    pub cancelled_command: Option<CancelledCommand>,
}

/// A turn that launched a background command or server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundCommandTurn {
    pub user: UserTurn,
    pub log_path: DurableBytes,
    pub expect_url: bool,
    pub url: Option<DurableBytes>,
    pub background_record_id: Option<[u8; 16]>,
    pub assistant: Option<DurableBytes>,
    pub execution: Execution,
}

/// A summary standing for compacted earlier turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactedSummary {
    pub summary: DurableBytes,
    pub removed_turn_count: u64,
    pub compaction_count: u64,
}

/// One entry of a session's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryTurn {
    Assistant(AssistantTurn),
    Interrupted(InterruptedTurn),
    BackgroundCommand(BackgroundCommandTurn),
    CompactedSummary(CompactedSummary),
}

impl HistoryTurn {
    /// The user turn, when the variant has one.
    pub fn user(&self) -> Option<&UserTurn> {
        match self {
            Self::Assistant(t) => Some(&t.user),
            Self::Interrupted(t) => Some(&t.user),
            Self::BackgroundCommand(t) => Some(&t.user),
            Self::CompactedSummary(_) => None,
        }
    }

    pub(crate) fn user_mut(&mut self) -> Option<&mut UserTurn> {
        match self {
            Self::Assistant(t) => Some(&mut t.user),
            Self::Interrupted(t) => Some(&mut t.user),
            Self::BackgroundCommand(t) => Some(&mut t.user),
            Self::CompactedSummary(_) => None,
        }
    }

    /// Every image of the turn.
    pub fn images(&self) -> &[Image] {
        self.user().map_or(&[], |u| u.images.as_slice())
    }

    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let Value::Obj(entries) = value else {
            return Err(path.wrong("an object"));
        };
        let Some((_, kind)) = entries.iter().find(|(k, _)| k == "kind") else {
            return Err(Reason::MissingKey {
                key: "kind",
                path: path.render(),
            });
        };
        let kind = as_str(kind, &path.key("kind"))?;
        match kind {
            "assistant" => decode_assistant(value, path),
            "interrupted" => decode_interrupted(value, path),
            "background_command" => decode_background(value, path),
            "compacted_summary" => decode_summary(value, path),
            other => Err(Reason::UnknownValue {
                path: path.key("kind").render(),
                value: other.to_owned(),
            }),
        }
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        match self {
            Self::Assistant(t) => {
                w.raw("{\"kind\":\"assistant\",\"user\":");
                t.user.encode(w);
                w.raw(",\"assistant\":");
                w.db(&t.assistant);
                w.raw(",\"execution\":");
                t.execution.encode(w);
                w.raw("}");
            }
            Self::Interrupted(t) => encode_interrupted(w, t),
            Self::BackgroundCommand(t) => {
                w.raw("{\"kind\":\"background_command\",\"user\":");
                t.user.encode(w);
                w.raw(",\"log_path\":");
                w.db(&t.log_path);
                w.raw(",\"expect_url\":");
                w.bool(t.expect_url);
                w.raw(",\"url\":");
                w.opt_db(t.url.as_ref());
                w.raw(",\"background_record_id\":");
                match &t.background_record_id {
                    Some(id) => w.hex(id),
                    None => w.null(),
                }
                if t.assistant.is_some() || !t.execution.is_empty() {
                    w.raw(",\"assistant\":");
                    w.opt_db(t.assistant.as_ref());
                    w.raw(",\"execution\":");
                    t.execution.encode(w);
                }
                w.raw("}");
            }
            Self::CompactedSummary(s) => {
                w.raw("{\"kind\":\"compacted_summary\",\"summary\":");
                w.db(&s.summary);
                w.raw(",\"removed_turn_count\":");
                w.u64(s.removed_turn_count);
                w.raw(",\"compaction_count\":");
                w.u64(s.compaction_count);
                w.raw("}");
            }
        }
    }
}

fn decode_assistant(value: &Value<'_>, path: &Path<'_>) -> Result<HistoryTurn, Reason> {
    let f = fields(
        value,
        path,
        &["kind", "user", "assistant", "execution"],
        &[],
    )?;
    Ok(HistoryTurn::Assistant(AssistantTurn {
        user: UserTurn::decode(f.req("user")?, &path.key("user"))?,
        assistant: f.db("assistant")?,
        execution: Execution::decode(f.req("execution")?, &path.key("execution"))?,
    }))
}

/// True for a call whose cancellation can carry captured command output.
fn is_captured_command(call: &ToolCall) -> bool {
    match call.name.as_bytes() {
        b"run_command" => true,
        b"terminal" => call.arguments_json.as_str().is_some_and(|args| {
            matches!(
                super::json::tree::parse(args),
                Ok(Value::Obj(entries)) if entries.iter().any(|(k, v)| k == "action" && *v == Value::Str("exec".into()))
            )
        }),
        _ => false,
    }
}

fn decode_interrupted(value: &Value<'_>, path: &Path<'_>) -> Result<HistoryTurn, Reason> {
    let f = fields(
        value,
        path,
        &[
            "kind",
            "user",
            "assistant",
            "tool_call",
            "completed_tool_names",
        ],
        &["terminal_reason", "execution", "cancelled_command"],
    )?;
    let mut tool_call = match f.req("tool_call")? {
        Value::Null => None,
        v => Some(ToolCall::decode(v, &path.key("tool_call"))?),
    };
    let terminal_reason = match f.get("terminal_reason") {
        None => TerminalReason::Cancelled,
        Some(_) => f.enumeration("terminal_reason", |s| match s {
            "cancelled" => Some(TerminalReason::Cancelled),
            "failed" => Some(TerminalReason::Failed),
            _ => None,
        })?,
    };
    let execution = match f.get("execution") {
        None => Execution::default(),
        Some(v) => Execution::decode(v, &path.key("execution"))?,
    };
    let cancelled_command = match f.get("cancelled_command") {
        None => None,
        Some(v) => {
            let cpath = path.key("cancelled_command");
            let c = fields(
                v,
                &cpath,
                &["output_replay", "command_artifact_handle"],
                &[],
            )?;
            let captured = tool_call.as_ref().is_some_and(is_captured_command);
            if terminal_reason != TerminalReason::Cancelled || !captured {
                return Err(cpath.invalid("allowed only on a cancelled captured command"));
            }
            Some(CancelledCommand {
                output_replay: decode_opt_replay(
                    c.get("output_replay"),
                    &cpath.key("output_replay"),
                )?,
                command_artifact_handle: c.opt_db("command_artifact_handle")?,
            })
        }
    };
    if let Some(call) = tool_call.as_mut() {
        if !call.arguments_are_valid() {
            call.arguments_json = DurableBytes::from("{}");
        }
    }
    Ok(HistoryTurn::Interrupted(InterruptedTurn {
        user: UserTurn::decode(f.req("user")?, &path.key("user"))?,
        assistant: f.opt_db("assistant")?,
        tool_call,
        completed_tool_names: f.list("completed_tool_names", |v, p| as_db(v, p))?,
        terminal_reason,
        execution,
        cancelled_command,
    }))
}

fn encode_interrupted(w: &mut Writer, t: &InterruptedTurn) {
    w.raw("{\"kind\":\"interrupted\",\"user\":");
    t.user.encode(w);
    w.raw(",\"assistant\":");
    w.opt_db(t.assistant.as_ref());
    w.raw(",\"tool_call\":");
    match &t.tool_call {
        Some(c) => c.encode(w),
        None => w.null(),
    }
    w.raw(",\"completed_tool_names\":");
    w.list(&t.completed_tool_names, |w, n| w.db(n));
    w.raw(",\"terminal_reason\":\"");
    w.raw(t.terminal_reason.as_str());
    w.raw("\"");
    if !t.execution.is_empty() {
        w.raw(",\"execution\":");
        t.execution.encode(w);
    }
    if let Some(c) = &t.cancelled_command {
        w.raw(",\"cancelled_command\":{\"output_replay\":");
        encode_opt_replay(w, c.output_replay.as_ref());
        w.raw(",\"command_artifact_handle\":");
        w.opt_db(c.command_artifact_handle.as_ref());
        w.raw("}");
    }
    w.raw("}");
}

fn decode_background(value: &Value<'_>, path: &Path<'_>) -> Result<HistoryTurn, Reason> {
    const LEGACY: [&str; 6] = [
        "kind",
        "user",
        "log_path",
        "expect_url",
        "url",
        "background_record_id",
    ];
    let f = fields(value, path, &LEGACY, &["assistant", "execution"])?;
    let extended = f.len() == 8;
    if f.len() != 6 && !extended {
        let missing = if f.has("assistant") {
            "execution"
        } else {
            "assistant"
        };
        return Err(Reason::MissingKey {
            key: missing,
            path: path.render(),
        });
    }
    let background_record_id = match f.req("background_record_id")? {
        Value::Null => None,
        _ => Some(f.hex16("background_record_id")?),
    };
    Ok(HistoryTurn::BackgroundCommand(BackgroundCommandTurn {
        user: UserTurn::decode(f.req("user")?, &path.key("user"))?,
        log_path: f.db("log_path")?,
        expect_url: f.bool("expect_url")?,
        url: f.opt_db("url")?,
        background_record_id,
        assistant: if extended {
            f.opt_db("assistant")?
        } else {
            None
        },
        execution: match f.get("execution") {
            Some(v) => Execution::decode(v, &path.key("execution"))?,
            None => Execution::default(),
        },
    }))
}

fn decode_summary(value: &Value<'_>, path: &Path<'_>) -> Result<HistoryTurn, Reason> {
    const BASE: [&str; 4] = ["kind", "summary", "removed_turn_count", "compaction_count"];
    const LEGACY: [&str; 4] = [
        "root_user_messages",
        "root_user_messages_complete",
        "permission_feedback",
        "permission_feedback_complete",
    ];
    let f = fields(value, path, &BASE, &LEGACY)?;
    // Legacy forms add the first 1, 2 or all 4 legacy keys (5, 6 or 8 keys in all).
    let present = LEGACY.iter().filter(|k| f.has(k)).count();
    let prefix_ok = LEGACY.iter().take(present).all(|k| f.has(k));
    if present == 3 || !prefix_ok {
        return Err(path.invalid("a legacy compacted_summary must have 4, 5, 6 or 8 keys"));
    }
    if f.has("root_user_messages") {
        f.list("root_user_messages", |v, p| as_db(v, p))?;
    }
    if f.has("root_user_messages_complete") {
        f.bool("root_user_messages_complete")?;
    }
    if f.has("permission_feedback") {
        f.list("permission_feedback", |v, p| as_db(v, p))?;
        f.bool("permission_feedback_complete")?;
    }
    Ok(HistoryTurn::CompactedSummary(CompactedSummary {
        summary: f.db("summary")?,
        removed_turn_count: f.u64("removed_turn_count")?,
        compaction_count: f.u64("compaction_count")?,
    }))
}
