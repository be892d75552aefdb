//! The MCP client (src/mcp/) against a fake Streamable HTTP server that keeps real state:
//! the versions it speaks, the sessions it gave, its tools in pages, answers as JSON or as SSE
//! split into small chunks, and requests of its own on the stream.
#![cfg(feature = "bot")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::executor::block_on;
use fx_wasm::caps::{Cancel, Clock, FetchError, Http, HttpRequest, HttpResponse, ResponseBody};
use fx_wasm::mcp::names::{advertised, initially_allowed, model_names};
use fx_wasm::mcp::render::render;
use fx_wasm::mcp::{McpClient, McpError, VERSIONS};
use serde_json::{json, Value};

const URL: &str = "https://mcp.example/mcp";

/// A request the fake saw: its JSON-RPC method (or "answer"), its headers, its body.
type Seen = (String, Vec<(String, String)>, Value);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Refusal {
    /// An unsupported version gets HTTP 400.
    Http400,
    /// The server answers with the newest version it speaks (the spec's way).
    Counter,
}

struct Server {
    versions: Vec<&'static str>,
    refusal: Refusal,
    sse: bool,
    /// A request of the server's own (sampling) before each streamed answer.
    asks_first: bool,
    sessions: Vec<String>,
    next_session: u32,
    pages: Vec<Vec<Value>>,
    /// Every request, in order.
    seen: Vec<Seen>,
    /// The client's answers to the server's requests.
    answers: Vec<Value>,
    hang: bool,
    /// Whether a deadline fires (at once) or never.
    deadlines_fire: bool,
}

#[derive(Clone)]
struct Fake(Rc<RefCell<Server>>);

impl Fake {
    fn new(versions: &[&'static str]) -> Self {
        Fake(Rc::new(RefCell::new(Server {
            versions: versions.to_vec(),
            refusal: Refusal::Http400,
            sse: false,
            asks_first: false,
            sessions: Vec::new(),
            next_session: 0,
            pages: vec![vec![
                json!({"name": "search", "description": "Finds issues", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}),
                json!({"name": "close_issue", "description": "Closes one", "annotations": {"readOnlyHint": false}}),
            ]],
            seen: Vec::new(),
            answers: Vec::new(),
            hang: false,
            deadlines_fire: false,
        })))
    }

    fn with(self, change: impl FnOnce(&mut Server)) -> Self {
        change(&mut self.0.borrow_mut());
        self
    }

    fn methods(&self) -> Vec<String> {
        self.0
            .borrow()
            .seen
            .iter()
            .map(|(m, _, _)| m.clone())
            .collect()
    }

    fn header(&self, index: usize, name: &str) -> Option<String> {
        let server = self.0.borrow();
        let (_, headers, _) = server.seen.get(index)?;
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// The server forgets every session (a restart).
    fn forget_sessions(&self) {
        self.0.borrow_mut().sessions.clear();
    }
}

struct Body(VecDeque<Vec<u8>>);

impl ResponseBody for Body {
    async fn next_chunk(&mut self, cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError> {
        if cancel.is_cancelled() {
            return Err(FetchError::Cancelled);
        }
        Ok(self.0.pop_front())
    }
}

fn reply(
    status: u16,
    content_type: &str,
    body: Vec<u8>,
    session: Option<String>,
) -> HttpResponse<Body> {
    // Seven bytes a chunk: every event and JSON body arrives split.
    let chunks = body.chunks(7).map(<[u8]>::to_vec).collect();
    HttpResponse {
        status,
        retry_after: None,
        content_type: Some(content_type.to_owned()),
        mcp_session_id: session,
        www_authenticate: None,
        body: Body(chunks),
    }
}

impl Server {
    fn answer(&mut self, request: &HttpRequest) -> HttpResponse<Body> {
        let message: Value = serde_json::from_slice(&request.body).unwrap();
        let method = message["method"].as_str().unwrap_or("answer").to_owned();
        self.seen
            .push((method.clone(), request.headers.clone(), message.clone()));
        let header = |name: &str| {
            request
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        if method == "answer" {
            self.answers.push(message);
            return reply(202, "application/json", Vec::new(), None);
        }
        if method == "initialize" {
            let asked = message["params"]["protocolVersion"]
                .as_str()
                .unwrap_or_default();
            let version = if self.versions.contains(&asked) {
                asked
            } else if self.refusal == Refusal::Http400 {
                return reply(
                    400,
                    "application/json",
                    br#"{"error":"unsupported version"}"#.to_vec(),
                    None,
                );
            } else {
                self.versions[0]
            };
            self.next_session += 1;
            let session = format!("session-{}", self.next_session);
            self.sessions.push(session.clone());
            let body = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}});
            return reply(
                200,
                "application/json",
                body.to_string().into_bytes(),
                Some(session),
            );
        }
        match header("mcp-session-id") {
            Some(session) if self.sessions.contains(&session) => {}
            Some(_) => return reply(404, "text/plain", b"no such session".to_vec(), None),
            None => {
                return reply(
                    400,
                    "text/plain",
                    b"a session id is required".to_vec(),
                    None,
                )
            }
        }
        if method == "notifications/initialized" {
            return reply(202, "application/json", Vec::new(), None);
        }
        let result = match method.as_str() {
            "tools/list" => {
                let page: usize = message["params"]["cursor"]
                    .as_str()
                    .map_or(0, |c| c.trim_start_matches('p').parse().unwrap());
                let mut result = json!({"tools": self.pages[page]});
                if page + 1 < self.pages.len() {
                    result["nextCursor"] = json!(format!("p{}", page + 1));
                }
                result
            }
            "tools/call" => {
                let name = message["params"]["name"].as_str().unwrap_or_default();
                if name == "search" {
                    json!({"content": [{"type": "text", "text": format!("found: {}", message["params"]["arguments"]["q"])}]})
                } else {
                    json!({"content": [{"type": "text", "text": "not allowed here"}], "isError": true})
                }
            }
            _ => {
                let body = json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}});
                return reply(200, "application/json", body.to_string().into_bytes(), None);
            }
        };
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        if !self.sse {
            return reply(
                200,
                "application/json",
                answer.to_string().into_bytes(),
                None,
            );
        }
        let mut stream = String::from(": a comment\n\n");
        stream.push_str("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n");
        if self.asks_first {
            stream.push_str("data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}\n\n");
        }
        stream.push_str(&format!("id: 1\ndata: {answer}\n\n"));
        reply(200, "text/event-stream", stream.into_bytes(), None)
    }
}

