//! One model step: send the request, stream the answer, retry what is safe to retry.
//!
//! A request is retried (bounded attempts, backoff, `Retry-After` honoured) on 408/409/429/5xx,
//! a dropped connection, or a stream that ends without `finish` — but only while nothing of the
//! answer has reached the user, so a retry never repeats text on screen. Any other failure ends
//! the step with a typed [`StepError`].
//!
//! Every attempt has an idle deadline (the host's clock): a response that sends nothing for
//! `idle_timeout_ms` — no headers yet, or a pause between body chunks — is cut like a dropped
//! connection, retried by the same rules, and ends in [`StepError::IdleTimeout`] when retries
//! do not help.

use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::gateway::error::{
    parse_retry_after, ProviderError, RetryCause, RetryDecision, RetryState,
};
use crate::gateway::{
    Completion, Disposition, FinishReason, SseError, SseEvent, StreamAccumulator, StreamError,
};
use crate::Code;

use super::protocol::{ModelProtocol, StreamDecoder};
use super::secrets::Secrets;

use crate::caps::cancel::{Cancel, Cancelled};
use crate::caps::http::read_capped;
use crate::caps::{Clock, FetchError, Host, HostEvent, HttpRequest, ResponseBody};

/// Attempts per model step (the first one included).
pub const MAX_ATTEMPTS: u32 = 5;
/// Largest error body read from a non-200 response.
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;
/// How long a model response may send nothing (headers, or between body chunks) before the
/// attempt is cut: 5 minutes, room for a reasoning model that thinks silently (Codex's default
/// stream idle timeout is the same).
pub const DEFAULT_MODEL_IDLE_TIMEOUT_MS: u32 = 300_000;

/// Why a step produced no usable completion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    #[error("cancelled")]
    Cancelled,
    /// A non-200 answer that was not retried (or kept failing).
    #[error("{0}")]
    Http(ProviderError),
    /// The connection failed and retries did not help. The text is the host's own (a JS
    /// error's message through `fetch`): there is no typed cause to keep.
    #[error("could not reach the AI Gateway: {0}")]
    Network(String),
    /// The response sent nothing (no headers, or no next chunk) for `ms` milliseconds, and
    /// retries did not help (or text had already reached the user).
    #[error("the AI Gateway sent nothing for {ms} ms (modelIdleTimeoutMs)")]
    IdleTimeout { ms: u32 },
    /// The response broke off or reported an error after output had started (or retries ran out).
    #[error("the model response failed: {0}")]
    Response(ResponseFailure),
    /// The response could not be decoded.
    #[error("the model response could not be read: {0}")]
    Decode(DecodeFailure),
}

/// Why a response that arrived is no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseFailure {
    /// The provider reported an `error` event.
    #[error("{}", provider_text(.0))]
    Provider(StreamError),
    /// `finish` came with a reason that leaves no answer to use (`error`, `content-filter`, or
    /// one that does not fit the tool calls).
    #[error("the model stopped with finish reason {}", .0.label())]
    Finished(FinishReason),
    /// The stream ended before `finish`.
    #[error("the response ended before it was complete")]
    Incomplete,
}

impl ResponseFailure {
    /// What went wrong with `completion`: its provider error first, else how it finished.
    pub fn of(completion: &Completion) -> Self {
        match (&completion.provider_error, &completion.finish) {
            (Some(error), _) => ResponseFailure::Provider(error.clone()),
            (None, Some(finish)) => ResponseFailure::Finished(finish.reason),
            (None, None) => ResponseFailure::Incomplete,
        }
    }
}

fn provider_text(error: &StreamError) -> String {
    match &error.code {
        Some(code) => format!("{code}: {}", error.message),
        None => error.message.clone(),
    }
}

/// Why the bytes of a response could not be read as the protocol's event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeFailure {
    /// The event stream broke a rule of the SSE decoder.
    #[error("{0}")]
    Sse(SseError),
    /// A 200 whose content type is not `text/event-stream` (a login page, a proxy's error page).
    #[error("the AI Gateway answered 200 with content type {content_type}, not an event stream (text/event-stream)")]
    NotEventStream { content_type: String },
}

impl StepError {
    /// The JS error code: one per kind of failure, whatever the cause's own finer code.
    pub fn code(&self) -> Code {
        match self {
            StepError::Cancelled => Code::Cancelled,
            StepError::Http(_) => Code::GatewayHttpError,
            StepError::Network(_) => Code::GatewayNetworkError,
            StepError::IdleTimeout { .. } => Code::GatewayTimeout,
            StepError::Response(_) => Code::GatewayResponseError,
            StepError::Decode(_) => Code::GatewayProtocolError,
        }
    }

