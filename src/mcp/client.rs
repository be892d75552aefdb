//! One remote MCP server over Streamable HTTP: `initialize` at the newest version both sides
//! speak, the session the server names, requests answered as JSON or as an SSE stream, and
//! `tools/list` / `tools/call`.
//!
//! Each request is a `POST` of one JSON-RPC message with `Accept: application/json,
//! text/event-stream`, the negotiated `MCP-Protocol-Version`, the `Mcp-Session-Id` the server
//! gave, and the owner's headers. A `404` to a request that carried a session id means the
//! server forgot the session: the client initialises again, once, and repeats the request. A
//! request the server sends on a stream (sampling, elicitation, roots) is answered with
//! JSON-RPC error `-32601`: a bot offers none of them.

use std::cell::{Cell, RefCell};

use serde_json::{json, Value};

use crate::caps::http::with_deadline;
use crate::caps::{Cancel, Clock, FetchError, Http, HttpRequest, Method, ResponseBody};
use crate::net::sse::{Flow, LineSplitter};

/// The versions this client speaks, newest first: `initialize` tries them in this order.
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// How long one request may take, from sending to its answer, by default.
pub const DEFAULT_TIMEOUT_MS: u32 = 30_000;

/// The most bytes one answer may hold (a JSON body, or one SSE event's data).
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The most bytes one streamed answer may carry in all (events the client skips included).
pub const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// The most `tools/list` pages read for one listing.
pub const MAX_PAGES: usize = 64;

/// A tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    /// `title`, when the server gives one (a display name).
    pub title: Option<String>,
    pub description: String,
    /// The JSON Schema of its arguments (`{"type":"object"}` when the server gave none).
    pub input_schema: Value,
    /// `annotations.readOnlyHint` is true.
    pub read_only: bool,
}

/// Why a request to the server failed. Messages never hold a header value or a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("the MCP server could not be reached: {0}")]
    Network(String),
    #[error("the MCP server did not answer within {0} ms")]
    TimedOut(u32),
    #[error("the MCP server needs authorization (HTTP 401)")]
    Unauthorized { www_authenticate: Option<String> },
    #[error("the MCP server answered HTTP {0}")]
    Status(u16),
    #[error("the MCP server answered with error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error("the MCP server speaks none of the versions {versions} (it offered {offered})", versions = VERSIONS.join(", "))]
    NoCommonVersion { offered: String },
    #[error("the MCP server's answer is not valid: {0}")]
    Protocol(String),
    #[error("the request was cancelled")]
    Cancelled,
}

/// What the server agreed to at `initialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Session {
    version: &'static str,
    id: Option<String>,
}

/// A client of one server. Not connected until [`McpClient::connect`] (the first request
/// connects by itself).
#[derive(Debug)]
pub struct McpClient {
    url: String,
    headers: Vec<(String, String)>,
    timeout_ms: u32,
    session: RefCell<Option<Session>>,
    next_id: Cell<u64>,
}

/// An answer to one request: the JSON-RPC message, or the HTTP status when there was none.
enum Answer {
    Message(Value),
    /// 202 Accepted, or another 2xx with no body (a notification's answer).
    Accepted,
}

impl McpClient {
    /// A client of the server at `url` (already checked against the baseUrl rules), sending
    /// `headers` (already checked by [`super::headers::check`]) with every request.
    #[must_use]
    pub fn new(url: impl Into<String>, headers: Vec<(String, String)>) -> Self {
        Self {
            url: url.into(),
            headers,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            session: RefCell::new(None),
            next_id: Cell::new(1),
        }
    }

