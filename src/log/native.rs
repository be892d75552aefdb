//! Native session directories (§5, §11): export session bytes as the files the fx CLI loads,
//! and import such a directory (honouring its commit watermark) back into session bytes.
//!
//! Export is deterministic. fx picks a random `authority_id` at creation; an exported session
//! instead uses the first 16 bytes of
//! `SHA-256("fx-wasm:authority:v1\0" || session id || "\0" || log_generation hex)`, so exporting
//! the same bytes twice gives the same files. `session.json` carries an all-zero stat
//! fingerprint and null checkpoint references, which fx treats as a stale cache and answers
//! with a full replay.

use sha2::{Digest, Sha256};

use super::blob::{encode_blob, DISPLAY_PATH};
use super::display::{decode_title, derive, encode_display_json, shown};
use super::error::{LogError, Reason};
use super::json::read::{fields, Path};
use super::json::tree;
use super::json::write::{hex_string, Writer};
use super::loader::{load, Loaded};
use super::notes::{TurnNotes, NOTES_PATH};
use super::types::is_valid_session_id;

/// The deterministic authority id of an exported session.
pub fn derived_authority_id(session_id: &str, generation: &[u8; 16]) -> [u8; 16] {
    let mut hasher = Sha256::new();
    hasher.update(b"fx-wasm:authority:v1\0");
    hasher.update(session_id.as_bytes());
    hasher.update(b"\0");
    hasher.update(hex_string(generation).as_bytes());
    let digest = hasher.finalize();
    let mut id = [0u8; 16];
    id.copy_from_slice(digest.get(..16).unwrap_or(&[0u8; 16]));
    id
}

fn dir_error(detail: impl Into<String>) -> LogError {
    LogError::whole(Reason::InvalidDirectory(detail.into()))
}

