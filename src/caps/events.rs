//! [`HostEvent`]: the diagnostics a host's `onEvent` receives.

/// Diagnostics for the host's `onEvent`.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent {
    /// A commit met a newer stored log; our events were saved as a new session.
    SessionForked {
        from: String,
        to: String,
        reason: &'static str,
    },
    /// The model request will be retried after `delay_ms`.
    RequestRetry {
        attempt: u32,
        limit: u32,
        delay_ms: u32,
        reason: String,
    },
    /// The model catalog could not be loaded; the current model keeps working.
    CatalogError { message: String },
    /// A model step of turn `turn` finished and the gateway reported its token usage.
    Usage {
        turn: u32,
        input_tokens: u64,
        output_tokens: u64,
    },
    /// A stored config value was applied (`source` is `restore`) or changed (`sdk`, `terminal`).
    ConfigChanged {
        id: String,
        previous: Option<String>,
        value: String,
        source: &'static str,
    },
    /// A stored config value could not be read or was refused.
    ConfigRestoreError { id: String, message: String },
    /// An accepted config value could not be saved.
    ConfigPersistError { id: String, message: String },
    /// The agent stopped (or closed a session) while part of a session was not in the store:
    /// `turns` turns it holds are missing there; `bytes` is the whole log as it stands.
    SessionUnsaved {
        session_id: String,
        turns: usize,
        code: &'static str,
        message: String,
        bytes: Vec<u8>,
    },
    /// The gateway credential changed: `source` is `none`, `AI_GATEWAY_API_KEY` or `fx login`.
    AuthChanged {
        source: &'static str,
        team: Option<String>,
    },
    /// The login's access token was renewed before a request (`refreshed`), or another writer's
    /// newer one was taken (`adopted`).
    AuthRefreshed { outcome: &'static str },
    /// Renewing the login failed; with `signed_out` the login was dropped.
    AuthRefreshFailed {
        code: &'static str,
        message: String,
        signed_out: bool,
    },
}
