//! The incremental SSE decoder for the language-model response: bytes in (split anywhere, even
//! inside a UTF-8 character), typed [`SseEvent`]s out.
//!
//! Line protocol ([`crate::net::sse`] splits the lines): lines end at `\n` (a trailing `\r` is
//! dropped); empty lines and `:` comments are skipped; `data: [DONE]` (or a bare `DONE`) ends the stream; only `data: ` lines (with the
//! space) carry events; a line longer than [`MAX_SSE_LINE_BYTES`] is an error. An event payload
//! that is not JSON, not an object, or has no string `type` is skipped. `finish` ends the stream.
//!
//! The hot path (`text-delta`) parses into a borrowed struct and, with coalescing on, appends to
//! the previous text event instead of allocating a new one.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use thiserror::Error;

use crate::Code;

use super::events::{
    parse_finish, parse_stream_error, ProviderToolResult, ResponseMetadata, SseEvent, ToolCall,
};
use super::flat_event::{scan_flat_delta, DeltaKind};
use crate::net::sse::{Flow, LineSplitter};

/// Longest SSE line accepted (32 MiB).
pub const MAX_SSE_LINE_BYTES: usize = crate::net::sse::MAX_LINE_BYTES;

/// A stream that cannot be decoded further.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SseError {
    /// One line is longer than the limit.
    #[error("an event line of the model response is longer than {limit} bytes")]
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// `finish` carried a `finishReason.unified` value outside the protocol.
    #[error("the model response finished with an unknown reason {value:?}")]
    InvalidFinishReason {
        /// The value received (clipped to 64 bytes).
        value: String,
    },
}

impl SseError {
    /// Stable error code.
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::LineTooLong { .. } => Code::GatewaySseEventTooLarge,
            Self::InvalidFinishReason { .. } => Code::GatewayInvalidFinishReason,
        }
    }
}

/// How the input ended, reported by [`SseDecoder::end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamEnd {
    /// A `finish` event arrived (otherwise the response was interrupted).
    pub finished: bool,
    /// A `[DONE]` marker arrived.
    pub done_marker: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Streaming,
    Finished,
    DoneMarker,
}

/// Tool input streamed through `tool-input-*` events, kept until its `tool-call`.
#[derive(Debug, Clone)]
struct StreamedInput {
    id: String,
    text: String,
}

/// The incremental decoder. Feed it bytes as they arrive; call [`SseDecoder::end`] at EOF.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    lines: LineSplitter,
    failed: Option<SseError>,
    events: Events,
}

/// What the decoder knows between lines.
#[derive(Debug, Clone)]
struct Events {
    phase: Phase,
    coalesce: bool,
    inputs: Vec<StreamedInput>,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

/// The fields of any event, borrowed from the line where possible.
#[derive(Deserialize)]
struct RawEvent<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(default, borrow)]
    delta: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, rename = "toolName", borrow)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(default, rename = "toolCallId", borrow)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, rename = "providerExecuted")]
    provider_executed: Option<bool>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    preliminary: Option<bool>,
    #[serde(default, rename = "finishReason", borrow)]
    finish_reason: Option<&'a RawValue>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, rename = "providerMetadata", borrow)]
    provider_metadata: Option<&'a RawValue>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, rename = "modelId", borrow)]
    model_id: Option<Cow<'a, str>>,
}

impl SseDecoder {
    /// A decoder that coalesces consecutive text (and reasoning) deltas.
    #[must_use]
    pub fn new() -> Self {
        Self {
            lines: LineSplitter::new(MAX_SSE_LINE_BYTES),
            failed: None,
            events: Events {
                phase: Phase::Streaming,
                coalesce: true,
                inputs: Vec::new(),
            },
        }
    }

    /// Turns coalescing of consecutive text/reasoning deltas on or off. When on, a delta that
    /// directly follows a delta of the same kind at the end of the output vector is appended to
    /// it, so one `feed` call yields one text event per run of deltas.
    #[must_use]
    pub fn with_coalescing(mut self, coalesce: bool) -> Self {
        self.events.coalesce = coalesce;
        self
    }