/// Strips blob records, leaving the `events.jsonl` stream.
fn events_only(bytes: &[u8], loaded: &Loaded) -> Vec<u8> {
    if loaded.blobs.is_empty() {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(usize::try_from(loaded.events_len).unwrap_or(0));
    let mut pos = 0usize;
    for blob in &loaded.blobs {
        out.extend_from_slice(bytes.get(pos..blob.record_start).unwrap_or_default());
        pos = blob.start + blob.len + 1;
    }
    out.extend_from_slice(bytes.get(pos..).unwrap_or_default());
    out
}

/// Exports session bytes as native session directory files (paths relative to the directory).
///
/// # Errors
/// The loader's [`LogError`] when `bytes` is not a valid log.
pub fn export(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    let loaded = load(bytes)?;
    let state = &loaded.state;
    let generation = hex_string(&loaded.generation);
    let authority_id = derived_authority_id(&state.id, &loaded.generation);
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();

    let mut w = Writer::new();
    w.raw("{\"schema_version\":1,\"session_id\":");
    w.str(&state.id);
    w.raw(",\"authority_id\":");
    w.hex(&authority_id);
    w.raw(",\"storage_format\":\"event_log_v1\",\"source\":\"native_create\"}\n");
    files.push(("authority.json".to_owned(), w.into_bytes()));

    let mut w = Writer::new();
    w.raw("{\"schema_version\":1,\"session_id\":");
    w.str(&state.id);
    w.raw(",\"log_generation\":");
    w.hex(&loaded.generation);
    w.raw(",\"through_seq\":");
    w.u64(loaded.last_seq);
    w.raw(",\"through_event_id\":");
    w.hex(&loaded.last_event_id);
    w.raw(",\"through_event_log_bytes\":");
    w.u64(loaded.events_len);
    w.raw("}\n");
    files.push((format!("commit.{generation}.json"), w.into_bytes()));
    files.push(("commit.lock".to_owned(), Vec::new()));

    if let Some(display) = shown(state, loaded.title.as_deref()) {
        files.push((
            "display.json".to_owned(),
            encode_display_json(&display, &state.origin_workspace_root),
        ));
    }
    files.push(("events.jsonl".to_owned(), events_only(bytes, &loaded)));
    // The last notes record, as it is (fx does not read it; our import does).
    if let Some(notes) = loaded.blobs.iter().rev().find(|b| b.path == NOTES_PATH) {
        let data = bytes
            .get(notes.start..notes.start + notes.len)
            .unwrap_or_default();
        files.push((NOTES_PATH.to_owned(), data.to_vec()));
    }
    for blob in loaded
        .blobs
        .iter()
        .filter(|b| b.path != DISPLAY_PATH && b.path != NOTES_PATH)
    {
        let data = bytes
            .get(blob.start..blob.start + blob.len)
            .unwrap_or_default();
        files.push((blob.path.clone(), data.to_vec()));
    }

    let mut w = Writer::new();
    w.raw("{\"schema_version\":3,\"storage_format\":\"event_log_v1\",\"id\":");
    w.str(&state.id);
    w.raw(",\"authority_id\":");
    w.hex(&authority_id);
    w.raw(",\"log_generation\":");
    w.hex(&loaded.generation);
    w.raw(",\"created_at_ms\":");
    w.i64(state.created_at_ms);
    w.raw(",\"updated_at_ms\":");
    w.i64(state.updated_at_ms);
    w.raw(",\"origin_workspace_root\":");
    w.str(&state.origin_workspace_root);
    w.raw(",\"workspace_root\":");
    w.str(&state.workspace_root);
    w.raw(",\"conversation_language\":");
    w.str(&state.conversation_language);
    w.raw(",\"history_len\":");
    w.u64(state.history.len() as u64);
    w.raw(",\"total_input_tokens\":");
    w.u64(state.total_input_tokens);
    w.raw(",\"total_output_tokens\":");
    w.u64(state.total_output_tokens);
    w.raw(",\"last_event_seq\":");
    w.u64(loaded.last_seq);
    w.raw(",\"event_log_bytes\":");
    w.u64(loaded.events_len);
    w.raw(",\"event_log_stat_fingerprint\":");
    w.hex(&[0u8; 32]);
    w.raw(",\"generation_base_seq\":1,\"generation_base_bytes\":");
    w.u64(loaded.first_frame_len);
    w.raw(",\"checkpoint_seq\":null,\"checkpoint_sha256\":null,\"preferences\":");
    state.preferences.encode(&mut w);
    w.raw("}");
    files.push(("session.json".to_owned(), w.into_bytes()));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Finds the directory prefix (`""` or `"<id>/"`) from the location of `events.jsonl`.
fn prefix_of(files: &[(String, Vec<u8>)]) -> Result<(String, Option<String>), LogError> {
    let mut found = files
        .iter()
        .filter_map(|(name, _)| name.strip_suffix("events.jsonl"));
    let prefix = found
        .next()
        .ok_or_else(|| dir_error("events.jsonl is missing"))?;
    if found.next().is_some() {
        return Err(dir_error("more than one events.jsonl"));
    }
    if prefix.is_empty() {
        return Ok((String::new(), None));
    }
    let dir = prefix
        .strip_suffix('/')
        .filter(|d| is_valid_session_id(d))
        .ok_or_else(|| {
            dir_error("events.jsonl must sit at the top or in a <session id>/ directory")
        })?;
    Ok((prefix.to_owned(), Some(dir.to_owned())))
}

struct Watermark {
    session_id: String,
    generation: [u8; 16],
    through_seq: u64,
    through_event_id: [u8; 16],
    through_bytes: u64,
}

fn parse_json_file<'a>(name: &str, bytes: &'a [u8]) -> Result<tree::Value<'a>, LogError> {
    let text = std::str::from_utf8(bytes).map_err(|_| dir_error(format!("{name} is not UTF-8")))?;
    tree::parse(text).map_err(|r| dir_error(format!("{name}: {r}")))
}