    /// The error with every secret of the request taken out of its texts (a provider that
    /// echoes the key it was sent).
    #[must_use]
    pub fn scrubbed(mut self, secrets: &Secrets) -> Self {
        match &mut self {
            StepError::Http(error) => secrets.scrub_provider(error),
            StepError::Response(ResponseFailure::Provider(error)) => secrets.scrub_stream(error),
            // The host's own words about a connection, and what the decoder saw: no echo.
            StepError::Cancelled
            | StepError::Network(_)
            | StepError::IdleTimeout { .. }
            | StepError::Response(ResponseFailure::Finished(_) | ResponseFailure::Incomplete)
            | StepError::Decode(_) => {}
        }
        self
    }

    /// The HTTP status, for HTTP failures.
    pub fn status(&self) -> Option<u16> {
        match self {
            StepError::Http(error) => error.status(),
            _ => None,
        }
    }
}

impl From<Cancelled> for StepError {
    fn from(_: Cancelled) -> Self {
        StepError::Cancelled
    }
}

/// A step's outcome, with the partial text when it failed after output began.
pub struct StepFailure {
    pub error: StepError,
    pub partial_text: String,
}

/// What the step reports while it runs.
pub trait StepSink {
    /// A chunk of streamed answer text (all text deltas of one network read, joined).
    fn text(&mut self, text: &str);
    /// A chunk of streamed reasoning.
    fn thought(&mut self, _text: &str) {}
}

/// Renews the gateway credential after the gateway refused it (HTTP 401).
pub trait Reauth {
    /// A new bearer token, or `None` when there is none (an API key cannot be renewed, or the
    /// renewal failed or gave back the same token).
    fn renew(&self) -> Pin<Box<dyn Future<Output = Option<String>> + '_>>;
}

/// Sends `request` (built by `protocol`) and returns the completed answer. A 401 is retried
/// once per step with a renewed credential when `reauth` gives one (agent-gateway-auth: "one
/// forced credential refresh + retry per step"). An attempt whose response sends nothing for
/// `idle_timeout_ms` is cut and retried like a dropped connection.
///
/// # Errors
/// A [`StepFailure`] with the text streamed before the failure.
pub async fn run_step<H: Host, P: ModelProtocol + ?Sized>(
    host: &H,
    protocol: &P,
    cancel: &Cancel,
    request: &HttpRequest,
    reauth: Option<&dyn Reauth>,
    idle_timeout_ms: u32,
    sink: &mut dyn StepSink,
) -> Result<Completion, StepFailure> {
    let mut retry = RetryState::new(MAX_ATTEMPTS);
    let mut renewed: Option<HttpRequest> = None;
    loop {
        let request = renewed.as_ref().unwrap_or(request);
        // No error text repeats the credential the request carries.
        let secrets = Secrets::of(request);
        let fail = |error| StepFailure {
            error,
            partial_text: String::new(),
        };
        cancel.check().map_err(|_| fail(StepError::Cancelled))?;
        // The attempt's own cancel: set by `cancel` or by the idle deadline, it stops the
        // host's fetch and reads.
        let call = Cancel::new();
        let mut idle = Idle::new(host, idle_timeout_ms, cancel, call.clone());
        let fetched = idle.guard(host.fetch(request.clone(), &call)).await;
        let (cause, retry_after, error) = match fetched {
            Err(_) if idle.timed_out => (Some(RetryCause::ConnectionDropped), None, idle.error()),
            Err(FetchError::Cancelled) => return Err(fail(StepError::Cancelled)),
            Err(FetchError::Network(message)) => (
                Some(RetryCause::ConnectionDropped),
                None,
                StepError::Network(message),
            ),
            Ok(mut response) if response.status != 200 => {
                let read = read_capped(&mut response.body, &call, MAX_ERROR_BODY_BYTES);
                let body = match idle.guard(read).await {
                    // The status is known: a body that stalls is an empty one.
                    Err(_) if idle.timed_out => Vec::new(),
                    Err(FetchError::Cancelled) => return Err(fail(StepError::Cancelled)),
                    Err(FetchError::Network(_)) => Vec::new(),
                    Ok(body) => body,
                };
                let error = protocol.http_error(response.status, &body);
                let now_seconds = u64::try_from(host.now_ms() / 1000).ok();
                let retry_after = response
                    .retry_after
                    .as_deref()
                    .and_then(|v| parse_retry_after(v, now_seconds));
                (error.retry_cause(), retry_after, StepError::Http(error))
            }
            Ok(response) if !is_event_stream(response.content_type.as_deref()) => {
                // A login page, a proxy's error page, JSON: retrying gives the same again.
                let content_type = response.content_type.unwrap_or_default();
                return Err(fail(StepError::Decode(DecodeFailure::NotEventStream {
                    content_type,
                })));
            }
            Ok(response) => {
                match stream(response.body, protocol.decoder(), &mut idle, sink).await {
                    Streamed::Done(completion) => match completion.disposition() {
                        Disposition::Interrupted
                            if completion.streamed_bytes == 0
                                && completion.tool_calls.is_empty() =>
                        {
                            (
                                Some(RetryCause::ResponseInterrupted),
                                None,
                                StepError::Response(ResponseFailure::Incomplete),
                            )
                        }
                        Disposition::ProviderFailure
                            if completion.streamed_bytes == 0
                                && completion.tool_calls.is_empty() =>
                        {
                            (
                                Some(RetryCause::ProviderUnavailable),
                                None,
                                StepError::Response(ResponseFailure::of(&completion)),
                            )
                        }
                        _ => return Ok(*completion),
                    },
                    Streamed::Failed {
                        error,
                        partial_text,
                    } => {
                        if !partial_text.is_empty()
                            || matches!(error, StepError::Cancelled | StepError::Decode(_))
                        {
                            return Err(StepFailure {
                                error: error.scrubbed(&secrets),
                                partial_text,
                            });
                        }
                        (Some(RetryCause::ConnectionDropped), None, error)
                    }
                }
            }
        };
        let error = error.scrubbed(&secrets);
        if let (StepError::Http(http), Some(reauth), None) = (&error, reauth, &renewed) {
            if http.status() == Some(401) {
                if let Some(token) = reauth.renew().await {
                    renewed = Some(protocol.reauthorized(request, &token));
                    continue;
                }
            }
        }
        match retry.on_failure(cause, retry_after) {
            RetryDecision::Retry(delay) => {
                let delay_ms = u32::try_from(delay.as_millis()).unwrap_or(u32::MAX);
                host.event(HostEvent::RequestRetry {
                    attempt: retry.attempts(),
                    limit: MAX_ATTEMPTS,
                    delay_ms,
                    reason: error.to_string(),
                });
                wait(host, cancel, delay)
                    .await
                    .map_err(|_| fail(StepError::Cancelled))?;
            }
            RetryDecision::GiveUp | RetryDecision::Exhausted => return Err(fail(error)),
        }
    }
}

