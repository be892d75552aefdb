//! The tool calls of a model step: permission, the run through the turn's tool set, results
//! for the model and the log, ACP updates, and the recovery checkpoint after each completed
//! step.

use crate::gateway::prompt::{AssistantPart, Message, ToolCallPart, ToolResult as WireResult};
use crate::gateway::Completion;
use crate::log::checkpoint::{RecoveryAction, RecoveryCause, RecoveryCheckpoint, ToolState};
use crate::log::execution::{ProcessPresentation, ToolCall, ToolResult, ToolStatus, ToolStep};
use crate::log::turn::CancelledCommand;
use crate::log::types::{DurableBytes, Provider};
use crate::tools::set::{PreparedCall, Status, ToolOutcome, ToolSet};

use super::super::modes::Mode;
use super::super::session::LiveSession;
use super::{Ended, Turn, UPDATE_PREVIEW_BYTES};
use crate::caps::acp::{
    permission_options, PermissionAnswer, PermissionRequest, PermissionToolCall, RawOutput,
    ToolCallContent, ToolStatus as AcpStatus, Update,
};
use crate::caps::Host;

/// Where a call was when its turn was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// Before it started: no update was sent, nothing is recorded for it.
    Before,
    /// While the user was asked whether it may run.
    Asking,
    /// While its command ran.
    Running,
}