    /// The same client with another request deadline.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u32) -> Self {
        self.timeout_ms = timeout_ms;
        self
    }

    /// The protocol version agreed at `initialize`, once connected.
    #[must_use]
    pub fn version(&self) -> Option<&'static str> {
        self.session.borrow().as_ref().map(|s| s.version)
    }

    /// The session id the server gave, once connected.
    #[must_use]
    pub fn session_id(&self) -> Option<String> {
        self.session.borrow().as_ref().and_then(|s| s.id.clone())
    }

    /// Initialises: `initialize` at each version of [`VERSIONS`] from the newest until the
    /// server takes one (a version it refuses with HTTP 400 or a JSON-RPC error is followed by
    /// the next), then `notifications/initialized`. Resolves to the agreed version.
    ///
    /// # Errors
    /// [`McpError::NoCommonVersion`] when the server answers with a version this client does
    /// not speak, or refuses all of them; what the exchange fails with otherwise.
    pub async fn connect<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        cancel: &Cancel,
    ) -> Result<&'static str, McpError> {
        *self.session.borrow_mut() = None;
        let mut refused = Vec::new();
        for version in VERSIONS {
            let params = json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "fxbot", "version": env!("CARGO_PKG_VERSION")},
            });
            let trial = Session { version, id: None };
            let (answer, session_id) = match self
                .exchange(host, &trial, "initialize", Some(params), true, cancel)
                .await
            {
                Ok(answered) => answered,
                Err(McpError::Status(400) | McpError::Rpc { .. }) => {
                    refused.push(version);
                    continue;
                }
                Err(error) => return Err(error),
            };
            let Answer::Message(result) = answer else {
                return Err(McpError::Protocol(
                    "initialize was answered with no result".into(),
                ));
            };
            let offered = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(agreed) = VERSIONS.iter().find(|v| **v == offered) else {
                return Err(McpError::NoCommonVersion {
                    offered: shown(offered),
                });
            };
            let session = Session {
                version: agreed,
                id: session_id,
            };
            self.exchange(
                host,
                &session,
                "notifications/initialized",
                None,
                false,
                cancel,
            )
            .await?;
            *self.session.borrow_mut() = Some(session);
            return Ok(agreed);
        }
        Err(McpError::NoCommonVersion {
            offered: format!("none: it refused {}", refused.join(", ")),
        })
    }

    /// Every tool the server lists (`tools/list`, following `nextCursor`).
    ///
    /// # Errors
    /// What a request fails with; [`McpError::Protocol`] for a page that is not a tool list or
    /// a listing longer than [`MAX_PAGES`] pages.
    pub async fn list_tools<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        cancel: &Cancel,
    ) -> Result<Vec<Tool>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let page = self.request(host, "tools/list", params, cancel).await?;
            let Some(listed) = page.get("tools").and_then(Value::as_array) else {
                return Err(McpError::Protocol("tools/list gave no tools array".into()));
            };
            for tool in listed {
                tools.push(tool_of(tool)?);
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() && cursor.as_deref() != Some(next) => {
                    cursor = Some(next.to_owned());
                }
                _ => return Ok(tools),
            }
        }
        Err(McpError::Protocol(format!(
            "tools/list went on past {MAX_PAGES} pages"
        )))
    }

    /// Calls `name` with `arguments` (`tools/call`); resolves to the result object (render it
    /// with [`super::render::render`]).
    ///
    /// # Errors
    /// What the request fails with.
    pub async fn call_tool<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        name: &str,
        arguments: Value,
        cancel: &Cancel,
    ) -> Result<Value, McpError> {
        let params = json!({ "name": name, "arguments": arguments });
        self.request(host, "tools/call", Some(params), cancel).await
    }

    /// One request in the session (connecting first when there is none), with one new
    /// session when the server answers 404 to the one it gave.
    async fn request<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        method: &str,
        params: Option<Value>,
        cancel: &Cancel,
    ) -> Result<Value, McpError> {
        let mut renewed = false;
        loop {
            let session = self.session.borrow().clone();
            let session = match session {
                Some(session) => session,
                None => {
                    self.connect(host, cancel).await?;
                    renewed = true;
                    self.session
                        .borrow()
                        .clone()
                        .ok_or_else(|| McpError::Protocol("no session after initialize".into()))?
                }
            };
            match self
                .exchange(host, &session, method, params.clone(), true, cancel)
                .await
            {
                Ok((Answer::Message(result), _)) => return Ok(result),
                Ok((Answer::Accepted, _)) => {
                    return Err(McpError::Protocol(format!(
                        "{method} was answered with no result"
                    )))
                }
                Err(McpError::Status(404)) if session.id.is_some() && !renewed => {
                    // The server forgot the session: initialise again, once.
                    *self.session.borrow_mut() = None;
                }
                Err(error) => return Err(error),
            }
        }
    }

    fn request_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        id
    }

    fn post(&self, session: &Session, body: &Value) -> HttpRequest {
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            (
                "accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
            (
                "mcp-protocol-version".to_owned(),
                session.version.to_owned(),
            ),
        ];
        if let Some(id) = &session.id {
            headers.push(("mcp-session-id".to_owned(), id.clone()));
        }
        headers.extend(self.headers.iter().cloned());
        HttpRequest {
            method: Method::Post,
            url: self.url.clone(),
            headers,
            body: body.to_string().into_bytes(),
        }
    }

    /// Sends one message (a request when `expects_answer`, else a notification) within the
    /// deadline; resolves to the answer and the `Mcp-Session-Id` the response carried.
    async fn exchange<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        session: &Session,
        method: &str,
        params: Option<Value>,
        expects_answer: bool,
        cancel: &Cancel,
    ) -> Result<(Answer, Option<String>), McpError> {
        let id = expects_answer.then(|| self.request_id());
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let (Some(id), Some(object)) = (id, message.as_object_mut()) {
            object.insert("id".to_owned(), json!(id));
        }
        if let (Some(params), Some(object)) = (params, message.as_object_mut()) {
            object.insert("params".to_owned(), params);
        }
        let call = Cancel::new();
        let work = self.send_and_read(host, session, &message, id, &call);
        let (result, timed_out) =
            with_deadline(work, host.deadline(self.timeout_ms), cancel, &call).await;
        match result {
            Err(_) if timed_out => Err(McpError::TimedOut(self.timeout_ms)),
            other => other,
        }
    }

    async fn send_and_read<H: Http + Clock + ?Sized>(
        &self,
        host: &H,
        session: &Session,
        message: &Value,
        id: Option<u64>,
        call: &Cancel,
    ) -> Result<(Answer, Option<String>), McpError> {
        let mut response = host
            .fetch(self.post(session, message), call)
            .await
            .map_err(fetch_error)?;
        let session_id = response.mcp_session_id.take().filter(|s| !s.is_empty());
        match response.status {
            401 => {
                return Err(McpError::Unauthorized {
                    www_authenticate: response.www_authenticate.take(),
                })
            }
            200..=299 => {}
            status => return Err(McpError::Status(status)),
        }
        let Some(id) = id else {
            return Ok((Answer::Accepted, session_id));
        };
        let streamed = response.content_type.as_deref().is_some_and(|t| {
            t.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        });
        let answer = if streamed {
            self.read_stream(host, session, &mut response.body, id, call)
                .await?
        } else {
            let bytes = read_json_body(&mut response.body, call).await?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok((Answer::Accepted, session_id));
            }
            let value: Value = serde_json::from_slice(&bytes)
                .map_err(|e| McpError::Protocol(format!("the body is not JSON ({e})")))?;
            answer_in(&value, id)?.ok_or_else(|| {
                McpError::Protocol(format!("the body holds no answer to request {id}"))
            })?
        };
        Ok((Answer::Message(answer), session_id))
    }

    /// Reads an SSE answer until the response to `id`, answering the server's own requests
    /// with `-32601` on the way.
    async fn read_stream<H: Http + Clock + ?Sized, B: ResponseBody + ?Sized>(
        &self,
        host: &H,
        session: &Session,
        body: &mut B,
        id: u64,
        call: &Cancel,
    ) -> Result<Value, McpError> {
        let mut lines = LineSplitter::new(MAX_MESSAGE_BYTES);
        let mut data = String::new();
        let mut total = 0usize;
        let mut messages: Vec<Value> = Vec::new();
        loop {
            let chunk = body.next_chunk(call).await.map_err(fetch_error)?;
            let Some(chunk) = chunk else {
                return Err(McpError::Protocol(format!(
                    "the stream ended before the answer to request {id}"
                )));
            };
            total = total.saturating_add(chunk.len());
            if total > MAX_STREAM_BYTES {
                return Err(McpError::Protocol("the stream passed 16 MiB".into()));
            }
            lines.feed(
                &chunk,
                |line| {
                    event_line(line, &mut data, &mut messages)?;
                    Ok::<_, McpError>(Flow::Continue)
                },
                || McpError::Protocol("an event passed 4 MiB".into()),
            )?;
            for message in messages.drain(..) {
                if let Some(answer) = answer_in(&message, id)? {
                    return Ok(answer);
                }
                if let Some(request_id) = server_request_id(&message) {
                    let refusal = json!({
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "error": {"code": -32601, "message": "not supported by this client"},
                    });
                    // The refusal's own answer (202) does not matter; a failure to send it
                    // leaves the server to time its request out.
                    if let Ok(mut sent) = host.fetch(self.post(session, &refusal), call).await {
                        let _ = read_json_body(&mut sent.body, call).await;
                    }
                }
            }
        }
    }
}

