//! Documents over the [`DocStore`] (fxbot DESIGN §5.3): typed load, and read → apply →
//! compare-and-set with retries, so two tabs writing one document both land (or the loser
//! learns why).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::caps::{DocStore, ListedDoc, StoreError};

use super::docs::{decode, encode};
use super::error::FxbotError;

/// Attempts of one read-modify-write before it fails with 409.
pub const CAS_ATTEMPTS: u32 = 5;

/// A failure of a store call on `key` as the caller sees it: a revision conflict of one write
/// is 409, anything else 500 with the store's error.
pub fn store_error(key: &str, error: StoreError) -> FxbotError {
    match error {
        StoreError::RevisionConflict { .. } => FxbotError::Conflict {
            key: key.to_owned(),
            attempts: 1,
        },
        error @ StoreError::Failed { .. } => FxbotError::Store {
            key: key.to_owned(),
            error,
        },
    }
}

/// Writes `bytes` under `key` if the stored revision is `expected` (`None`: nothing stored).
///
/// # Errors
/// 409 for a stale revision, 500 for a store failure.
pub async fn commit<D: DocStore>(
    docs: &D,
    key: &str,
    bytes: &[u8],
    expected: Option<&str>,
) -> Result<String, FxbotError> {
    docs.doc_commit(key, bytes, expected)
        .await
        .map_err(|e| store_error(key, e))
}

/// Removes `key` whatever its revision (a record that is already gone is fine).
///
/// # Errors
/// 500 for a store failure.
pub async fn remove<D: DocStore>(docs: &D, key: &str) -> Result<(), FxbotError> {
    docs.doc_remove(key, None)
        .await
        .map(|_| ())
        .map_err(|e| store_error(key, e))
}

/// The keys under `prefix`, sorted.
///
/// # Errors
/// 500 for a store failure.
pub async fn list<D: DocStore>(docs: &D, prefix: &str) -> Result<Vec<ListedDoc>, FxbotError> {
    docs.doc_list(prefix)
        .await
        .map_err(|e| store_error(prefix, e))
}

/// A loaded document and the revision it was read at.
pub struct Loaded<T> {
    pub doc: T,
    pub revision: String,
}

/// Loads and decodes `key`.
///
/// # Errors
/// The store's failure, or a document this version cannot read.
pub async fn load<T: DeserializeOwned, D: DocStore>(
    docs: &D,
    key: &str,
) -> Result<Option<Loaded<T>>, FxbotError> {
    let Some(stored) = docs.doc_load(key).await.map_err(|e| store_error(key, e))? else {
        return Ok(None);
    };
    let doc = decode(key, &stored.bytes)?;
    Ok(Some(Loaded {
        doc,
        revision: stored.revision,
    }))
}

/// What one application of a change decided.
pub enum Step<R> {
    /// Write the document and answer `R`.
    Write(R),
    /// Answer `R` and write nothing.
    Keep(R),
}

/// Reads `key` (or starts from `fresh()` when absent), applies `change`, and writes the result
/// with compare-and-set; on a conflict it reads again and re-applies, up to [`CAS_ATTEMPTS`].
///
/// # Errors
/// What `change` returns, the store's failure, or [`FxbotError::Conflict`] after the last try.
pub async fn update<T, D, R>(
    docs: &D,
    key: &str,
    fresh: impl Fn() -> Option<T>,
    mut change: impl FnMut(Option<&mut T>) -> Result<Step<R>, FxbotError>,
) -> Result<R, FxbotError>
where
    T: Serialize + DeserializeOwned,
    D: DocStore,
{
    for _ in 0..CAS_ATTEMPTS {
        let loaded = load::<T, D>(docs, key).await?;
        let (mut doc, revision) = match loaded {
            Some(l) => (Some(l.doc), Some(l.revision)),
            None => (fresh(), None),
        };
        let answer = match change(doc.as_mut())? {
            Step::Keep(answer) => return Ok(answer),
            Step::Write(answer) => answer,
        };
        let Some(doc) = doc else {
            return Ok(answer);
        };
        match docs
            .doc_commit(key, &encode(&doc), revision.as_deref())
            .await
        {
            Ok(_) => return Ok(answer),
            Err(StoreError::RevisionConflict { .. }) => {}
            Err(other) => return Err(store_error(key, other)),
        }
    }
    Err(FxbotError::Conflict {
        key: key.to_owned(),
        attempts: CAS_ATTEMPTS,
    })
}