impl<H: Host, T: ToolSet, P: crate::agent::protocol::ModelProtocol> Turn<'_, H, T, P> {
    /// Runs a step's tool calls in order, then records the step and checkpoints it.
    pub(super) async fn run_tools(
        &mut self,
        session: &mut LiveSession,
        completion: &Completion,
    ) -> Result<(), Ended> {
        let mut step = ToolStep {
            assistant: Some(DurableBytes::from(completion.text.clone()))
                .filter(|text| !text.is_empty()),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        };
        let mut wire_calls = Vec::new();
        let mut wire_results = Vec::new();
        let mut feedback = Vec::new();
        for call in completion.local_tool_calls() {
            let arguments = if call.malformed {
                "{}".to_owned()
            } else {
                call.arguments_json.clone()
            };
            let logged = ToolCall {
                id: DurableBytes::from(call.id.clone()),
                name: DurableBytes::from(call.name.clone()),
                arguments_json: DurableBytes::from(arguments.clone()),
                provider_result: None,
            };
            if let Ok(part) = ToolCallPart::new(call.id.clone(), call.name.clone(), &arguments) {
                wire_calls.push(AssistantPart::ToolCall(part));
            }
            let (record, note) = match self.run_call(session, call, &arguments).await {
                Ok(done) => done,
                Err(stopped) => {
                    // Keep the steps that finished; this call was in flight (unless it had not
                    // started), and a command that was running is marked as cancelled mid-run.
                    self.push_step(step);
                    let mut ended = Ended::cancelled(
                        completion.text.clone(),
                        Some(logged).filter(|_| stopped != Stopped::Before),
                    );
                    if stopped == Stopped::Running {
                        ended.cancelled_command = Some(CancelledCommand {
                            output_replay: None,
                            command_artifact_handle: None,
                        });
                    }
                    return Err(ended);
                }
            };
            wire_results.push(Message::tool_result(WireResult {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                output: record.output.clone(),
            }));
            if let Some(note) = &note {
                feedback.push(Message::user_text(note.clone()));
            }
            step.tool_results
                .push(log_result(call, &record, note, self.host.now_ms()));
            step.tool_calls.push(logged);
        }
        let mut parts = Vec::new();
        if !completion.text.is_empty() {
            parts.push(AssistantPart::Text(completion.text.clone()));
        }
        parts.extend(wire_calls);
        self.suffix.push(Message::Assistant { parts });
        self.suffix.extend(wire_results);
        self.suffix.extend(feedback);
        self.push_step(step);
        self.checkpoint(session).await;
        Ok(())
    }

    fn push_step(&mut self, step: ToolStep) {
        if !step.tool_calls.is_empty() {
            self.execution.tool_steps.push(step);
        }
    }

    /// Saves the turn so far; a failure here is not fatal (the final save retries everything).
    async fn checkpoint(&mut self, session: &mut LiveSession) {
        let state = session.state();
        let checkpoint = RecoveryCheckpoint {
            turn_id: u64::try_from(state.history.len())
                .unwrap_or(u64::MAX)
                .saturating_add(1),
            user: self.user.clone(),
            assistant_source: DurableBytes::from(String::new()),
            execution: self.execution.clone(),
            cause: RecoveryCause::NetworkInterrupted,
            action: RecoveryAction::ContinuingAfterTool,
            tool_state: ToolState::Confirmed,
            route_model: DurableBytes::from(state.preferences.model.clone()),
            route_provider: Provider::Gateway,
            requested_fast_mode: state.preferences.fast_mode,
            fast_mode: state.preferences.fast_mode,
            max_provider_attempts: u64::from(crate::agent::model::MAX_ATTEMPTS),
            consumed_provider_attempts: 0,
            outstanding_reservation: false,
        };
        if session.set_checkpoint(self.host, checkpoint).is_ok() {
            let _ = self.save(session, true).await;
        }
    }

    /// Runs one call through the tool set. `Err` says where the call was when the turn was
    /// cancelled; a call that had started gets its final (failed, cancelled) update first.
    async fn run_call(
        &mut self,
        session: &mut LiveSession,
        call: &crate::gateway::ToolCall,
        arguments: &str,
    ) -> Result<(ToolOutcome, Option<String>), Stopped> {
        if self.cancel.is_cancelled() {
            return Err(Stopped::Before);
        }
        let raw_input = serde_json::from_str(arguments).unwrap_or(serde_json::Value::Null);
        let prepared = self.tools.prepare(&call.name, arguments);
        let title = prepared.title;
        let kind = self.tools.kind(&call.name);
        self.update(Update::ToolCall {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            title: title.clone(),
            kind,
            status: AcpStatus::Pending,
            raw_input: raw_input.clone(),
        });
        let prepared = match prepared.call {
            Ok(prepared) => prepared,
            Err(record) => return Ok(self.finish_call(call, record, None)),
        };
        let needs_approval = prepared
            .permission_key
            .as_ref()
            .is_some_and(|key| session.mode == Mode::Ask && !session.always_allowed.contains(key));
        let mut allow_note = None;
        if needs_approval {
            let request = PermissionRequest {
                session_id: session.id().to_owned(),
                tool_call: PermissionToolCall {
                    tool_call_id: call.id.clone(),
                    title,
                    kind,
                    status: AcpStatus::Pending,
                    raw_input,
                },
                options: permission_options(),
            };
            match self.host.request_permission(&request, self.cancel).await {
                _ if self.cancel.is_cancelled() => {
                    return Err(self.cancelled_call(call, &prepared, Stopped::Asking))
                }
                PermissionAnswer::AllowOnce { note } => allow_note = note,
                PermissionAnswer::AllowAlways => {
                    if let Some(key) = &prepared.permission_key {
                        session.always_allowed.insert(key.clone());
                    }
                }
                PermissionAnswer::Reject { note } => {
                    let record = self.tools.denied(&prepared, note.as_deref());
                    return Ok(self.finish_call(call, record, note));
                }
                PermissionAnswer::Cancelled => {
                    let record = self.tools.denied(&prepared, None);
                    return Ok(self.finish_call(call, record, None));
                }
            }
        }
        self.update(Update::ToolCallUpdate {
            tool_call_id: call.id.clone(),
            status: AcpStatus::InProgress,
            content: Vec::new(),
            raw_output: None,
        });
        let record = self.tools.run(&prepared, self.cancel).await;
        if self.cancel.is_cancelled() {
            return Err(self.cancelled_call(call, &prepared, Stopped::Running));
        }
        Ok(self.finish_call(call, record, allow_note))
    }

    /// Ends a started call of a cancelled turn with its final update (failed, `cancelled`).
    fn cancelled_call(
        &self,
        call: &crate::gateway::ToolCall,
        prepared: &PreparedCall<T::Arguments>,
        stopped: Stopped,
    ) -> Stopped {
        let _ = self.finish_call(call, self.tools.cancelled(prepared), None);
        stopped
    }

    fn finish_call(
        &self,
        call: &crate::gateway::ToolCall,
        record: ToolOutcome,
        note: Option<String>,
    ) -> (ToolOutcome, Option<String>) {
        let status = if record.status == Status::Success {
            AcpStatus::Completed
        } else {
            AcpStatus::Failed
        };
        let preview = crate::tools::workspace::utf8_prefix(&record.output, UPDATE_PREVIEW_BYTES);
        self.update(Update::ToolCallUpdate {
            tool_call_id: call.id.clone(),
            status,
            content: vec![ToolCallContent::text(preview)],
            raw_output: Some(RawOutput {
                exit_code: record.exit_code,
                cancelled: record.cancelled,
            }),
        });
        (record, note)
    }
}

fn log_result(
    call: &crate::gateway::ToolCall,
    record: &ToolOutcome,
    note: Option<String>,
    now_ms: i64,
) -> ToolResult {
    let bytes = record.output.len() as u64;
    ToolResult {
        tool_call_id: DurableBytes::from(call.id.clone()),
        tool_name: DurableBytes::from(call.name.clone()),
        status: if record.status == Status::Success {
            ToolStatus::Success
        } else {
            ToolStatus::Failure
        },
        output: DurableBytes::from(record.output.clone()),
        output_handle: None,
        preview: None,
        output_bytes: bytes,
        stored_output_bytes: bytes,
        truncated: false,
        provider_native: false,
        created_at_ms: now_ms,
        permission_feedback: note.into_iter().map(DurableBytes::from).collect(),
        committed_file_presentation: None,
        command_output_replay: None,
        command_process_presentation: record
            .exit_code
            .map(|code| ProcessPresentation::ExitCode(i64::from(code))),
    }
}
