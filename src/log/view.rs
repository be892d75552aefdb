//! The plain, serializable view of a session that `readSession()` returns to JavaScript
//! (camelCase keys; durable bytes shown as text, invalid UTF-8 replaced).

use serde::Serialize;

use super::display;
use super::execution::{Execution, ProcessPresentation, ToolCall};
use super::state::SessionState;
use super::turn::{HistoryTurn, UserTurn};
use super::types::DurableBytes;

/// A session as JavaScript sees it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
    pub workspace_root: String,
    pub origin_workspace_root: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub title: String,
    pub preview: Option<String>,
    pub conversation_language: String,
    pub preferences: PreferencesView,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub context_history_start: u64,
    pub usage: UsageView,
    pub turns: Vec<TurnView>,
    pub recovery: Option<RecoveryView>,
}

/// Model preferences.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesView {
    pub model: String,
    pub effort: String,
    pub fast_mode: bool,
    pub provider: &'static str,
}

/// Cumulative usage.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct UsageView {
    pub billing: &'static str,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub total_cost: f64,
    pub api_duration_ms: u64,
    pub wall_duration_ms: u64,
}

/// An attached image.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ImageView {
    pub id: u64,
    pub path: String,
    pub media_type: String,
    pub snapshot_path: Option<String>,
    pub snapshot_sha256: Option<String>,
}

/// The user's side of a turn.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub text: String,
    pub images: Vec<ImageView>,
}

/// A tool call.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    pub id: String,
    pub name: String,
    pub arguments_json: String,
}

/// A tool result.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultView {
    pub tool_call_id: String,
    pub tool_name: String,
    pub status: &'static str,
    pub output: String,
    pub output_bytes: u64,
    pub truncated: bool,
    pub exit_code: Option<i64>,
}

/// One model step.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    pub assistant: Option<String>,
    pub tool_calls: Vec<ToolCallView>,
    pub tool_results: Vec<ToolResultView>,
}

/// A file a tool touched.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileView {
    pub path: String,
    pub action: &'static str,
    pub status: &'static str,
    pub tool_name: String,
}

/// A completed turn.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AssistantTurnView {
    pub user: UserView,
    pub steps: Vec<StepView>,
    pub assistant: String,
    pub files: Vec<FileView>,
}

/// A turn that ended early.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InterruptedTurnView {
    pub user: UserView,
    pub steps: Vec<StepView>,
    pub assistant: Option<String>,
    pub reason: &'static str,
    pub tool_call: Option<ToolCallView>,
    pub completed_tool_names: Vec<String>,
}

/// A turn that launched a background command.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BackgroundTurnView {
    pub user: UserView,
    pub steps: Vec<StepView>,
    pub assistant: Option<String>,
    pub log_path: String,
    pub url: Option<String>,
}

/// Compacted earlier turns.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SummaryView {
    pub summary: String,
    pub removed_turn_count: u64,
}

/// One history entry, tagged by `kind`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnView {
    Assistant(AssistantTurnView),
    Interrupted(InterruptedTurnView),
    BackgroundCommand(BackgroundTurnView),
    CompactedSummary(SummaryView),
}

/// A pending recovery checkpoint.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryView {
    pub turn_id: u64,
    pub user: UserView,
    pub assistant: String,
    pub steps: Vec<StepView>,
    pub cause: &'static str,
    pub action: &'static str,
}

fn text(bytes: &DurableBytes) -> String {
    bytes.to_lossy().into_owned()
}

fn user(u: &UserTurn) -> UserView {
    UserView {
        text: text(&u.text),
        images: u
            .images
            .iter()
            .map(|i| ImageView {
                id: i.id,
                path: text(&i.path),
                media_type: text(&i.media_type),
                snapshot_path: i.snapshot.as_ref().map(|s| s.path.clone()),
                snapshot_sha256: i
                    .snapshot
                    .as_ref()
                    .map(|s| super::json::write::hex_string(&s.sha256)),
            })
            .collect(),
    }
}

fn call(c: &ToolCall) -> ToolCallView {
    ToolCallView {
        id: text(&c.id),
        name: text(&c.name),
        arguments_json: text(&c.arguments_json),
    }
}

fn steps(e: &Execution) -> Vec<StepView> {
    e.tool_steps
        .iter()
        .map(|s| StepView {
            assistant: s.assistant.as_ref().map(text),
            tool_calls: s.tool_calls.iter().map(call).collect(),
            tool_results: s
                .tool_results
                .iter()
                .map(|r| ToolResultView {
                    tool_call_id: text(&r.tool_call_id),
                    tool_name: text(&r.tool_name),
                    status: r.status.as_str(),
                    output: text(&r.output),
                    output_bytes: r.output_bytes,
                    truncated: r.truncated,
                    exit_code: match r.command_process_presentation {
                        Some(ProcessPresentation::ExitCode(code)) => Some(code),
                        _ => None,
                    },
                })
                .collect(),
        })
        .collect()
}

