//! Tool execution memory (§4.3–4.5): tool calls, persisted tool results (schemas 1–3), file
//! evidence, diff presentations, and the load-time repair of malformed `arguments_json`.

use super::error::Reason;
use super::json::read::{as_db, as_i64, as_u64, fields, Path};
use super::json::tree::{is_valid_json, Value};
use super::json::write::Writer;
use super::presentation::{decode_presentation, encode_presentation};
pub use super::presentation::{DiffLine, DiffLineKind, FilePresentation};
use super::types::DurableBytes;

/// A tool call the model issued. `arguments_json` is the model's raw argument text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub id: DurableBytes,
    pub name: DurableBytes,
    pub arguments_json: DurableBytes,
    /// Opaque output of provider-executed tools.
    pub provider_result: Option<DurableBytes>,
}

/// `success` or `failure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Success,
    Failure,
}

impl ToolStatus {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "success" => Some(Self::Success),
            "failure" => Some(Self::Failure),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
        }
    }
}

/// Where the full output of a command can be replayed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutputReplay {
    Available {
        handle: DurableBytes,
        framed_bytes: u64,
    },
    Unavailable,
}

/// How a command process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessPresentation {
    ExitCode(i64),
    Signal(u32),
}
/// A persisted tool result (execution schema 3, 15 keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub tool_call_id: DurableBytes,
    pub tool_name: DurableBytes,
    pub status: ToolStatus,
    pub output: DurableBytes,
    pub output_handle: Option<DurableBytes>,
    pub preview: Option<DurableBytes>,
    pub output_bytes: u64,
    pub stored_output_bytes: u64,
    pub truncated: bool,
    pub provider_native: bool,
    pub created_at_ms: i64,
    pub permission_feedback: Vec<DurableBytes>,
    pub committed_file_presentation: Option<FilePresentation>,
    pub command_output_replay: Option<CommandOutputReplay>,
    pub command_process_presentation: Option<ProcessPresentation>,
}

/// One model step: the text before the calls, the calls, and their results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolStep {
    pub assistant: Option<DurableBytes>,
    pub tool_calls: Vec<ToolCall>,
    pub tool_results: Vec<ToolResult>,
}

/// What a tool did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAction {
    Read,
    Write,
    Edit,
    Delete,
    Rename,
    Copy,
    Search,
    List,
    Unknown,
}

const FILE_ACTIONS: [(&str, FileAction); 9] = [
    ("read", FileAction::Read),
    ("write", FileAction::Write),
    ("edit", FileAction::Edit),
    ("delete", FileAction::Delete),
    ("rename", FileAction::Rename),
    ("copy", FileAction::Copy),
    ("search", FileAction::Search),
    ("list", FileAction::List),
    ("unknown", FileAction::Unknown),
];

impl FileAction {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        FILE_ACTIONS
            .iter()
            .find(|(_, a)| *a == self)
            .map_or("unknown", |(n, _)| n)
    }
}

/// File evidence: a path a tool touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub path: DurableBytes,
    pub new_path: Option<DurableBytes>,
    pub tool_call_id: DurableBytes,
    pub tool_name: DurableBytes,
    pub action: FileAction,
    pub status: ToolStatus,
    pub model_view_covers_full_file: bool,
    pub stale: bool,
}

/// The tool steps and file evidence of a turn (`ExecutionMemory`, always written as schema 3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Execution {
    pub tool_steps: Vec<ToolStep>,
    pub files: Vec<FileRecord>,
}

impl Execution {
    /// True when there are no steps and no files.
    pub fn is_empty(&self) -> bool {
        self.tool_steps.is_empty() && self.files.is_empty()
    }
}

const RESULT_KEYS: [&str; 15] = [
    "tool_call_id",
    "tool_name",
    "status",
    "output",
    "output_handle",
    "preview",
    "output_bytes",
    "stored_output_bytes",
    "truncated",
    "provider_native",
    "created_at_ms",
    "permission_feedback",
    "committed_file_presentation",
    "command_output_replay",
    "command_process_presentation",
];

fn lookup<T: Copy>(table: &[(&str, T)], s: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == s).map(|(_, v)| *v)
}

