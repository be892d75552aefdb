//! Display metadata (§5.8): the session title and preview derived from the first usable user
//! prompt, and the `display.json` sidecar.

use super::error::Reason;
use super::json::tree;
use super::json::write::Writer;
use super::state::SessionState;
use super::turn::HistoryTurn;

/// Title and preview limits in bytes.
const MAX_DISPLAY_BYTES: usize = 240;
/// The title keeps at most this many words.
const TITLE_WORDS: usize = 8;

/// A session's display title and preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Display {
    pub title: String,
    pub preview: Option<String>,
}

fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

fn trim_line(line: &str) -> &str {
    line.trim_matches(|c| c == ' ' || c == '\t' || c == '\r')
}

/// True for a one-line prompt that is a slash command (`/compact`, `/fast`, ...).
fn is_command(text: &str) -> bool {
    text.starts_with('/') && !text.contains('\n')
}

/// Derives the display title and preview, or `None` while the history is empty.
pub fn derive(state: &SessionState) -> Option<Display> {
    if state.history.is_empty() {
        return None;
    }
    let mut image_only = false;
    for turn in &state.history {
        let Some(user) = turn.user() else { continue };
        if matches!(turn, HistoryTurn::CompactedSummary(_)) {
            continue;
        }
        let trimmed = user.text.as_bytes().trim_ascii();
        if trimmed.is_empty() {
            image_only |= !user.images.is_empty();
            continue;
        }
        let Some(text) = user.text.as_str() else {
            return Some(Display {
                title: "Untitled session".to_owned(),
                preview: None,
            });
        };
        if is_command(text.trim()) {
            continue;
        }
        let mut lines = text.split('\n').map(trim_line).filter(|l| !l.is_empty());
        let first = lines.next().unwrap_or_default();
        let title_words: Vec<&str> = first.split_whitespace().take(TITLE_WORDS).collect();
        let title = cut(&title_words.join(" "), MAX_DISPLAY_BYTES).to_owned();
        let preview_lines: Vec<&str> = std::iter::once(first).chain(lines.take(1)).collect();
        let preview = cut(&preview_lines.join("\n"), MAX_DISPLAY_BYTES).to_owned();
        return Some(Display {
            title,
            preview: Some(preview),
        });
    }
    let title = if image_only {
        "Image session"
    } else {
        "Untitled session"
    };
    Some(Display {
        title: title.to_owned(),
        preview: None,
    })
}

/// Encodes `display.json` (no trailing newline).
pub fn encode_display_json(display: &Display, origin_workspace_root: &str) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw("{\"schema_version\":1,\"title\":");
    w.str(&display.title);
    w.raw(",\"preview\":");
    w.opt_str(display.preview.as_deref());
    w.raw(",\"origin_workspace_root\":");
    w.str(origin_workspace_root);
    w.raw("}");
    w.into_bytes()
}

/// Normalises a title given by `/rename`: one line, inner whitespace collapsed, at most 240
/// bytes; `None` when nothing is left.
pub fn clean_title(title: &str) -> Option<String> {
    let words: Vec<&str> = title.split_whitespace().collect();
    let joined = words.join(" ");
    let cut = cut(&joined, MAX_DISPLAY_BYTES);
    (!cut.is_empty()).then(|| cut.to_owned())
}

/// The display of a session: the renamed `title` when there is one (the preview is still
/// derived), else the derived one.
pub fn shown(state: &SessionState, title: Option<&str>) -> Option<Display> {
    let derived = derive(state);
    match title {
        Some(title) => Some(Display {
            title: title.to_owned(),
            preview: derived.and_then(|d| d.preview),
        }),
        None => derived,
    }
}

/// Reads the title of a `display.json` (fx's decoding is tolerant: extra keys are allowed;
/// `title`, `preview` and `origin_workspace_root` must be present).
///
/// # Errors
/// [`Reason::InvalidBlob`] naming what is wrong.
pub fn decode_title(bytes: &[u8]) -> Result<String, Reason> {
    let bad = |detail: &str| Reason::InvalidBlob(format!("display.json: {detail}"));
    let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
    let value = tree::parse(text).map_err(|r| bad(&r.to_string()))?;
    let tree::Value::Obj(entries) = &value else {
        return Err(bad("must be an object"));
    };
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    for key in ["preview", "origin_workspace_root"] {
        if get(key).is_none() {
            return Err(bad(&format!("{key} is missing")));
        }
    }
    let Some(tree::Value::Str(title)) = get("title") else {
        return Err(bad("title must be a string"));
    };
    clean_title(title)
        .filter(|t| t == title)
        .ok_or_else(|| bad("title must be one non-empty line of at most 240 bytes"))
}
