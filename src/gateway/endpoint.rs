//! The chat URL policy: which language-model endpoint a request may go to, and the model catalog
//! URL derived from it.
//!
//! Only two kinds of URL are accepted for `FX_GATEWAY_CHAT_URL`: exactly the canonical AI Gateway
//! endpoint, or plain `http://` on a loopback host (`127.0.0.1`, `localhost`, `[::1]`) with an
//! explicit port (for local development gateways and tests). The parser here is deliberately
//! small: it understands exactly the URL syntax needed to make that decision and rejects
//! anything unusual rather than guessing.

use thiserror::Error;

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
        let url = ParsedUrl::parse(text)?;
        if url.has_userinfo || url.has_fragment {
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
        let loopback = match &url.host {
            Host::Name(name) => name == "localhost" || name == "127.0.0.1",
            Host::Ipv6(groups) => *groups == [0, 0, 0, 0, 0, 0, 0, 1],
        };
        let Some(port) = url.port else {
            return Err(EndpointError::NotAllowed);
        };
        if url.scheme != Scheme::Http || !loopback || port == 0 {
            return Err(EndpointError::NotAllowed);
        }
        let host = match &url.host {
            Host::Name(name) => name.clone(),
            Host::Ipv6(_) => "[::1]".to_owned(),
        };
        let origin = format!("http://{host}:{port}");
        let origin_len = origin.len();
        let mut full = origin;
        full.push_str(if url.path.is_empty() { "/" } else { &url.path });
        if let Some(query) = &url.query {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Http,
    Https,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// Lowercased registered name or dotted IPv4 text.
    Name(String),
    Ipv6([u16; 8]),
}

/// The pieces of an absolute `http(s)://` URL the policy needs.
#[derive(Debug)]
struct ParsedUrl {
    scheme: Scheme,
    has_userinfo: bool,
    host: Host,
    port: Option<u16>,
    path: String,
    query: Option<String>,
    has_fragment: bool,
}

fn invalid(reason: &'static str) -> EndpointError {
    EndpointError::InvalidUrl { reason }
}

impl ParsedUrl {
    fn parse(text: &str) -> Result<Self, EndpointError> {
        // Like browsers, ignore leading/trailing spaces and control characters.
        let text = text.trim_matches(|c: char| c <= ' ');
        if text.is_empty() {
            return Err(invalid("it is empty"));
        }
        if text.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(invalid("it contains spaces or control characters"));
        }
        let (scheme_text, rest) = text
            .split_once(':')
            .ok_or(invalid("it has no scheme such as http://"))?;
        if !is_valid_scheme(scheme_text) {
            return Err(invalid("the scheme is malformed"));
        }
        let scheme = match scheme_text.to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            // A well-formed URL of another kind (ftp:, file:, data:, ...) is valid but not
            // allowed.
            _ => return Err(EndpointError::NotAllowed),
        };
        let rest = rest
            .strip_prefix("//")
            .ok_or(invalid("the scheme is not followed by //"))?;
        if rest.contains('\\') {
            return Err(invalid("it contains a backslash"));
        }
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let (has_userinfo, host_port) = match authority.rsplit_once('@') {
            Some((_, host_port)) => (true, host_port),
            None => (false, authority),
        };
        let (host, port) = parse_host_port(host_port)?;
        let (before_fragment, has_fragment) = match tail.split_once('#') {
            Some((before, _)) => (before, true),
            None => (tail, false),
        };
        let (path, query) = match before_fragment.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (before_fragment, None),
        };
        Ok(Self {
            scheme,
            has_userinfo,
            host,
            port,
            path: path.to_owned(),
            query,
            has_fragment,
        })
    }
}

fn is_valid_scheme(text: &str) -> bool {
    let mut bytes = text.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
}

fn parse_host_port(text: &str) -> Result<(Host, Option<u16>), EndpointError> {
    let (host, port_text) = if let Some(inner_and_rest) = text.strip_prefix('[') {
        let (inner, after) = inner_and_rest
            .split_once(']')
            .ok_or(invalid("an IPv6 address is missing its closing ]"))?;
        let groups = parse_ipv6(inner).ok_or(invalid("the IPv6 address is malformed"))?;
        let port_text = if after.is_empty() {
            None
        } else {
            Some(
                after
                    .strip_prefix(':')
                    .ok_or(invalid("unexpected text after the IPv6 address"))?,
            )
        };
        (Host::Ipv6(groups), port_text)
    } else {
        let (name, port_text) = match text.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(invalid("the host is empty"));
        }
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(invalid(
                "the host contains characters this parser does not accept",
            ));
        }
        (Host::Name(name.to_ascii_lowercase()), port_text)
    };
    let port = match port_text {
        // `host:` with nothing after the colon means "no port", as in browsers.
        None | Some("") => None,
        Some(digits) => Some(parse_port(digits)?),
    };
    Ok((host, port))
}

fn parse_port(digits: &str) -> Result<u16, EndpointError> {
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid("the port is not a number"));
    }
    let mut value: u32 = 0;
    for b in digits.bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u32::from(b - b'0')))
            .filter(|v| *v <= u32::from(u16::MAX))
            .ok_or(invalid("the port is larger than 65535"))?;
    }
    u16::try_from(value).map_err(|_| invalid("the port is larger than 65535"))
}

/// Parses the text between `[` and `]` (no zone id, optional trailing dotted IPv4).
fn parse_ipv6(text: &str) -> Option<[u16; 8]> {
    let (head, tail) = match text.split_once("::") {
        Some((head, tail)) => (head, Some(tail)),
        None => (text, None),
    };
    let head_groups = parse_ipv6_groups(head)?;
    let mut out = [0u16; 8];
    match tail {
        None => {
            if head_groups.len() != 8 {
                return None;
            }
            out.copy_from_slice(&head_groups);
        }
        Some(tail) => {
            let tail_groups = parse_ipv6_groups(tail)?;
            let used = head_groups.len().checked_add(tail_groups.len())?;
            if used > 7 {
                return None;
            }
            for (slot, group) in out.iter_mut().zip(head_groups.iter()) {
                *slot = *group;
            }
            let start = 8usize.checked_sub(tail_groups.len())?;
            for (slot, group) in out.iter_mut().skip(start).zip(tail_groups.iter()) {
                *slot = *group;
            }
        }
    }
    Some(out)
}

fn parse_ipv6_groups(text: &str) -> Option<Vec<u16>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let pieces: Vec<&str> = text.split(':').collect();
    let mut groups = Vec::with_capacity(8);
    let last = pieces.len().saturating_sub(1);
    for (index, piece) in pieces.iter().enumerate() {
        if index == last && piece.contains('.') {
            let octets: Vec<u8> = piece
                .split('.')
                .map(|o| {
                    if o.is_empty() || o.len() > 3 || !o.bytes().all(|b| b.is_ascii_digit()) {
                        None
                    } else {
                        o.parse::<u8>().ok()
                    }
                })
                .collect::<Option<Vec<u8>>>()?;
            let [a, b, c, d] = octets.as_slice() else {
                return None;
            };
            groups.push(u16::from_be_bytes([*a, *b]));
            groups.push(u16::from_be_bytes([*c, *d]));
            continue;
        }
        if piece.is_empty() || piece.len() > 4 || !piece.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        groups.push(u16::from_str_radix(piece, 16).ok()?);
    }
    if groups.len() > 8 {
        return None;
    }
    Some(groups)
}
