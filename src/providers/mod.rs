//! The model protocols of the bots' providers (fxbot DESIGN §7.1) behind the agent's one
//! model-protocol seam ([`crate::agent::protocol::ModelProtocol`]): the AI Gateway's (today's,
//! unchanged), OpenAI Chat Completions ([`chat`]), OpenAI Responses ([`responses`]), Anthropic
//! Messages ([`anthropic`]) and Gemini ([`gemini`]). Each is a request builder and a stream
//! decoder that yields the gateway's [`SseEvent`]s, so folding a step, the retry rules for a
//! cut stream, cancellation and checkpoints are the gateway's.
//!
//! One decoder type serves the four wire protocols ([`WireDecoder`]): the SSE framing, tool
//! calls assembled from split arguments, usage and the finish are shared; each protocol only
//! reads its `data:` payloads.

pub mod anthropic;
pub mod chat;
pub mod gemini;
mod json;
pub mod responses;

use serde_json::{json, Value};

use crate::agent::protocol::{AiGateway, ModelCall, ModelProtocol, StreamDecoder};
use crate::bot::kinds::{Auth, Kind, Protocol};
use crate::caps::{HttpRequest, Method};
use crate::gateway::error::ProviderError;
use crate::gateway::events::{Finish, FinishReason, GatewayMetadata, StreamError, TokenCounts};
use crate::gateway::prompt::validate_history;
use crate::gateway::request::{clip_tool_description, RequestError};
use crate::gateway::{Message, SseDecoder, SseError, SseEvent, StreamEnd, ToolCall};
use crate::net::sse::{Flow, LineSplitter, MAX_LINE_BYTES};

/// The headers that carry `key` for `kind` (none without a key, but Anthropic's version and
/// browser-access headers, which every request of its kind carries).
pub fn auth_headers(kind: Kind, key: Option<&str>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let auth = kind.info().auth;
    if let Some(key) = key {
        let value = match auth {
            Auth::Bearer => format!("Bearer {key}"),
            Auth::XApiKey | Auth::GoogApiKey => key.to_owned(),
        };
        out.push((auth.header().to_owned(), value));
    }
    match kind {
        Kind::Anthropic => {
            out.push(("anthropic-version".to_owned(), "2023-06-01".to_owned()));
            out.push((
                "anthropic-dangerous-direct-browser-access".to_owned(),
                "true".to_owned(),
            ));
        }
        Kind::Openrouter => {
            out.push((
                "http-referer".to_owned(),
                crate::gateway::request::REFERER.to_owned(),
            ));
            out.push((
                "x-title".to_owned(),
                crate::gateway::request::TITLE.to_owned(),
            ));
        }
        _ => {}
    }
    out
}

/// A bot provider's protocol: the AI Gateway's, or one of the four wire protocols at `base`.
#[derive(Debug, Clone)]
pub enum BotProtocol<'a> {
    Gateway(AiGateway<'a>),
    Wire {
        kind: Kind,
        /// The provider's base URL (no trailing `/`).
        base: String,
        /// Decoders made so far: the step number in the ids minted for calls without one.
        steps: std::cell::Cell<u32>,
    },
}

impl BotProtocol<'_> {
    /// The wire protocol of `kind` at `base`.
    pub fn wire(kind: Kind, base: String) -> Self {
        BotProtocol::Wire {
            kind,
            base,
            steps: std::cell::Cell::new(0),
        }
    }
}

/// The decoder of a [`BotProtocol`]'s response bodies.
pub enum BotDecoder {
    Gateway(SseDecoder),
    Wire(Box<WireDecoder>),
}

impl StreamDecoder for BotDecoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        match self {
            BotDecoder::Gateway(d) => d.feed(bytes, out),
            BotDecoder::Wire(d) => d.feed(bytes, out),
        }
    }
    fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError> {
        match self {
            BotDecoder::Gateway(d) => d.end(out),
            BotDecoder::Wire(d) => d.end(out),
        }
    }
    fn is_done(&self) -> bool {
        match self {
            BotDecoder::Gateway(d) => d.is_done(),
            BotDecoder::Wire(d) => d.is_done(),
        }
    }
}

