//! One small reader of absolute `http(s)://` URLs, for every endpoint rule of the crate (the
//! gateway's chat URL, the OAuth issuer and its endpoints; the bots' `baseUrl` next).
//!
//! It understands exactly the syntax those rules look at — scheme, userinfo, host (a name,
//! dotted IPv4 text, or a bracketed IPv6 address), port, path, query, fragment — and refuses
//! anything unusual instead of guessing. What is *allowed* is each caller's policy: this reader
//! only says what the URL is ([`Url`]) or why it is not one ([`UrlError`]).

/// `http` or `https` (any case as written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

/// The host of a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// A registered name or dotted IPv4 text, lowercased.
    Name(String),
    /// A bracketed IPv6 address, as its eight groups.
    Ipv6([u16; 8]),
}

impl Host {
    /// `localhost`, `127.0.0.1` or `[::1]`.
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        self.loopback_name().is_some()
    }

    /// The host as an origin spells it, for the loopback hosts (`localhost`, `127.0.0.1`,
    /// `[::1]`, however the URL wrote them); `None` for any other.
    #[must_use]
    pub fn loopback_name(&self) -> Option<&str> {
        match self {
            Host::Name(name) if name == "localhost" || name == "127.0.0.1" => Some(name),
            Host::Ipv6([0, 0, 0, 0, 0, 0, 0, 1]) => Some("[::1]"),
            Host::Name(_) | Host::Ipv6(_) => None,
        }
    }
}

/// The pieces of an absolute `http(s)://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url<'a> {
    pub scheme: Scheme,
    /// The authority carries `user@` or `user:password@`.
    pub userinfo: bool,
    pub host: Host,
    /// The explicit port (`host:` with nothing after the colon is no port, as in browsers).
    pub port: Option<u16>,
    /// Everything from the first `/` after the authority up to `?` or `#` (possibly empty).
    pub path: &'a str,
    /// The text after `?`, up to `#`.
    pub query: Option<&'a str>,
    /// A `#fragment` follows.
    pub fragment: bool,
}

/// Why a text is not an absolute `http(s)://` URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlError {
    Empty,
    SpaceOrControl,
    NoScheme,
    MalformedScheme,
    /// A well-formed URL of another scheme (`ftp:`, `file:`, `data:`, …).
    OtherScheme,
    NoSlashes,
    Backslash,
    UnclosedBracket,
    TextAfterBracket,
    MalformedIpv6,
    EmptyHost,
    MalformedHost,
    PortNotNumber,
    PortTooLarge,
}

impl UrlError {
    /// What is wrong, as a clause (`it is empty`, `the port is not a number`, …).
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            UrlError::Empty => "it is empty",
            UrlError::SpaceOrControl => "it contains spaces or control characters",
            UrlError::NoScheme => "it has no scheme such as http://",
            UrlError::MalformedScheme => "the scheme is malformed",
            UrlError::OtherScheme => "its scheme is not http or https",
            UrlError::NoSlashes => "the scheme is not followed by //",
            UrlError::Backslash => "it contains a backslash",
            UrlError::UnclosedBracket => "an IPv6 address is missing its closing ]",
            UrlError::TextAfterBracket => "unexpected text after the IPv6 address",
            UrlError::MalformedIpv6 => "the IPv6 address is malformed",
            UrlError::EmptyHost => "the host is empty",
            UrlError::MalformedHost => "the host contains characters this parser does not accept",
            UrlError::PortNotNumber => "the port is not a number",
            UrlError::PortTooLarge => "the port is larger than 65535",
        }
    }
}

