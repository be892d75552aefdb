//! A scripted in-memory host for agent tests: fetch answers from a queue, an in-memory session
//! store with revisions, a scripted workspace and permission handler, recorded updates/events.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::task::Poll;

use fx_wasm::caps::acp::{PermissionAnswer, PermissionRequest, Update};
use fx_wasm::caps::cancel::Cancel;
use fx_wasm::caps::{
    Clock, ConfigStore, ExecOutcome, Failure, FetchError, HostEvent, Http, HttpRequest,
    HttpResponse, ListedSession, Method, OAuthStore, Random, RemoveOutcome, ResponseBody,
    SessionStore, Store, StoreError, StoredRecord, Ui, Workspace,
};

/// Answers some requests itself (an OAuth fake): `Some((status, body))`, or `None` to fall
/// through to the scripted replies.
pub type Router = Rc<dyn Fn(&HttpRequest) -> Option<(u16, Vec<u8>)>>;

/// One scripted HTTP answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Status, body chunks; the body ends after the chunks.
    Body {
        status: u16,
        chunks: Vec<Vec<u8>>,
        retry_after: Option<String>,
    },
    /// Status 200, the chunks, then the body never ends (until cancelled).
    Stall { chunks: Vec<Vec<u8>> },
    /// The fetch promise never resolves (until cancelled).
    Hang,
    /// Status 200; each chunk arrives `every_ms` (on the fake clock) after the previous read
    /// began; then the end.
    Paced { chunks: Vec<Vec<u8>>, every_ms: i64 },
    /// The connection fails.
    Network(String),
    /// Status 200 with this `Content-Type`, the chunks, then the end.
    Typed {
        content_type: String,
        chunks: Vec<Vec<u8>>,
    },
}