/// True for a `Content-Type` of `text/event-stream` (any case, any parameters), or none known.
pub fn is_event_stream(content_type: Option<&str>) -> bool {
    content_type.is_none_or(|value| {
        value
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("text/event-stream")
    })
}

async fn wait<H: Host>(host: &H, cancel: &Cancel, delay: Duration) -> Result<(), Cancelled> {
    let ms = u32::try_from(delay.as_millis()).unwrap_or(u32::MAX);
    cancel.run(host.sleep(ms)).await
}

/// A network chunk is decoded in slices of this size; after each slice the text so far goes to
/// the host and the event loop gets a turn, so a body that arrives all at once still shows its
/// first words within a fraction of a millisecond.
const SLICE_BYTES: usize = 16 * 1024;

/// Gives the executor a turn: pending once, waking itself at once (on the web, the rest of the
/// step continues on the next microtask, after the host has seen the updates so far).
fn yield_now() -> impl std::future::Future<Output = ()> {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
}

/// The idle deadline of one attempt: the response must send something (its headers, then each
/// next body chunk) within `ms` of when the step began to wait for it. One host timer per quiet
/// period, not one per chunk: a timer that fires after bytes arrived is set again for the rest
/// of the current wait. The clock is read only when a wait begins (a read that is ready at once
/// costs nothing).
struct Idle<'a, C: Clock> {
    clock: &'a C,
    ms: u32,
    /// When the current wait began.
    since_ms: i64,
    /// An operation is pending (its wait began at `since_ms`).
    waiting: bool,
    /// Something arrived since the timer was set.
    active: bool,
    timer: Option<Pin<Box<dyn Future<Output = ()> + 'a>>>,
    /// The step's cancel (the user's stop).
    outer: &'a Cancel,
    /// The attempt's cancel, set at the deadline or by the outer cancel.
    call: Cancel,
    /// The deadline passed (and `call` was set for it).
    timed_out: bool,
}

impl<'a, C: Clock> Idle<'a, C> {
    fn new(clock: &'a C, ms: u32, outer: &'a Cancel, call: Cancel) -> Self {
        Idle {
            clock,
            ms: ms.max(1),
            outer,
            since_ms: 0,
            waiting: false,
            active: false,
            timer: None,
            call,
            timed_out: false,
        }
    }

    fn error(&self) -> StepError {
        StepError::IdleTimeout { ms: self.ms }
    }