impl Http for Fake {
    type Body = Body;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<Body>, FetchError> {
        if self.0.borrow().hang {
            cancel.cancelled().await;
            return Err(FetchError::Cancelled);
        }
        Ok(self.0.borrow_mut().answer(&request))
    }
}

impl Clock for Fake {
    fn now_ms(&self) -> i64 {
        0
    }

    async fn sleep(&self, _ms: u32) {
        if !self.0.borrow().deadlines_fire {
            std::future::pending::<()>().await;
        }
    }
}

#[test]
fn connects_at_the_newest_version_and_lists_tools_with_the_read_only_ones_allowed() {
    let fake = Fake::new(&VERSIONS);
    let client = McpClient::new(URL, vec![("X-Api-Key".into(), "key-1".into())]);
    let cancel = Cancel::new();
    assert_eq!(block_on(client.connect(&fake, &cancel)), Ok("2025-11-25"));
    assert_eq!(client.session_id().as_deref(), Some("session-1"));
    let tools = block_on(client.list_tools(&fake, &cancel)).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search", "close_issue"]);
    assert_eq!(tools[1].input_schema, json!({"type": "object"}));
    let allowed = initially_allowed(&tools);
    assert_eq!(allowed, ["search"]);
    let offered: Vec<&str> = advertised(&tools, &allowed)
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(offered, ["search"], "a tool not allowed is not offered");
    assert_eq!(
        model_names("tracker", &names),
        ["mcp_tracker_search", "mcp_tracker_close_issue"]
    );

    assert_eq!(
        fake.methods(),
        ["initialize", "notifications/initialized", "tools/list"]
    );
    // initialize names the version; later requests carry the version and the session.
    assert_eq!(
        fake.header(0, "mcp-protocol-version").as_deref(),
        Some("2025-11-25")
    );
    assert_eq!(fake.header(0, "mcp-session-id"), None);
    assert_eq!(
        fake.header(2, "mcp-session-id").as_deref(),
        Some("session-1")
    );
    assert_eq!(
        fake.header(2, "accept").as_deref(),
        Some("application/json, text/event-stream")
    );
    assert_eq!(
        fake.header(2, "x-api-key").as_deref(),
        Some("key-1"),
        "the owner's header is sent"
    );
}

#[test]
fn falls_back_to_an_older_version_the_server_speaks() {
    for refusal in [Refusal::Http400, Refusal::Counter] {
        let fake = Fake::new(&["2025-03-26"]).with(|s| s.refusal = refusal);
        let client = McpClient::new(URL, Vec::new());
        let cancel = Cancel::new();
        assert_eq!(
            block_on(client.connect(&fake, &cancel)),
            Ok("2025-03-26"),
            "{refusal:?}"
        );
        assert_eq!(client.version(), Some("2025-03-26"));
        let tools = block_on(client.list_tools(&fake, &cancel)).unwrap();
        assert_eq!(tools.len(), 2);
        let last = fake.0.borrow().seen.len() - 1;
        assert_eq!(
            fake.header(last, "mcp-protocol-version").as_deref(),
            Some("2025-03-26")
        );
    }
    // A server that speaks none of them.
    let fake = Fake::new(&["2024-11-05"]);
    let client = McpClient::new(URL, Vec::new());
    let error = block_on(client.connect(&fake, &Cancel::new())).unwrap_err();
    assert!(
        matches!(error, McpError::NoCommonVersion { .. }),
        "{error:?}"
    );
    assert_eq!(fake.methods(), ["initialize", "initialize", "initialize"]);
    let fake = Fake::new(&["2024-11-05"]).with(|s| s.refusal = Refusal::Counter);
    let error =
        block_on(McpClient::new(URL, Vec::new()).connect(&fake, &Cancel::new())).unwrap_err();
    assert_eq!(
        error,
        McpError::NoCommonVersion {
            offered: "\"2024-11-05\"".into()
        }
    );
}

