//! [`AgentConfig`]: what an agent is configured with at creation, read from `env` (gateway
//! endpoint, API key, model, OAuth issuer and client id) and the workspace description.

use std::collections::HashMap;

use crate::auth::{AuthConfig, AuthError};
use crate::gateway::{ChatEndpoint, DEFAULT_MODEL_ID};
use crate::tools::workspace::{RawWorkspace, WorkspaceInfo};

use super::context::ContextPolicy;
use super::core::AgentError;
use super::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use super::modes::validate_model_id;
use super::turn::DEFAULT_STEP_LIMIT;

/// What the agent is configured with at creation. `Debug` never shows the key.
#[derive(Clone)]
pub struct AgentConfig {
    pub endpoint: ChatEndpoint,
    /// `AI_GATEWAY_API_KEY` at start; the agent's current credential is
    /// [`Agent::auth_status`] (a login may replace it).
    pub api_key: Option<String>,
    pub model: String,
    pub workspace: Option<WorkspaceInfo>,
    pub policy: ContextPolicy,
    pub step_limit: u32,
    /// How long a model response may send nothing (`modelIdleTimeoutMs`) before the attempt
    /// is cut and retried ([`DEFAULT_MODEL_IDLE_TIMEOUT_MS`] by default).
    pub model_idle_timeout_ms: u32,
    /// Replaces the stable system prompt ([`super::system_prompt::SYSTEM_PROMPT`]); the
    /// per-step runtime context follows it either way.
    pub system_prompt: Option<String>,
    /// The OAuth issuer and client id (`FX_E2E_OAUTH_ISSUER_URL`, `FX_OAUTH_CLIENT_ID`), or why
    /// the issuer override was refused (reported when a login is attempted).
    pub auth: Result<AuthConfig, AuthError>,
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentConfig")
            .field("endpoint", &self.endpoint)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("workspace", &self.workspace)
            .field("policy", &self.policy)
            .field("step_limit", &self.step_limit)
            .field("model_idle_timeout_ms", &self.model_idle_timeout_ms)
            .field(
                "system_prompt",
                &self.system_prompt.as_ref().map(String::len),
            )
            .field("auth", &self.auth)
            .finish()
    }
}

impl AgentConfig {
    /// Reads the environment (`AI_GATEWAY_API_KEY`, `FX_GATEWAY_CHAT_URL`, `FX_MODEL`) and
    /// validates the workspace description.
    ///
    /// # Errors
    /// [`AgentError::Endpoint`] for a chat URL outside the policy; [`AgentError::Workspace`]
    /// for a workspace that breaks the version-1 contract.
    pub fn from_env(
        env: &HashMap<String, String>,
        workspace: Option<&RawWorkspace>,
    ) -> Result<Self, AgentError> {
        let endpoint = ChatEndpoint::from_env(env.get("FX_GATEWAY_CHAT_URL").map(String::as_str))
            .map_err(AgentError::Endpoint)?;
        let workspace = workspace
            .map(RawWorkspace::validate)
            .transpose()
            .map_err(AgentError::Workspace)?;
        let api_key = env
            .get("AI_GATEWAY_API_KEY")
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty());
        let model = env
            .get("FX_MODEL")
            .filter(|m| validate_model_id(m).is_ok())
            .cloned()
            .unwrap_or_else(|| DEFAULT_MODEL_ID.to_owned());
        Ok(AgentConfig {
            endpoint,
            api_key,
            model,
            workspace,
            policy: ContextPolicy::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            model_idle_timeout_ms: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
            system_prompt: None,
            auth: AuthConfig::from_env(
                env.get(crate::auth::endpoints::ISSUER_OVERRIDE_ENV)
                    .map(String::as_str),
                env.get(crate::auth::endpoints::CLIENT_ID_ENV)
                    .map(String::as_str),
            ),
        })
    }

    /// The config of an agent whose every turn comes with a front end's own plan
    /// ([`super::Agent::run_plan`]: the bots): the chat endpoint, and defaults for the rest.
    #[must_use]
    pub fn for_plans(endpoint: ChatEndpoint) -> Self {
        AgentConfig {
            endpoint,
            api_key: None,
            model: DEFAULT_MODEL_ID.to_owned(),
            workspace: None,
            policy: ContextPolicy::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            model_idle_timeout_ms: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
            system_prompt: None,
            auth: Ok(AuthConfig::production()),
        }
    }

    /// True when a request can be sent without signing in: an API key, or a development
    /// gateway (a loopback chat URL) that needs none.
    #[must_use]
    pub fn has_credential(&self) -> bool {
        self.api_key.is_some() || !self.endpoint.is_canonical()
    }
}