    /// Lowers the line limit (for tests); it never exceeds [`MAX_SSE_LINE_BYTES`].
    #[must_use]
    pub fn with_max_line_bytes(mut self, limit: usize) -> Self {
        self.lines = LineSplitter::new(limit);
        self
    }

    /// Whether the stream has ended (`finish` or `[DONE]`); later bytes are ignored.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.events.phase != Phase::Streaming
    }

    /// Whether a `finish` event arrived.
    #[must_use]
    pub fn saw_finish(&self) -> bool {
        self.events.phase == Phase::Finished
    }

    /// Decodes `bytes`, appending events to `out`.
    ///
    /// # Errors
    /// [`SseError::LineTooLong`] or [`SseError::InvalidFinishReason`]; after an error the decoder
    /// keeps returning it.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.is_done() {
            return Ok(());
        }
        let limit = self.lines.max_line_bytes();
        let events = &mut self.events;
        let result = self.lines.feed(
            bytes,
            |line| {
                events.handle_line(line, out)?;
                Ok(if events.phase == Phase::Streaming {
                    Flow::Continue
                } else {
                    Flow::Stop
                })
            },
            || SseError::LineTooLong { limit },
        );
        match result {
            Ok(_) => Ok(()),
            Err(error) => {
                self.failed = Some(error.clone());
                self.lines.clear();
                Err(error)
            }
        }
    }

    /// Ends the input: a final line without a newline is decoded, then the outcome is reported.
    ///
    /// # Errors
    /// As [`SseDecoder::feed`].
    pub fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if !self.is_done() {
            if let Some(line) = self.lines.take_rest() {
                if let Err(error) = self.events.handle_line(&line, out) {
                    self.failed = Some(error.clone());
                    return Err(error);
                }
            }
        }
        self.lines.clear();
        Ok(StreamEnd {
            finished: self.events.phase == Phase::Finished,
            done_marker: self.events.phase == Phase::DoneMarker,
        })
    }
}

