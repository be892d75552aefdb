//! Documents over the [`DocStore`] (fxbot DESIGN §5.3): typed load, and read → apply →
//! compare-and-set with retries, so two tabs writing one document both land (or the loser
//! learns why).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::caps::{DocStore, DocStoreError};

use super::docs::{decode, encode};
use super::error::FxbotError;

/// Attempts of one read-modify-write before it fails with 409.
pub const CAS_ATTEMPTS: u32 = 5;

/// A store failure as the caller sees it.
pub fn store_error(error: DocStoreError) -> FxbotError {
    match error {
        DocStoreError::Conflict { key } => FxbotError::Conflict { key, attempts: 1 },
        DocStoreError::Failed {
            key,
            method,
            message,
        } => FxbotError::StoreFailed {
            key,
            method,
            message,
        },
    }
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
    let Some(stored) = docs.doc_load(key).await.map_err(store_error)? else {
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
            Err(DocStoreError::Conflict { .. }) => {}
            Err(other) => return Err(store_error(other)),
        }
    }
    Err(FxbotError::Conflict {
        key: key.to_owned(),
        attempts: CAS_ATTEMPTS,
    })
}
