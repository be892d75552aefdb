//! [`HostEvent`]: the diagnostics a host's `onEvent` receives, in the shape it receives them:
//! `type` names the event, the other fields are its detail (camelCase).

use serde::{Serialize, Serializer};

use super::acp::Usage;

/// Diagnostics for the host's `onEvent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum HostEvent {
    /// A commit met a newer stored log; our events were saved as a new session.
    #[serde(rename = "session.forked")]
    SessionForked {
        from: String,
        to: String,
        reason: &'static str,
    },
    /// The model request will be retried after `delay_ms`.
    #[serde(rename = "request.retry", rename_all = "camelCase")]
    RequestRetry {
        attempt: u32,
        limit: u32,
        delay_ms: u32,
        reason: String,
    },
    /// The model catalog could not be loaded; the current model keeps working.
    #[serde(rename = "catalog.error")]
    CatalogError {
        #[serde(rename = "error")]
        message: String,
    },
    /// A model step of turn `turn` finished and the gateway reported its token usage.
    #[serde(rename = "turn.usage", rename_all = "camelCase")]
    Usage {
        turn: u32,
        input_tokens: u64,
        output_tokens: u64,
    },
    /// A stored config value was applied (`source` is `restore`) or changed (`sdk`, `terminal`).
    #[serde(rename = "config.changed")]
    ConfigChanged {
        #[serde(rename = "configId")]
        id: String,
        #[serde(rename = "previousValue")]
        previous: Option<String>,
        value: String,
        source: &'static str,
    },
    /// A well-formed model the loaded catalog does not list was accepted (the gateway serves
    /// more models than the catalog lists); `nearest` are the catalog ids closest to it.
    #[serde(rename = "config.model_unlisted")]
    ModelUnlisted {
        model: String,
        nearest: Vec<String>,
        source: &'static str,
    },
    /// A stored config value could not be read or was refused.
    #[serde(rename = "config.restore_error")]
    ConfigRestoreError {
        #[serde(rename = "configId")]
        id: String,
        #[serde(rename = "error")]
        message: String,
    },
    /// An accepted config value could not be saved.
    #[serde(rename = "config.persist_error")]
    ConfigPersistError {
        #[serde(rename = "configId")]
        id: String,
        #[serde(rename = "error")]
        message: String,
    },
    /// The agent stopped (or closed a session) while part of a session was not in the store:
    /// `turns` turns it holds are missing there; `bytes` is the whole log as it stands (a
    /// `Uint8Array` in JS).
    #[serde(rename = "session.unsaved", rename_all = "camelCase")]
    SessionUnsaved {
        session_id: String,
        turns: usize,
        code: &'static str,
        #[serde(rename = "error")]
        message: String,
        #[serde(serialize_with = "as_bytes")]
        bytes: Vec<u8>,
    },
    /// The gateway credential changed: `source` is `none`, `AI_GATEWAY_API_KEY` or `fx login`.
    #[serde(rename = "auth.changed")]
    AuthChanged {
        source: &'static str,
        team: Option<String>,
    },
    /// The login's access token was renewed before a request (`refreshed`), or another writer's
    /// newer one was taken (`adopted`).
    #[serde(rename = "auth.refresh")]
    AuthRefreshed { outcome: &'static str },
    /// Renewing the login failed; with `signed_out` the login was dropped.
    #[serde(rename = "auth.refresh_error", rename_all = "camelCase")]
    AuthRefreshFailed {
        code: &'static str,
        #[serde(rename = "error")]
        message: String,
        signed_out: bool,
    },
    /// The bots' fill-in stored vectors: `done` of `total` items of this pass have one under
    /// `model` (a pass starts at 0).
    #[cfg(feature = "bot")]
    #[serde(rename = "embedding_progress")]
    EmbeddingProgress {
        model: String,
        done: usize,
        total: usize,
    },
}

impl HostEvent {
    /// A model step of turn `turn` reported `usage`.
    #[must_use]
    pub fn usage(turn: u32, usage: Usage) -> Self {
        HostEvent::Usage {
            turn,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        }
    }
}

/// Bytes as bytes (a `Uint8Array` through serde-wasm-bindgen), not as a list of numbers.
fn as_bytes<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The shapes `onEvent` documents (js/index.d.ts), field for field.
    #[test]
    fn events_serialize_as_documented() {
        let cases = [
            (
                HostEvent::SessionForked {
                    from: "a".into(),
                    to: "b".into(),
                    reason: "revision_conflict",
                },
                r#"{"type":"session.forked","from":"a","to":"b","reason":"revision_conflict"}"#,
            ),
            (
                HostEvent::RequestRetry {
                    attempt: 2,
                    limit: 5,
                    delay_ms: 250,
                    reason: "r".into(),
                },
                r#"{"type":"request.retry","attempt":2,"limit":5,"delayMs":250,"reason":"r"}"#,
            ),
            (
                HostEvent::CatalogError {
                    message: "m".into(),
                },
                r#"{"type":"catalog.error","error":"m"}"#,
            ),
            (
                HostEvent::usage(
                    3,
                    Usage {
                        input_tokens: 10,
                        output_tokens: 2,
                    },
                ),
                r#"{"type":"turn.usage","turn":3,"inputTokens":10,"outputTokens":2}"#,
            ),
            (
                HostEvent::ConfigChanged {
                    id: "mode".into(),
                    previous: None,
                    value: "code".into(),
                    source: "sdk",
                },
                r#"{"type":"config.changed","configId":"mode","previousValue":null,"value":"code","source":"sdk"}"#,
            ),
            (
                HostEvent::ModelUnlisted {
                    model: "a/b".into(),
                    nearest: vec!["a/c".into()],
                    source: "sdk",
                },
                r#"{"type":"config.model_unlisted","model":"a/b","nearest":["a/c"],"source":"sdk"}"#,
            ),
            (
                HostEvent::ConfigRestoreError {
                    id: "model".into(),
                    message: "m".into(),
                },
                r#"{"type":"config.restore_error","configId":"model","error":"m"}"#,
            ),
            (
                HostEvent::ConfigPersistError {
                    id: "model".into(),
                    message: "m".into(),
                },
                r#"{"type":"config.persist_error","configId":"model","error":"m"}"#,
            ),
            (
                HostEvent::SessionUnsaved {
                    session_id: "s".into(),
                    turns: 1,
                    code: "FX_AGENT_CLOSED",
                    message: "m".into(),
                    bytes: vec![1, 2],
                },
                r#"{"type":"session.unsaved","sessionId":"s","turns":1,"code":"FX_AGENT_CLOSED","error":"m","bytes":[1,2]}"#,
            ),
            (
                HostEvent::AuthChanged {
                    source: "none",
                    team: None,
                },
                r#"{"type":"auth.changed","source":"none","team":null}"#,
            ),
            (
                HostEvent::AuthRefreshed {
                    outcome: "refreshed",
                },
                r#"{"type":"auth.refresh","outcome":"refreshed"}"#,
            ),
            (
                HostEvent::AuthRefreshFailed {
                    code: "FX_OAUTH_NO_SESSION",
                    message: "m".into(),
                    signed_out: true,
                },
                r#"{"type":"auth.refresh_error","code":"FX_OAUTH_NO_SESSION","error":"m","signedOut":true}"#,
            ),
        ];
        for (event, json) in cases {
            assert_eq!(serde_json::to_string(&event).unwrap(), json);
        }
    }
}
