//! One model step: send the request, stream the answer, retry what is safe to retry.
//!
//! A request is retried (bounded attempts, backoff, `Retry-After` honoured) on 408/409/429/5xx,
//! a dropped connection, or a stream that ends without `finish` — but only while nothing of the
//! answer has reached the user, so a retry never repeats text on screen. Any other failure ends
//! the step with a typed [`StepError`].

use std::future::Future;
use std::pin::Pin;
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
use crate::caps::{FetchError, Host, HostEvent, HttpRequest, ResponseBody};

/// Attempts per model step (the first one included).
pub const MAX_ATTEMPTS: u32 = 5;
/// Largest error body read from a non-200 response.
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;

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
            StepError::Response(_) => Code::GatewayResponseError,
            StepError::Decode(_) => Code::GatewayProtocolError,
        }
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
/// forced credential refresh + retry per step").
///
/// # Errors
/// A [`StepFailure`] with the text streamed before the failure.
pub async fn run_step<H: Host, P: ModelProtocol + ?Sized>(
    host: &H,
    protocol: &P,
    cancel: &Cancel,
    request: &HttpRequest,
    reauth: Option<&dyn Reauth>,
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
        let (cause, retry_after, error) = match host.fetch(request.clone(), cancel).await {
            Err(FetchError::Cancelled) => return Err(fail(StepError::Cancelled)),
            Err(FetchError::Network(message)) => (
                Some(RetryCause::ConnectionDropped),
                None,
                StepError::Network(message),
            ),
            Ok(mut response) if response.status != 200 => {
                let body = read_capped(&mut response.body, cancel, MAX_ERROR_BODY_BYTES).await;
                let body = match body {
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
            Ok(response) => match stream(response.body, protocol.decoder(), cancel, sink).await {
                Streamed::Done(completion) => match completion.disposition() {
                    Disposition::Interrupted
                        if completion.streamed_bytes == 0 && completion.tool_calls.is_empty() =>
                    {
                        (
                            Some(RetryCause::ResponseInterrupted),
                            None,
                            StepError::Response(ResponseFailure::Incomplete),
                        )
                    }
                    Disposition::ProviderFailure
                        if completion.streamed_bytes == 0 && completion.tool_calls.is_empty() =>
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
                            error: secrets.scrub_step(error),
                            partial_text,
                        });
                    }
                    (Some(RetryCause::ConnectionDropped), None, error)
                }
            },
        };
        let error = secrets.scrub_step(error);
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

enum Streamed {
    Done(Box<Completion>),
    Failed {
        error: StepError,
        partial_text: String,
    },
}

async fn stream<B: ResponseBody, D: StreamDecoder>(
    mut body: B,
    mut decoder: D,
    cancel: &Cancel,
    sink: &mut dyn StepSink,
) -> Streamed {
    let mut accumulator = StreamAccumulator::new();
    let mut events = Vec::new();
    'read: loop {
        let chunk = match body.next_chunk(cancel).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(error) => {
                let error = match error {
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
