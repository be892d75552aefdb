//! Committed diff presentations (§4.4): what a file-changing tool result shows, line by line.

use super::error::Reason;
use super::json::read::{as_u64, fields, Path};
use super::json::tree::Value;
use super::json::write::Writer;
use super::types::DurableBytes;

/// A diff line kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLineKind {
    Context,
    Addition,
    Deletion,
    Elision,
    Notice,
}

const DIFF_KINDS: [(&str, DiffLineKind); 5] = [
    ("context", DiffLineKind::Context),
    ("addition", DiffLineKind::Addition),
    ("deletion", DiffLineKind::Deletion),
    ("elision", DiffLineKind::Elision),
    ("notice", DiffLineKind::Notice),
];

/// One line of a committed diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffLineKind,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub text: DurableBytes,
}

/// The diff shown for a file a tool added or edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePresentation {
    pub path: DurableBytes,
    /// `true` for `added`, `false` for `edited`.
    pub added: bool,
    pub lines: Vec<DiffLine>,
    pub additions: u64,
    pub deletions: u64,
    pub truncated: bool,
    pub previous_content: Option<DurableBytes>,
    pub after_content: Option<DurableBytes>,
    /// `(turn_id, call_id)`.
    pub lifecycle_id: Option<(u64, DurableBytes)>,
}

fn lookup<T: Copy>(table: &[(&str, T)], s: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == s).map(|(_, v)| *v)
}

fn opt_u32(value: Option<&Value<'_>>, path: &Path<'_>) -> Result<Option<u32>, Reason> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => u32::try_from(as_u64(v, path)?)
            .map(Some)
            .map_err(|_| Reason::BadInteger {
                path: path.render(),
                expected: "a 32-bit unsigned integer",
            }),
    }
}

pub(crate) fn decode_presentation(
    value: &Value<'_>,
    path: &Path<'_>,
) -> Result<FilePresentation, Reason> {
    let keys = [
        "path",
        "kind",
        "lines",
        "additions",
        "deletions",
        "truncated",
        "previous_content",
        "after_content",
        "lifecycle_id",
    ];
    let f = fields(value, path, &keys, &[])?;
    let lifecycle_id = match f.req("lifecycle_id")? {
        Value::Null => None,
        v => {
            let lp = path.key("lifecycle_id");
            let l = fields(v, &lp, &["turn_id", "call_id"], &[])?;
            Some((l.u64("turn_id")?, l.db("call_id")?))
        }
    };
    Ok(FilePresentation {
        path: f.db("path")?,
        added: f.enumeration("kind", |s| match s {
            "added" => Some(true),
            "edited" => Some(false),
            _ => None,
        })?,
        lines: f.list("lines", |v, p| {
            let l = fields(v, p, &["kind", "old_line", "new_line", "text"], &[])?;
            Ok(DiffLine {
                kind: l.enumeration("kind", |s| lookup(&DIFF_KINDS, s))?,
                old_line: opt_u32(l.get("old_line"), &p.key("old_line"))?,
                new_line: opt_u32(l.get("new_line"), &p.key("new_line"))?,
                text: l.db("text")?,
            })
        })?,
        additions: f.u64("additions")?,
        deletions: f.u64("deletions")?,
        truncated: f.bool("truncated")?,
        previous_content: f.opt_db("previous_content")?,
        after_content: f.opt_db("after_content")?,
        lifecycle_id,
    })
}

pub(crate) fn encode_presentation(w: &mut Writer, p: &FilePresentation) {
    w.raw("{\"path\":");
    w.db(&p.path);
    w.raw(if p.added {
        ",\"kind\":\"added\",\"lines\":"
    } else {
        ",\"kind\":\"edited\",\"lines\":"
    });
    w.list(&p.lines, |w, l| {
        w.raw("{\"kind\":\"");
        w.raw(
            DIFF_KINDS
                .iter()
                .find(|(_, k)| *k == l.kind)
                .map_or("notice", |(n, _)| n),
        );
        w.raw("\",\"old_line\":");
        w.opt_u64(l.old_line.map(u64::from));
        w.raw(",\"new_line\":");
        w.opt_u64(l.new_line.map(u64::from));
        w.raw(",\"text\":");
        w.db(&l.text);
        w.raw("}");
    });
    w.raw(",\"additions\":");
    w.u64(p.additions);
    w.raw(",\"deletions\":");
    w.u64(p.deletions);
    w.raw(",\"truncated\":");
    w.bool(p.truncated);
    w.raw(",\"previous_content\":");
    w.opt_db(p.previous_content.as_ref());
    w.raw(",\"after_content\":");
    w.opt_db(p.after_content.as_ref());
    w.raw(",\"lifecycle_id\":");
    match &p.lifecycle_id {
        None => w.null(),
        Some((turn_id, call_id)) => {
            w.raw("{\"turn_id\":");
            w.u64(*turn_id);
            w.raw(",\"call_id\":");
            w.db(call_id);
            w.raw("}");
        }
    }
    w.raw("}");
}
