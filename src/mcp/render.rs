//! A `tools/call` result as the text the model reads (DESIGN §9.3): `text` items joined, images
//! and audio as `[image: <mime>, <n> bytes]`, resources by their URI, `structuredContent` as
//! JSON when there is no content; capped at 64 KiB (cut at a character boundary, and said).

use serde_json::Value;

/// The most text a result gives the model.
pub const MAX_RESULT_BYTES: usize = 64 * 1024;

/// A rendered result: its text, and whether the server marked it an error (`isError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub is_error: bool,
}

/// The decoded length of base64 `data` (its padding and whitespace not counted).
fn base64_len(data: &str) -> usize {
    let digits = data
        .bytes()
        .filter(|b| {
            b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/' || *b == b'-' || *b == b'_'
        })
        .count();
    digits * 3 / 4
}

fn str_of<'v>(item: &'v Value, key: &str) -> Option<&'v str> {
    item.get(key).and_then(Value::as_str)
}

fn item_text(item: &Value) -> String {
    match str_of(item, "type") {
        Some("text") => str_of(item, "text").unwrap_or_default().to_owned(),
        Some(kind @ ("image" | "audio")) => format!(
            "[{kind}: {}, {} bytes]",
            str_of(item, "mimeType").unwrap_or("unknown type"),
            base64_len(str_of(item, "data").unwrap_or_default())
        ),
        Some("resource_link") => str_of(item, "uri").unwrap_or_default().to_owned(),
        Some("resource") => {
            let resource = item.get("resource").unwrap_or(&Value::Null);
            let uri = str_of(resource, "uri").unwrap_or_default();
            match str_of(resource, "text") {
                Some(text) => format!("{uri}\n{text}"),
                None => uri.to_owned(),
            }
        }
        Some(other) => format!("[{other} content]"),
        None => "[content of no type]".to_owned(),
    }
}

/// Cuts `text` to at most `max` bytes at a character boundary, saying so at the end.
fn capped(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    const NOTE: &str = "\n[the result was cut at 64 KiB]";
    let mut end = max.saturating_sub(NOTE.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(NOTE);
    text
}

/// Renders a `tools/call` result object.
#[must_use]
pub fn render(result: &Value) -> Rendered {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(item_text).collect())
        .unwrap_or_default();
    let text = if parts.is_empty() {
        match result.get("structuredContent") {
            Some(structured) => structured.to_string(),
            None => String::new(),
        }
    } else {
        parts.join("\n")
    };
    Rendered {
        text: capped(text, MAX_RESULT_BYTES),
        is_error,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn content_items_become_text() {
        let result = json!({"content": [
            {"type": "text", "text": "two issues"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "resource_link", "uri": "https://tracker.example/1", "name": "1"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
            {"type": "audio", "mimeType": "audio/wav", "data": "AAAA"}
        ]});
        let rendered = render(&result);
        assert_eq!(
            rendered.text,
            "two issues\n[image: image/png, 8 bytes]\nhttps://tracker.example/1\nfile:///a.txt\nhello\n[audio: audio/wav, 3 bytes]"
        );
        assert!(!rendered.is_error);
    }

    #[test]
    fn errors_structured_content_and_odd_shapes() {
        let failed =
            render(&json!({"content": [{"type": "text", "text": "no access"}], "isError": true}));
        assert_eq!(
            failed,
            Rendered {
                text: "no access".into(),
                is_error: true
            }
        );
        assert_eq!(
            render(&json!({"structuredContent": {"n": 2}})).text,
            r#"{"n":2}"#
        );
        assert_eq!(
            render(&json!({"content": [{"text": "x"}, {"type": "video"}]})).text,
            "[content of no type]\n[video content]"
        );
        assert_eq!(render(&json!("not an object")).text, "");
    }

    #[test]
    fn a_long_result_is_cut_at_64_kib_on_a_character_boundary() {
        let long = "é".repeat(MAX_RESULT_BYTES);
        let rendered = render(&json!({"content": [{"type": "text", "text": long}]}));
        assert!(rendered.text.len() <= MAX_RESULT_BYTES);
        assert!(rendered.text.ends_with("[the result was cut at 64 KiB]"));
        let exact = "a".repeat(MAX_RESULT_BYTES);
        assert_eq!(
            render(&json!({"content": [{"type": "text", "text": exact.clone()}]})).text,
            exact
        );
    }
}
