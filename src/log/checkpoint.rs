//! Control state that is not history: the recovery checkpoint (§4.11) and the permission
//! rules (§4.9, state documents only).

use super::error::Reason;
use super::execution::Execution;
use super::json::read::{fields, Path};
use super::json::tree::Value;
use super::json::write::Writer;
use super::turn::UserTurn;
use super::types::{check_model, DurableBytes, Provider};

macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Reads the wire name.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some(Self::$variant),)+ _ => None }
            }

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }
        }
    };
}

wire_enum!(
    /// Why model recovery started.
    RecoveryCause {
        NetworkInterrupted = "network_interrupted",
        ResponseInterrupted = "response_interrupted",
        ProviderUnavailable = "provider_unavailable",
        RateLimited = "rate_limited",
        SystemResumed = "system_resumed",
        Authentication = "authentication",
        RequestLimitReached = "request_limit_reached",
    }
);

wire_enum!(
    /// What recovery does next.
    RecoveryAction {
        RetryingRequest = "retrying_request",
        ContinuingResponse = "continuing_response",
        RegeneratingTool = "regenerating_tool",
        ContinuingAfterTool = "continuing_after_tool",
        ReconcilingTool = "reconciling_tool",
        WaitingForConnectivity = "waiting_for_connectivity",
        Paused = "paused",
    }
);

wire_enum!(
    /// What is known about the tool in flight.
    ToolState {
        None = "none",
        ProvenUnexecuted = "proven_unexecuted",
        Confirmed = "confirmed",
        Uncertain = "uncertain",
    }
);

wire_enum!(
    /// The kind of a permission rule.
    RuleKind { Command = "command", FileMutation = "file_mutation", StructuredTool = "structured_tool" }
);

/// An in-flight turn preserved for `/continue` after a recoverable provider failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryCheckpoint {
    pub turn_id: u64,
    pub user: UserTurn,
    pub assistant_source: DurableBytes,
    pub execution: Execution,
    pub cause: RecoveryCause,
    pub action: RecoveryAction,
    pub tool_state: ToolState,
    pub route_model: DurableBytes,
    pub route_provider: Provider,
    pub requested_fast_mode: bool,
    pub fast_mode: bool,
    pub max_provider_attempts: u64,
    pub consumed_provider_attempts: u64,
    pub outstanding_reservation: bool,
}

const CHECKPOINT_KEYS: [&str; 14] = [
    "version",
    "turn_id",
    "user",
    "assistant_source",
    "execution",
    "cause",
    "action",
    "tool_state",
    "route_model",
    "requested_fast_mode",
    "fast_mode",
    "max_provider_attempts",
    "consumed_provider_attempts",
    "outstanding_reservation",
];