/// One SSE line: `data:` lines gather into the event; a blank line ends it and its JSON joins
/// `messages` (events whose data is not JSON, and other fields, are skipped).
fn event_line(line: &[u8], data: &mut String, messages: &mut Vec<Value>) -> Result<(), McpError> {
    if line.is_empty() {
        if !data.is_empty() {
            if let Ok(value) = serde_json::from_str::<Value>(data) {
                messages.push(value);
            }
            data.clear();
        }
        return Ok(());
    }
    if let Some(rest) = line.strip_prefix(b"data:") {
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        let text = std::str::from_utf8(rest)
            .map_err(|_| McpError::Protocol("an event is not UTF-8".into()))?;
        if data.len().saturating_add(text.len()) > MAX_MESSAGE_BYTES {
            return Err(McpError::Protocol("an event passed 4 MiB".into()));
        }
        if !data.is_empty() {
            data.push('\n');
        }
        data.push_str(text);
    }
    Ok(())
}

/// The result of the answer to `id` in `message` (one message, or a batch); an error answer
/// is [`McpError::Rpc`]. `None` when `message` holds no answer to `id`.
fn answer_in(message: &Value, id: u64) -> Result<Option<Value>, McpError> {
    if let Some(batch) = message.as_array() {
        for item in batch {
            if let Some(found) = answer_in(item, id)? {
                return Ok(Some(found));
            }
        }
        return Ok(None);
    }
    if message.get("method").is_some() || message.get("id").and_then(Value::as_u64) != Some(id) {
        return Ok(None);
    }
    if let Some(error) = message.get("error") {
        return Err(McpError::Rpc {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: shown(error.get("message").and_then(Value::as_str).unwrap_or("")),
        });
    }
    message
        .get("result")
        .cloned()
        .map(Some)
        .ok_or_else(|| McpError::Protocol(format!("the answer to request {id} has no result")))
}

