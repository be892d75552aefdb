//! The document store of the bots layer ([`DocStore`]): byte records by key under optimistic
//! revisions, listed by key prefix. The contract of js/fxbot/stores.js (`load`, `commit`,
//! `list`, `remove`): `commit(key, bytes, None)` means "must not exist yet", a stale revision is
//! [`DocStoreError::Conflict`], and `list` is sorted by key.
//!
//! [`MemoryDocStore`] is the in-memory implementation: the native default, and the one two
//! engines share in tests to stand for two tabs on one store.

#![allow(async_fn_in_trait)]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A failure of the document store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocStoreError {
    /// The stored revision is not the one the write expected.
    #[error("the stored record {key} changed since it was read")]
    Conflict { key: String },
    /// Anything else: the store threw, answered outside its contract or too late.
    #[error("store.{method}({key}) failed: {message}")]
    Failed {
        key: String,
        method: &'static str,
        message: String,
    },
}

/// One stored document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDoc {
    pub bytes: Vec<u8>,
    pub revision: String,
}

/// One entry of [`DocStore::doc_list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDoc {
    pub key: String,
    pub revision: String,
}

/// The fxbot document store.
pub trait DocStore {
    /// # Errors
    /// [`DocStoreError::Failed`] when the store fails.
    async fn doc_load(&self, key: &str) -> Result<Option<StoredDoc>, DocStoreError>;
    /// Writes `bytes` if the stored revision is `expected` (`None`: nothing stored); returns
    /// the new revision.
    ///
    /// # Errors
    /// [`DocStoreError::Conflict`] when the stored revision differs.
    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, DocStoreError>;
    /// The keys under `prefix`, sorted.
    ///
    /// # Errors
    /// [`DocStoreError::Failed`] when the store fails.
    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, DocStoreError>;
    /// Removes `key` (if the stored revision is `expected`, when given); true when a record
    /// was removed.
    ///
    /// # Errors
    /// [`DocStoreError::Conflict`] when `expected` is given and differs (or nothing is stored).
    async fn doc_remove(&self, key: &str, expected: Option<&str>) -> Result<bool, DocStoreError>;
}

/// Records by key: bytes and revision.
type Records = BTreeMap<String, (Vec<u8>, u64)>;

/// An in-memory [`DocStore`]; clones share the records.
#[derive(Debug, Clone, Default)]
pub struct MemoryDocStore {
    records: Rc<RefCell<Records>>,
    counter: Rc<RefCell<u64>>,
}

impl MemoryDocStore {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every key, sorted (for tests).
    #[must_use]
    pub fn keys(&self) -> Vec<String> {
        self.records.borrow().keys().cloned().collect()
    }
}

impl DocStore for MemoryDocStore {
    async fn doc_load(&self, key: &str) -> Result<Option<StoredDoc>, DocStoreError> {
        Ok(self
            .records
            .borrow()
            .get(key)
            .map(|(bytes, revision)| StoredDoc {
                bytes: bytes.clone(),
                revision: revision.to_string(),
            }))
    }

    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, DocStoreError> {
        let mut records = self.records.borrow_mut();
        let stored = records.get(key).map(|(_, r)| r.to_string());
        if stored.as_deref() != expected {
            return Err(DocStoreError::Conflict {
                key: key.to_owned(),
            });
        }
        let mut counter = self.counter.borrow_mut();
        *counter += 1;
        records.insert(key.to_owned(), (bytes.to_vec(), *counter));
        Ok(counter.to_string())
    }

    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, DocStoreError> {
        Ok(self
            .records
            .borrow()
            .range(prefix.to_owned()..)
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(key, (_, revision))| ListedDoc {
                key: key.clone(),
                revision: revision.to_string(),
            })
            .collect())
    }

    async fn doc_remove(&self, key: &str, expected: Option<&str>) -> Result<bool, DocStoreError> {
        let mut records = self.records.borrow_mut();
        if let Some(expected) = expected {
            let stored = records.get(key).map(|(_, r)| r.to_string());
            if stored.as_deref() != Some(expected) {
                return Err(DocStoreError::Conflict {
                    key: key.to_owned(),
                });
            }
        }
        Ok(records.remove(key).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn compare_and_set_and_prefix_lists() {
        let store = MemoryDocStore::new();
        block_on(async {
            let r1 = store.doc_commit("bot/a", b"1", None).await.unwrap();
            assert!(matches!(
                store.doc_commit("bot/a", b"2", None).await,
                Err(DocStoreError::Conflict { .. })
            ));
            let r2 = store.doc_commit("bot/a", b"2", Some(&r1)).await.unwrap();
            assert!(store.doc_commit("bot/a", b"3", Some(&r1)).await.is_err());
            store.doc_commit("bot/b", b"x", None).await.unwrap();
            store.doc_commit("botx", b"x", None).await.unwrap();
            let keys: Vec<String> = store
                .doc_list("bot/")
                .await
                .unwrap()
                .into_iter()
                .map(|d| d.key)
                .collect();
            assert_eq!(keys, ["bot/a", "bot/b"]);
            assert_eq!(store.doc_load("bot/a").await.unwrap().unwrap().bytes, b"2");
            assert!(store.doc_remove("bot/a", Some(&r1)).await.is_err());
            assert!(store.doc_remove("bot/a", Some(&r2)).await.unwrap());
            assert!(!store.doc_remove("bot/a", None).await.unwrap());
        });
    }
}