impl Events {
    fn handle_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        // `data: ` lines first: they are almost all of a stream. Blank lines, comments and
        // other fields fall through to the end.
        if let Some(payload) = line.strip_prefix(b"data: ") {
            if payload == b"[DONE]" {
                self.phase = Phase::DoneMarker;
                return Ok(());
            }
            return self.handle_payload(payload, out);
        }
        if line == b"DONE" {
            self.phase = Phase::DoneMarker;
        }
        Ok(())
    }

    fn handle_payload(&mut self, payload: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        // Fast path for the common `{"type":"text-delta","id":"..","delta":".."}` shape; anything
        // it does not fully understand goes through serde below, with the same result.
        if let Some(flat) = scan_flat_delta(payload) {
            if let Some(delta) = flat.delta.filter(|d| !d.is_empty()) {
                self.push_delta(out, Cow::Borrowed(delta), flat.kind == DeltaKind::Text);
            }
            return Ok(());
        }
        let Ok(event) = serde_json::from_slice::<RawEvent<'_>>(payload) else {
            return Ok(());
        };
        match event.ty.as_ref() {
            "text-delta" => {
                if let Some(delta) = event.delta.filter(|d| !d.is_empty()) {
                    self.push_delta(out, delta, true);
                }
            }
            "reasoning-delta" => {
                if let Some(delta) = event.delta.filter(|d| !d.is_empty()) {
                    self.push_delta(out, delta, false);
                }
            }
            "tool-input-start" => {
                if let Some(id) = event.id {
                    let id = id.into_owned();
                    if !self.inputs.iter().any(|i| i.id == id) {
                        self.inputs.push(StreamedInput {
                            id: id.clone(),
                            text: String::new(),
                        });
                    }
                    let tool_name = event.tool_name.map(Cow::into_owned).unwrap_or_default();
                    out.push(SseEvent::ToolInputStart { id, tool_name });
                }
            }
            "tool-input-delta" => {
                if let (Some(id), Some(delta)) = (event.id, event.delta) {
                    match self.inputs.iter_mut().find(|i| i.id == id) {
                        Some(input) => input.text.push_str(&delta),
                        None => self.inputs.push(StreamedInput {
                            id: id.to_string(),
                            text: delta.to_string(),
                        }),
                    }
                    out.push(SseEvent::ToolInputDelta {
                        id: id.into_owned(),
                        delta: delta.into_owned(),
                    });
                }
            }
            "tool-input-end" => {
                if let Some(id) = event.id {
                    out.push(SseEvent::ToolInputEnd {
                        id: id.into_owned(),
                    });
                }
            }
            "tool-call" => {
                let call = self.resolve_tool_call(&event);
                out.push(SseEvent::ToolCall(call));
            }
            "tool-result" => out.push(SseEvent::ToolResult(ProviderToolResult {
                tool_call_id: event.tool_call_id.map(Cow::into_owned).unwrap_or_default(),
                result_json: event
                    .result
                    .map_or_else(|| "null".to_owned(), |r| r.get().to_owned()),
                preliminary: event.preliminary.unwrap_or(false),
            })),
            "error" => out.push(SseEvent::Error(parse_stream_error(payload))),
            "finish" => {
                let finish =
                    parse_finish(event.finish_reason, event.usage, event.provider_metadata)
                        .map_err(|value| SseError::InvalidFinishReason {
                            value: super::error::clip_utf8(&value, 64).to_owned(),
                        })?;
                self.phase = Phase::Finished;
                self.inputs.clear();
                out.push(SseEvent::Finish(Box::new(finish)));
            }
            "response-metadata" => out.push(SseEvent::ResponseMetadata(ResponseMetadata {
                id: event.id.map(Cow::into_owned),
                timestamp: event.timestamp.map(Cow::into_owned),
                model_id: event
                    .model_id
                    .filter(|m| !m.is_empty() && m.chars().count() <= 128)
                    .map(Cow::into_owned),
            })),
            _ => {}
        }
        Ok(())
    }

    fn push_delta(&self, out: &mut Vec<SseEvent>, delta: Cow<'_, str>, text: bool) {
        if self.coalesce {
            match out.last_mut() {
                Some(SseEvent::TextDelta(previous)) if text => {
                    previous.push_str(&delta);
                    return;
                }
                Some(SseEvent::ReasoningDelta(previous)) if !text => {
                    previous.push_str(&delta);
                    return;
                }
                _ => {}
            }
        }
        let delta = delta.into_owned();
        out.push(if text {
            SseEvent::TextDelta(delta)
        } else {
            SseEvent::ReasoningDelta(delta)
        });
    }

    fn resolve_tool_call(&mut self, event: &RawEvent<'_>) -> ToolCall {
        let id = event.tool_call_id.as_deref().unwrap_or_default().to_owned();
        let name = event.tool_name.as_deref().unwrap_or_default().to_owned();
        let streamed = self
            .inputs
            .iter()
            .position(|i| i.id == id)
            .map(|position| self.inputs.swap_remove(position).text);
        let (arguments_json, malformed) = match event.input {
            Some(raw) => match raw.get().as_bytes().first() {
                Some(b'{' | b'[') => (raw.get().to_owned(), false),
                Some(b'"') => match serde_json::from_str::<Cow<'_, str>>(raw.get()) {
                    Ok(text) => checked_arguments(&text),
                    Err(_) => malformed_arguments(),
                },
                _ => malformed_arguments(),
            },
            None => match streamed {
                Some(text) => checked_arguments(&text),
                None => malformed_arguments(),
            },
        };
        ToolCall {
            id,
            name,
            arguments_json,
            malformed,
            provider_executed: event.provider_executed.unwrap_or(false),
        }
    }
}

fn malformed_arguments() -> (String, bool) {
    ("{}".to_owned(), true)
}

fn checked_arguments(text: &str) -> (String, bool) {
    let trimmed = text.trim();
    match serde_json::from_str::<serde::de::IgnoredAny>(trimmed) {
        Ok(_) => (trimmed.to_owned(), false),
        Err(_) => malformed_arguments(),
    }
}
