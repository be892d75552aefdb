//! HTTP through the host's `fetch`: one request type, one response type, the streamed body, and
//! [`fetch_whole`] for the small exchanges (OAuth) that read a capped body within a deadline.
//!
//! Requests and whole bodies may carry tokens (a bearer header, a token form, a token response):
//! their `Debug` shows lengths and header names only, and their bytes are overwritten when they
//! are dropped.

#![allow(async_fn_in_trait)]

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use super::cancel::Cancel;
use super::clock::Clock;

/// The methods the core sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    /// The method as `fetch` spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One request for the host to send.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    /// In sending order; names as the protocol writes them.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("header_names", &names)
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl Drop for HttpRequest {
    fn drop(&mut self) {
        wipe(std::mem::take(&mut self.body));
        for (_, value) in std::mem::take(&mut self.headers) {
            wipe(value.into_bytes());
        }
    }
}

/// A response: the status, the headers the core reads, and the body (`B`: streamed, or
/// [`WholeBody`] from [`fetch_whole`]).
#[derive(Debug)]
pub struct HttpResponse<B> {
    pub status: u16,
    /// The raw `Retry-After` header, when the host could read it.
    pub retry_after: Option<String>,
    /// The raw `Content-Type` header, when the host could read it (`None`: unknown).
    pub content_type: Option<String>,
    /// The raw `Mcp-Session-Id` header (a remote MCP server's session, [`crate::mcp`]).
    pub mcp_session_id: Option<String>,
    /// The raw `WWW-Authenticate` header (a server asking for OAuth).
    pub www_authenticate: Option<String>,
    pub body: B,
}

/// Why a request produced no response (or its body stopped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("cancelled")]
    Cancelled,
    /// The connection failed or dropped (the host's `fetch` rejected, or the body errored).
    #[error("network error: {0}")]
    Network(String),
}

/// A streamed response body.
pub trait ResponseBody {
    /// The next chunk, or `None` at the end of the body.
    ///
    /// # Errors
    /// [`FetchError::Cancelled`] once `cancel` is set, [`FetchError::Network`] when the stream
    /// fails.
    async fn next_chunk(&mut self, cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError>;
}

/// The host's `fetch`.
pub trait Http {
    type Body: ResponseBody;

    /// Sends `request` and resolves once the response headers arrive. Any status is a response.
    /// Returns promptly once `cancel` is set, aborting the request (its `AbortSignal`).
    ///
    /// # Errors
    /// [`FetchError`] when there is no response.
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<Self::Body>, FetchError>;
}

/// Reads a whole body, keeping at most `cap` bytes.
///
/// # Errors
/// [`FetchError`] when the read fails or is cancelled.
pub async fn read_capped<B: ResponseBody + ?Sized>(
    body: &mut B,
    cancel: &Cancel,
    cap: usize,
) -> Result<Vec<u8>, FetchError> {
    let mut out = Vec::new();
    while let Some(chunk) = body.next_chunk(cancel).await? {
        let room = cap.saturating_sub(out.len());
        out.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
        if out.len() >= cap {
            break;
        }
    }
    Ok(out)
}

/// A body read whole by [`fetch_whole`]: wiped when dropped, shown as its length.
#[derive(Clone, PartialEq, Eq)]
pub struct WholeBody(Vec<u8>);

impl WholeBody {
    /// A body of `bytes` (for hosts and tests that have one at hand).
    #[must_use]
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}

impl std::ops::Deref for WholeBody {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for WholeBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WholeBody({} bytes)", self.0.len())
    }
}

impl Drop for WholeBody {
    fn drop(&mut self) {
        wipe(std::mem::take(&mut self.0));
    }
}

/// Why [`fetch_whole`] got no complete response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// `fetch` rejected, the body could not be read, or the caller cancelled (the host's short
    /// description).
    #[error("network failure ({0})")]
    Failed(String),
    /// No complete response within the deadline.
    #[error("no response within the deadline")]
    TimedOut,
    /// The body was longer than the cap.
    #[error("response body larger than the limit")]
    TooLarge,
}

/// Sends `request` and reads its whole body, at most `max_bytes`, within `timeout_ms`; stops
/// (aborting the host's fetch) once `cancel` is set.
///
/// # Errors
/// [`ExchangeError`] when no complete response arrived in time. Any HTTP status is a response.
pub async fn fetch_whole<H: Http + ?Sized, C: Clock + ?Sized>(
    http: &H,
    clock: &C,
    request: HttpRequest,
    max_bytes: usize,
    timeout_ms: u32,
    cancel: &Cancel,
) -> Result<HttpResponse<WholeBody>, ExchangeError> {
    let call = Cancel::new();
    let exchange = async {
        let mut response = http.fetch(request, &call).await?;
        // One byte past the cap tells "too large" from "exactly at the cap".
        let body = read_capped(&mut response.body, &call, max_bytes.saturating_add(1)).await?;
        Ok::<_, FetchError>((response.status, body))
    };
    let (result, timed_out) =
        with_deadline(exchange, clock.deadline(timeout_ms), cancel, &call).await;
    match result {
        Ok((_, body)) if body.len() > max_bytes => {
            wipe(body);
            Err(ExchangeError::TooLarge)
        }
        Ok((status, body)) => Ok(HttpResponse {
            status,
            retry_after: None,
            content_type: None,
            mcp_session_id: None,
            www_authenticate: None,
            body: WholeBody(body),
        }),
        Err(_) if timed_out => Err(ExchangeError::TimedOut),
        Err(FetchError::Cancelled) => Err(ExchangeError::Failed("cancelled".to_owned())),
        Err(FetchError::Network(message)) => Err(ExchangeError::Failed(message)),
    }
}

/// Runs `exchange` until it finishes, or cancels `call` when the deadline or the outer cancel
/// comes first and waits for `exchange` to notice. True in `.1` when the deadline fired.
pub(crate) async fn with_deadline<T>(
    exchange: impl Future<Output = T>,
    deadline: impl Future<Output = ()>,
    outer: &Cancel,
    call: &Cancel,
) -> (T, bool) {
    let mut exchange = pin!(exchange);
    let mut deadline = pin!(deadline);
    let mut stop = pin!(outer.cancelled());
    let mut timed_out = false;
    let value = std::future::poll_fn(|cx| {
        if let Poll::Ready(value) = exchange.as_mut().poll(cx) {
            return Poll::Ready(value);
        }
        if !call.is_cancelled() {
            if deadline.as_mut().poll(cx).is_ready() {
                timed_out = true;
                call.cancel();
                cx.waker().wake_by_ref();
            } else if stop.as_mut().poll(cx).is_ready() {
                call.cancel();
                cx.waker().wake_by_ref();
            }
        }
        Poll::Pending
    })
    .await;
    (value, timed_out)
}

/// Overwrites a buffer that held token material before it is freed (best effort: copies made
/// by the host, by JSON parsing or by the allocator are out of reach).
pub fn wipe(mut bytes: Vec<u8>) {
    bytes.fill(0);
    std::hint::black_box(&bytes);
}
