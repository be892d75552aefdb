//! One turn: the user's message, model steps, tool calls, results, until the model stops.
//!
//! Each step streams the model's answer to the host as ACP updates. Tool calls run one at a
//! time through the workspace, after the permission policy allows them; every completed step is
//! saved as a recovery checkpoint. The turn ends in the session log as an `assistant` turn, or
//! as an `interrupted` one (cancelled or failed) that keeps what completed.

use crate::gateway::prompt::{Message, UserPart};
use crate::gateway::request::{RequestError, ToolChoice, ToolDefinition};
use crate::gateway::{Completion, Disposition, Effort, FinishReason, ModelInfo};
use crate::log::execution::{Execution, ToolCall};
use crate::log::turn::{
    AssistantTurn, CancelledCommand, HistoryTurn, Image, InterruptedTurn, TerminalReason, UserTurn,
};
use crate::log::types::DurableBytes;
use crate::tools::set::ToolSet;
use crate::tools::workspace::{Permission, WorkspaceInfo};
use crate::Code;

use super::context::{history_messages, ContextPolicy};
use super::model::{run_step, Reauth, ResponseFailure, StepError, StepSink};
use super::modes::Mode;
use super::prompt::Prompt;
use super::protocol::{ModelCall, ModelProtocol};
use super::secrets::Secrets;
use super::session::{LiveSession, SessionError};
use super::system_prompt::runtime_context;
use crate::caps::acp::{StopReason, Update, Usage};
use crate::caps::cancel::Cancel;
use crate::caps::{Host, HostEvent, HttpRequest};

mod tool_steps;

/// Steps per turn before the agent stops and asks for a follow-up.
pub const DEFAULT_STEP_LIMIT: u32 = 64;
/// ACP tool-call updates carry at most this much of a command's output.
const UPDATE_PREVIEW_BYTES: usize = 4096;

/// What a front end hands the agent for one turn (the terminal's and the page's plan is built
/// from the agent's config, the bots' from a bot and its provider): the model's wire protocol
/// and credential, the tools, the system prompt and the limits. The session and the prompt are
/// the turn's own.
pub struct TurnPlan<'a, P: ModelProtocol, T: ToolSet> {
    /// The model's wire protocol (the agent's: [`super::protocol::AiGateway`]).
    pub protocol: &'a P,
    /// What the model may call (the terminal's [`crate::tools::terminal::TerminalTools`], the
    /// bot tools); the runtime context tells the model whether it has any.
    pub tools: &'a T,
    /// The stable system prompt ([`super::system_prompt::SYSTEM_PROMPT`] unless overridden).
    pub system_prompt: &'a str,
    /// The bearer the request carries. The turn keeps it, and every credential the request
    /// carries, out of the errors it records and reports.
    pub token: Option<&'a str>,
    pub team: Option<&'a str>,
    /// Renews the credential after a 401 (a device login), once per step.
    pub reauth: Option<&'a dyn Reauth>,
    pub model_info: Option<&'a ModelInfo>,
    /// The workspace the runtime context describes (the tools run through the tool set).
    pub workspace: Option<&'a WorkspaceInfo>,
    pub policy: ContextPolicy,
    pub step_limit: u32,
    /// How long a model response may send nothing before the attempt is cut
    /// ([`super::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS`] unless configured).
    pub model_idle_timeout_ms: u32,
}

/// Why a turn failed (it is still recorded in the session as an interrupted turn).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TurnError {
    #[error("{0}")]
    Step(StepError),
    #[error("{0}")]
    Request(RequestError),
    #[error("{0}")]
    Session(SessionError),
}

impl TurnError {
    pub fn code(&self) -> Code {
        match self {
            TurnError::Step(error) => error.code(),
            TurnError::Request(error) => error.code(),
            TurnError::Session(error) => error.code(),
        }
    }
}

