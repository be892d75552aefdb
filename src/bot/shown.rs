//! How a caller's value appears inside an error message: quoted, escaped, and clipped, so a
//! huge or hostile argument never floods a message or smuggles control characters into it.

/// At most this many characters of a value are shown.
const SHOWN_CHARS: usize = 40;

/// `text` quoted with Rust's escapes (control characters as `\u{..}`), cut after 40 characters
/// with `…` when longer.
pub fn shown(text: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push_str("\"…");
            return out;
        }
        out.extend(c.escape_debug());
    }
    out.push('"');
    out
}

/// A JSON value's kind as a message names it ("a number", "null", ...).
pub fn kind_of(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escapes_and_clips() {
        assert_eq!(shown("abc"), "\"abc\"");
        assert_eq!(shown("a\u{1b}[2Jb\n"), "\"a\\u{1b}[2Jb\\n\"");
        assert_eq!(shown(&"x".repeat(40)), format!("\"{}\"", "x".repeat(40)));
        assert_eq!(shown(&"é".repeat(41)), format!("\"{}\"…", "é".repeat(40)));
    }

    #[test]
    fn names_json_kinds() {
        assert_eq!(kind_of(&serde_json::json!(1)), "a number");
        assert_eq!(kind_of(&serde_json::Value::Null), "null");
        assert_eq!(kind_of(&serde_json::json!([])), "an array");
    }
}
