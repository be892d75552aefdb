//! Embeddings (fxbot DESIGN §11.2–§11.4): the host's local embedder seen from Rust, the model key
//! vectors are stored under, vectors as bytes, and the search that combines cosine similarity
//! with the lexical score.

use std::future::Future;
use std::pin::Pin;

use sha2::{Digest, Sha256};

/// What a local embedder's `embed` resolves to: one vector per text, or why not.
pub type EmbedFuture = Pin<Box<dyn Future<Output = Result<Vec<Vec<f32>>, String>>>>;

/// The host's local embedder (`createFxbot({ embedder })`): a model name and `embed(texts)`.
pub trait LocalEmbedder {
    /// The model's name (`all-MiniLM-L6-v2`): part of the model key.
    fn model(&self) -> String;
    /// One vector per text, in order.
    fn embed(&self, texts: Vec<String>) -> EmbedFuture;
}

/// Texts embedded in one call of the fill-in.
pub const BATCH: usize = 32;
/// The longest a vector may be (dimensions).
pub const MAX_DIMS: usize = 4096;
/// How long `embedding()` waits for the embedder to answer before it says `model: null`.
pub const PROBE_TIMEOUT_MS: u32 = 5_000;
/// What a new source embeds first.
pub const CHECK_TEXT: &str = "fxbot embedding check";
/// How much of a reply a message's vector covers.
pub const REPLY_CHARS: usize = 1000;
/// The weight of the cosine in a combined score (the lexical score has the rest).
pub const COSINE_WEIGHT: f64 = 0.8;

/// `local:<model>` or `remote:<providerId>:<model>`, as `embedding().model` shows it.
pub fn model_name(local: bool, provider: &str, model: &str) -> String {
    if local {
        format!("local:{model}")
    } else {
        format!("remote:{provider}:{model}")
    }
}

/// The model key of the store: 16 hex characters of the SHA-256 of the model name.
pub fn model_key(name: &str) -> String {
    let digest = Sha256::digest(name.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// `vec/<modelKey>/mem/<botId>/` and `vec/<modelKey>/msg/<botId>/`.
pub fn vector_prefix(key: &str, kind: &str, bot: &str) -> String {
    format!("vec/{key}/{kind}/{bot}/")
}

/// A vector checked and L2-normalised (`None` for an empty, too long, or non-finite one, or one
/// of length zero).
pub fn normalised(vector: &[f32]) -> Option<Vec<f32>> {
    if vector.is_empty() || vector.len() > MAX_DIMS || vector.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let norm = vector
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if norm == 0.0 {
        return None;
    }
    Some(
        vector
            .iter()
            .map(|x| (f64::from(*x) / norm) as f32)
            .collect(),
    )
}

/// A vector as stored: f32 little-endian.
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector (`None` when the bytes are not whole f32s).
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if bytes.is_empty() || bytes.len() % 4 != 0 {
        return None;
    }
    bytes
        .chunks_exact(4)
        .map(|c| <[u8; 4]>::try_from(c).ok().map(f32::from_le_bytes))
        .collect()
}

/// The dot product of two normalised vectors (their cosine); 0 for vectors of other lengths.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

/// Scores combined: `0.8·cosine + 0.2·lexical` for an item with a vector, the lexical score
/// alone for one without (its vector is not there yet).
pub fn combined(cosine: Option<f64>, lexical: f64) -> f64 {
    match cosine {
        Some(c) => COSINE_WEIGHT * c + (1.0 - COSINE_WEIGHT) * lexical,
        None => lexical,
    }
}

/// Longest answer of an embeddings endpoint.
pub const MAX_REMOTE_BYTES: usize = 16 * 1024 * 1024;
/// Deadline of one embeddings request.
pub const REMOTE_TIMEOUT_MS: u32 = 30_000;

/// An embeddings endpoint of one of the user's providers: OpenAI-compatible
/// `POST <base>/embeddings {model, input}` or Gemini's `batchEmbedContents`.
pub struct RemoteEmbedder<H> {
    pub host: H,
    /// The endpoint's URL.
    pub url: String,
    /// The provider's auth headers.
    pub headers: Vec<(String, String)>,
    pub model: String,
    pub gemini: bool,
}

/// The request body, as JSON text.
fn remote_body(model: &str, gemini: bool, texts: &[String]) -> String {
    let quote = |t: &str| serde_json::Value::String(t.to_owned()).to_string();
    if gemini {
        let model = quote(&format!("models/{model}"));
        let requests: Vec<String> = texts
            .iter()
            .map(|t| {
                format!(
                    r#"{{"model":{model},"content":{{"parts":[{{"text":{}}}]}}}}"#,
                    quote(t)
                )
            })
            .collect();
        format!(r#"{{"requests":[{}]}}"#, requests.join(","))
    } else {
        let input: Vec<String> = texts.iter().map(|t| quote(t)).collect();
        format!(
            r#"{{"model":{},"input":[{}]}}"#,
            quote(model),
            input.join(",")
        )
    }
}

/// The vectors of an answer, in the order of the texts.
fn remote_vectors(body: &[u8], gemini: bool) -> Result<Vec<Vec<f32>>, String> {
    let bad = || "the embeddings endpoint's answer is not a list of vectors".to_owned();
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| bad())?;
    let numbers = |v: &serde_json::Value| -> Option<Vec<f32>> {
        #[allow(clippy::cast_possible_truncation)]
        v.as_array()?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect()
    };
    if gemini {
        let list = value
            .get("embeddings")
            .and_then(|e| e.as_array())
            .ok_or_else(bad)?;
        list.iter()
            .map(|e| e.get("values").and_then(numbers).ok_or_else(bad))
            .collect()
    } else {
        let list = value
            .get("data")
            .and_then(|d| d.as_array())
            .ok_or_else(bad)?;
        let mut indexed: Vec<(u64, Vec<f32>)> = list
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let index = d
                    .get("index")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(i as u64);
                d.get("embedding")
                    .and_then(numbers)
                    .map(|v| (index, v))
                    .ok_or_else(bad)
            })
            .collect::<Result<_, _>>()?;
        indexed.sort_by_key(|(i, _)| *i);
        Ok(indexed.into_iter().map(|(_, v)| v).collect())
    }
}

