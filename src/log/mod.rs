//! The fx session event log (`event_log_v1`): placeholder contract.
//!
//! This file pins the public surface that `src/api/` relies on; the engine replaces the bodies.

use serde::Serialize;

/// Why a session log was rejected. `code()` is the JS error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    /// The seq of the offending frame (or of the line that would have carried it).
    pub seq: Option<u64>,
    pub reason: String,
}

impl LogError {
    pub fn code(&self) -> &'static str {
        "FX_SESSION_INVALID"
    }
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.seq {
            Some(seq) => write!(f, "session log invalid at seq {seq}: {}", self.reason),
            None => write!(f, "session log invalid: {}", self.reason),
        }
    }
}

impl std::error::Error for LogError {}

/// The plain view of a session that `readSession()` returns to JavaScript.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
}

/// Loads `bytes` strictly and returns the session's view.
///
/// # Errors
/// A [`LogError`] naming the seq and the reason when the log is not a valid `event_log_v1` log.
pub fn read_session(_bytes: &[u8]) -> Result<SessionView, LogError> {
    Err(LogError {
        seq: None,
        reason: "not implemented".into(),
    })
}

/// Builds session bytes from a native session directory's files (relative path → bytes).
///
/// # Errors
/// A [`LogError`] when the directory is not a loadable fx session.
pub fn import_native(_files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, LogError> {
    Err(LogError {
        seq: None,
        reason: "not implemented".into(),
    })
}

/// Writes the files the fx CLI needs to load the session (relative path → bytes).
///
/// # Errors
/// A [`LogError`] when `bytes` is not a valid session log.
pub fn export_native(_bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    Err(LogError {
        seq: None,
        reason: "not implemented".into(),
    })
}