impl ModelProtocol for BotProtocol<'_> {
    type Decoder = BotDecoder;

    fn build(&self, call: &ModelCall<'_>) -> Result<HttpRequest, RequestError> {
        let (kind, base) = match self {
            BotProtocol::Gateway(gateway) => return gateway.build(call),
            BotProtocol::Wire { kind, base, .. } => (*kind, base),
        };
        validate_history(call.messages)?;
        let info = kind.info();
        let body = match info.protocol {
            Protocol::Chat => chat::body(call),
            Protocol::Responses => responses::body(call),
            Protocol::Anthropic => anthropic::body(call),
            Protocol::Gemini | Protocol::Gateway => gemini::body(call),
        };
        let path = if info.protocol == Protocol::Gemini {
            if !call
                .model
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-:@".contains(&b))
            {
                return Err(RequestError::Encode(format!(
                    "the model id {:?} cannot go in a Gemini URL",
                    call.model
                )));
            }
            info.chat_path.replace("{model}", call.model)
        } else {
            info.chat_path.to_owned()
        };
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ];
        headers.extend(auth_headers(kind, call.token));
        if headers
            .iter()
            .any(|(_, v)| v.bytes().any(|b| b < b' ' || b == 0x7f))
        {
            return Err(RequestError::InvalidHeaderValue {
                header: info.auth.header(),
            });
        }
        Ok(HttpRequest {
            method: Method::Post,
            url: format!("{base}{path}"),
            headers,
            body: body.into_bytes(),
        })
    }

    fn decoder(&self) -> BotDecoder {
        match self {
            BotProtocol::Gateway(gateway) => BotDecoder::Gateway(gateway.decoder()),
            BotProtocol::Wire { kind, steps, .. } => {
                let step = steps.get();
                steps.set(step.saturating_add(1));
                let mut decoder = WireDecoder::new(kind.info().protocol);
                decoder.state.step = step;
                BotDecoder::Wire(Box::new(decoder))
            }
        }
    }

    fn http_error(&self, status: u16, body: &[u8]) -> ProviderError {
        ProviderError::from_http(status, body)
    }
}

/// The system text of a call (its leading system messages, joined), and the rest.
pub(crate) fn split_system(messages: &[Message]) -> (String, &[Message]) {
    let mut system = Vec::new();
    let mut rest = messages;
    while let Some((Message::System { content, .. }, tail)) = rest.split_first() {
        system.push(content.as_str());
        rest = tail;
    }
    (system.join("\n\n"), rest)
}

/// A tool's description as sent (cut to 1024 bytes).
pub(crate) fn description(text: &str) -> String {
    clip_tool_description(text).into_owned()
}

/// A tool call's arguments as JSON (`{}` when they are not an object's text).
pub(crate) fn arguments(raw: &serde_json::value::RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or_else(|_| json!({}))
}

/// A tool call being streamed: its key in the protocol (an index or an item id), its id, name
/// and the argument text so far.
#[derive(Debug, Clone)]
struct Pending {
    key: String,
    id: String,
    name: String,
    args: String,
    /// `ToolInputStart` went out.
    started: bool,
}

/// What a protocol's payload reader keeps between events.
#[derive(Debug, Clone, Default)]
pub struct WireState {
    calls: Vec<Pending>,
    usage: TokenCounts,
    reason: Option<(FinishReason, Option<String>)>,
    /// Ids minted so far (for calls that came without one): `call_<step>_<n>`.
    minted: u32,
    step: u32,
    /// A `ToolCall` went out.
    made_calls: bool,
    /// The keys of the calls closed (a protocol may repeat a finished call).
    closed: Vec<String>,
}

