//! The headers an owner gives a remote MCP server (an API key, a team header): names are HTTP
//! tokens and none the protocol sets itself; values are one line of at most 8 KiB.

/// The longest header value, in bytes.
pub const MAX_VALUE_BYTES: usize = 8 * 1024;

/// Names the client sets itself (compared without case); `mcp-*` is refused as a prefix.
const RESERVED: [&str; 5] = ["host", "content-length", "accept", "content-type", "origin"];

/// Why a header was refused (the message names the header, never its value).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("the header name {0:?} is not an HTTP token")]
    BadName(String),
    #[error("the header {0} is set by the MCP client itself")]
    Reserved(String),
    #[error("the value of the header {0} holds a line break or a control character")]
    NotOneLine(String),
    #[error("the value of the header {name} is {bytes} bytes; at most 8192")]
    TooLong { name: String, bytes: usize },
}

/// RFC 9110 `tchar`.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Checks one header as given at add or update.
///
/// # Errors
/// [`HeaderError`] naming the rule the header breaks.
pub fn check(name: &str, value: &str) -> Result<(), HeaderError> {
    if name.is_empty() || name.len() > 256 || !name.bytes().all(is_token_char) {
        let shown: String = name.chars().take(64).collect();
        return Err(HeaderError::BadName(shown));
    }
    let lower = name.to_ascii_lowercase();
    if RESERVED.contains(&lower.as_str()) || lower.starts_with("mcp-") {
        return Err(HeaderError::Reserved(name.to_owned()));
    }
    // One line: no CR, LF or other control character (a tab is allowed inside, as HTTP does).
    if value.chars().any(|c| c != '\t' && c.is_control()) {
        return Err(HeaderError::NotOneLine(name.to_owned()));
    }
    if value.len() > MAX_VALUE_BYTES {
        return Err(HeaderError::TooLong {
            name: name.to_owned(),
            bytes: value.len(),
        });
    }
    Ok(())
}

/// An update of the headers: only names given at add may change.
///
/// # Errors
/// [`UpdateError::NotGivenAtAdd`] for a name the server was not added with, or what [`check`]
/// says of the new value.
pub fn check_update(
    given: &[(String, String)],
    update: &[(String, String)],
) -> Result<(), UpdateError> {
    for (name, value) in update {
        if !given.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Err(UpdateError::NotGivenAtAdd(name.chars().take(64).collect()));
        }
        check(name, value).map_err(UpdateError::Header)?;
    }
    Ok(())
}

/// Why a header update was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    #[error("the header {0} was not given when the server was added")]
    NotGivenAtAdd(String),
    #[error(transparent)]
    Header(HeaderError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_tokens_and_not_the_protocols() {
        assert_eq!(check("X-Api-Key", "k"), Ok(()));
        assert_eq!(check("authorization", "Bearer t"), Ok(()));
        assert!(matches!(
            check("bad name", "v"),
            Err(HeaderError::BadName(_))
        ));
        assert!(matches!(check("", "v"), Err(HeaderError::BadName(_))));
        assert!(matches!(check("x:y", "v"), Err(HeaderError::BadName(_))));
        for reserved in [
            "Host",
            "content-length",
            "Accept",
            "Content-Type",
            "Origin",
            "MCP-Session-Id",
            "mcp-protocol-version",
        ] {
            assert!(
                matches!(check(reserved, "v"), Err(HeaderError::Reserved(_))),
                "{reserved}"
            );
        }
    }

    #[test]
    fn values_are_one_line_of_at_most_8_kib() {
        assert!(matches!(
            check("X-Key", "a\nb"),
            Err(HeaderError::NotOneLine(_))
        ));
        assert!(matches!(
            check("X-Key", "a\rb"),
            Err(HeaderError::NotOneLine(_))
        ));
        assert!(matches!(
            check("X-Key", "a\u{0}b"),
            Err(HeaderError::NotOneLine(_))
        ));
        assert_eq!(check("X-Key", "a\tb"), Ok(()));
        assert_eq!(check("X-Key", &"v".repeat(MAX_VALUE_BYTES)), Ok(()));
        assert_eq!(
            check("X-Key", &"v".repeat(MAX_VALUE_BYTES + 1)),
            Err(HeaderError::TooLong {
                name: "X-Key".into(),
                bytes: MAX_VALUE_BYTES + 1
            })
        );
    }

    #[test]
    fn an_update_changes_only_names_given_at_add() {
        let given = vec![("X-Key".to_owned(), "old".to_owned())];
        assert_eq!(
            check_update(&given, &[("x-key".into(), "new".into())]),
            Ok(())
        );
        assert_eq!(
            check_update(&given, &[("X-Other".into(), "v".into())]),
            Err(UpdateError::NotGivenAtAdd("X-Other".into()))
        );
        assert!(matches!(
            check_update(&given, &[("X-Key".into(), "a\nb".into())]),
            Err(UpdateError::Header(HeaderError::NotOneLine(_)))
        ));
    }
}
