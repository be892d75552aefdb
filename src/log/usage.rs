//! The usage snapshot (§4.10): rollback-readable form (read and written), the rich form
//! (read in state documents, projected to the rollback form), and the snapshot invariants.

use super::error::Reason;
use super::json::read::{as_i64, as_u64, fields, Fields, Path};
use super::json::tree::Value;
use super::json::write::Writer;

/// Billing completeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Billing {
    #[default]
    Complete,
    Pending,
    Incomplete,
    Legacy,
}

impl Billing {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "complete" => Some(Self::Complete),
            "pending" => Some(Self::Pending),
            "incomplete" => Some(Self::Incomplete),
            "legacy" => Some(Self::Legacy),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Pending => "pending",
            Self::Incomplete => "incomplete",
            Self::Legacy => "legacy",
        }
    }
}

/// Usage of one model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelUsage {
    pub model: String,
    pub first_sequence: u64,
    pub total_cost: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub billable_web_search_calls: u64,
}

/// A generation whose cost is not settled yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingUsage {
    pub id: String,
    pub sequence: u64,
    pub origin: String,
    pub team: Option<String>,
}

/// The cumulative usage of a session (rollback-readable form, 18 keys).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageSnapshot {
    pub billing: Billing,
    pub api_duration_complete: bool,
    pub wall_duration_complete: bool,
    pub code_complete: bool,
    pub next_sequence: u64,
    pub settled_through_sequence: u64,
    pub api_duration_ms: u64,
    pub wall_duration_ms: u64,
    pub total_cost: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub billable_web_search_calls: u64,
    pub lines_added: u64,
    pub lines_removed: u64,
    pub models: Vec<ModelUsage>,
    pub pending: Vec<PendingUsage>,
}

impl Default for UsageSnapshot {
    /// A fresh snapshot: complete, sequence 1, all counters zero.
    fn default() -> Self {
        Self {
            billing: Billing::Complete,
            api_duration_complete: true,
            wall_duration_complete: true,
            code_complete: true,
            next_sequence: 1,
            settled_through_sequence: 0,
            api_duration_ms: 0,
            wall_duration_ms: 0,
            total_cost: 0.0,
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            billable_web_search_calls: 0,
            lines_added: 0,
            lines_removed: 0,
            models: Vec::new(),
            pending: Vec::new(),
        }
    }
}

const TOP_KEYS: [&str; 18] = [
    "billing",
    "api_duration_complete",
    "wall_duration_complete",
    "code_complete",
    "next_sequence",
    "settled_through_sequence",
    "api_duration_ms",
    "wall_duration_ms",
    "total_cost",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "billable_web_search_calls",
    "lines_added",
    "lines_removed",
    "models",
    "pending",
];
const RICH_TOP: [&str; 5] = [
    "schema_version",
    "reasoning_tokens",
    "request_count",
    "publication_backlog",
    "incidents",
];
const MODEL_KEYS: [&str; 8] = [
    "model",
    "first_sequence",
    "total_cost",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "billable_web_search_calls",
];
const RICH_COUNTERS: [&str; 2] = ["reasoning_tokens", "request_count"];

fn opt_u64(f: &Fields<'_, '_, '_>, key: &'static str) -> Result<Option<u64>, Reason> {
    match f.req(key)? {
        Value::Null => Ok(None),
        v => as_u64(v, &f.path.key(key)).map(Some),
    }
}

fn ident(
    f: &Fields<'_, '_, '_>,
    key: &'static str,
    max: usize,
    total: &mut usize,
) -> Result<String, Reason> {
    let text = f.str(key)?;
    if text.is_empty() || text.len() > max || !text.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(Reason::InvalidUsage {
            path: f.path.key(key).render(),
            detail: "identifiers must be printable ASCII within their length limit",
        });
    }
    *total += text.len();
    Ok(text.to_owned())
}

