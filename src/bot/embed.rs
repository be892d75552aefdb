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
}
