//! Folds stream events into one model step's [`Completion`] and classifies it (completed,
//! interrupted, provider failure, length limited, invalid).

use super::error::RetryCause;
use super::events::{
    Finish, FinishReason, ProviderToolResult, ResponseMetadata, SseEvent, StreamError, TokenCounts,
    ToolCall,
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
    /// TokenCounts from `finish` (all `None` without it).
    pub usage: TokenCounts,
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
        if self.provider_error.is_some() && finish.reason != FinishReason::ContentFilter {
            // An `error` event, even one the provider followed with an ordinary `finish`: the
            // answer is not whole, and the error must reach the user.
            return Disposition::ProviderFailure;
        }
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

/// A validated billing record for one response (reference §1.9). Missing cache and reasoning
/// counts are taken as zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Billing {
    /// `response-metadata.timestamp` (ISO-8601).
    pub timestamp: String,
    /// `providerMetadata.gateway.cost` (finite, non-negative decimal text).
    pub cost: String,
    /// `providerMetadata.gateway.routing.canonicalSlug`.
    pub canonical_slug: String,
    /// `usage.inputTokens.total`.
    pub input_tokens: u64,
    /// `usage.inputTokens.cacheRead` (≤ input).
    pub cache_read_tokens: u64,
    /// `usage.inputTokens.cacheWrite` (≤ input).
    pub cache_write_tokens: u64,
    /// `usage.outputTokens.total`.
    pub output_tokens: u64,
    /// `usage.outputTokens.reasoning` (≤ output).
    pub reasoning_tokens: u64,
    /// Provider-executed `web_search` / `*_search` calls.
    pub web_search_calls: u32,
}

fn looks_like_iso8601(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10)
        && bytes.get(10) == Some(&b'T')
        && digits(11..13)
        && bytes.get(13) == Some(&b':')
        && digits(14..16)
        && text.len() <= 64
}

impl Completion {
    /// The billing record, when every required field is present and consistent.
    #[must_use]
    pub fn billing(&self) -> Option<Billing> {
        let finish = self.finish.as_ref()?;
        let timestamp = self.metadata.as_ref()?.timestamp.clone()?;
        if !looks_like_iso8601(&timestamp) {
            return None;
        }
        let usage = finish.usage;
        let input_tokens = usage.input_tokens?;
        let output_tokens = usage.output_tokens?;
        let cache_read_tokens = usage.cache_read_tokens.unwrap_or(0);
        let cache_write_tokens = usage.cache_write_tokens.unwrap_or(0);
        let reasoning_tokens = usage.reasoning_tokens.unwrap_or(0);
        if cache_read_tokens > input_tokens
            || cache_write_tokens > input_tokens
            || reasoning_tokens > output_tokens
        {
            return None;
        }
        let web_search_calls = self
            .tool_calls
            .iter()
            .filter(|c| c.provider_executed && c.name.ends_with("_search"))
            .count();
        Some(Billing {
            timestamp,
            cost: finish.gateway.cost.clone()?,
            canonical_slug: finish.gateway.canonical_slug.clone()?,
            input_tokens,
            cache_read_tokens,
            cache_write_tokens,
            output_tokens,
            reasoning_tokens,
            web_search_calls: u32::try_from(web_search_calls).unwrap_or(u32::MAX),
        })
    }

    /// The retry cause this completion represents, if any: no `finish` is an interrupted
    /// response, `finish` with `error` a provider outage. `content-filter` is never retried.
    #[must_use]
    pub fn retry_cause(&self) -> Option<RetryCause> {
        match self.disposition() {
            Disposition::Interrupted => Some(RetryCause::ResponseInterrupted),
            Disposition::ProviderFailure => match self.finish.as_ref().map(|f| f.reason) {
                Some(FinishReason::Error) => Some(RetryCause::ProviderUnavailable),
                _ => None,
            },
            Disposition::Completed
            | Disposition::LengthLimited
            | Disposition::InvalidCompletion => None,
        }
    }
}

/// A tool-call identity problem that makes a completion unusable (reference §1.2 item 8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCallIssue {
    /// A call without a `toolCallId`.
    EmptyId {
        /// Position among the completion's calls.
        index: usize,
    },
    /// A call without a `toolName`.
    EmptyName {
        /// Position among the completion's calls.
        index: usize,
    },
    /// Two calls share an id.
    DuplicateId {
        /// The repeated id.
        id: String,
    },
    /// A provider-executed call whose arguments were not valid JSON.
    MalformedProviderCall {
        /// The call id.
        id: String,
    },
    /// A `tool-result` that answers no provider-executed call.
    UnmatchedProviderResult {
        /// The result's `toolCallId`.
        id: String,
    },
}

impl Completion {
    /// Checks tool-call identities. Malformed arguments of local calls are not an issue here:
    /// those calls are answered with a failure result instead of being run.
    ///
    /// # Errors
    /// The first [`ToolCallIssue`] found.
    pub fn check_tool_calls(&self) -> Result<(), ToolCallIssue> {
        for (index, call) in self.tool_calls.iter().enumerate() {
            if call.id.is_empty() {
                return Err(ToolCallIssue::EmptyId { index });
            }
            if call.name.is_empty() {
                return Err(ToolCallIssue::EmptyName { index });
            }
            let later = self.tool_calls.iter().skip(index.saturating_add(1));
            if later.clone().any(|c| c.id == call.id) {
                return Err(ToolCallIssue::DuplicateId {
                    id: call.id.clone(),
                });
            }
            if call.provider_executed && call.malformed {
                return Err(ToolCallIssue::MalformedProviderCall {
                    id: call.id.clone(),
                });
            }
        }
        for result in &self.provider_results {
            let matched = self
                .tool_calls
                .iter()
                .any(|c| c.provider_executed && c.id == result.tool_call_id);
            if !matched {
                return Err(ToolCallIssue::UnmatchedProviderResult {
                    id: result.tool_call_id.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Longest overlap compared by [`continuation_overlap`].
pub const MAX_CONTINUATION_OVERLAP_BYTES: usize = 4096;

/// When a response is continued after an interruption, the new stream may repeat the end of the
/// partial text. Returns how many leading bytes of `continued` repeat a suffix of `partial`
/// (the longest such overlap, at most [`MAX_CONTINUATION_OVERLAP_BYTES`], on character
/// boundaries), so the caller can skip them.
#[must_use]
pub fn continuation_overlap(partial: &str, continued: &str) -> usize {
    let longest = partial
        .len()
        .min(continued.len())
        .min(MAX_CONTINUATION_OVERLAP_BYTES);
    (1..=longest)
        .rev()
        .find(|&len| {
            continued.is_char_boundary(len)
                && continued
                    .get(..len)
                    .is_some_and(|head| partial.ends_with(head))
        })
        .unwrap_or(0)
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
                c.finish = Some(*finish);
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
