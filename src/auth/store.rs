//! The `oauthSessionStore` contract, as the engine sees it: opaque bytes under an optimistic
//! revision.
//!
//! The host wraps the JS adapter: a thrown error whose `code` is
//! `FX_OAUTH_SESSION_REVISION_CONFLICT` becomes [`StoreError::RevisionConflict`]; any other throw
//! or a badly shaped result becomes [`StoreError::Failed`]. The bytes hold tokens: the host must
//! never log them.

use thiserror::Error;

/// Largest record the store may hold.
pub const MAX_RECORD_BYTES: usize = 64 * 1024;
/// Longest revision string the store may hand out.
pub const MAX_REVISION_BYTES: usize = 1024;

/// What `remove` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoveOutcome {
    /// A record was stored and is gone now.
    Deleted,
    /// Nothing was stored (`false` or `"missing"` from JS).
    Missing,
}

/// Why a store call failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The stored revision is not the one we expected: someone else wrote or removed it.
    #[error("the stored revision moved on")]
    RevisionConflict,
    /// Any other failure; the host's short description (never the bytes).
    #[error("{0}")]
    Failed(String),
}

/// The host's OAuth session store.
#[allow(async_fn_in_trait)]
pub trait OAuthStore {
    /// The stored record and its revision, or `None` when nothing is stored.
    ///
    /// # Errors
    ///
    /// [`StoreError::Failed`] when the store cannot be read.
    async fn load(&self) -> Result<Option<(Vec<u8>, String)>, StoreError>;

    /// Stores `bytes` if the current revision is `expected` (`None`: nothing may be stored) and
    /// returns the new revision.
    ///
    /// # Errors
    ///
    /// [`StoreError::RevisionConflict`] when the revision moved on; [`StoreError::Failed`]
    /// otherwise.
    async fn commit(&self, bytes: Vec<u8>, expected: Option<&str>) -> Result<String, StoreError>;

    /// Removes the record if the current revision is `expected`.
    ///
    /// # Errors
    ///
    /// [`StoreError::RevisionConflict`] when the revision moved on; [`StoreError::Failed`]
    /// otherwise.
    async fn remove(&self, expected: Option<&str>) -> Result<RemoveOutcome, StoreError>;
}