impl UsageSnapshot {
    /// Reads either form; `rich_allowed` admits the 23-key rich form (state documents only).
    pub(crate) fn decode(
        value: &Value<'_>,
        path: &Path<'_>,
        rich_allowed: bool,
    ) -> Result<Self, Reason> {
        let rich = rich_allowed
            && matches!(value, Value::Obj(e) if e.iter().any(|(k, _)| k == "schema_version"));
        let mut required: Vec<&'static str> = TOP_KEYS.to_vec();
        if rich {
            required.extend_from_slice(&RICH_TOP);
        }
        let f = fields(value, path, &required, &[])?;
        if rich {
            if f.u64("schema_version")? != 2 {
                return Err(path
                    .key("schema_version")
                    .invalid("rich usage schema_version must be 2"));
            }
            opt_u64(&f, "reasoning_tokens")?;
            opt_u64(&f, "request_count")?;
            decode_rich_tail(&f)?;
        }
        let mut ident_bytes = 0usize;
        let models = f.list("models", |v, p| {
            let mut keys = MODEL_KEYS.to_vec();
            if rich {
                keys.extend_from_slice(&RICH_COUNTERS);
            }
            let m = fields(v, p, &keys, &[])?;
            if rich {
                opt_u64(&m, "reasoning_tokens")?;
                opt_u64(&m, "request_count")?;
            }
            Ok(ModelUsage {
                model: ident(&m, "model", 1024, &mut ident_bytes)?,
                first_sequence: m.u64("first_sequence")?,
                total_cost: m.f64("total_cost")?,
                input_tokens: m.u64("input_tokens")?,
                output_tokens: m.u64("output_tokens")?,
                cache_read_tokens: m.u64("cache_read_tokens")?,
                cache_write_tokens: m.u64("cache_write_tokens")?,
                billable_web_search_calls: m.u64("billable_web_search_calls")?,
            })
        })?;
        let pending = f.list("pending", |v, p| {
            let keys: &[&str] = if rich {
                &["id", "sequence", "origin", "team", "observed_at_ms"]
            } else {
                &["id", "sequence", "origin", "team"]
            };
            let e = fields(v, p, keys, &[])?;
            if rich && !matches!(e.req("observed_at_ms")?, Value::Null) {
                e.i64("observed_at_ms")?;
            }
            let team = match e.req("team")? {
                Value::Null => None,
                _ => Some(ident(&e, "team", 255, &mut ident_bytes)?),
            };
            Ok(PendingUsage {
                id: ident(&e, "id", 1024, &mut ident_bytes)?,
                sequence: e.u64("sequence")?,
                origin: ident(&e, "origin", 2048, &mut ident_bytes)?,
                team,
            })
        })?;
        let snapshot = Self {
            billing: f.enumeration("billing", Billing::parse)?,
            api_duration_complete: f.bool("api_duration_complete")?,
            wall_duration_complete: f.bool("wall_duration_complete")?,
            code_complete: f.bool("code_complete")?,
            next_sequence: f.u64("next_sequence")?,
            settled_through_sequence: f.u64("settled_through_sequence")?,
            api_duration_ms: f.u64("api_duration_ms")?,
            wall_duration_ms: f.u64("wall_duration_ms")?,
            total_cost: f.f64("total_cost")?,
            input_tokens: f.u64("input_tokens")?,
            output_tokens: f.u64("output_tokens")?,
            cache_read_tokens: f.u64("cache_read_tokens")?,
            cache_write_tokens: f.u64("cache_write_tokens")?,
            billable_web_search_calls: f.u64("billable_web_search_calls")?,
            lines_added: f.u64("lines_added")?,
            lines_removed: f.u64("lines_removed")?,
            models,
            pending,
        };
        if ident_bytes > 8192 {
            return Err(Reason::InvalidUsage {
                path: path.render(),
                detail: "identifiers exceed 8 KiB in total",
            });
        }
        snapshot.validate().map_err(|detail| Reason::InvalidUsage {
            path: path.render(),
            detail,
        })?;
        Ok(snapshot)
    }

