//! The log's error type: [`LogError`] (the seq and a typed [`Reason`]) and its JS code.

use thiserror::Error;

/// Why a session log (or a native session directory) was rejected.
///
/// Every loader rule has its own variant so tests and callers can match on the exact cause.
/// `path` fields name the JSON location, e.g. `payload.turn.user.images[0]`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Reason {
    /// The bytes hold no frame at all.
    #[error("the log is empty")]
    Empty,
    /// The last line has no trailing newline.
    #[error("the last frame has no trailing newline (truncated frame)")]
    TruncatedFrame,
    /// A frame is longer than 8 MiB including its newline.
    #[error("frame is {bytes} bytes, over the 8 MiB (8388608 bytes) frame limit")]
    FrameTooLarge { bytes: usize },
    /// A frame is not valid UTF-8.
    #[error("frame is not valid UTF-8")]
    InvalidUtf8,
    /// A frame (or state document) is not valid JSON.
    #[error("invalid JSON at byte {offset}: {detail}")]
    InvalidJson { offset: usize, detail: &'static str },
    /// An object repeats a key.
    #[error("duplicate key \"{key}\" at byte {offset}")]
    DuplicateKey { key: String, offset: usize },
    /// An object has a key the schema does not allow.
    #[error("unknown key \"{key}\" in {path}")]
    UnknownKey { key: String, path: String },
    /// An object lacks a required key.
    #[error("missing key \"{key}\" in {path}")]
    MissingKey { key: &'static str, path: String },
    /// A value has the wrong JSON type (including `null` where a value is required).
    #[error("{path} must be {expected}")]
    WrongType {
        path: String,
        expected: &'static str,
    },
    /// A number is not a plain integer in range (float, exponent, sign, overflow).
    #[error("{path} must be {expected}")]
    BadInteger {
        path: String,
        expected: &'static str,
    },
    /// A hex id or digest is not lowercase canonical hex of the right length.
    #[error("{path} must be {digits} lowercase hex digits")]
    BadHex { path: String, digits: usize },
    /// A base64 payload is not canonical standard padded base64.
    #[error("{path} is not canonical base64")]
    BadBase64 { path: String },
    /// A durable-bytes object is malformed or decodes to valid UTF-8.
    #[error("{path} is not valid durable bytes: {detail}")]
    BadDurableBytes { path: String, detail: &'static str },
    /// A string enum holds a value the schema does not know.
    #[error("{path} has unknown value \"{value}\"")]
    UnknownValue { path: String, value: String },
    /// A field breaks a value rule (charset, length, absolute path, ...).
    #[error("{path} is invalid: {detail}")]
    InvalidField { path: String, detail: &'static str },
    /// An event kind that `event_log_v1` does not define.
    #[error("unknown event kind \"{0}\"")]
    UnknownEventKind(String),
    /// A frame `schema_version` other than 1.
    #[error("unsupported event schema_version {0}")]
    UnsupportedSchema(String),
    /// A seq gap, repeat or reordering.
    #[error("expected seq {expected}, found {found}")]
    NonContiguousSequence { expected: u64, found: u64 },
    /// A frame carries another `log_generation` than frame 1.
    #[error("log_generation changed inside the log")]
    GenerationChanged,
    /// The first frame is not `session_started` at seq 1.
    #[error("the first frame must be session_started")]
    MissingSessionStarted,
    /// A `session_started` frame after the first.
    #[error("a second session_started frame")]
    SecondSessionStarted,
    /// A frame tries to change the session identity (id, created_at, roots).
    #[error("session identity cannot change: {0}")]
    ImmutableIdentity(&'static str),
    /// A usage snapshot breaks an invariant.
    #[error("usage snapshot at {path} is invalid: {detail}")]
    InvalidUsage { path: String, detail: &'static str },
    /// A recovery checkpoint breaks an invariant.
    #[error("recovery checkpoint is invalid: {0}")]
    InvalidCheckpoint(&'static str),
    /// A `work_id` association conflict.
    #[error("work_id is invalid: {0}")]
    InvalidWorkId(&'static str),
    /// A `workspace_rebound` that does not follow the current root.
    #[error("workspace_rebound is invalid: {0}")]
    InvalidRebound(&'static str),
    /// Malformed `arguments_json` whose paired result cannot be repaired.
    #[error("tool call at {path} has malformed arguments_json and {detail}")]
    UnrepairableArguments { path: String, detail: &'static str },
    /// A state replacement transaction failed an integrity check.
    #[error("state replacement is invalid: {0}")]
    InvalidReplacement(&'static str),
    /// The log ends inside a state replacement.
    #[error("the log ends inside a state replacement started at seq {0}")]
    IncompleteReplacement(u64),
    /// A decoded state document or blob is over 16 MiB.
    #[error("{what} is {bytes} bytes, over the 16 MiB limit")]
    BlobTooLarge { what: &'static str, bytes: u64 },
    /// A `#fx-blob` record is malformed or does not match a referenced image snapshot.
    #[error("image blob record is invalid: {0}")]
    InvalidBlob(String),
    /// A native session directory is not loadable (missing file, watermark mismatch, ...).
    #[error("native session directory is invalid: {0}")]
    InvalidDirectory(String),
    /// The caller asked the appender for something the format cannot hold.
    #[error("cannot append: {0}")]
    InvalidAppend(String),
}

/// A rejected session log: the seq of the offending frame and why.
///
/// `seq` is the position of the offending line among the frames (1-based), i.e. the seq the
/// line carries in a valid log; it is `None` for errors not tied to a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    /// The seq of the offending frame (or of the line that would have carried it).
    pub seq: Option<u64>,
    /// What was wrong.
    pub reason: Reason,
}

impl LogError {
    /// An error tied to the frame at `seq`.
    pub fn at(seq: u64, reason: Reason) -> Self {
        Self {
            seq: Some(seq),
            reason,
        }
    }

    /// An error not tied to a frame.
    pub fn whole(reason: Reason) -> Self {
        Self { seq: None, reason }
    }

    /// The JS error code.
    pub fn code(&self) -> crate::Code {
        crate::Code::SessionInvalid
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