/// The id of a request the server sends the client (a message with `method` and `id`).
fn server_request_id(message: &Value) -> Option<Value> {
    message.get("method")?;
    message.get("id").filter(|id| !id.is_null()).cloned()
}

fn tool_of(tool: &Value) -> Result<Tool, McpError> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| McpError::Protocol("a listed tool has no name".into()))?;
    Ok(Tool {
        name: name.to_owned(),
        title: tool
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        input_schema: tool
            .get("inputSchema")
            .filter(|s| s.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"})),
        read_only: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            == Some(true),
    })
}

async fn read_json_body<B: ResponseBody + ?Sized>(
    body: &mut B,
    call: &Cancel,
) -> Result<Vec<u8>, McpError> {
    let bytes = crate::caps::http::read_capped(body, call, MAX_MESSAGE_BYTES.saturating_add(1))
        .await
        .map_err(fetch_error)?;
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(McpError::Protocol("the answer passed 4 MiB".into()));
    }
    Ok(bytes)
}

fn fetch_error(error: FetchError) -> McpError {
    match error {
        FetchError::Cancelled => McpError::Cancelled,
        FetchError::Network(message) => McpError::Network(message),
    }
}

/// A server's text inside a message: one line, at most 200 characters.
fn shown(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    format!("{line:?}")
}
