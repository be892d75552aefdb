//! Model lists as providers answer them (fxbot DESIGN §4.3, §7.2), free of I/O: one reader for
//! every shape the kinds' lists have (`{data:[{id}]}` of OpenAI and its kin, `{models:[{name}]}`
//! of Gemini and Ollama, `{models:[{slug}]}` of the Codex backend), with the context window an
//! entry reports; and the servers' own reports (Ollama's `/api/show`, llama.cpp's `/props`).

use serde_json::Value;

use super::settings::ModelEntry;

/// Most models kept from one list.
pub const MAX_MODELS: usize = 2000;

/// The window fields an entry of a list may carry, in the order they are believed.
const WINDOW_KEYS: [&str; 6] = [
    "loaded_context_length",
    "max_model_len",
    "context_length",
    "context_window",
    "max_context_length",
    "inputTokenLimit",
];

/// The models of a list body (`None` when it is not JSON of a known shape).
pub fn parse_model_list(body: &[u8]) -> Option<Vec<ModelEntry>> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let entries = value
        .get("data")
        .or_else(|| value.get("models"))
        .and_then(Value::as_array)?;
    let mut out = Vec::new();
    for entry in entries.iter().take(MAX_MODELS) {
        let id = ["id", "slug", "model", "name"]
            .iter()
            .find_map(|key| entry.get(*key).and_then(Value::as_str));
        let Some(id) = id else { continue };
        // Gemini names its models `models/<id>`.
        let id = id.strip_prefix("models/").unwrap_or(id);
        if id.is_empty() || id.len() > 256 || id.chars().any(char::is_control) {
            continue;
        }
        let context_window = WINDOW_KEYS
            .iter()
            .find_map(|key| entry.get(*key).and_then(Value::as_u64))
            .filter(|n| *n > 0);
        out.push(ModelEntry {
            id: id.to_owned(),
            context_window,
        });
    }
    Some(out)
}

/// Ollama's `/api/show` answer: `model_info["<arch>.context_length"]`, else `num_ctx` in its
/// `parameters` text.
pub fn ollama_context(body: &[u8]) -> Option<u64> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let from_info = value
        .get("model_info")
        .and_then(Value::as_object)
        .and_then(|info| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .and_then(|(_, n)| n.as_u64())
        });
    from_info.or_else(|| {
        let parameters = value.get("parameters").and_then(Value::as_str)?;
        parameters.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("num_ctx"))
                .then(|| words.next()?.parse().ok())
                .flatten()
        })
    })
}

/// llama.cpp's `/props` answer: `default_generation_settings.n_ctx`.
pub fn llama_context(body: &[u8]) -> Option<u64> {
    let value: Value = serde_json::from_slice(body).ok()?;
    value
        .get("default_generation_settings")?
        .get("n_ctx")?
        .as_u64()
}

/// The public view of a model list: `{id, contextWindow}` each, the provider's `contextWindow`
/// overriding what was reported.
pub fn models_json(models: &[ModelEntry], context_window: Option<u64>) -> Value {
    Value::Array(
        models
            .iter()
            .map(|m| {
                serde_json::json!({
                    "id": m.id,
                    "contextWindow": context_window.or(m.context_window),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(body: &str) -> Vec<(String, Option<u64>)> {
        parse_model_list(body.as_bytes())
            .unwrap()
            .into_iter()
            .map(|m| (m.id, m.context_window))
            .collect()
    }

    #[test]
    fn list_shapes() {
        assert_eq!(
            ids(
                r#"{"object":"list","data":[{"id":"gpt-5","object":"model"},{"id":"x","context_length":32768}]}"#
            ),
            [("gpt-5".into(), None), ("x".into(), Some(32768))]
        );
        assert_eq!(
            ids(r#"{"models":[{"name":"models/gemini-2.5-flash","inputTokenLimit":1048576}]}"#),
            [("gemini-2.5-flash".into(), Some(1_048_576))]
        );
        assert_eq!(
            ids(r#"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}"#),
            [("llama3.2:latest".into(), None)]
        );
        assert_eq!(
            ids(r#"{"data":[{"id":"m","max_model_len":8192},{"nope":1}]}"#),
            [("m".into(), Some(8192))]
        );
        assert_eq!(parse_model_list(b"<html>"), None);
        assert_eq!(parse_model_list(br#"{"error":"x"}"#), None);
    }

    #[test]
    fn server_reports() {
        let show = br#"{"parameters":"stop x","model_info":{"general.architecture":"llama","llama.context_length":8192}}"#;
        assert_eq!(ollama_context(show), Some(8192));
        assert_eq!(
            ollama_context(br#"{"parameters":"num_ctx 4096\nstop x"}"#),
            Some(4096)
        );
        assert_eq!(ollama_context(b"{}"), None);
        assert_eq!(
            llama_context(br#"{"default_generation_settings":{"n_ctx":2048}}"#),
            Some(2048)
        );
    }
}