impl ToolCall {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(
            value,
            path,
            &["id", "name", "arguments_json", "provider_result"],
            &[],
        )?;
        Ok(Self {
            id: f.db("id")?,
            name: f.db("name")?,
            arguments_json: f.db("arguments_json")?,
            provider_result: f.opt_db("provider_result")?,
        })
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"id\":");
        w.db(&self.id);
        w.raw(",\"name\":");
        w.db(&self.name);
        w.raw(",\"arguments_json\":");
        w.db(&self.arguments_json);
        w.raw(",\"provider_result\":");
        w.opt_db(self.provider_result.as_ref());
        w.raw("}");
    }

    /// True when `arguments_json` is valid JSON with no duplicate keys.
    pub fn arguments_are_valid(&self) -> bool {
        self.arguments_json.as_str().is_some_and(is_valid_json)
    }
}

fn decode_replay(value: &Value<'_>, path: &Path<'_>) -> Result<CommandOutputReplay, Reason> {
    let kind = super::json::read::fields(value, path, &["kind"], &["handle", "framed_bytes"])?
        .enumeration("kind", |s| match s {
            "available" => Some(true),
            "unavailable" => Some(false),
            _ => None,
        })?;
    if kind {
        let f = fields(value, path, &["kind", "handle", "framed_bytes"], &[])?;
        Ok(CommandOutputReplay::Available {
            handle: f.db("handle")?,
            framed_bytes: f.u64("framed_bytes")?,
        })
    } else {
        fields(value, path, &["kind"], &[])?;
        Ok(CommandOutputReplay::Unavailable)
    }
}

pub(crate) fn decode_opt_replay(
    value: Option<&Value<'_>>,
    path: &Path<'_>,
) -> Result<Option<CommandOutputReplay>, Reason> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => decode_replay(v, path).map(Some),
    }
}

pub(crate) fn encode_opt_replay(w: &mut Writer, replay: Option<&CommandOutputReplay>) {
    match replay {
        None => w.null(),
        Some(CommandOutputReplay::Unavailable) => w.raw("{\"kind\":\"unavailable\"}"),
        Some(CommandOutputReplay::Available {
            handle,
            framed_bytes,
        }) => {
            w.raw("{\"kind\":\"available\",\"handle\":");
            w.db(handle);
            w.raw(",\"framed_bytes\":");
            w.u64(*framed_bytes);
            w.raw("}");
        }
    }
}

fn decode_process(value: &Value<'_>, path: &Path<'_>) -> Result<ProcessPresentation, Reason> {
    let f = fields(value, path, &["kind", "value"], &[])?;
    let signal = f.enumeration("kind", |s| match s {
        "exit_code" => Some(false),
        "signal" => Some(true),
        _ => None,
    })?;
    let vpath = path.key("value");
    if signal {
        let v = as_u64(f.req("value")?, &vpath)?;
        u32::try_from(v)
            .map(ProcessPresentation::Signal)
            .map_err(|_| Reason::BadInteger {
                path: vpath.render(),
                expected: "a 32-bit unsigned integer",
            })
    } else {
        Ok(ProcessPresentation::ExitCode(as_i64(
            f.req("value")?,
            &vpath,
        )?))
    }
}