    /// Runs `op` (a fetch or a read with [`Idle::call`]) to its end. When `outer` is set or the
    /// deadline passes first, sets `call` and keeps polling until `op` notices.
    async fn guard<T>(&mut self, op: impl Future<Output = T>) -> T {
        let mut op = pin!(op);
        std::future::poll_fn(|cx| match op.as_mut().poll(cx) {
            Poll::Ready(value) => {
                self.waiting = false;
                self.active = true;
                Poll::Ready(value)
            }
            Poll::Pending => {
                self.watch(cx);
                Poll::Pending
            }
        })
        .await
    }

    /// While an operation is pending: starts its wait, and sets `call` once `outer` is set or
    /// the deadline passed (else registers `cx` with both). Not inlined: one copy for every
    /// kind of operation.
    #[inline(never)]
    fn watch(&mut self, cx: &mut Context<'_>) {
        let outer = self.outer;
        if !self.waiting {
            self.waiting = true;
            self.since_ms = self.clock.now_ms();
            if self.timer.is_none() {
                self.arm(self.ms);
            }
        }
        if self.call.is_cancelled() {
            return;
        }
        if outer.is_cancelled() || self.expired(cx) {
            self.timed_out = !outer.is_cancelled();
            self.call.cancel();
            cx.waker().wake_by_ref();
        } else {
            let _ = pin!(outer.cancelled()).poll(cx);
        }
    }

    fn arm(&mut self, wait: u32) {
        let clock = self.clock;
        self.timer = Some(Box::pin(clock.deadline(wait)));
        self.active = false;
    }

    /// True once `ms` passed in the current wait; else the timer is set and registered.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            let Some(timer) = self.timer.as_mut() else {
                let due = self.since_ms.saturating_add(i64::from(self.ms));
                let wait = due
                    .saturating_sub(self.clock.now_ms())
                    .min(i64::from(self.ms));
                let Ok(wait @ 1..) = u32::try_from(wait) else {
                    return true;
                };
                self.arm(wait);
                continue;
            };
            if timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            self.timer = None;
            if !std::mem::take(&mut self.active) {
                // Nothing arrived in the whole wait (whatever the clock reads).
                return true;
            }
        }
    }
}

enum Streamed {
    Done(Box<Completion>),
    Failed {
        error: StepError,
        partial_text: String,
    },
}

async fn stream<B: ResponseBody, D: StreamDecoder, C: Clock>(
    mut body: B,
    mut decoder: D,
    idle: &mut Idle<'_, C>,
    sink: &mut dyn StepSink,
) -> Streamed {
    let mut accumulator = StreamAccumulator::new();
    let mut events = Vec::new();
    let call = idle.call.clone();
    let cancel = idle.outer;
    'read: loop {
        let chunk = match idle.guard(body.next_chunk(&call)).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(error) => {
                let error = match error {
                    _ if idle.timed_out => idle.error(),
                    FetchError::Cancelled => StepError::Cancelled,
                    FetchError::Network(message) => StepError::Network(message),
                };
                return Streamed::Failed {
                    error,
                    partial_text: accumulator.completion().text.clone(),
                };
            }
        };
        let mut slices = chunk.chunks(SLICE_BYTES).peekable();
        while let Some(slice) = slices.next() {
            if let Err(error) = decoder.feed(slice, &mut events) {
                return Streamed::Failed {
                    error: StepError::Decode(DecodeFailure::Sse(error)),
                    partial_text: accumulator.completion().text.clone(),
                };
            }
            deliver(&mut events, &mut accumulator, sink);
            if decoder.is_done() {
                break 'read;
            }
            if slices.peek().is_some() {
                // A large chunk (a whole buffered body): let the host show what arrived so far.
                yield_now().await;
                if cancel.is_cancelled() {
                    return Streamed::Failed {
                        error: StepError::Cancelled,
                        partial_text: accumulator.completion().text.clone(),
                    };
                }
            }
        }
    }
    match decoder.end(&mut events) {
        Ok(_) => {
            deliver(&mut events, &mut accumulator, sink);
            // The host shows the last words before the turn goes on to save the session.
            yield_now().await;
            Streamed::Done(Box::new(accumulator.into_completion()))
        }
        Err(error) => Streamed::Failed {
            error: StepError::Decode(DecodeFailure::Sse(error)),
            partial_text: accumulator.completion().text.clone(),
        },
    }
}

fn deliver(
    events: &mut Vec<SseEvent>,
    accumulator: &mut StreamAccumulator,
    sink: &mut dyn StepSink,
) {
    for event in events.drain(..) {
        match &event {
            SseEvent::TextDelta(text) => sink.text(text),
            SseEvent::ReasoningDelta(text) => sink.thought(text),
            _ => {}
        }
        accumulator.push(event);
    }
}
