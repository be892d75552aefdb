//! The chat URL policy: which language-model endpoint a request may go to, and the model catalog
//! URL derived from it.
//!
//! Only two kinds of URL are accepted for `FX_GATEWAY_CHAT_URL`: exactly the canonical AI Gateway
//! endpoint, or plain `http://` on a loopback host (`127.0.0.1`, `localhost`, `[::1]`) with an
//! explicit port (for local development gateways and tests). The URL is read by
//! [`crate::net::url`], which rejects anything unusual rather than guessing.

use thiserror::Error;

use crate::net::url::{self, Host, Scheme, UrlError};
use crate::Code;

/// The AI Gateway language-model endpoint every request goes to by default.
pub const CANONICAL_CHAT_URL: &str = "https://ai-gateway.vercel.sh/v3/ai/language-model";

/// Path of the model catalog, resolved against the chat URL's origin.
pub const CATALOG_PATH: &str = "/coding-agent/v1/models";

const CANONICAL_HOST: &str = "ai-gateway.vercel.sh";
const CANONICAL_PATH: &str = "/v3/ai/language-model";

/// Why a custom chat URL was refused. Every message names `FX_GATEWAY_CHAT_URL`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EndpointError {
    /// The host passed something other than a string (checked by the JS boundary).
    #[error("FX_GATEWAY_CHAT_URL has to be a string")]
    NotAString,
    /// The value does not parse as an absolute URL.
    #[error("FX_GATEWAY_CHAT_URL is not a usable URL ({reason})")]
    InvalidUrl {
        /// What the parser tripped over.
        reason: &'static str,
    },
    /// The URL carries a user name, password or `#fragment`.
    #[error("FX_GATEWAY_CHAT_URL may not carry credentials (user@) or a #fragment")]
    CredentialsOrFragment,
    /// A well-formed URL that is neither the canonical endpoint nor explicit loopback HTTP.
    #[error(
        "FX_GATEWAY_CHAT_URL has to be {CANONICAL_CHAT_URL} or an http:// URL on 127.0.0.1, \
         localhost or [::1] with an explicit port"
    )]
    NotAllowed,
}

impl EndpointError {
    /// Stable error code for the JS boundary (all four map to a `TypeError` there).
    #[must_use]
    pub fn code(&self) -> Code {
        match self {
            Self::NotAString => Code::GatewayChatUrlNotString,
            Self::InvalidUrl { .. } => Code::GatewayChatUrlInvalid,
            Self::CredentialsOrFragment => Code::GatewayChatUrlCredentials,
            Self::NotAllowed => Code::GatewayChatUrlNotAllowed,
        }
    }
}

/// A validated chat endpoint.
///
/// Invariant: `url` is either [`CANONICAL_CHAT_URL`] or a normalized loopback `http://` URL
/// (lowercase scheme and host, explicit port, non-empty path, no userinfo, no fragment), and
/// `origin_len` is the byte length of its `scheme://host:port` prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEndpoint {
    url: String,
    origin_len: usize,
}

impl Default for ChatEndpoint {
    fn default() -> Self {
        Self::canonical()
    }
}

impl ChatEndpoint {
    /// The canonical AI Gateway endpoint.
    #[must_use]
    pub fn canonical() -> Self {
        Self {
            url: CANONICAL_CHAT_URL.to_owned(),
            origin_len: "https://".len() + CANONICAL_HOST.len(),
        }
    }

    /// Resolves the endpoint from the `FX_GATEWAY_CHAT_URL` environment value: absent means the
    /// canonical endpoint, anything present must pass [`ChatEndpoint::parse`].
    ///
    /// # Errors
    /// See [`ChatEndpoint::parse`].
    pub fn from_env(value: Option<&str>) -> Result<Self, EndpointError> {
        match value {
            None => Ok(Self::canonical()),
            Some(text) => Self::parse(text),
        }
    }

    /// Validates a custom chat URL against the policy in the module docs.
    ///
    /// Checks run in this order: the URL must parse, must not carry credentials or a fragment,
    /// and must then be the canonical endpoint or explicit loopback HTTP.
    ///
    /// # Errors
    /// [`EndpointError::InvalidUrl`], [`EndpointError::CredentialsOrFragment`] or
    /// [`EndpointError::NotAllowed`].
    pub fn parse(text: &str) -> Result<Self, EndpointError> {
        let url = url::parse(text).map_err(|error| match error {
            // A well-formed URL of another kind (ftp:, file:, data:, ...) is valid but not
            // allowed.
            UrlError::OtherScheme => EndpointError::NotAllowed,
            other => EndpointError::InvalidUrl {
                reason: other.reason(),
            },
        })?;
        if url.userinfo || url.fragment {
            return Err(EndpointError::CredentialsOrFragment);
        }
        let port_is_default = matches!(
            (url.scheme, url.port),
            (_, None) | (Scheme::Https, Some(443)) | (Scheme::Http, Some(80))
        );
        if url.scheme == Scheme::Https
            && url.host == Host::Name(CANONICAL_HOST.to_owned())
            && port_is_default
            && url.path == CANONICAL_PATH
            && url.query.is_none()
        {
            return Ok(Self::canonical());
        }
        let (Some(port), Some(host)) = (url.port, url.host.loopback_name()) else {
            return Err(EndpointError::NotAllowed);
        };
        if url.scheme != Scheme::Http || port == 0 {
            return Err(EndpointError::NotAllowed);
        }
        let origin = format!("http://{host}:{port}");
        let origin_len = origin.len();
        let mut full = origin;
        full.push_str(if url.path.is_empty() { "/" } else { url.path });
        if let Some(query) = url.query {
            full.push('?');
            full.push_str(query);
        }
        Ok(Self {
            url: full,
            origin_len,
        })
    }

    /// The full language-model URL to POST to.
    #[must_use]
    pub fn chat_url(&self) -> &str {
        &self.url
    }

    /// `scheme://host[:port]` of the chat URL.
    #[must_use]
    pub fn origin(&self) -> &str {
        self.url
            .get(..self.origin_len)
            .unwrap_or(CANONICAL_CHAT_URL)
    }

    /// The model catalog URL on the same origin (`/coding-agent/v1/models`).
    #[must_use]
    pub fn catalog_url(&self) -> String {
        let mut url = self.origin().to_owned();
        url.push_str(CATALOG_PATH);
        url
    }

    /// Whether this is the canonical AI Gateway endpoint (not a loopback development gateway).
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        self.url == CANONICAL_CHAT_URL
    }
}
