//! [`MemoryDocStore`]: the bots layer's [`DocStore`] in memory (the contract is in
//! [`super::store`]): the native default, and the one two engines share in tests to stand for
//! two tabs on one store.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::store::{DocStore, ListedDoc, RemoveOutcome, Store, StoreError, StoredRecord};

const CONFLICT: StoreError = StoreError::RevisionConflict { store: Store::Docs };

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
    async fn doc_load(&self, key: &str) -> Result<Option<StoredRecord>, StoreError> {
        Ok(self
            .records
            .borrow()
            .get(key)
            .map(|(bytes, revision)| StoredRecord {
                bytes: bytes.clone(),
                revision: revision.to_string(),
            }))
    }

    async fn doc_commit(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, StoreError> {
        let mut records = self.records.borrow_mut();
        let stored = records.get(key).map(|(_, r)| r.to_string());
        if stored.as_deref() != expected {
            return Err(CONFLICT);
        }
        let mut counter = self.counter.borrow_mut();
        *counter += 1;
        records.insert(key.to_owned(), (bytes.to_vec(), *counter));
        Ok(counter.to_string())
    }

    async fn doc_list(&self, prefix: &str) -> Result<Vec<ListedDoc>, StoreError> {
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

    async fn doc_remove(
        &self,
        key: &str,
        expected: Option<&str>,
    ) -> Result<RemoveOutcome, StoreError> {
        let mut records = self.records.borrow_mut();
        if let Some(expected) = expected {
            let stored = records.get(key).map(|(_, r)| r.to_string());
            if stored.as_deref() != Some(expected) {
                return Err(CONFLICT);
            }
        }
        Ok(match records.remove(key) {
            Some(_) => RemoveOutcome::Deleted,
            None => RemoveOutcome::Missing,
        })
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
                Err(StoreError::RevisionConflict { .. })
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
            assert_eq!(
                store.doc_remove("bot/a", Some(&r2)).await.unwrap(),
                RemoveOutcome::Deleted
            );
            assert_eq!(
                store.doc_remove("bot/a", None).await.unwrap(),
                RemoveOutcome::Missing
            );
        });
    }
}
