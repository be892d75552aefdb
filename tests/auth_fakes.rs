//! Fakes for the auth tests: a scripted HTTP host that records requests, a revisioned in-memory
//! store, a settable clock whose sleeps advance it and whose deadlines it records, and a tiny
//! executor.
//!
//! Included by the other `auth_*` test files with `#[path = "auth_fakes.rs"] mod fakes;`; on its
//! own it only checks the fakes themselves.
// Test code for clippy.toml's allow-*-in-tests, helpers included (rust-clippy#13981).
#![cfg(test)]
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use fx_wasm::caps::{
    Cancel, Clock, FetchError, Http, HttpRequest, HttpResponse, Method, OAuthStore, RemoveOutcome,
    ResponseBody, Store, StoreError, StoredRecord,
};

pub const ISSUER: &str = "https://vercel.com";
pub const DISCOVERY: &str = "https://vercel.com/.well-known/openid-configuration";
pub const DEVICE_URL: &str = "https://api.vercel.com/login/oauth/device-authorization";
pub const TOKEN_URL: &str = "https://api.vercel.com/login/oauth/token";
pub const REVOKE_URL: &str = "https://api.vercel.com/login/oauth/revoke";
pub const TEAMS_URL: &str = "https://api.vercel.com/v2/teams";

pub const ACCESS: &str = "vca_ACCESS_TOKEN_SECRET_1";
pub const REFRESH: &str = "vcr_REFRESH_TOKEN_SECRET_1";
pub const ACCESS2: &str = "vca_ACCESS_TOKEN_SECRET_2";
pub const REFRESH2: &str = "vcr_REFRESH_TOKEN_SECRET_2";
pub const DEVICE_CODE: &str = "DEVICE_CODE_SECRET_XYZ";
pub const ALL_SECRETS: [&str; 5] = [ACCESS, REFRESH, ACCESS2, REFRESH2, DEVICE_CODE];

/// Runs a future whose fakes never wait for anything external.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..10_000 {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
    panic!("future did not finish");
}

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    Json(u16, String),
    Bytes(u16, Vec<u8>),
    /// `fetch` rejects.
    Fail(String),
    /// No answer until the request is cancelled (its deadline, with [`FakeClock::expire`]).
    Hang,
}

pub fn ok(json: &str) -> Reply {
    Reply::Json(200, json.to_owned())
}

pub fn status(code: u16, json: &str) -> Reply {
    Reply::Json(code, json.to_owned())
}