impl ToolResult {
    fn decode(value: &Value<'_>, path: &Path<'_>, schema: u64) -> Result<Self, Reason> {
        let (required, optional): (&[&str], &[&str]) = match schema {
            1 => (RESULT_KEYS.get(..11).unwrap_or_default(), &[]),
            2 => (
                RESULT_KEYS.get(..12).unwrap_or_default(),
                RESULT_KEYS.get(12..13).unwrap_or_default(),
            ),
            _ => (&RESULT_KEYS, &[]),
        };
        let f = fields(value, path, required, optional)?;
        let presentation = match f.get("committed_file_presentation") {
            None | Some(Value::Null) => None,
            Some(v) => Some(decode_presentation(
                v,
                &path.key("committed_file_presentation"),
            )?),
        };
        let process = match f.get("command_process_presentation") {
            None | Some(Value::Null) => None,
            Some(v) => Some(decode_process(
                v,
                &path.key("command_process_presentation"),
            )?),
        };
        let output = match f.req("output")? {
            v @ (Value::Str(_) | Value::Obj(_)) => as_db(v, &path.key("output"))?,
            _ => return Err(path.key("output").wrong("a string or durable-bytes object")),
        };
        Ok(Self {
            tool_call_id: f.db("tool_call_id")?,
            tool_name: f.db("tool_name")?,
            status: f.enumeration("status", ToolStatus::parse)?,
            output,
            output_handle: f.opt_db("output_handle")?,
            preview: f.opt_db("preview")?,
            output_bytes: f.u64("output_bytes")?,
            stored_output_bytes: f.u64("stored_output_bytes")?,
            truncated: f.bool("truncated")?,
            provider_native: f.bool("provider_native")?,
            created_at_ms: f.i64("created_at_ms")?,
            permission_feedback: if schema >= 2 {
                f.list("permission_feedback", |v, p| as_db(v, p))?
            } else {
                Vec::new()
            },
            committed_file_presentation: presentation,
            command_output_replay: decode_opt_replay(
                f.get("command_output_replay"),
                &path.key("command_output_replay"),
            )?,
            command_process_presentation: process,
        })
    }

    fn encode(&self, w: &mut Writer) {
        w.raw("{\"tool_call_id\":");
        w.db(&self.tool_call_id);
        w.raw(",\"tool_name\":");
        w.db(&self.tool_name);
        w.raw(",\"status\":\"");
        w.raw(self.status.as_str());
        w.raw("\",\"output\":");
        w.db(&self.output);
        w.raw(",\"output_handle\":");
        w.opt_db(self.output_handle.as_ref());
        w.raw(",\"preview\":");
        w.opt_db(self.preview.as_ref());
        w.raw(",\"output_bytes\":");
        w.u64(self.output_bytes);
        w.raw(",\"stored_output_bytes\":");
        w.u64(self.stored_output_bytes);
        w.raw(",\"truncated\":");
        w.bool(self.truncated);
        w.raw(",\"provider_native\":");
        w.bool(self.provider_native);
        w.raw(",\"created_at_ms\":");
        w.i64(self.created_at_ms);
        w.raw(",\"permission_feedback\":");
        w.list(&self.permission_feedback, |w, d| w.db(d));
        w.raw(",\"committed_file_presentation\":");
        match &self.committed_file_presentation {
            None => w.null(),
            Some(p) => encode_presentation(w, p),
        }
        w.raw(",\"command_output_replay\":");
        encode_opt_replay(w, self.command_output_replay.as_ref());
        w.raw(",\"command_process_presentation\":");
        match self.command_process_presentation {
            None => w.null(),
            Some(ProcessPresentation::ExitCode(v)) => {
                w.raw("{\"kind\":\"exit_code\",\"value\":");
                w.i64(v);
                w.raw("}");
            }
            Some(ProcessPresentation::Signal(v)) => {
                w.raw("{\"kind\":\"signal\",\"value\":");
                w.u64(u64::from(v));
                w.raw("}");
            }
        }
        w.raw("}");
    }
}