impl From<SessionError> for TurnError {
    fn from(error: SessionError) -> Self {
        TurnError::Session(error)
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    pub stop_reason: StopReason,
    /// Set when saving met a newer stored log and the session continued as a fork of this id.
    pub forked_from: Option<String>,
    /// What its steps reported: the sum of their usage (a step that reported none adds
    /// nothing).
    pub usage: Usage,
}

struct TextSink<'a, H: Host> {
    host: &'a H,
    turn: u32,
}

impl<H: Host> StepSink for TextSink<'_, H> {
    fn text(&mut self, text: &str) {
        self.host.text(self.turn, text);
    }
    fn thought(&mut self, text: &str) {
        self.host.update(
            self.turn,
            Update::AgentThoughtChunk {
                content: crate::caps::acp::TextContent::new(text),
            },
        );
    }
}

/// The new user message's text as the model gets it: when the session holds images (earlier
/// turns' or this one's), the fx CLI appends an `<available_images>` block naming each by id,
/// `[Image #N]`, to the newest user message only (earlier messages go as their bare text, and
/// the log keeps the text as typed). Seen in the CLI for every model tried, with a vision tag
/// in the catalog or without one (docs/DECISIONS.md, "Images in a continued session").
fn with_available_images(text: &str, history: &[HistoryTurn], current: &[Image]) -> String {
    // In id order, each once (an insertion into a sorted list: a sort costs 2.5 KiB of wasm).
    let mut ids: Vec<u64> = Vec::new();
    let mut add = |images: &[Image]| {
        for image in images {
            if let Err(at) = ids.binary_search(&image.id) {
                ids.insert(at, image.id);
            }
        }
    };
    for turn in history {
        if let Some(user) = turn.user() {
            add(&user.images);
        }
    }
    add(current);
    if ids.is_empty() {
        return text.to_owned();
    }
    let mut out = format!("{text}\n\n<available_images>\n");
    for id in ids {
        out.push_str(&format!("[Image #{id}]\n"));
    }
    out.push_str("</available_images>");
    out
}

/// The state of a running turn.
struct Turn<'a, H: Host, T: ToolSet, P: ModelProtocol> {
    host: &'a H,
    tools: &'a T,
    cancel: &'a Cancel,
    plan: &'a TurnPlan<'a, P, T>,
    turn_id: u32,
    user: UserTurn,
    /// The user's message as the model gets it (text, then images).
    user_message: Message,
    execution: Execution,
    suffix: Vec<Message>,
    input_tokens: u64,
    output_tokens: u64,
    usage: Usage,
    forked_from: Option<String>,
}

/// Runs one turn of `plan` to its end. The agent's own entry is [`super::Agent::run_plan`].
///
/// # Errors
/// A [`TurnError`] when the model request failed for good or the session could not be saved;
/// the turn is still recorded (as interrupted, reason `failed`) when the log allows it.
pub(super) async fn run_turn<H: Host, T: ToolSet, P: ModelProtocol>(
    host: &H,
    cancel: &Cancel,
    session: &mut LiveSession,
    plan: &TurnPlan<'_, P, T>,
    turn_id: u32,
    prompt: Prompt,
) -> Result<TurnEnd, TurnError> {
    let mut images = Vec::with_capacity(prompt.images.len());
    let mut image_parts = Vec::with_capacity(prompt.images.len());
    for staged in prompt.images {
        images.push(staged.logged);
        image_parts.push(UserPart::Image(staged.part));
    }
    let text = with_available_images(&prompt.text, &session.state().history, &images);
    let mut parts = vec![UserPart::Text(text)];
    parts.extend(image_parts);
    let mut turn = Turn {
        host,
        tools: plan.tools,
        cancel,
        plan,
        turn_id,
        user: UserTurn {
            text: DurableBytes::from(prompt.text),
            images,
            work_id: None,
        },
        user_message: Message::User { parts },
        execution: Execution::default(),
        suffix: Vec::new(),
        input_tokens: session.state().total_input_tokens,
        output_tokens: session.state().total_output_tokens,
        usage: Usage::default(),
        forked_from: None,
    };
    let outcome = turn.steps(session).await;
    let (record, result) = match outcome {
        Ok((record, stop)) => (record, Ok(stop)),
        Err(Ended {
            partial,
            active_call,
            cancelled_command,
            error,
        }) => {
            let reason = if error.is_none() {
                TerminalReason::Cancelled
            } else {
                TerminalReason::Failed
            };
            let mut record = turn.interrupted(partial, active_call, reason);
            if let HistoryTurn::Interrupted(interrupted) = &mut record {
                interrupted.cancelled_command =
                    cancelled_command.filter(|_| reason == TerminalReason::Cancelled);
            }
            (record, error.map_or(Ok(StopReason::Cancelled), Err))
        }
    };
    session.append_turn(host, record, turn.input_tokens, turn.output_tokens)?;
    if let Err(error) = &result {
        // What the terminal shows for it (AgentError's text), for a resumed session.
        session.note_last_turn(&format!("{error} ({})", error.code()));
    }
    turn.save(session, false).await?;
    let stop_reason = result?;
    Ok(TurnEnd {
        stop_reason,
        forked_from: turn.forked_from,
        usage: turn.usage,
    })
}