fn turn(t: &HistoryTurn) -> TurnView {
    match t {
        HistoryTurn::Assistant(a) => TurnView::Assistant(AssistantTurnView {
            user: user(&a.user),
            steps: steps(&a.execution),
            assistant: text(&a.assistant),
            files: a
                .execution
                .files
                .iter()
                .map(|f| FileView {
                    path: text(&f.path),
                    action: f.action.as_str(),
                    status: f.status.as_str(),
                    tool_name: text(&f.tool_name),
                })
                .collect(),
        }),
        HistoryTurn::Interrupted(i) => TurnView::Interrupted(InterruptedTurnView {
            user: user(&i.user),
            steps: steps(&i.execution),
            assistant: i.assistant.as_ref().map(text),
            reason: i.terminal_reason.as_str(),
            tool_call: i.tool_call.as_ref().map(call),
            completed_tool_names: i.completed_tool_names.iter().map(text).collect(),
        }),
        HistoryTurn::BackgroundCommand(b) => TurnView::BackgroundCommand(BackgroundTurnView {
            user: user(&b.user),
            steps: steps(&b.execution),
            assistant: b.assistant.as_ref().map(text),
            log_path: text(&b.log_path),
            url: b.url.as_ref().map(text),
        }),
        HistoryTurn::CompactedSummary(s) => TurnView::CompactedSummary(SummaryView {
            summary: text(&s.summary),
            removed_turn_count: s.removed_turn_count,
        }),
    }
}

/// Builds the view of a replayed state; `title` is the renamed title, if any.
pub fn view(state: &SessionState, title: Option<&str>) -> SessionView {
    let shown = display::shown(state, title);
    let usage = match &state.usage {
        // A snapshot that never recorded a generation (fx-wasm keeps token totals per turn
        // but writes no usage checkpoints) does not describe a session with turns: say its
        // billing is incomplete and show the turns' token totals rather than "complete, 0".
        Some(u)
            if u.next_sequence == 1
                && u.models.is_empty()
                && (state.total_input_tokens > 0 || state.total_output_tokens > 0) =>
        {
            UsageView {
                billing: super::usage::Billing::Incomplete.as_str(),
                input_tokens: state.total_input_tokens,
                output_tokens: state.total_output_tokens,
                cache_read_tokens: u.cache_read_tokens,
                cache_write_tokens: u.cache_write_tokens,
                total_cost: u.total_cost,
                api_duration_ms: u.api_duration_ms,
                wall_duration_ms: u.wall_duration_ms,
            }
        }
        Some(u) => UsageView {
            billing: u.billing.as_str(),
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_tokens: u.cache_read_tokens,
            cache_write_tokens: u.cache_write_tokens,
            total_cost: u.total_cost,
            api_duration_ms: u.api_duration_ms,
            wall_duration_ms: u.wall_duration_ms,
        },
        None => UsageView {
            billing: "legacy",
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            total_cost: 0.0,
            api_duration_ms: 0,
            wall_duration_ms: 0,
        },
    };
    SessionView {
        id: state.id.clone(),
        workspace_root: state.workspace_root.clone(),
        origin_workspace_root: state.origin_workspace_root.clone(),
        created_at_ms: state.created_at_ms,
        updated_at_ms: state.updated_at_ms,
        title: shown
            .as_ref()
            .map_or_else(|| "Untitled session".to_owned(), |d| d.title.clone()),
        preview: shown.and_then(|d| d.preview),
        conversation_language: state.conversation_language.clone(),
        preferences: PreferencesView {
            model: state.preferences.model.clone(),
            effort: state.preferences.effort.clone(),
            fast_mode: state.preferences.fast_mode,
            provider: state.preferences.provider.as_str(),
        },
        total_input_tokens: state.total_input_tokens,
        total_output_tokens: state.total_output_tokens,
        context_history_start: state.context_history_start,
        usage,
        turns: state.history.iter().map(turn).collect(),
        recovery: state.recovery_checkpoint.as_ref().map(|c| RecoveryView {
            turn_id: c.turn_id,
            user: user(&c.user),
            assistant: text(&c.assistant_source),
            steps: steps(&c.execution),
            cause: c.cause.as_str(),
            action: c.action.as_str(),
        }),
    }
}