impl RecoveryCheckpoint {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(value, path, &CHECKPOINT_KEYS, &["route_provider"])?;
        if f.u64("version")? != 1 {
            return Err(Reason::InvalidCheckpoint("version must be 1"));
        }
        let route_model = f.db("route_model")?;
        let model_path = path.key("route_model");
        check_model(
            route_model
                .as_str()
                .ok_or_else(|| model_path.invalid("must be UTF-8"))?,
            &model_path,
        )?;
        let checkpoint = Self {
            turn_id: f.u64("turn_id")?,
            user: UserTurn::decode(f.req("user")?, &path.key("user"))?,
            assistant_source: f.db("assistant_source")?,
            execution: Execution::decode(f.req("execution")?, &path.key("execution"))?,
            cause: f.enumeration("cause", RecoveryCause::parse)?,
            action: f.enumeration("action", RecoveryAction::parse)?,
            tool_state: f.enumeration("tool_state", ToolState::parse)?,
            route_model,
            route_provider: match f.get("route_provider") {
                None => Provider::Gateway,
                Some(_) => f.enumeration("route_provider", Provider::parse)?,
            },
            requested_fast_mode: f.bool("requested_fast_mode")?,
            fast_mode: f.bool("fast_mode")?,
            max_provider_attempts: f.u64("max_provider_attempts")?,
            consumed_provider_attempts: f.u64("consumed_provider_attempts")?,
            outstanding_reservation: f.bool("outstanding_reservation")?,
        };
        checkpoint.validate().map_err(Reason::InvalidCheckpoint)?;
        Ok(checkpoint)
    }

    /// Checks the checkpoint invariants of §4.11.
    ///
    /// # Errors
    /// The broken invariant.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.turn_id == 0 {
            return Err("turn_id must not be 0");
        }
        if self.max_provider_attempts < 1 {
            return Err("max_provider_attempts must be at least 1");
        }
        if self.consumed_provider_attempts > self.max_provider_attempts {
            return Err("consumed_provider_attempts exceeds max_provider_attempts");
        }
        if self.outstanding_reservation
            && self.consumed_provider_attempts >= self.max_provider_attempts
        {
            return Err("an outstanding reservation needs an attempt left");
        }
        Ok(())
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"version\":1,\"turn_id\":");
        w.u64(self.turn_id);
        w.raw(",\"user\":");
        self.user.encode(w);
        w.raw(",\"assistant_source\":");
        w.db(&self.assistant_source);
        w.raw(",\"execution\":");
        self.execution.encode(w);
        w.raw(",\"cause\":\"");
        w.raw(self.cause.as_str());
        w.raw("\",\"action\":\"");
        w.raw(self.action.as_str());
        w.raw("\",\"tool_state\":\"");
        w.raw(self.tool_state.as_str());
        w.raw("\",\"route_model\":");
        w.db(&self.route_model);
        w.raw(",\"route_provider\":\"");
        w.raw(self.route_provider.as_str());
        w.raw("\",\"requested_fast_mode\":");
        w.bool(self.requested_fast_mode);
        w.raw(",\"fast_mode\":");
        w.bool(self.fast_mode);
        w.raw(",\"max_provider_attempts\":");
        w.u64(self.max_provider_attempts);
        w.raw(",\"consumed_provider_attempts\":");
        w.u64(self.consumed_provider_attempts);
        w.raw(",\"outstanding_reservation\":");
        w.bool(self.outstanding_reservation);
        w.raw("}");
    }
}

/// One stored permission decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    pub id: u64,
    pub kind: RuleKind,
    pub canonical: DurableBytes,
    pub display_identity: DurableBytes,
    /// `true` = allow, `false` = deny.
    pub allow: bool,
    pub generation: u64,
}

/// The session's permission rules (schema 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionState {
    pub next_generation: u64,
    pub rules: Vec<PermissionRule>,
}

impl Default for PermissionState {
    fn default() -> Self {
        Self {
            next_generation: 1,
            rules: Vec::new(),
        }
    }
}

impl PermissionState {
    pub(crate) fn decode(value: &Value<'_>, path: &Path<'_>) -> Result<Self, Reason> {
        let f = fields(
            value,
            path,
            &["schema_version", "next_generation", "rules"],
            &[],
        )?;
        if f.u64("schema_version")? != 2 {
            return Err(path
                .key("schema_version")
                .invalid("permission state schema_version must be 2"));
        }
        let rules = f.list("rules", |v, p| {
            let r = fields(
                v,
                p,
                &[
                    "id",
                    "kind",
                    "canonical",
                    "display_identity",
                    "decision",
                    "generation",
                ],
                &[],
            )?;
            Ok(PermissionRule {
                id: r.u64("id")?,
                kind: r.enumeration("kind", RuleKind::parse)?,
                canonical: r.db("canonical")?,
                display_identity: r.db("display_identity")?,
                allow: r.enumeration("decision", |s| match s {
                    "allow" => Some(true),
                    "deny" => Some(false),
                    _ => None,
                })?,
                generation: r.u64("generation")?,
            })
        })?;
        if rules.len() > 1024 {
            return Err(path.key("rules").invalid("at most 1024 rules"));
        }
        Ok(Self {
            next_generation: f.u64("next_generation")?,
            rules,
        })
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.raw("{\"schema_version\":2,\"next_generation\":");
        w.u64(self.next_generation);
        w.raw(",\"rules\":");
        w.list(&self.rules, |w, r| {
            w.raw("{\"id\":");
            w.u64(r.id);
            w.raw(",\"kind\":\"");
            w.raw(r.kind.as_str());
            w.raw("\",\"canonical\":");
            w.db(&r.canonical);
            w.raw(",\"display_identity\":");
            w.db(&r.display_identity);
            w.raw(if r.allow {
                ",\"decision\":\"allow\""
            } else {
                ",\"decision\":\"deny\""
            });
            w.raw(",\"generation\":");
            w.u64(r.generation);
            w.raw("}");
        });
        w.raw("}");
    }
}