pub fn sse(events: &[&str]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        out.push_str("data: ");
        out.push_str(event);
        out.push_str("\n\n");
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// The text of each user message of a chat request body, in order.
pub fn user_texts(request: &serde_json::Value) -> Vec<String> {
    request["prompt"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"] == "user")
                .map(|m| m["content"][0]["text"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub fn text_reply(parts: &[&str]) -> Reply {
    let mut events: Vec<String> = parts
        .iter()
        .map(|p| serde_json::json!({"type": "text-delta", "id": "t", "delta": p}).to_string())
        .collect();
    events.push(r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":10},"outputTokens":{"total":3}}}"#.into());
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    Reply::Body {
        status: 200,
        chunks: vec![sse(&refs)],
        retry_after: None,
    }
}

pub fn tool_reply(text: &str, calls: &[(&str, &str)]) -> Reply {
    let mut events = Vec::new();
    if !text.is_empty() {
        events.push(serde_json::json!({"type": "text-delta", "delta": text}).to_string());
    }
    for (id, command) in calls {
        let input = serde_json::json!({"action": "exec", "command": command}).to_string();
        events.push(serde_json::json!({"type": "tool-call", "toolCallId": id, "toolName": "terminal", "input": input}).to_string());
    }
    events.push(r#"{"type":"finish","finishReason":{"unified":"tool-calls","raw":"tool_calls"},"usage":{"inputTokens":{"total":20},"outputTokens":{"total":5}}}"#.into());
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    Reply::Body {
        status: 200,
        chunks: vec![sse(&refs)],
        retry_after: None,
    }
}

#[derive(Default)]
pub struct State {
    pub replies: VecDeque<Reply>,
    pub catalog: Option<Vec<u8>>,
    pub requests: Vec<HttpRequest>,
    pub updates: Vec<(u32, Update)>,
    pub events: Vec<HostEvent>,
    pub sessions: HashMap<String, (Vec<u8>, String)>,
    pub revision_counter: u64,
    pub commits: Vec<(String, Option<String>)>,
    pub config: HashMap<String, String>,
    /// Every `config_set` call, in order.
    pub config_sets: Vec<(String, String)>,
    pub exec_results: VecDeque<ExecOutcome>,
    pub exec_calls: Vec<String>,
    pub exec_hangs: bool,
    pub permissions: VecDeque<PermissionAnswer>,
    pub permission_requests: Vec<PermissionRequest>,
    pub sleeps: Vec<u32>,
    pub now_ms: i64,
    /// Requests this answers never reach `replies` (and are not recorded in `requests`).
    pub router: Option<Router>,
    /// The host has an `oauthSessionStore`.
    pub oauth_store: bool,
    /// The stored OAuth record and its revision.
    pub oauth: Option<(Vec<u8>, String)>,
    /// `commit <expected>` / `remove <expected>` per store write.
    pub oauth_log: Vec<String>,
    /// Another writer gets in before our next commit: stores these bytes (`None`: removes the
    /// record), and our commit then meets a revision conflict.
    pub oauth_interfere: Option<Option<Vec<u8>>>,
    /// URLs given to `open_url`, and what it answers.
    pub opened: Vec<String>,
    pub open_refuses: bool,
    /// `sleep` waits for the clock (`now_ms`) to reach its end instead of returning at once;
    /// [`FakeHost::wake_sleepers`] after moving the clock.
    pub park_sleeps: bool,
    pub sleepers: Vec<std::task::Waker>,
    /// Every `deadline` asked for (ms). A deadline always waits for the clock (`now_ms`) to
    /// reach its end, whatever `park_sleeps` says: a test moves the clock to make one pass.
    pub deadlines: Vec<u32>,
    /// Store and config calls that never answer, by name: `load`, `list`, `remove`,
    /// `config_get`, `config_set`, `oauth_load` (js/host.js would end them at their deadline;
    /// here only dropping the call ends the wait).
    pub hang: HashSet<&'static str>,
    /// How many of the next commits never answer.
    pub hang_commits: usize,
    /// Commits that got no answer (they hung, or `fail_commit` ended them), as
    /// `(id, bytes, expected)`: [`FakeHost::land_late`] stores one as a late answer would.
    pub unanswered_commits: Vec<(String, Vec<u8>, Option<String>)>,
    /// The next commits fail with this error (as js/host.js reports a store that threw, did
    /// not answer by its deadline, or was abandoned when the agent stopped).
    pub fail_commit: Option<StoreError>,
    /// The session store takes `append_session` (`sessionStore.append`).
    pub appends: bool,
    /// Every session write that reached the store, in order: `("commit" | "append", bytes)`.
    pub writes: Vec<(&'static str, usize)>,
    /// How many times the session store was loaded.
    pub session_loads: usize,
    /// Response bodies yield to the executor before each chunk, as a network read does: a task
    /// beside the turn (a stream consumer) runs between two chunks.
    pub pace_chunks: bool,
}

#[derive(Clone, Default)]
pub struct FakeHost {
    pub state: Rc<RefCell<State>>,
    pub waiting: Rc<Cell<bool>>,
    random: Rc<Cell<u64>>,
}

impl FakeHost {
    pub fn new() -> Self {
        let host = FakeHost::default();
        host.state.borrow_mut().now_ms = 1_796_000_000_000;
        host
    }
    pub fn reply(&self, reply: Reply) -> &Self {
        self.state.borrow_mut().replies.push_back(reply);
        self
    }
    /// Queues the outcome of the next workspace command: it exits with `exit_code`.
    pub fn exec_exits(&self, exit_code: i32, stdout: &str, stderr: &str) -> &Self {
        self.state
            .borrow_mut()
            .exec_results
            .push_back(ExecOutcome::Exited {
                exit_code,
                stdout: stdout.into(),
                stderr: stderr.into(),
            });
        self
    }
    pub fn chat_requests(&self) -> Vec<serde_json::Value> {
        self.state
            .borrow()
            .requests
            .iter()
            .filter(|r| r.method == Method::Post)
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect()
    }
    pub fn texts(&self, turn: u32) -> String {
        self.state
            .borrow()
            .updates
            .iter()
            .filter(|(t, _)| *t == turn)
            .filter_map(|(_, u)| match u {
                Update::AgentMessageChunk { content } => Some(content.text.clone()),
                _ => None,
            })
            .collect()
    }
    pub fn stored(&self, id: &str) -> Vec<u8> {
        self.state
            .borrow()
            .sessions
            .get(id)
            .map(|(b, _)| b.clone())
            .unwrap()
    }
    /// Wakes parked sleeps (after the clock moved).
    pub fn wake_sleepers(&self) {
        let wakers = std::mem::take(&mut self.state.borrow_mut().sleepers);
        for waker in wakers {
            waker.wake();
        }
    }
    /// Stores an unanswered commit now, as a store that answers late would (compare-and-set).
    pub fn land_late(&self, index: usize) -> bool {
        let mut state = self.state.borrow_mut();
        let (id, bytes, expected) = state.unanswered_commits[index].clone();
        let current = state.sessions.get(&id).map(|(_, r)| r.clone());
        if current != expected {
            return false;
        }
        state.revision_counter += 1;
        let revision = format!("r{}", state.revision_counter);
        state.sessions.insert(id, (bytes, revision));
        true
    }
    /// Parks the caller for good when `name` hangs.
    async fn maybe_hang(&self, name: &'static str) {
        if self.state.borrow().hang.contains(name) {
            self.waiting.set(true);
            std::future::pending::<()>().await;
        }
    }
    /// Resolves once the host is parked in a hanging call.
    pub async fn until_waiting(&self) {
        std::future::poll_fn(|cx| {
            if self.waiting.get() {
                Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
    }
}

pub struct FakeBody {
    chunks: VecDeque<Vec<u8>>,
    stall: bool,
    waiting: Rc<Cell<bool>>,
    /// Each read waits this long on the host's clock first (`Reply::Paced`).
    pace: Option<(FakeHost, i64)>,
    /// Each read first yields to the executor once (`State::pace_chunks`).
    yields: bool,
}

/// Returns `Pending` once (waking itself): the executor runs its other tasks first.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}

impl ResponseBody for FakeBody {
    async fn next_chunk(&mut self, cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError> {
        if self.yields {
            yield_now().await;
        }
        if let Some((host, every_ms)) = &self.pace {
            let target = host.state.borrow().now_ms + every_ms;
            self.waiting.set(true);
            let arrived = cancel.run(host.until(target)).await;
            self.waiting.set(false);
            arrived.map_err(|_| FetchError::Cancelled)?;
        }
        if let Some(chunk) = self.chunks.pop_front() {
            return Ok(Some(chunk));
        }
        if self.stall {
            self.waiting.set(true);
            cancel.cancelled().await;
            self.waiting.set(false);
            return Err(FetchError::Cancelled);
        }
        Ok(None)
    }
}

impl Clock for FakeHost {
    fn now_ms(&self) -> i64 {
        let mut state = self.state.borrow_mut();
        state.now_ms += 1;
        state.now_ms
    }
    async fn sleep(&self, ms: u32) {
        self.park(ms).await;
    }
    async fn deadline(&self, ms: u32) {
        let target = {
            let mut state = self.state.borrow_mut();
            state.deadlines.push(ms);
            state.now_ms + i64::from(ms)
        };
        self.until(target).await;
    }
}

impl Random for FakeHost {
    fn fill_random(&self, buf: &mut [u8]) {
        for byte in buf {
            let next = self
                .random
                .get()
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.random.set(next);
            *byte = (next >> 33) as u8;
        }
    }
}

impl FakeHost {
    /// A sleep: returns at once, or (with `park_sleeps`) once the clock reaches its end.
    async fn park(&self, ms: u32) {
        let target = {
            let mut state = self.state.borrow_mut();
            state.sleeps.push(ms);
            if !state.park_sleeps {
                return;
            }
            state.now_ms + i64::from(ms)
        };
        self.until(target).await;
    }

    /// Waits until the clock reads `target` (woken by [`FakeHost::wake_sleepers`]).
    async fn until(&self, target: i64) {
        std::future::poll_fn(|cx| {
            let mut state = self.state.borrow_mut();
            if state.now_ms >= target {
                Poll::Ready(())
            } else {
                state.sleepers.push(cx.waker().clone());
                Poll::Pending
            }
        })
        .await;
    }
}

impl Http for FakeHost {
    type Body = FakeBody;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<FakeBody>, FetchError> {
        let routed = self.state.borrow().router.clone();
        if let Some((status, body)) = routed.and_then(|route| route(&request)) {
            return Ok(HttpResponse {
                status,
                retry_after: None,
                content_type: None,
                mcp_session_id: None,
                www_authenticate: None,
                body: self.body(vec![body], false),
            });
        }
        let is_catalog = request.method == Method::Get;
        self.state.borrow_mut().requests.push(request);
        if is_catalog {
            let body = self.state.borrow().catalog.clone();
            return match body {
                Some(body) => Ok(HttpResponse {
                    status: 200,
                    retry_after: None,
                    content_type: Some("application/json".into()),
                    mcp_session_id: None,
                    www_authenticate: None,
                    body: self.body(vec![body], false),
                }),
                None => Ok(HttpResponse {
                    status: 500,
                    retry_after: None,
                    content_type: None,
                    mcp_session_id: None,
                    www_authenticate: None,
                    body: self.body(vec![], false),
                }),
            };
        }
        let reply = self
            .state
            .borrow_mut()
            .replies
            .pop_front()
            .expect("no scripted reply left");
        match reply {
            Reply::Body {
                status,
                chunks,
                retry_after,
            } => Ok(HttpResponse {
                status,
                retry_after,
                content_type: None,
                mcp_session_id: None,
                www_authenticate: None,
                body: self.body(chunks, false),
            }),
            Reply::Paced { chunks, every_ms } => {
                let mut body = self.body(chunks, false);
                body.pace = Some((self.clone(), every_ms));
                Ok(HttpResponse {
                    status: 200,
                    retry_after: None,
                    content_type: None,
                    mcp_session_id: None,
                    www_authenticate: None,
                    body,
                })
            }
            Reply::Stall { chunks } => Ok(HttpResponse {
                status: 200,
                retry_after: None,
                content_type: None,
                mcp_session_id: None,
                www_authenticate: None,
                body: self.body(chunks, true),
            }),
            Reply::Typed {
                content_type,
                chunks,
            } => Ok(HttpResponse {
                status: 200,
                retry_after: None,
                content_type: Some(content_type),
                mcp_session_id: None,
                www_authenticate: None,
                body: self.body(chunks, false),
            }),
            Reply::Hang => {
                self.waiting.set(true);
                cancel.cancelled().await;
                self.waiting.set(false);
                Err(FetchError::Cancelled)
            }
            Reply::Network(message) => Err(FetchError::Network(message)),
        }
    }
}

impl SessionStore for FakeHost {
    async fn load_session(&self, id: &str) -> Result<Option<StoredRecord>, StoreError> {
        self.state.borrow_mut().session_loads += 1;
        self.maybe_hang("load").await;
        Ok(self
            .state
            .borrow()
            .sessions
            .get(id)
            .map(|(bytes, revision)| StoredRecord {
                bytes: bytes.clone(),
                revision: revision.clone(),
            }))
    }
    async fn commit_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let attempt = (id.to_owned(), bytes.to_vec(), expected.map(str::to_owned));
        let hangs = {
            let mut state = self.state.borrow_mut();
            let hangs = state.hang_commits > 0;
            state.hang_commits = state.hang_commits.saturating_sub(1);
            hangs
        };
        if hangs {
            self.state.borrow_mut().unanswered_commits.push(attempt);
            self.waiting.set(true);
            return std::future::pending().await;
        }
        let mut state = self.state.borrow_mut();
        state.writes.push(("commit", bytes.len()));
        state
            .commits
            .push((id.to_owned(), expected.map(str::to_owned)));
        if let Some(error) = state.fail_commit.clone() {
            if matches!(
                error,
                StoreError::Failed {
                    failure: Failure::TimedOut | Failure::Abandoned,
                    ..
                }
            ) {
                state.unanswered_commits.push(attempt);
            }
            return Err(error);
        }
        let current = state.sessions.get(id).map(|(_, r)| r.clone());
        if current.as_deref() != expected {
            return Err(StoreError::RevisionConflict {
                store: Store::Session,
            });
        }
        state.revision_counter += 1;
        let revision = format!("r{}", state.revision_counter);
        state
            .sessions
            .insert(id.to_owned(), (bytes.to_vec(), revision.clone()));
        Ok(revision)
    }
    fn appends_sessions(&self) -> bool {
        self.state.borrow().appends
    }
    async fn append_session(
        &self,
        id: &str,
        bytes: &[u8],
        expected: &str,
    ) -> Result<String, StoreError> {
        let mut state = self.state.borrow_mut();
        assert!(
            state.appends,
            "append_session called on a store without append"
        );
        state.writes.push(("append", bytes.len()));
        if let Some(error) = state.fail_commit.clone() {
            if matches!(
                error,
                StoreError::Failed {
                    failure: Failure::TimedOut | Failure::Abandoned,
                    ..
                }
            ) {
                // What the record would hold, for `land_late` (a compare-and-set on `expected`).
                if let Some((stored, _)) = state.sessions.get(id) {
                    let whole = [stored.as_slice(), bytes].concat();
                    let attempt = (id.to_owned(), whole, Some(expected.to_owned()));
                    state.unanswered_commits.push(attempt);
                }
            }
            return Err(error);
        }
        state.revision_counter += 1;
        let revision = format!("r{}", state.revision_counter);
        match state.sessions.get_mut(id) {
            Some((stored, current)) if current == expected => {
                stored.extend_from_slice(bytes);
                *current = revision.clone();
                Ok(revision)
            }
            _ => Err(StoreError::RevisionConflict {
                store: Store::Session,
            }),
        }
    }
    async fn list_sessions(&self) -> Result<Vec<ListedSession>, StoreError> {
        self.maybe_hang("list").await;
        Ok(self
            .state
            .borrow()
            .sessions
            .keys()
            .enumerate()
            .map(|(i, id)| ListedSession {
                id: id.clone(),
                updated_at_ms: i as i64,
            })
            .collect())
    }
    async fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        self.maybe_hang("remove").await;
        self.state.borrow_mut().sessions.remove(id);
        Ok(())
    }
}

impl Workspace for FakeHost {
    async fn exec(
        &self,
        command: &str,
        _cwd: &str,
        _timeout_ms: u32,
        cancel: &Cancel,
    ) -> ExecOutcome {
        self.state.borrow_mut().exec_calls.push(command.to_owned());
        if self.state.borrow().exec_hangs {
            self.waiting.set(true);
            cancel.cancelled().await;
            self.waiting.set(false);
            return ExecOutcome::Cancelled;
        }
        self.state
            .borrow_mut()
            .exec_results
            .pop_front()
            .unwrap_or(ExecOutcome::Exited {
                exit_code: 0,
                stdout: format!("ran {command}\n"),
                stderr: String::new(),
            })
    }
}

impl ConfigStore for FakeHost {
    async fn config_get(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.maybe_hang("config_get").await;
        Ok(self.state.borrow().config.get(id).cloned())
    }
    async fn config_set(&self, id: &str, value: &str) -> Result<bool, StoreError> {
        self.maybe_hang("config_set").await;
        let mut state = self.state.borrow_mut();
        state.config_sets.push((id.to_owned(), value.to_owned()));
        state.config.insert(id.to_owned(), value.to_owned());
        Ok(true)
    }
}

impl Ui for FakeHost {
    async fn request_permission(
        &self,
        request: &PermissionRequest,
        cancel: &Cancel,
    ) -> PermissionAnswer {
        self.state
            .borrow_mut()
            .permission_requests
            .push(request.clone());
        let answer = self.state.borrow_mut().permissions.pop_front();
        match answer {
            Some(answer) => answer,
            None => {
                self.waiting.set(true);
                cancel.cancelled().await;
                self.waiting.set(false);
                PermissionAnswer::Cancelled
            }
        }
    }
    async fn open_url(&self, url: &str) -> bool {
        let mut state = self.state.borrow_mut();
        state.opened.push(url.to_owned());
        !state.open_refuses
    }
    fn update(&self, turn: u32, update: Update) {
        self.state.borrow_mut().updates.push((turn, update));
    }
    fn event(&self, event: HostEvent) {
        self.state.borrow_mut().events.push(event);
    }
}

/// The OAuth store's answer to a stale revision.
const OAUTH_CONFLICT: StoreError = StoreError::RevisionConflict {
    store: Store::OAuth,
};

impl OAuthStore for FakeHost {
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        self.maybe_hang("oauth_load").await;
        let state = self.state.borrow();
        if !state.oauth_store {
            return Err(StoreError::failed(
                Store::OAuth,
                "load",
                Failure::Threw,
                "no store".into(),
            ));
        }
        Ok(state
            .oauth
            .clone()
            .map(|(bytes, revision)| StoredRecord { bytes, revision }))
    }
    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let mut state = self.state.borrow_mut();
        state.oauth_log.push(format!("commit {expected:?}"));
        if let Some(other) = state.oauth_interfere.take() {
            state.revision_counter += 1;
            let revision = format!("o{}", state.revision_counter);
            state.oauth = other.map(|b| (b, revision));
        }
        if state.oauth.as_ref().map(|(_, r)| r.as_str()) != expected {
            return Err(OAUTH_CONFLICT);
        }
        state.revision_counter += 1;
        let revision = format!("o{}", state.revision_counter);
        state.oauth = Some((bytes, revision.clone()));
        Ok(revision)
    }
    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        let mut state = self.state.borrow_mut();
        state.oauth_log.push(format!("remove {expected:?}"));
        match &state.oauth {
            None => Ok(RemoveOutcome::Missing),
            Some((_, r)) if Some(r.as_str()) != expected => Err(OAUTH_CONFLICT),
            Some(_) => {
                state.oauth = None;
                Ok(RemoveOutcome::Deleted)
            }
        }
    }
}

impl FakeHost {
    fn body(&self, chunks: Vec<Vec<u8>>, stall: bool) -> FakeBody {
        FakeBody {
            chunks: chunks.into(),
            stall,
            waiting: self.waiting.clone(),
            pace: None,
            yields: self.state.borrow().pace_chunks,
        }
    }
}