impl Execution {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(value, path, &["schema_version", "tool_steps", "files"], &[])?;
        let schema = f.u64("schema_version")?;
        if !(1..=3).contains(&schema) {
            return Err(path
                .key("schema_version")
                .invalid("execution schema_version must be 1, 2 or 3"));
        }
        let tool_steps = f.list("tool_steps", |v, p| {
            let s = fields(v, p, &["assistant", "tool_calls", "tool_results"], &[])?;
            let mut step = ToolStep {
                assistant: s.opt_db("assistant")?,
                tool_calls: s.list("tool_calls", ToolCall::decode)?,
                tool_results: s.list("tool_results", |v, p| ToolResult::decode(v, p, schema))?,
            };
            repair_arguments(&mut step, p)?;
            Ok(step)
        })?;
        let files = f.list("files", |v, p| {
            let keys = [
                "path",
                "new_path",
                "tool_call_id",
                "tool_name",
                "action",
                "status",
                "model_view_covers_full_file",
                "stale",
            ];
            let r = fields(v, p, &keys, &[])?;
            Ok(FileRecord {
                path: r.db("path")?,
                new_path: r.opt_db("new_path")?,
                tool_call_id: r.db("tool_call_id")?,
                tool_name: r.db("tool_name")?,
                action: r.enumeration("action", |s| lookup(&FILE_ACTIONS, s))?,
                status: r.enumeration("status", ToolStatus::parse)?,
                model_view_covers_full_file: r.bool("model_view_covers_full_file")?,
                stale: r.bool("stale")?,
            })
        })?;
        Ok(Self { tool_steps, files })
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"schema_version\":3,\"tool_steps\":");
        w.list(&self.tool_steps, |w, s| {
            w.raw("{\"assistant\":");
            w.opt_db(s.assistant.as_ref());
            w.raw(",\"tool_calls\":");
            w.list(&s.tool_calls, |w, c| c.encode(w));
            w.raw(",\"tool_results\":");
            w.list(&s.tool_results, |w, r| r.encode(w));
            w.raw("}");
        });
        w.raw(",\"files\":");
        w.list(&self.files, |w, r| {
            w.raw("{\"path\":");
            w.db(&r.path);
            w.raw(",\"new_path\":");
            w.opt_db(r.new_path.as_ref());
            w.raw(",\"tool_call_id\":");
            w.db(&r.tool_call_id);
            w.raw(",\"tool_name\":");
            w.db(&r.tool_name);
            w.raw(",\"action\":\"");
            w.raw(r.action.as_str());
            w.raw("\",\"status\":\"");
            w.raw(r.status.as_str());
            w.raw("\",\"model_view_covers_full_file\":");
            w.bool(r.model_view_covers_full_file);
            w.raw(",\"stale\":");
            w.bool(r.stale);
            w.raw("}");
        });
        w.raw("}");
    }
}

/// Repairs calls whose `arguments_json` is not valid JSON (§4.3): the arguments become `{}` and
/// the single paired result becomes a failure explaining why the tool did not run.
fn repair_arguments(step: &mut ToolStep, path: &Path<'_>) -> Result<(), Reason> {
    for ci in 0..step.tool_calls.len() {
        let Some(call) = step.tool_calls.get(ci) else {
            continue;
        };
        if call.arguments_are_valid() {
            continue;
        }
        let cpath = path.key("tool_calls");
        let cpath = cpath.index(ci);
        let unrepairable = |detail| Reason::UnrepairableArguments {
            path: cpath.render(),
            detail,
        };
        if step.tool_calls.iter().filter(|c| c.id == call.id).count() != 1 {
            return Err(unrepairable("its call id is not unique in the step"));
        }
        let matches: Vec<usize> = step
            .tool_results
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tool_call_id == call.id && r.tool_name == call.name)
            .map(|(i, _)| i)
            .collect();
        let [ri] = matches.as_slice() else {
            return Err(unrepairable("no single result pairs with it"));
        };
        let output = invalid_arguments_output(&call.name);
        if let Some(result) = step.tool_results.get_mut(*ri) {
            let len = output.len() as u64;
            result.status = ToolStatus::Failure;
            result.output = DurableBytes::from(output);
            result.output_handle = None;
            result.preview = None;
            result.output_bytes = len;
            result.stored_output_bytes = len;
            result.truncated = false;
            result.provider_native = false;
        }
        if let Some(call) = step.tool_calls.get_mut(ci) {
            call.arguments_json = DurableBytes::from("{}");
        }
    }
    Ok(())
}

/// The tool output that replaces the result of a call with malformed arguments.
pub(crate) fn invalid_arguments_output(tool_name: &DurableBytes) -> String {
    let mut w = Writer::new();
    w.raw("{\"error\":{\"type\":\"tool_execution_failed\",\"tool_name\":");
    w.str(&tool_name.to_lossy());
    w.raw(
        ",\"message\":\"The arguments of this tool call were not valid JSON, so it did not run.\",",
    );
    w.raw("\"suggestion\":\"Send the call again with complete, valid JSON arguments that follow the tool schema.\"}}");
    String::from_utf8(w.into_bytes()).unwrap_or_default()
}