impl<H: crate::caps::Http + crate::caps::Clock + Clone + 'static> LocalEmbedder
    for RemoteEmbedder<H>
{
    fn model(&self) -> String {
        self.model.clone()
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture {
        let host = self.host.clone();
        let mut headers = self.headers.clone();
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
        let request = crate::caps::HttpRequest {
            method: crate::caps::Method::Post,
            url: self.url.clone(),
            headers,
            body: remote_body(&self.model, self.gemini, &texts).into_bytes(),
        };
        let gemini = self.gemini;
        Box::pin(async move {
            let response = crate::caps::http::fetch_whole(
                &host,
                &host,
                request,
                MAX_REMOTE_BYTES,
                REMOTE_TIMEOUT_MS,
                &crate::caps::Cancel::new(),
            )
            .await
            .map_err(|e| format!("the embeddings endpoint failed: {e}"))?;
            if !(200..300).contains(&response.status) {
                return Err(format!(
                    "the embeddings endpoint answered HTTP {}",
                    response.status
                ));
            }
            remote_vectors(&response.body, gemini)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_vectors_and_scores() {
        assert_eq!(model_name(true, "", "mini"), "local:mini");
        assert_eq!(
            model_name(false, "0123456789ab", "text-embedding-3-small"),
            "remote:0123456789ab:text-embedding-3-small"
        );
        let key = model_key("local:mini");
        assert_eq!(key.len(), 16);
        assert_ne!(key, model_key("local:other"));
        assert_eq!(vector_prefix(&key, "mem", "b"), format!("vec/{key}/mem/b/"));
        let v = normalised(&[3.0, 4.0]).unwrap();
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        assert_eq!(normalised(&[0.0, 0.0]), None);
        assert_eq!(normalised(&[f32::NAN]), None);
        assert_eq!(normalised(&[]), None);
        assert_eq!(from_bytes(&to_bytes(&v)), Some(v.clone()));
        assert_eq!(from_bytes(&[1, 2, 3]), None);
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&v, &[1.0]), 0.0);
        assert!((combined(Some(1.0), 0.5) - 0.9).abs() < 1e-12);
        assert_eq!(combined(None, 0.5), 0.5);
    }

    #[test]
    fn remote_bodies_and_answers() {
        let texts = vec!["a \"b\"".to_owned(), "c".to_owned()];
        assert_eq!(
            remote_body("m", false, &texts),
            r#"{"model":"m","input":["a \"b\"","c"]}"#
        );
        assert_eq!(
            remote_body("m", true, &texts[1..]),
            r#"{"requests":[{"model":"models/m","content":{"parts":[{"text":"c"}]}}]}"#
        );
        let openai = br#"{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}"#;
        assert_eq!(
            remote_vectors(openai, false),
            Ok(vec![vec![1.0, 0.0], vec![0.0, 1.0]])
        );
        let gemini = br#"{"embeddings":[{"values":[0.5,0.5]}]}"#;
        assert_eq!(remote_vectors(gemini, true), Ok(vec![vec![0.5, 0.5]]));
        assert!(remote_vectors(b"{}", false).is_err());
        assert!(remote_vectors(br#"{"data":[{"embedding":["x"]}]}"#, false).is_err());
    }
}