pub fn oauth_error(code: &str) -> Reply {
    Reply::Json(400, format!(r#"{{"error":"{code}"}}"#))
}

/// A request as the fake saw it, with the form body decoded.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub form: Vec<(String, String)>,
}

impl Seen {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Route {
    method: Method,
    url: String,
    /// Only requests whose form has this field value match.
    when: Option<(String, String)>,
    replies: VecDeque<Reply>,
    /// Answer this once the queue is empty.
    repeat: Option<Reply>,
}

/// Scripted HTTP: routes keyed by method + URL (+ one form field), answers in order.
#[derive(Default)]
pub struct FakeTransport {
    routes: RefCell<Vec<Route>>,
    pub seen: RefCell<Vec<Seen>>,
    /// When set, each `send` yields once before answering (to test cancel mid-flight).
    pub yield_once: Cell<bool>,
}

impl FakeTransport {
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `replies` in order, then fails.
    pub fn on(&self, method: Method, url: &str, replies: Vec<Reply>) -> &Self {
        self.route(method, url, None, replies, None)
    }

    /// Answers `reply` to every matching request.
    pub fn always(&self, method: Method, url: &str, reply: Reply) -> &Self {
        self.route(method, url, None, Vec::new(), Some(reply))
    }

    /// Like [`FakeTransport::on`], only for requests whose form has `field=value`.
    pub fn on_form(&self, url: &str, field: &str, value: &str, replies: Vec<Reply>) -> &Self {
        let when = Some((field.to_owned(), value.to_owned()));
        self.route(Method::Post, url, when, replies, None)
    }

    fn route(
        &self,
        method: Method,
        url: &str,
        when: Option<(String, String)>,
        replies: Vec<Reply>,
        repeat: Option<Reply>,
    ) -> &Self {
        self.routes.borrow_mut().push(Route {
            method,
            url: url.to_owned(),
            when,
            replies: replies.into(),
            repeat,
        });
        self
    }

    /// The standard production discovery document, served for every discovery request.
    pub fn with_discovery(&self) -> &Self {
        self.always(
            Method::Get,
            DISCOVERY,
            ok(&format!(
                r#"{{"issuer":"{ISSUER}","device_authorization_endpoint":"{DEVICE_URL}","token_endpoint":"{TOKEN_URL}","revocation_endpoint":"{REVOKE_URL}"}}"#
            )),
        )
    }

    pub fn count(&self, url: &str) -> usize {
        self.seen.borrow().iter().filter(|s| s.url == url).count()
    }

    pub fn requests_to(&self, url: &str) -> Vec<Seen> {
        self.seen
            .borrow()
            .iter()
            .filter(|s| s.url == url)
            .cloned()
            .collect()
    }

    fn answer(&self, seen: &Seen) -> Reply {
        let mut routes = self.routes.borrow_mut();
        for route in routes.iter_mut() {
            let form_matches = route
                .when
                .as_ref()
                .is_none_or(|(k, v)| seen.field(k) == Some(v.as_str()));
            if route.method == seen.method && route.url == seen.url && form_matches {
                if let Some(reply) = route.replies.pop_front() {
                    return reply;
                }
                if let Some(reply) = &route.repeat {
                    return reply.clone();
                }
            }
        }
        Reply::Fail(format!("no scripted reply for {}", seen.url))
    }
}

struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

/// A body that arrives in one chunk.
pub struct OneChunk(Option<Vec<u8>>);

impl ResponseBody for OneChunk {
    async fn next_chunk(&mut self, _cancel: &Cancel) -> Result<Option<Vec<u8>>, FetchError> {
        Ok(self.0.take())
    }
}

impl Http for FakeTransport {
    type Body = OneChunk;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancel,
    ) -> Result<HttpResponse<OneChunk>, FetchError> {
        let seen = Seen {
            method: request.method,
            url: request.url.clone(),
            headers: request.headers.clone(),
            form: decode_form(&String::from_utf8(request.body.clone()).unwrap()),
        };
        let reply = self.answer(&seen);
        self.seen.borrow_mut().push(seen);
        if self.yield_once.get() {
            YieldOnce(false).await;
        }
        let (status, body) = match reply {
            Reply::Json(status, body) => (status, body.into_bytes()),
            Reply::Bytes(status, body) => (status, body),
            Reply::Fail(message) => return Err(FetchError::Network(message)),
            Reply::Hang => {
                cancel.cancelled().await;
                return Err(FetchError::Cancelled);
            }
        };
        Ok(HttpResponse {
            status,
            retry_after: None,
            content_type: None,
            mcp_session_id: None,
            www_authenticate: None,
            body: OneChunk(Some(body)),
        })
    }
}

/// Decodes `a=b&c=d` with `%XX` escapes (and insists nothing else was escaped oddly).
pub fn decode_form(body: &str) -> Vec<(String, String)> {
    if body.is_empty() {
        return Vec::new();
    }
    body.split('&')
        .map(|pair| {
            let (k, v) = pair.split_once('=').expect("form pair without =");
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            assert!(
                bytes[i].is_ascii_alphanumeric() || b"-_.~".contains(&bytes[i]),
                "unescaped byte {:?} in form",
                char::from(bytes[i])
            );
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Settable wall clock: sleeps move it forward; deadlines are recorded and never fire unless
/// [`FakeClock::expire`] is set (then at once).
#[derive(Default)]
pub struct FakeClock {
    pub ms: Cell<u64>,
    /// Every deadline asked for, in ms.
    pub deadlines: RefCell<Vec<u32>>,
    pub expire: Cell<bool>,
}

impl FakeClock {
    pub fn at(ms: u64) -> Self {
        Self {
            ms: Cell::new(ms),
            ..Self::default()
        }
    }
    pub fn now(&self) -> u64 {
        self.ms.get()
    }
    pub fn advance(&self, ms: u64) {
        self.ms.set(self.ms.get() + ms);
    }
    pub fn set(&self, ms: u64) {
        self.ms.set(ms);
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> i64 {
        self.ms.get() as i64
    }
    async fn sleep(&self, ms: u32) {
        self.advance(u64::from(ms));
    }
    // Recorded when asked for, whether or not the exchange waits on it.
    fn deadline(&self, ms: u32) -> impl Future<Output = ()> {
        self.deadlines.borrow_mut().push(ms);
        let expire = self.expire.get();
        async move {
            if !expire {
                std::future::pending::<()>().await;
            }
        }
    }
}

/// A cancel nobody sets.
pub fn never() -> Cancel {
    Cancel::new()
}

/// What the store holds: bytes and revision.
pub type Slot = Option<(Vec<u8>, String)>;

/// Something another writer does to the store.
pub type Hook = Box<dyn FnOnce(&FakeStore)>;

/// A revisioned in-memory OAuth store with hooks to simulate another tab.
#[derive(Default)]
pub struct FakeStore {
    pub slot: RefCell<Slot>,
    next_revision: Cell<u32>,
    /// Every call: ("load" | "commit" | "remove", expected revision).
    pub calls: RefCell<Vec<(&'static str, Option<String>)>>,
    /// Runs just before the next commit or remove compares revisions (another writer getting in
    /// first).
    pub before_write: RefCell<Option<Hook>>,
    /// Fail the next call of this kind with this error.
    pub fail_next: RefCell<Option<(&'static str, StoreError)>>,
}

impl FakeStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `bytes` directly and returns the new revision (as another writer would).
    pub fn put(&self, bytes: &[u8]) -> String {
        let n = self.next_revision.get() + 1;
        self.next_revision.set(n);
        let revision = format!("rev-{n}");
        *self.slot.borrow_mut() = Some((bytes.to_vec(), revision.clone()));
        revision
    }

    pub fn bytes(&self) -> Option<Vec<u8>> {
        self.slot.borrow().as_ref().map(|(b, _)| b.clone())
    }

    pub fn revision(&self) -> Option<String> {
        self.slot.borrow().as_ref().map(|(_, r)| r.clone())
    }

    fn take_failure(&self, op: &'static str) -> Option<StoreError> {
        let mut fail = self.fail_next.borrow_mut();
        if fail.as_ref().is_some_and(|(o, _)| *o == op) {
            fail.take().map(|(_, e)| e)
        } else {
            None
        }
    }

    fn current(&self) -> Option<String> {
        self.revision()
    }
}

/// The conflict the store answers.
pub const CONFLICT: StoreError = StoreError::RevisionConflict {
    store: Store::OAuth,
};

/// A failure of the store's `method` with `message` (as when the store threw).
pub fn store_failed(method: &'static str, message: &str) -> StoreError {
    StoreError::failed(
        Store::OAuth,
        method,
        fx_wasm::caps::Failure::Threw,
        message.to_owned(),
    )
}

impl OAuthStore for FakeStore {
    async fn oauth_load(&self) -> Result<Option<StoredRecord>, StoreError> {
        self.calls.borrow_mut().push(("load", None));
        if let Some(error) = self.take_failure("load") {
            return Err(error);
        }
        Ok(self
            .slot
            .borrow()
            .clone()
            .map(|(bytes, revision)| StoredRecord { bytes, revision }))
    }

    async fn oauth_commit(
        &self,
        bytes: Vec<u8>,
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        self.calls
            .borrow_mut()
            .push(("commit", expected.map(str::to_owned)));
        if let Some(error) = self.take_failure("commit") {
            return Err(error);
        }
        if let Some(hook) = self.before_write.borrow_mut().take() {
            hook(self);
        }
        if self.current().as_deref() != expected {
            return Err(CONFLICT);
        }
        Ok(self.put(&bytes))
    }

    async fn oauth_remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError> {
        self.calls
            .borrow_mut()
            .push(("remove", expected.map(str::to_owned)));
        if let Some(error) = self.take_failure("remove") {
            return Err(error);
        }
        if let Some(hook) = self.before_write.borrow_mut().take() {
            hook(self);
        }
        if self.current().as_deref() != expected {
            return Err(CONFLICT);
        }
        Ok(match self.slot.borrow_mut().take() {
            Some(_) => RemoveOutcome::Deleted,
            None => RemoveOutcome::Missing,
        })
    }
}

/// A stored record as JSON text, for seeding the store.
pub fn record_json(access: &str, refresh: &str, expires_at_ms: u64) -> String {
    format!(
        r#"{{"version":1,"issuer":"{ISSUER}","client_id":"cl_zzh5hiOZbwJ9bfqEcYqPIJv3TaPaEYL0","access_token":"{access}","refresh_token":"{refresh}","expires_at_ms":{expires_at_ms},"scope":"openid offline_access","token_type":"Bearer","team_slug":"acme","team_id":"team_123"}}
"#
    )
}

/// Panics if any secret appears in `text`.
pub fn assert_no_secret(text: &str) {
    for secret in ALL_SECRETS {
        assert!(
            !text.contains(secret),
            "secret {secret} leaked into: {text}"
        );
    }
}

#[test]
fn store_fake_enforces_revisions() {
    let store = FakeStore::new();
    let r1 = block_on(store.oauth_commit(b"a".to_vec(), None)).unwrap();
    assert_eq!(
        block_on(store.oauth_commit(b"b".to_vec(), None)),
        Err(CONFLICT)
    );
    let r2 = block_on(store.oauth_commit(b"b".to_vec(), Some(&r1))).unwrap();
    assert_ne!(r1, r2);
    assert_eq!(block_on(store.oauth_remove(Some(&r1))), Err(CONFLICT));
    assert_eq!(
        block_on(store.oauth_remove(Some(&r2))),
        Ok(RemoveOutcome::Deleted)
    );
    assert_eq!(
        block_on(store.oauth_remove(None)),
        Ok(RemoveOutcome::Missing)
    );
}

#[test]
fn form_decoder_round_trips() {
    let body = fx_wasm::auth::exchange::form_encode(&[("a b", "x/y+z~"), ("é", "")]);
    assert_eq!(body, "a%20b=x%2Fy%2Bz~&%C3%A9=");
    assert_eq!(
        decode_form(&body),
        vec![
            ("a b".to_owned(), "x/y+z~".to_owned()),
            ("é".to_owned(), String::new())
        ]
    );
}