    /// Checks the snapshot invariants of §4.10.
    ///
    /// # Errors
    /// The broken invariant.
    pub fn validate(&self) -> Result<(), &'static str> {
        let next = self.next_sequence;
        if next < 1 {
            return Err("next_sequence must be at least 1");
        }
        if self.settled_through_sequence >= next {
            return Err("settled_through_sequence must be below next_sequence");
        }
        if self.models.len() > 32 {
            return Err("more than 32 models");
        }
        if self.pending.len() > 16 {
            return Err("more than 16 pending generations");
        }
        let cost_ok = |c: f64| c.is_finite() && c >= 0.0;
        if !cost_ok(self.total_cost) {
            return Err("total_cost must be finite and not negative");
        }
        let mut sums = [0u64; 5];
        let mut cost_sum = 0.0f64;
        let mut prev_seq = 0u64;
        for (i, m) in self.models.iter().enumerate() {
            if m.first_sequence < 1 || m.first_sequence >= next || m.first_sequence <= prev_seq {
                return Err("model first_sequence out of range or not increasing");
            }
            prev_seq = m.first_sequence;
            if !cost_ok(m.total_cost) {
                return Err("model total_cost must be finite and not negative");
            }
            if m.cache_read_tokens > m.input_tokens || m.cache_write_tokens > m.input_tokens {
                return Err("model cache tokens exceed its input tokens");
            }
            if self.models.iter().skip(i + 1).any(|o| o.model == m.model) {
                return Err("model names must be unique");
            }
            cost_sum += m.total_cost;
            let counters = [
                m.input_tokens,
                m.output_tokens,
                m.cache_read_tokens,
                m.cache_write_tokens,
                m.billable_web_search_calls,
            ];
            for (sum, v) in sums.iter_mut().zip(counters) {
                *sum = sum.checked_add(v).ok_or("model counters overflow")?;
            }
        }
        let top = [
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.billable_web_search_calls,
        ];
        if top != sums {
            return Err("token counters must equal the sum over models");
        }
        let tolerance = f64::max(1e-12, self.total_cost * 1e-12);
        if (self.total_cost - cost_sum).abs() > tolerance {
            return Err("total_cost must equal the sum of the model costs");
        }
        for (i, p) in self.pending.iter().enumerate() {
            if p.sequence < 1 || p.sequence >= next {
                return Err("pending sequence out of range");
            }
            if self
                .pending
                .iter()
                .skip(i + 1)
                .any(|o| o.id == p.id || o.sequence == p.sequence)
            {
                return Err("pending ids and sequences must be unique");
            }
        }
        match self.billing {
            Billing::Complete if !self.pending.is_empty() => {
                Err("complete billing requires no pending generations")
            }
            Billing::Pending if self.pending.is_empty() => {
                Err("pending billing requires pending generations")
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"billing\":\"");
        w.raw(self.billing.as_str());
        w.raw("\",\"api_duration_complete\":");
        w.bool(self.api_duration_complete);
        w.raw(",\"wall_duration_complete\":");
        w.bool(self.wall_duration_complete);
        w.raw(",\"code_complete\":");
        w.bool(self.code_complete);
        for (key, v) in [
            ("next_sequence", self.next_sequence),
            ("settled_through_sequence", self.settled_through_sequence),
            ("api_duration_ms", self.api_duration_ms),
            ("wall_duration_ms", self.wall_duration_ms),
        ] {
            w.raw(",\"");
            w.raw(key);
            w.raw("\":");
            w.u64(v);
        }
        w.raw(",\"total_cost\":");
        w.f64(self.total_cost);
        for (key, v) in [
            ("input_tokens", self.input_tokens),
            ("output_tokens", self.output_tokens),
            ("cache_read_tokens", self.cache_read_tokens),
            ("cache_write_tokens", self.cache_write_tokens),
            ("billable_web_search_calls", self.billable_web_search_calls),
            ("lines_added", self.lines_added),
            ("lines_removed", self.lines_removed),
        ] {
            w.raw(",\"");
            w.raw(key);
            w.raw("\":");
            w.u64(v);
        }
        w.raw(",\"models\":");
        w.list(&self.models, |w, m| {
            w.raw("{\"model\":");
            w.str(&m.model);
            w.raw(",\"first_sequence\":");
            w.u64(m.first_sequence);
            w.raw(",\"total_cost\":");
            w.f64(m.total_cost);
            for (key, v) in [
                ("input_tokens", m.input_tokens),
                ("output_tokens", m.output_tokens),
                ("cache_read_tokens", m.cache_read_tokens),
                ("cache_write_tokens", m.cache_write_tokens),
                ("billable_web_search_calls", m.billable_web_search_calls),
            ] {
                w.raw(",\"");
                w.raw(key);
                w.raw("\":");
                w.u64(v);
            }
            w.raw("}");
        });
        w.raw(",\"pending\":");
        w.list(&self.pending, |w, p| {
            w.raw("{\"id\":");
            w.str(&p.id);
            w.raw(",\"sequence\":");
            w.u64(p.sequence);
            w.raw(",\"origin\":");
            w.str(&p.origin);
            w.raw(",\"team\":");
            w.opt_str(p.team.as_deref());
            w.raw("}");
        });
        w.raw("}");
    }
}

/// Checks the rich-only lists (`publication_backlog`, `incidents`); their content is not kept.
fn decode_rich_tail(f: &Fields<'_, '_, '_>) -> Result<(), Reason> {
    let backlog = f.list("publication_backlog", |v, p| {
        let keys = [
            "id",
            "created_at_ms",
            "model",
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "reasoning_tokens",
            "billable_web_search_calls",
            "total_cost",
        ];
        let g = fields(v, p, &keys, &[])?;
        g.str("id")?;
        g.i64("created_at_ms")?;
        g.str("model")?;
        for key in [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "billable_web_search_calls",
        ] {
            g.u64(key)?;
        }
        opt_u64(&g, "reasoning_tokens")?;
        g.f64("total_cost")?;
        Ok(())
    })?;
    let incidents = f.list("incidents", |v, p| {
        let i = fields(v, p, &["occurred_at_ms", "completeness"], &[])?;
        as_i64(i.req("occurred_at_ms")?, &p.key("occurred_at_ms"))?;
        i.enumeration("completeness", |s| {
            matches!(s, "pending" | "incomplete").then_some(())
        })
    })?;
    if backlog.len() > 16 || incidents.len() > 16 {
        return Err(Reason::InvalidUsage {
            path: f.path.render(),
            detail: "more than 16 backlog entries or incidents",
        });
    }
    Ok(())
}
