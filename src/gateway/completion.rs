//! Folds stream events into one model step's [`Completion`] and classifies it (completed,
//! interrupted, provider failure, length limited, invalid).

use super::events::{
    Finish, FinishReason, ProviderToolResult, ResponseMetadata, SseEvent, StreamError, ToolCall,
    Usage,
};

/// How a model step ended (reference §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// A usable answer or tool calls.
    Completed,
    /// The stream ended without `finish`.
    Interrupted,
    /// `finish` with `error` or `content-filter`.
    ProviderFailure,
    /// `finish` with `length`.
    LengthLimited,
    /// `tool-calls` without calls, or `stop`/`other` with calls we would have to run.
    InvalidCompletion,
}

impl Disposition {
    /// A stable lowercase label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Interrupted => "interrupted",
            Self::ProviderFailure => "provider_failure",
            Self::LengthLimited => "length_limited",
            Self::InvalidCompletion => "invalid_completion",
        }
    }
}

/// Everything one model response said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// Concatenated text deltas.
    pub text: String,
    /// Bytes of reasoning received (reasoning text itself is not kept).
    pub reasoning_bytes: usize,
    /// Bytes of text, reasoning and tool-input deltas, for output-token estimates.
    pub streamed_bytes: usize,
    /// Tool calls in provider order (local and provider-executed).
    pub tool_calls: Vec<ToolCall>,
    /// Results of provider-executed tools.
    pub provider_results: Vec<ProviderToolResult>,
    /// The `finish` event, if one arrived.
    pub finish: Option<Finish>,
    /// Usage from `finish` (all `None` without it).
    pub usage: Usage,
    /// The last `error` event.
    pub provider_error: Option<StreamError>,
    /// The first `response-metadata`.
    pub metadata: Option<ResponseMetadata>,
    /// A later `response-metadata` named a different id or model.
    pub metadata_conflict: bool,
}

impl Completion {
    /// Tool calls we must execute (not provider-executed).
    pub fn local_tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.tool_calls.iter().filter(|c| !c.provider_executed)
    }

    /// Classifies the completion (reference §1.6 table).
    #[must_use]
    pub fn disposition(&self) -> Disposition {
        let Some(finish) = &self.finish else {
            return Disposition::Interrupted;
        };
        let local_calls = self.local_tool_calls().count();
        match finish.reason {
            FinishReason::Error | FinishReason::ContentFilter => Disposition::ProviderFailure,
            FinishReason::Length => Disposition::LengthLimited,
            FinishReason::ToolCalls if self.tool_calls.is_empty() => Disposition::InvalidCompletion,
            FinishReason::ToolCalls => Disposition::Completed,
            FinishReason::Stop | FinishReason::Other if local_calls > 0 => {
                Disposition::InvalidCompletion
            }
            FinishReason::Stop | FinishReason::Other => Disposition::Completed,
        }
    }
}

/// Accumulates events into a [`Completion`].
#[derive(Debug, Clone, Default)]
pub struct StreamAccumulator {
    completion: Completion,
}

impl StreamAccumulator {
    /// An empty accumulator.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event in.
    pub fn push(&mut self, event: SseEvent) {
        let c = &mut self.completion;
        match event {
            SseEvent::TextDelta(text) => {
                c.streamed_bytes = c.streamed_bytes.saturating_add(text.len());
                if c.text.is_empty() {
                    c.text = text;
                } else {
                    c.text.push_str(&text);
                }
            }
            SseEvent::ReasoningDelta(text) => {
                c.reasoning_bytes = c.reasoning_bytes.saturating_add(text.len());
                c.streamed_bytes = c.streamed_bytes.saturating_add(text.len());
            }
            SseEvent::ToolInputDelta { delta, .. } => {
                c.streamed_bytes = c.streamed_bytes.saturating_add(delta.len());
            }
            SseEvent::ToolInputStart { .. } | SseEvent::ToolInputEnd { .. } => {}
            SseEvent::ToolCall(call) => c.tool_calls.push(call),
            SseEvent::ToolResult(result) => c.provider_results.push(result),
            SseEvent::Error(error) => c.provider_error = Some(error),
            SseEvent::Finish(finish) => {
                c.usage = finish.usage;
                c.finish = Some(finish);
            }
            SseEvent::ResponseMetadata(meta) => match &c.metadata {
                None => c.metadata = Some(meta),
                Some(first) => {
                    let differs = |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(x), Some(y)) if x != y);
                    if differs(&first.id, &meta.id) || differs(&first.model_id, &meta.model_id) {
                        c.metadata_conflict = true;
                    }
                }
            },
        }
    }

    /// Folds every event of `events` in, emptying it.
    pub fn push_all(&mut self, events: &mut Vec<SseEvent>) {
        for event in events.drain(..) {
            self.push(event);
        }
    }

    /// The completion so far.
    #[must_use]
    pub fn completion(&self) -> &Completion {
        &self.completion
    }

    /// The finished completion.
    #[must_use]
    pub fn into_completion(self) -> Completion {
        self.completion
    }
}
