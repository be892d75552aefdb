//! [`Code`]: the one list of the stable `FX_*` error codes the core raises or reads.
//!
//! Every area keeps its own error enum with its typed causes (`LogError`, `StepError`,
//! `AuthError`, ...), and each enum's `code()` maps its variants to a `Code` by an exhaustive
//! match. The JS side raises a few codes of its own (js/errors.js). `FxErrorCode` in
//! js/index.d.ts documents the union of both lists, and tests/error_codes.rs holds the three
//! equal. The codes are contract: a code, once shipped, keeps its spelling and meaning.
//!
//! The bots layer has its own list, `bot::error::Code` (`FXBOT_*`, each with an HTTP-like
//! status), checked by the same test against js/fxbot/client.d.ts.

use std::fmt;

/// Declares [`Code`], [`Code::ALL`] and [`Code::as_str`] from one table, so the three cannot
/// drift apart.
macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)+) => {
        /// A stable error code: the `code` of a JS error, the `(FX_...)` after a failed turn's
        /// message.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[$doc])* $variant,)+
        }

        impl Code {
            /// Every code, in the order of the table below.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)+];

            /// The code as JS sees it, e.g. `FX_SESSION_INVALID`.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)+
                }
            }
        }
    };
}

codes! {
    // The agent (`agent::AgentError`).
    /// No session with that id is open.
    SessionNotOpen => "FX_SESSION_NOT_OPEN",
    /// A turn is already running in the session.
    PromptInProgress => "FX_PROMPT_IN_PROGRESS",
    /// A malformed model id, or one the loaded catalog does not list.
    InvalidModel => "FX_INVALID_MODEL",
    /// An unknown permission mode, or one the workspace does not offer.
    InvalidMode => "FX_INVALID_MODE",
    /// A config option other than `model` and `mode`.
    InvalidConfigOption => "FX_INVALID_CONFIG_OPTION",
    /// A reasoning effort the format cannot hold.
    InvalidEffort => "FX_INVALID_EFFORT",
    /// A prompt with no text.
    EmptyPrompt => "FX_EMPTY_PROMPT",
    /// No AI Gateway credential (no API key, no login).
    AuthRequired => "FX_AUTH_REQUIRED",
    /// The agent stopped (or was closed) first; also what js/host.js raises for an adapter call
    /// the stop abandoned.
    AgentClosed => "FX_AGENT_CLOSED",

    // Sessions and their store (`agent::SessionError`, `caps::StoreError`, `LogError`).
    /// Session bytes or a native session directory that the strict loader refuses.
    SessionInvalid => "FX_SESSION_INVALID",
    /// `openSession` of an id the store does not hold.
    SessionNotFound => "FX_SESSION_NOT_FOUND",
    /// A compare-and-set on a stale revision; the store wrote nothing.
    SessionRevisionConflict => "FX_SESSION_REVISION_CONFLICT",
    /// The session store threw or answered with the wrong shape.
    SessionStoreFailed => "FX_SESSION_STORE_FAILED",
    /// The config store threw or answered with the wrong shape (the preference is not saved).
    ConfigStoreFailed => "FX_CONFIG_STORE_FAILED",
    /// An adapter call that did not answer within `adapterTimeoutMs` (js/host.js).
    AdapterTimeout => "FX_ADAPTER_TIMEOUT",
    /// An adapter result of the wrong shape (js/host.js raises it; the core reads it).
    AdapterInvalid => "FX_ADAPTER_INVALID",

    // A model step (`agent::model::StepError`).
    /// The step was cancelled.
    Cancelled => "FX_CANCELLED",
    /// The AI Gateway answered with a status other than 200.
    GatewayHttpError => "FX_GATEWAY_HTTP_ERROR",
    /// The AI Gateway could not be reached, or the connection broke.
    GatewayNetworkError => "FX_GATEWAY_NETWORK_ERROR",
    /// The model response sent nothing (no headers, or no next chunk) within
    /// `modelIdleTimeoutMs`, and retries did not help.
    GatewayTimeout => "FX_GATEWAY_TIMEOUT",
    /// The response stopped short or reported a provider failure.
    GatewayResponseError => "FX_GATEWAY_RESPONSE_ERROR",
    /// The response could not be read (not an event stream, a broken event).
    GatewayProtocolError => "FX_GATEWAY_PROTOCOL_ERROR",

    // The gateway protocol (`gateway::*Error`): finer codes of the gateway's own errors.
    /// A non-200 body larger than 1 MiB (`ProviderError`).
    GatewayErrorBodyTooLarge => "FX_GATEWAY_ERROR_BODY_TOO_LARGE",
    /// A connection that failed before a complete response (`ProviderError`).
    GatewayConnection => "FX_GATEWAY_CONNECTION",
    /// One event line of the response is longer than 32 MiB (`SseError`).
    GatewaySseEventTooLarge => "FX_GATEWAY_SSE_EVENT_TOO_LARGE",
    /// `finish` named a reason outside the protocol (`SseError`).
    GatewayInvalidFinishReason => "FX_GATEWAY_INVALID_FINISH_REASON",
    /// The history breaks the tool-call/tool-result pairing (`PromptError`).
    GatewayInvalidHistory => "FX_GATEWAY_INVALID_HISTORY",
    /// A header value with a control character (`RequestError`).
    GatewayInvalidHeader => "FX_GATEWAY_INVALID_HEADER",
    /// The request body could not be encoded (`RequestError`).
    GatewayEncode => "FX_GATEWAY_ENCODE",
    /// `FX_GATEWAY_CHAT_URL` is not a string (`EndpointError`).
    GatewayChatUrlNotString => "FX_GATEWAY_CHAT_URL_NOT_STRING",
    /// `FX_GATEWAY_CHAT_URL` does not parse as a URL (`EndpointError`).
    GatewayChatUrlInvalid => "FX_GATEWAY_CHAT_URL_INVALID",
    /// `FX_GATEWAY_CHAT_URL` carries credentials or a fragment (`EndpointError`).
    GatewayChatUrlCredentials => "FX_GATEWAY_CHAT_URL_CREDENTIALS",
    /// `FX_GATEWAY_CHAT_URL` is neither the canonical URL nor loopback HTTP (`EndpointError`).
    GatewayChatUrlNotAllowed => "FX_GATEWAY_CHAT_URL_NOT_ALLOWED",

    // The model catalog (`gateway::CatalogError`).
    /// HTTP 401/403.
    CatalogAuthentication => "FX_CATALOG_AUTHENTICATION",
    /// HTTP 429.
    CatalogRateLimited => "FX_CATALOG_RATE_LIMITED",
    /// HTTP 500/502/503/504.
    CatalogUnavailable => "FX_CATALOG_UNAVAILABLE",
    /// Another non-200 status.
    CatalogHttpStatus => "FX_CATALOG_HTTP_STATUS",
    /// No response arrived.
    CatalogTransport => "FX_CATALOG_TRANSPORT",
    /// The body is not a catalog.
    CatalogMalformed => "FX_CATALOG_MALFORMED",
    /// Loading was cancelled.
    CatalogCancelled => "FX_CATALOG_CANCELLED",

    // The workspace (`tools::workspace::WorkspaceError`).
    /// `workspace.info` or `workspace.permission` breaks the version-1 contract.
    WorkspaceInvalid => "FX_WORKSPACE_INVALID",

    // Device login (`auth::AuthError`).
    /// `FX_E2E_OAUTH_ISSUER_URL` is not a loopback `http` origin.
    OAuthIssuerOverrideRejected => "FX_OAUTH_ISSUER_OVERRIDE_REJECTED",
    /// An OAuth request got no response.
    OAuthTransport => "FX_OAUTH_TRANSPORT",
    /// An OAuth response larger than 64 KiB.
    OAuthResponseTooLarge => "FX_OAUTH_RESPONSE_TOO_LARGE",
    /// An OAuth request refused with a status other than 200.
    OAuthRejected => "FX_OAUTH_REJECTED",
    /// A 200 OAuth response without the shape needed.
    OAuthMalformedResponse => "FX_OAUTH_MALFORMED_RESPONSE",
    /// The discovery document names another issuer.
    OAuthIssuerMismatch => "FX_OAUTH_ISSUER_MISMATCH",
    /// A discovered endpoint outside the allowed hosts.
    OAuthEndpointNotAllowed => "FX_OAUTH_ENDPOINT_NOT_ALLOWED",
    /// Discovery gave no `revocation_endpoint`.
    OAuthNoRevocationEndpoint => "FX_OAUTH_NO_REVOCATION_ENDPOINT",
    /// A login token response without a refresh token.
    OAuthNoRefreshToken => "FX_OAUTH_NO_REFRESH_TOKEN",
    /// The OAuth session store failed.
    OAuthStoreFailed => "FX_OAUTH_STORE_FAILED",
    /// The stored login changed under a compare-and-set (also what OAuth stores throw).
    OAuthSessionRevisionConflict => "FX_OAUTH_SESSION_REVISION_CONFLICT",
    /// No login is stored.
    OAuthNoSession => "FX_OAUTH_NO_SESSION",
    /// The stored login cannot be used.
    OAuthSessionInvalid => "FX_OAUTH_SESSION_INVALID",
    /// A login record would be larger than 64 KiB.
    OAuthRecordTooLarge => "FX_OAUTH_RECORD_TOO_LARGE",

    // The bots layer's document store (`caps::StoreError` of `Store::Docs`). The bots answer
    // with an HTTP-like status too: 409 and 500.
    /// What a document store throws for a stale `expectedRevision`; the bots engine retries on
    /// it.
    StoreRevisionConflict => "FXBOT_STORE_REVISION_CONFLICT",
    /// The document store threw or answered with the wrong shape.
    StoreFailed => "FXBOT_STORE_FAILED",

    // The terminal (`term::line_editor::EditError`).
    /// An edit would make the draft larger than its limit.
    TermDraftTooLarge => "FX_TERM_DRAFT_TOO_LARGE",
}

impl Code {
    /// The code spelled `text`, if it is one of ours.
    #[must_use]
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|code| code.as_str() == text)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `code == "FX_..."`, as tests and log notes compare codes with their spelling.
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