impl WireState {
    /// A call with `key` starts (or, seen again, gets its missing id or name).
    fn start(&mut self, key: &str, id: Option<&str>, name: Option<&str>, out: &mut Vec<SseEvent>) {
        if self.closed.iter().any(|k| k == key) {
            return;
        }
        let index = match self.calls.iter().position(|c| c.key == key) {
            Some(index) => index,
            None => {
                self.calls.push(Pending {
                    key: key.to_owned(),
                    id: String::new(),
                    name: String::new(),
                    args: String::new(),
                    started: false,
                });
                self.calls.len().saturating_sub(1)
            }
        };
        let minted = self.minted;
        let Some(call) = self.calls.get_mut(index) else {
            return;
        };
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            if call.id.is_empty() {
                call.id = id.to_owned();
            }
        }
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            if call.name.is_empty() {
                call.name = name.to_owned();
            }
        }
        if !call.started && !call.name.is_empty() {
            if call.id.is_empty() {
                call.id = format!("call_{}_{minted}", self.step);
                self.minted = minted.saturating_add(1);
            }
            call.started = true;
            out.push(SseEvent::ToolInputStart {
                id: call.id.clone(),
                tool_name: call.name.clone(),
            });
            if !call.args.is_empty() {
                out.push(SseEvent::ToolInputDelta {
                    id: call.id.clone(),
                    delta: call.args.clone(),
                });
            }
        }
    }

    /// Argument text for the call with `key`.
    fn args(&mut self, key: &str, delta: &str, out: &mut Vec<SseEvent>) {
        if delta.is_empty() {
            return;
        }
        if let Some(call) = self.calls.iter_mut().find(|c| c.key == key) {
            call.args.push_str(delta);
            if call.started {
                out.push(SseEvent::ToolInputDelta {
                    id: call.id.clone(),
                    delta: delta.to_owned(),
                });
            }
        }
    }

    /// The call with `key` is complete (with `whole` arguments, when the protocol repeats them).
    fn close(&mut self, key: &str, whole: Option<&str>, out: &mut Vec<SseEvent>) {
        let Some(index) = self.calls.iter().position(|c| c.key == key) else {
            return;
        };
        let mut call = self.calls.remove(index);
        self.closed.push(call.key.clone());
        if let Some(whole) = whole {
            call.args = whole.to_owned();
        }
        if !call.started {
            return;
        }
        out.push(SseEvent::ToolInputEnd {
            id: call.id.clone(),
        });
        let text = call.args.trim();
        let text = if text.is_empty() { "{}" } else { text };
        let valid = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        self.made_calls = true;
        out.push(SseEvent::ToolCall(ToolCall {
            id: call.id,
            name: call.name,
            arguments_json: if valid {
                text.to_owned()
            } else {
                "{}".to_owned()
            },
            malformed: !valid,
            provider_executed: false,
        }));
    }

    /// A whole call at once (Gemini's `functionCall`).
    fn whole(&mut self, name: &str, args: &Value, out: &mut Vec<SseEvent>) {
        let key = format!("whole_{}", self.minted);
        self.start(&key, None, Some(name), out);
        self.args(&key, &args.to_string(), out);
        self.close(&key, None, out);
    }

    /// Text, merged into the previous text event of this feed.
    fn text(out: &mut Vec<SseEvent>, text: &str, reasoning: bool) {
        if text.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(SseEvent::TextDelta(last)) if !reasoning => last.push_str(text),
            Some(SseEvent::ReasoningDelta(last)) if reasoning => last.push_str(text),
            _ if reasoning => out.push(SseEvent::ReasoningDelta(text.to_owned())),
            _ => out.push(SseEvent::TextDelta(text.to_owned())),
        }
    }

    fn error(out: &mut Vec<SseEvent>, code: Option<&str>, message: Option<&str>) {
        let message = message.map(str::trim).filter(|m| !m.is_empty());
        out.push(SseEvent::Error(StreamError {
            code: code.map(str::to_owned),
            message: crate::gateway::error::clip_utf8(
                message.unwrap_or("the provider reported an error without details"),
                crate::gateway::events::MAX_STREAM_ERROR_BYTES,
            )
            .to_owned(),
        }));
    }

    /// Ends the response: open calls close, then `finish` with the reason and usage (a `stop`
    /// that made tool calls is `tool-calls`, as Gemini and some servers say `stop` for them).
    fn finish(&mut self, out: &mut Vec<SseEvent>) {
        let keys: Vec<String> = self.calls.iter().map(|c| c.key.clone()).collect();
        for key in keys {
            self.close(&key, None, out);
        }
        let (mut reason, raw) = self.reason.take().unwrap_or((FinishReason::Other, None));
        if self.made_calls && matches!(reason, FinishReason::Stop | FinishReason::Other) {
            reason = FinishReason::ToolCalls;
        }
        out.push(SseEvent::Finish(Box::new(Finish {
            reason,
            raw_reason: raw,
            usage: self.usage,
            gateway: GatewayMetadata::default(),
        })));
    }

    fn reason(&mut self, reason: FinishReason, raw: &str) {
        self.reason = Some((reason, Some(raw.to_owned())));
    }
}