/// Reads `text` (leading and trailing spaces and control characters are ignored, as browsers
/// do).
///
/// # Errors
/// The first [`UrlError`] met, in the order of the URL's parts.
pub fn parse(text: &str) -> Result<Url<'_>, UrlError> {
    let text = text.trim_matches(|c: char| c <= ' ');
    if text.is_empty() {
        return Err(UrlError::Empty);
    }
    if text.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(UrlError::SpaceOrControl);
    }
    let (scheme_text, rest) = text.split_once(':').ok_or(UrlError::NoScheme)?;
    if !is_valid_scheme(scheme_text) {
        return Err(UrlError::MalformedScheme);
    }
    let scheme = match scheme_text.to_ascii_lowercase().as_str() {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        _ => return Err(UrlError::OtherScheme),
    };
    let rest = rest.strip_prefix("//").ok_or(UrlError::NoSlashes)?;
    if rest.contains('\\') {
        return Err(UrlError::Backslash);
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((_, host_port)) => (true, host_port),
        None => (false, authority),
    };
    let (host, port) = parse_host_port(host_port)?;
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((before, _)) => (before, true),
        None => (tail, false),
    };
    let (path, query) = match before_fragment.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (before_fragment, None),
    };
    Ok(Url {
        scheme,
        userinfo,
        host,
        port,
        path,
        query,
        fragment,
    })
}

fn is_valid_scheme(text: &str) -> bool {
    let mut bytes = text.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
}

fn parse_host_port(text: &str) -> Result<(Host, Option<u16>), UrlError> {
    let (host, port_text) = if let Some(inner_and_rest) = text.strip_prefix('[') {
        let (inner, after) = inner_and_rest
            .split_once(']')
            .ok_or(UrlError::UnclosedBracket)?;
        let groups = parse_ipv6(inner).ok_or(UrlError::MalformedIpv6)?;
        let port_text = if after.is_empty() {
            None
        } else {
            Some(after.strip_prefix(':').ok_or(UrlError::TextAfterBracket)?)
        };
        (Host::Ipv6(groups), port_text)
    } else {
        let (name, port_text) = match text.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(UrlError::EmptyHost);
        }
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(UrlError::MalformedHost);
        }
        (Host::Name(name.to_ascii_lowercase()), port_text)
    };
    let port = match port_text {
        None | Some("") => None,
        Some(digits) => Some(parse_port(digits)?),
    };
    Ok((host, port))
}

fn parse_port(digits: &str) -> Result<u16, UrlError> {
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UrlError::PortNotNumber);
    }
    let mut value: u32 = 0;
    for b in digits.bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u32::from(b - b'0')))
            .filter(|v| *v <= u32::from(u16::MAX))
            .ok_or(UrlError::PortTooLarge)?;
    }
    u16::try_from(value).map_err(|_| UrlError::PortTooLarge)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parts_of_a_url() {
        let url = parse(" HTTP://u:p@LocalHost:8080/a/b?x=1#f ").unwrap();
        assert_eq!(url.scheme, Scheme::Http);
        assert!(url.userinfo && url.fragment);
        assert_eq!(url.host, Host::Name("localhost".to_owned()));
        assert_eq!(
            (url.port, url.path, url.query),
            (Some(8080), "/a/b", Some("x=1"))
        );
        let url = parse("https://[0:0::1]:/").unwrap();
        assert_eq!((url.host.loopback_name(), url.port), (Some("[::1]"), None));
        let url = parse("http://[2001:db8::7]").unwrap();
        assert_eq!(url.host, Host::Ipv6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 7]));
        assert_eq!(url.host.loopback_name(), None);
    }

    #[test]
    fn what_is_not_a_url() {
        for (text, error) in [
            ("", UrlError::Empty),
            ("http://a b", UrlError::SpaceOrControl),
            ("localhost", UrlError::NoScheme),
            ("1http://x", UrlError::MalformedScheme),
            ("ftp://x", UrlError::OtherScheme),
            ("http:x", UrlError::NoSlashes),
            ("http://x\\y", UrlError::Backslash),
            ("http://[::1", UrlError::UnclosedBracket),
            ("http://[::1]x", UrlError::TextAfterBracket),
            ("http://[::g]", UrlError::MalformedIpv6),
            ("http://:80", UrlError::EmptyHost),
            ("http://a%b", UrlError::MalformedHost),
            ("http://a:8x", UrlError::PortNotNumber),
            ("http://a:65536", UrlError::PortTooLarge),
        ] {
            assert_eq!(parse(text), Err(error), "{text}");
            assert!(!error.reason().is_empty());
        }
    }
}