/// A turn that stopped early: what it had, and why (no error: cancelled).
struct Ended {
    partial: String,
    active_call: Option<ToolCall>,
    /// Set when the call in flight was a command cancelled while it ran.
    cancelled_command: Option<CancelledCommand>,
    error: Option<TurnError>,
}

impl Ended {
    fn cancelled(partial: String, active_call: Option<ToolCall>) -> Self {
        Ended {
            partial,
            active_call,
            cancelled_command: None,
            error: None,
        }
    }

    fn failed(partial: String, error: TurnError) -> Self {
        Ended {
            partial,
            active_call: None,
            cancelled_command: None,
            error: Some(error),
        }
    }
}

impl<H: Host, T: ToolSet, P: ModelProtocol> Turn<'_, H, T, P> {
    fn update(&self, update: Update) {
        self.host.update(self.turn_id, update);
    }

    /// Commits the session. A mid-turn save (`until_cancelled`) stops waiting once the turn is
    /// cancelled: the final save stores everything anyway. (Dropping `persist` mid-way is safe:
    /// it changes the session only after each store answer.)
    async fn save(
        &mut self,
        session: &mut LiveSession,
        until_cancelled: bool,
    ) -> Result<(), TurnError> {
        let never = Cancel::new();
        let stop = if until_cancelled { self.cancel } else { &never };
        let Ok(persisted) = stop.run(session.persist(self.host)).await else {
            return Ok(());
        };
        if let Some(from) = persisted? {
            self.forked_from.get_or_insert(from);
        }
        Ok(())
    }

    fn request(
        &self,
        session: &LiveSession,
        tools: &[ToolDefinition],
    ) -> Result<HttpRequest, RequestError> {
        let tool_names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let state = session.state();
        let asks = self
            .plan
            .workspace
            .is_some_and(|w| w.permission == Permission::Prompt)
            && session.mode == Mode::Ask;
        let mut messages = vec![Message::system(self.plan.system_prompt)];
        messages.push(Message::System {
            content: runtime_context(self.plan.workspace, &tool_names, self.host.now_ms(), asks),
            no_cache: true,
        });
        messages.extend(history_messages(state, &self.plan.policy));
        messages.push(self.user_message.clone());
        messages.extend(self.suffix.iter().cloned());
        self.plan.protocol.build(&ModelCall {
            model: &state.preferences.model,
            messages: &messages,
            tools,
            tool_choice: ToolChoice::Auto,
            session_id: Some(&state.id),
            token: self.plan.token,
            team: self.plan.team,
            effort: Effort::parse(&state.preferences.effort).unwrap_or(Effort::Auto),
            fast: state.preferences.fast_mode,
            model_info: self.plan.model_info,
        })
    }

    async fn steps(
        &mut self,
        session: &mut LiveSession,
    ) -> Result<(HistoryTurn, StopReason), Ended> {
        let tools = self.tools.definitions();
        for _ in 0..self.plan.step_limit.max(1) {
            if self.cancel.is_cancelled() {
                return Err(Ended::cancelled(String::new(), None));
            }
            let request = self
                .request(session, &tools)
                .map_err(|error| Ended::failed(String::new(), TurnError::Request(error)))?;
            let mut sink = TextSink {
                host: self.host,
                turn: self.turn_id,
            };
            let completion = match run_step(
                self.host,
                self.plan.protocol,
                self.cancel,
                &request,
                self.plan.reauth,
                self.plan.model_idle_timeout_ms,
                &mut sink,
            )
            .await
            {
                Ok(completion) => completion,
                Err(failure) => {
                    return Err(match failure.error {
                        StepError::Cancelled => Ended::cancelled(failure.partial_text, None),
                        other => Ended::failed(failure.partial_text, TurnError::Step(other)),
                    });
                }
            };
            self.count_usage(&completion);
            match completion.disposition() {
                Disposition::Completed if completion.local_tool_calls().next().is_none() => {
                    return Ok((self.assistant(completion.text), StopReason::EndTurn));
                }
                Disposition::Completed => self.run_tools(session, &completion).await?,
                Disposition::LengthLimited => {
                    return Ok((self.assistant(completion.text), StopReason::MaxTokens));
                }
                Disposition::ProviderFailure
                    if completion
                        .finish
                        .as_ref()
                        .is_some_and(|f| f.reason == FinishReason::ContentFilter) =>
                {
                    return Ok((self.assistant(completion.text), StopReason::Refusal));
                }
                Disposition::ProviderFailure
                | Disposition::Interrupted
                | Disposition::InvalidCompletion => {
                    let failure = StepError::Response(ResponseFailure::of(&completion));
                    let failure = failure.scrubbed(&Secrets::of(&request));
                    return Err(Ended::failed(completion.text, TurnError::Step(failure)));
                }
            }
        }
        let notice = "I stopped after reaching the step limit for one turn. Send a follow-up to let me continue.";
        self.update(Update::agent_text(notice));
        Ok((
            self.assistant(notice.to_owned()),
            StopReason::MaxTurnRequests,
        ))
    }

    fn count_usage(&mut self, completion: &Completion) {
        let counts = completion
            .finish
            .as_ref()
            .map(|f| &f.usage)
            .unwrap_or(&completion.usage);
        let Some(usage) = counts.usage() else {
            return;
        };
        self.input_tokens = self.input_tokens.saturating_add(usage.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(usage.output_tokens);
        self.usage = self.usage.plus(usage);
        self.host.event(HostEvent::usage(self.turn_id, usage));
    }

    fn assistant(&mut self, text: String) -> HistoryTurn {
        HistoryTurn::Assistant(AssistantTurn {
            user: self.user.clone(),
            assistant: DurableBytes::from(text),
            execution: std::mem::take(&mut self.execution),
        })
    }

    fn interrupted(
        &mut self,
        partial: String,
        active_call: Option<ToolCall>,
        reason: TerminalReason,
    ) -> HistoryTurn {
        let completed_tool_names = self
            .execution
            .tool_steps
            .iter()
            .flat_map(|step| {
                step.tool_results
                    .iter()
                    .map(|result| result.tool_name.clone())
            })
            .collect();
        HistoryTurn::Interrupted(InterruptedTurn {
            user: self.user.clone(),
            assistant: Some(DurableBytes::from(partial)).filter(|text| !text.is_empty()),
            tool_call: active_call,
            completed_tool_names,
            terminal_reason: reason,
            execution: std::mem::take(&mut self.execution),
            cancelled_command: None,
        })
    }
}