/// What a payload did to the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Continue,
    /// The response finished (its `Finish` went out).
    Finished,
    /// An end marker (`[DONE]`): finish now if the reason came.
    Done,
}

/// The decoder of the four wire protocols: SSE lines, `data:` payloads as JSON, each read by
/// its protocol.
pub struct WireDecoder {
    protocol: Protocol,
    lines: LineSplitter,
    state: WireState,
    done: bool,
    finished: bool,
    failed: Option<SseError>,
}

impl WireDecoder {
    pub fn new(protocol: Protocol) -> Self {
        WireDecoder {
            protocol,
            lines: LineSplitter::new(MAX_LINE_BYTES),
            state: WireState::default(),
            done: false,
            finished: false,
            failed: None,
        }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes `bytes`, appending events to `out`.
    ///
    /// # Errors
    /// [`SseError::LineTooLong`]; after an error the decoder keeps returning it.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.done {
            return Ok(());
        }
        let limit = self.lines.max_line_bytes();
        let (protocol, state) = (self.protocol, &mut self.state);
        let (done, finished) = (&mut self.done, &mut self.finished);
        let result = self.lines.feed(
            bytes,
            |line| Ok(data_line(protocol, state, line, out, done, finished)),
            || SseError::LineTooLong { limit },
        );
        if let Err(error) = result {
            self.lines.clear();
            self.failed = Some(error.clone());
            return Err(error);
        }
        Ok(())
    }

    /// Ends the input. A protocol without an end marker (Gemini) finishes here when its reason
    /// came; a stream without one was cut.
    ///
    /// # Errors
    /// As [`WireDecoder::feed`].
    pub fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if !self.done {
            if let Some(rest) = self.lines.take_rest() {
                let (done, finished) = (&mut self.done, &mut self.finished);
                data_line(self.protocol, &mut self.state, &rest, out, done, finished);
            }
        }
        if !self.finished && self.state.reason.is_some() {
            self.state.finish(out);
            self.finished = true;
        }
        self.done = true;
        Ok(StreamEnd {
            finished: self.finished,
            done_marker: false,
        })
    }
}

fn data_line(
    protocol: Protocol,
    state: &mut WireState,
    line: &[u8],
    out: &mut Vec<SseEvent>,
    done: &mut bool,
    finished: &mut bool,
) -> Flow {
    let Some(payload) = line.strip_prefix(b"data:") else {
        // `event:` names, `:` comments, `id:` and blank lines: every payload says its type.
        return Flow::Continue;
    };
    let payload = payload.strip_prefix(b" ").unwrap_or(payload);
    let next = if payload.trim_ascii() == b"[DONE]" {
        Next::Done
    } else {
        match serde_json::from_slice::<Value>(payload) {
            Ok(value) => match protocol {
                Protocol::Chat => chat::data(state, &value, out),
                Protocol::Responses => responses::data(state, &value, out),
                Protocol::Anthropic => anthropic::data(state, &value, out),
                Protocol::Gemini | Protocol::Gateway => gemini::data(state, &value, out),
            },
            // A payload that is not JSON is skipped, as the gateway's decoder does.
            Err(_) => Next::Continue,
        }
    };
    match next {
        Next::Continue => Flow::Continue,
        Next::Finished => {
            *finished = true;
            *done = true;
            Flow::Stop
        }
        Next::Done => {
            if state.reason.is_some() {
                state.finish(out);
                *finished = true;
            }
            *done = true;
            Flow::Stop
        }
    }
}

/// `value[key]` as text.
pub(crate) fn text<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// `value[key]` as a count.
pub(crate) fn count(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}