#[test]
fn an_expired_session_is_initialised_again_once() {
    let fake = Fake::new(&VERSIONS);
    let client = McpClient::new(URL, Vec::new());
    let cancel = Cancel::new();
    block_on(client.connect(&fake, &cancel)).unwrap();
    fake.forget_sessions();
    let result =
        block_on(client.call_tool(&fake, "search", json!({"q": "crash"}), &cancel)).unwrap();
    assert_eq!(render(&result).text, "found: \"crash\"");
    assert_eq!(client.session_id().as_deref(), Some("session-2"));
    assert_eq!(
        fake.methods(),
        [
            "initialize",
            "notifications/initialized",
            "tools/call",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]
    );
}

#[test]
fn the_first_request_connects_by_itself_and_errors_are_typed() {
    let fake = Fake::new(&VERSIONS);
    let client = McpClient::new(URL, Vec::new());
    let cancel = Cancel::new();
    let failed = block_on(client.call_tool(&fake, "close_issue", json!({}), &cancel)).unwrap();
    assert!(render(&failed).is_error);
    assert_eq!(
        fake.methods().first().map(String::as_str),
        Some("initialize")
    );
    // A listing whose tool has no name (the client, connected to another server, meets a 404,
    // initialises again on this one, then reads the page).
    let fake =
        Fake::new(&VERSIONS).with(|s| s.pages = vec![vec![json!({"description": "no name"})]]);
    let error = block_on(client.list_tools(&fake, &cancel)).unwrap_err();
    assert_eq!(
        error,
        McpError::Protocol("a listed tool has no name".into())
    );
}

#[test]
fn pages_are_followed_to_the_end() {
    let page = |n: usize| {
        (0..3)
            .map(|i| json!({"name": format!("tool_{n}_{i}")}))
            .collect::<Vec<_>>()
    };
    let fake = Fake::new(&VERSIONS).with(|s| s.pages = vec![page(0), page(1), page(2)]);
    let client = McpClient::new(URL, Vec::new());
    let tools = block_on(client.list_tools(&fake, &Cancel::new())).unwrap();
    assert_eq!(tools.len(), 9);
    assert_eq!(tools[8].name, "tool_2_2");
    assert!(tools.iter().all(|t| !t.read_only));
    let cursors: Vec<Value> = fake
        .0
        .borrow()
        .seen
        .iter()
        .filter(|(m, _, _)| m == "tools/list")
        .map(|(_, _, b)| b["params"]["cursor"].clone())
        .collect();
    assert_eq!(cursors, [Value::Null, json!("p1"), json!("p2")]);
}

#[test]
fn streamed_answers_split_anywhere_and_server_requests_get_minus_32601() {
    let fake = Fake::new(&VERSIONS).with(|s| {
        s.sse = true;
        s.asks_first = true;
    });
    let client = McpClient::new(URL, Vec::new());
    let cancel = Cancel::new();
    let result = block_on(client.call_tool(&fake, "search", json!({"q": "sse"}), &cancel)).unwrap();
    assert_eq!(render(&result).text, "found: \"sse\"");
    let answers = fake.0.borrow().answers.clone();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], json!("s1"));
    assert_eq!(answers[0]["error"]["code"], json!(-32601));
    let tools = block_on(client.list_tools(&fake, &cancel)).unwrap();
    assert_eq!(tools.len(), 2);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let fake = Fake::new(&VERSIONS).with(|s| {
        s.hang = true;
        s.deadlines_fire = true;
    });
    let client = McpClient::new(URL, Vec::new()).with_timeout_ms(5_000);
    let error = block_on(client.connect(&fake, &Cancel::new())).unwrap_err();
    assert_eq!(error, McpError::TimedOut(5_000));
    let cancelled = Cancel::new();
    cancelled.cancel();
    let fake = Fake::new(&VERSIONS).with(|s| s.hang = true);
    let client = McpClient::new(URL, Vec::new());
    let error = block_on(client.connect(&fake, &cancelled)).unwrap_err();
    assert_eq!(error, McpError::Cancelled);
}
