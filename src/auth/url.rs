//! A deliberately small URL reader: just enough to tell a loopback test server from a Vercel
//! production host, rejecting anything unusual (userinfo, fragments, whitespace, non-ASCII,
//! IPv6 other than `[::1]`) instead of guessing.

/// The parts of an absolute `http(s)` URL that our endpoint rules look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlParts<'a> {
    pub https: bool,
    /// Lowercase host; `[::1]` keeps its brackets.
    pub host: String,
    pub port: Option<u16>,
    /// Everything after the authority (`/path?query`), possibly empty.
    pub rest: &'a str,
}

/// Hosts a test issuer may use.
const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

/// Reads `url`, or says what is wrong with it.
pub(crate) fn parse(url: &str) -> Result<UrlParts<'_>, &'static str> {
    if url.len() > 2048 {
        return Err("longer than 2048 bytes");
    }
    if !url.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("contains spaces, control or non-ASCII characters");
    }
    if url.contains('#') {
        return Err("has a #fragment");
    }
    let (https, after_scheme) = if let Some(rest) = url.strip_prefix("https://") {
        (true, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (false, rest)
    } else {
        return Err("is not an http:// or https:// URL");
    };
    let authority_end = after_scheme.find(['/', '?']).unwrap_or(after_scheme.len());
    let (authority, rest) = after_scheme.split_at(authority_end);
    if authority.contains('@') {
        return Err("carries a user name or password");
    }
    let (host, port_text) = if authority.starts_with('[') {
        let close = authority.find(']').ok_or("has an unclosed [ in its host")?;
        let (host, after) = authority.split_at(close + 1);
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return Err("has text after its bracketed host"),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let host = host.to_ascii_lowercase();
    if host.starts_with('[') {
        if host != "[::1]" {
            return Err("uses an IPv6 host other than [::1]");
        }
    } else if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return Err("has an empty or malformed host");
    }
    let port = match port_text {
        None => None,
        Some(text) => Some(parse_port(text)?),
    };
    Ok(UrlParts {
        https,
        host,
        port,
        rest,
    })
}

fn parse_port(text: &str) -> Result<u16, &'static str> {
    if text.is_empty() || text.len() > 5 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("has a malformed port");
    }
    match text.parse::<u16>() {
        Ok(port) if port > 0 => Ok(port),
        _ => Err("has a port outside 1-65535"),
    }
}

impl UrlParts<'_> {
    /// `http://` on 127.0.0.1, localhost or [::1] with an explicit port.
    pub(crate) fn loopback_problem(&self) -> Option<&'static str> {
        if self.https {
            Some("is https, not plain loopback http")
        } else if !LOOPBACK_HOSTS.contains(&self.host.as_str()) {
            Some("is not on 127.0.0.1, localhost or [::1]")
        } else if self.port.is_none() {
            Some("has no explicit port")
        } else {
            None
        }
    }

    /// `https://` on vercel.com or a subdomain of it, on the default port.
    pub(crate) fn vercel_problem(&self) -> Option<&'static str> {
        let on_vercel = self.host == "vercel.com"
            || self.host.strip_suffix(".vercel.com").is_some_and(|sub| {
                !sub.is_empty()
                    && sub
                        .split('.')
                        .all(|label| !label.is_empty() && !label.starts_with('-'))
            });
        if !self.https {
            Some("is not https")
        } else if !on_vercel {
            Some("is not on vercel.com or one of its subdomains")
        } else if self.port.is_some_and(|port| port != 443) {
            Some("uses a port other than 443")
        } else {
            None
        }
    }
}