/// Imports a native session directory (paths relative to the directory, optionally under a
/// leading `<id>/`) and returns session bytes: the committed frames, then image blobs.
///
/// # Errors
/// [`Reason::InvalidDirectory`] for a missing or inconsistent file; the loader's error when the
/// committed log is invalid.
pub fn import(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, LogError> {
    let (prefix, dir_id) = prefix_of(files)?;
    let file = |name: &str| {
        let full = format!("{prefix}{name}");
        files
            .iter()
            .find(|(n, _)| *n == full)
            .map(|(_, b)| b.as_slice())
    };
    for pending in ["authority.pending.json", "commit.pending.json"] {
        if file(pending).is_some() {
            return Err(dir_error(format!(
                "{pending} is present: the session is mid-update"
            )));
        }
    }
    let events = file("events.jsonl").unwrap_or_default();

    let authority_bytes =
        file("authority.json").ok_or_else(|| dir_error("authority.json is missing"))?;
    let authority = parse_json_file("authority.json", authority_bytes)?;
    let root = Path::root("authority.json");
    let keys = [
        "schema_version",
        "session_id",
        "authority_id",
        "storage_format",
        "source",
    ];
    let a = fields(&authority, &root, &keys, &[]).map_err(|r| dir_error(r.to_string()))?;
    let authority_id = a
        .str("session_id")
        .map_err(|r| dir_error(r.to_string()))?
        .to_owned();
    let ok = a.u64("schema_version") == Ok(1)
        && a.hex16("authority_id").is_ok()
        && a.str("storage_format") == Ok("event_log_v1")
        && matches!(a.str("source"), Ok("native_create" | "legacy_migration"));
    if !ok {
        return Err(dir_error("authority.json is malformed"));
    }

    // The generation comes from frame 1; its watermark file bounds the committed bytes.
    let first_line = events.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = super::loader::decode_line(first_line).map_err(|r| LogError::at(1, r))?;
    let generation = hex_string(&first.generation);
    let commit_name = format!("commit.{generation}.json");
    let commit_bytes =
        file(&commit_name).ok_or_else(|| dir_error(format!("{commit_name} is missing")))?;
    let commit = parse_json_file(&commit_name, commit_bytes)?;
    let root = Path::root("commit");
    let keys = [
        "schema_version",
        "session_id",
        "log_generation",
        "through_seq",
        "through_event_id",
        "through_event_log_bytes",
    ];
    let read = || -> Result<Watermark, Reason> {
        let c = fields(&commit, &root, &keys, &[])?;
        if c.u64("schema_version")? != 1 {
            return Err(root.key("schema_version").invalid("must be 1"));
        }
        Ok(Watermark {
            session_id: c.str("session_id")?.to_owned(),
            generation: c.hex16("log_generation")?,
            through_seq: c.u64("through_seq")?,
            through_event_id: c.hex16("through_event_id")?,
            through_bytes: c.u64("through_event_log_bytes")?,
        })
    };
    let mark = read().map_err(|r| dir_error(format!("{commit_name}: {r}")))?;
    if mark.generation != first.generation {
        return Err(dir_error("the watermark names another log generation"));
    }
    let committed_len = usize::try_from(mark.through_bytes).unwrap_or(usize::MAX);
    let committed = events
        .get(..committed_len)
        .ok_or_else(|| dir_error("events.jsonl is shorter than its watermark"))?;
    let loaded = load(committed)?;
    if loaded.last_seq != mark.through_seq || loaded.last_event_id != mark.through_event_id {
        return Err(dir_error(
            "the watermark does not match the last committed frame",
        ));
    }
    let id = &loaded.state.id;
    if mark.session_id != *id || authority_id != *id || dir_id.as_ref().is_some_and(|d| d != id) {
        return Err(dir_error(
            "authority.json, the watermark and the log name different sessions",
        ));
    }
    if !loaded.blobs.is_empty() {
        return Err(dir_error("events.jsonl must not contain blob records"));
    }

    let mut out = committed.to_vec();
    for (path, sha) in &loaded.snapshots {
        let Some(data) = file(path) else { continue };
        if Sha256::digest(data).as_slice() != sha {
            return Err(dir_error(format!("{path} does not match its sha256")));
        }
        if data.len() as u64 > super::blob::MAX_BLOB_BYTES {
            return Err(LogError::whole(Reason::BlobTooLarge {
                what: "image blob",
                bytes: data.len() as u64,
            }));
        }
        out.extend_from_slice(&encode_blob(path, data));
    }
    // A title given by `/rename` travels as a display record; a derived one is derived again.
    // An unreadable display.json is ignored, as fx re-derives it.
    if let Some(title) = file(DISPLAY_PATH).and_then(|b| decode_title(b).ok()) {
        if derive(&loaded.state).map(|d| d.title) != Some(title.clone()) {
            let display = shown(&loaded.state, Some(&title));
            if let Some(display) = display {
                let json = encode_display_json(&display, &loaded.state.origin_workspace_root);
                out.extend_from_slice(&encode_blob(DISPLAY_PATH, &json));
            }
        }
    }
    // Turn notes come back when they are readable (as the canonical encoding of what they say).
    if let Some(notes) = file(NOTES_PATH).and_then(TurnNotes::decode) {
        out.extend_from_slice(&encode_blob(NOTES_PATH, &notes.encode()));
    }
    Ok(out)
}
