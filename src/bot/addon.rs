//! Add-ons (fxbot DESIGN §4.4, §5.2, §9.2, §9.3): the `AddonRef` forms, the stored documents of
//! skills (`addon/skill/<name>`) and remote MCP servers (`addon/server/<id>`, with the header
//! values in `secret/addon/<id>`), the views the JS surface returns, and the rules of
//! `addServer`, `update` and the server URL.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::docs::SCHEMA;
use super::ids::{is_hex_id, BotId, ProviderId};
use super::kinds::check_url;
use super::shown::{kind_of, shown};
use crate::mcp::client::Tool;
use crate::mcp::headers::{self, HeaderError};
use crate::net::url;

/// `server:<12 hex>`.
pub const SERVER_REF: &str = "server:";
/// `skill:<name>`.
pub const SKILL_REF: &str = "skill:";
/// Prefix of every server document.
pub const SERVER_PREFIX: &str = "addon/server/";
/// Prefix of every skill document.
pub const SKILL_PREFIX: &str = "addon/skill/";
/// Longest server name.
pub const MAX_SERVER_NAME: usize = 64;
/// Most headers a server is added with.
pub const MAX_HEADERS: usize = 32;
/// Longest server URL.
pub const MAX_URL: usize = 2048;

/// A server's id: the same 12-hex shape as the other ids (minted from host randomness).
pub type ServerId = ProviderId;

/// Which add-on a call means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddonRef {
    Server(ServerId),
    Skill(String),
}

impl AddonRef {
    /// Reads `server:<id>` or `skill:<name>`; a bare id or name is refused, so a reference is
    /// never ambiguous.
    ///
    /// # Errors
    /// [`AddonError::NotARef`] for anything else.
    pub fn parse(text: &str) -> Result<Self, AddonError> {
        let refused = || AddonError::NotARef { shown: shown(text) };
        if let Some(id) = text.strip_prefix(SERVER_REF) {
            if is_hex_id(id) {
                return ServerId::parse(id)
                    .map(AddonRef::Server)
                    .map_err(|_| refused());
            }
        } else if let Some(name) = text.strip_prefix(SKILL_REF) {
            if super::skill::valid_name(name) {
                return Ok(AddonRef::Skill(name.to_owned()));
            }
        }
        Err(refused())
    }

    /// Reads a JSON argument (it must be a string).
    ///
    /// # Errors
    /// [`AddonError::NotAString`] or [`AddonError::NotARef`].
    pub fn from_json(value: &Value) -> Result<Self, AddonError> {
        match value {
            Value::String(text) => Self::parse(text),
            other => Err(AddonError::NotAString {
                field: "ref",
                found: kind_of(other),
            }),
        }
    }

    /// The document key.
    pub fn key(&self) -> String {
        match self {
            AddonRef::Server(id) => server_key(id),
            AddonRef::Skill(name) => skill_key(name),
        }
    }
}

impl std::fmt::Display for AddonRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddonRef::Server(id) => write!(f, "{SERVER_REF}{id}"),
            AddonRef::Skill(name) => write!(f, "{SKILL_REF}{name}"),
        }
    }
}

/// `addon/server/<id>`.
pub fn server_key(id: &ServerId) -> String {
    format!("{SERVER_PREFIX}{id}")
}

/// `secret/addon/<id>`: the header values.
pub fn secret_key(id: &ServerId) -> String {
    format!("secret/addon/{id}")
}

/// `addon/skill/<name>` (a checked name: no `/`).
pub fn skill_key(name: &str) -> String {
    format!("{SKILL_PREFIX}{name}")
}

/// An add-on argument that breaks a rule (a 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddonError {
    #[error("{shown} is not an add-on reference: use server:<12 hex characters> or skill:<name>")]
    NotARef { shown: String },
    #[error("{field} must be a string, not {found}")]
    NotAString {
        field: &'static str,
        found: &'static str,
    },
    #[error("{call} takes an object, not {found}")]
    NotAnObject {
        call: &'static str,
        found: &'static str,
    },
    #[error("{0}")]
    Skill(#[from] super::skill::SkillError),
    #[error("addSkill takes {{ markdown }} or {{ url }}, exactly one of them")]
    SkillSource,
    #[error("a skill named {0} exists already; update or remove it first")]
    SkillExists(String),
    #[error("skill:{0} was not added from a URL, so there is nothing to refresh")]
    NotFromUrl(String),
    #[error("the skill at that URL is named {found}, not {name}")]
    Renamed { name: String, found: String },
    #[error("{0}")]
    Url(String),
    #[error(
        "the server name must be 1 to {MAX_SERVER_NAME} characters without control characters"
    )]
    Name,
    #[error("auth must be \"none\" or \"oauth\", not {0}")]
    Auth(String),
    #[error("headers must be an object of strings")]
    HeadersShape,
    #[error("a server takes at most {MAX_HEADERS} headers")]
    TooManyHeaders,
    #[error("{0}")]
    Header(#[from] HeaderError),
    #[error("{0}")]
    HeaderUpdate(#[from] headers::UpdateError),
    #[error("allowed must be an array of the server's tool names")]
    AllowedShape,
    #[error("the server lists no tool named {0}")]
    UnknownTool(String),
    #[error("bots must be an array of bot ids")]
    BotsShape,
    #[error("{field} does not apply to a {kind}")]
    NotFor {
        field: &'static str,
        kind: &'static str,
    },
    #[error("server:{0} does not sign in with OAuth")]
    NotOAuth(String),
    #[error("origin must be the page's origin, http(s)://host[:port], not {0}")]
    Origin(String),
    #[error("oauth takes {{ origin }}")]
    OAuthOptions,
    #[error("no sign-in is waiting for this callback (its state is unknown, or it was completed already)")]
    UnknownState,
    #[error("this sign-in started more than 10 minutes ago; start it again with addons.oauth")]
    Expired,
    #[error("{0}")]
    Callback(String),
}

/// Checks the page origin `oauth()` is given: `http(s)://host[:port]`, nothing after it.
///
/// # Errors
/// [`AddonError::Origin`].
pub fn check_origin(text: &str) -> Result<String, AddonError> {
    let refused = || AddonError::Origin(shown(text));
    let parsed = url::parse(text).map_err(|_| refused())?;
    if parsed.userinfo || parsed.query.is_some() || parsed.fragment || !parsed.path.is_empty() {
        return Err(refused());
    }
    Ok(text.trim_matches(|c: char| c <= ' ').to_owned())
}

/// Checks a server's (or a skill's) URL by the baseUrl rules (§7.3, [`check_url`]): https, or
/// http on a loopback host; no credentials, query or fragment. Returns it normalised.
///
/// # Errors
/// [`AddonError::Url`] naming what is wrong.
pub fn check_server_url(text: &str) -> Result<String, AddonError> {
    if text.len() > MAX_URL {
        return Err(AddonError::Url(format!(
            "url {} is longer than 2048 characters",
            shown(text)
        )));
    }
    check_url("url", "give a credential as a header", text).map_err(AddonError::Url)
}

/// The name slug the model's tool names use (`mcp_<slug>_<tool>`).
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() {
        "server".to_owned()
    } else {
        out
    }
}

fn check_name(name: &str) -> Result<String, AddonError> {
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_SERVER_NAME
        || name.chars().any(char::is_control)
    {
        return Err(AddonError::Name);
    }
    Ok(name.to_owned())
}

/// `addon/skill/<name>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillDoc {
    pub schema: u32,
    pub name: String,
    pub description: String,
    pub instructions: String,
    pub source_url: Option<String>,
    pub bots: Vec<BotId>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl SkillDoc {
    pub fn new(text: super::skill::SkillText, source_url: Option<String>, at: &str) -> Self {
        SkillDoc {
            schema: SCHEMA,
            name: text.name,
            description: text.description,
            instructions: text.instructions,
            source_url,
            bots: Vec::new(),
            created_at: at.to_owned(),
            updated_at: at.to_owned(),
            extra: BTreeMap::new(),
        }
    }

    /// The seed's `Skill`.
    pub fn view(&self) -> Value {
        json!({
            "ref": format!("{SKILL_REF}{}", self.name),
            "kind": "skill",
            "name": self.name,
            "description": self.description,
            "instructions": self.instructions,
            "sourceUrl": self.source_url,
            "bots": self.bots,
        })
    }
}

/// A tool as a server listed it, kept with its server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDoc {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub read_only: bool,
    pub input_schema: Value,
}

impl From<&Tool> for ToolDoc {
    fn from(tool: &Tool) -> Self {
        ToolDoc {
            name: tool.name.clone(),
            title: tool.title.clone(),
            description: tool.description.clone(),
            read_only: tool.read_only,
            input_schema: tool.input_schema.clone(),
        }
    }
}

/// `addon/server/<id>`: the server without its secrets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDoc {
    pub schema: u32,
    pub id: ServerId,
    pub name: String,
    pub url: String,
    /// `none`, `headers` or `oauth`.
    pub auth: String,
    /// The names of the headers it was added with.
    pub headers: Vec<String>,
    pub tools: Vec<ToolDoc>,
    pub allowed: Vec<String>,
    pub protocol_version: Option<String>,
    pub error: Option<String>,
    pub bots: Vec<BotId>,
    pub created_at: String,
    /// An OAuth server holds tokens (`auth: "oauth"` only).
    #[serde(default)]
    pub signed_in: bool,
    /// The protected-resource metadata URL its 401 named.
    #[serde(default)]
    pub resource_metadata: Option<String>,
    /// The client registered at its authorization server, for this redirect URI.
    #[serde(default)]
    pub oauth_client: Option<OAuthClient>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A client registered for a server (not a secret: a public client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClient {
    pub issuer: String,
    pub client_id: String,
    pub redirect_uri: String,
}

/// The tokens of an OAuth server, kept in its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenRecord {
    pub access: String,
    pub refresh: Option<String>,
    pub expires_at_ms: Option<i64>,
    pub token_endpoint: String,
    pub client_id: String,
    pub resource: String,
}

/// A sign-in `oauth()` started, waiting for its callback (`secret/addon/<id>.pending`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingSignIn {
    pub schema: u32,
    pub server: ServerId,
    pub state: String,
    pub verifier: String,
    pub redirect_uri: String,
    pub client_id: String,
    pub token_endpoint: String,
    pub resource: String,
    pub created_at_ms: i64,
}

/// `secret/addon/<id>.pending`.
pub fn pending_key(id: &ServerId) -> String {
    format!("{}.pending", secret_key(id))
}

/// Prefix of the servers' secrets (and pending sign-ins).
pub const SECRET_PREFIX: &str = "secret/addon/";

impl ServerDoc {
    /// The seed's `McpServer`.
    pub fn view(&self) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "title": t.title,
                    "description": t.description,
                    "readOnly": t.read_only,
                })
            })
            .collect();
        json!({
            "ref": format!("{SERVER_REF}{}", self.id),
            "kind": "server",
            "id": self.id,
            "name": self.name,
            "url": self.url,
            "auth": self.auth,
            "headers": self.headers,
            "tools": tools,
            "allowed": self.allowed,
            "signedIn": self.auth != "oauth" || self.signed_in,
            "error": self.error,
            "bots": self.bots,
        })
    }

    /// The tools the model is offered: allowed and still listed.
    pub fn advertised(&self) -> impl Iterator<Item = &ToolDoc> {
        self.tools.iter().filter(|t| self.allowed.contains(&t.name))
    }

    /// A new listing: tools that appear now are not allowed by themselves, and allowed tools
    /// the server no longer lists drop out.
    pub fn relisted(&mut self, tools: &[Tool]) {
        self.tools = tools.iter().map(ToolDoc::from).collect();
        let listed = &self.tools;
        self.allowed.retain(|a| listed.iter().any(|t| t.name == *a));
    }
}

/// `secret/addon/<id>`: the header values, in the order given, and an OAuth server's tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerSecret {
    pub schema: u32,
    pub headers: Vec<(String, String)>,
    #[serde(default)]
    pub oauth: Option<TokenRecord>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// `addServer`'s argument, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewServer {
    pub url: String,
    pub name: String,
    pub headers: Vec<(String, String)>,
    /// `auth: "oauth"`: signed in with `oauth()` before its tools are listed.
    pub oauth: bool,
}

fn object<'v>(value: &'v Value, call: &'static str) -> Result<&'v Map<String, Value>, AddonError> {
    value.as_object().ok_or(AddonError::NotAnObject {
        call,
        found: kind_of(value),
    })
}

fn text_field<'v>(
    object: &'v Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'v str>, AddonError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(AddonError::NotAString {
            field,
            found: kind_of(other),
        }),
    }
}

fn headers_of(value: Option<&Value>) -> Result<Vec<(String, String)>, AddonError> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let object = value.as_object().ok_or(AddonError::HeadersShape)?;
    if object.len() > MAX_HEADERS {
        return Err(AddonError::TooManyHeaders);
    }
    let mut out = Vec::new();
    for (name, value) in object {
        let value = value.as_str().ok_or(AddonError::HeadersShape)?;
        headers::check(name, value)?;
        out.push((name.clone(), value.to_owned()));
    }
    Ok(out)
}

impl NewServer {
    /// Reads `{ url, name?, headers?, auth? }`.
    ///
    /// # Errors
    /// [`AddonError`] for the first rule broken.
    pub fn from_json(value: &Value) -> Result<Self, AddonError> {
        let object = object(value, "addServer")?;
        let Some(url) = text_field(object, "url")? else {
            return Err(AddonError::NotAString {
                field: "url",
                found: "undefined",
            });
        };
        let url = check_server_url(url)?;
        let oauth = match text_field(object, "auth")? {
            None | Some("none") => false,
            Some("oauth") => true,
            Some(other) => return Err(AddonError::Auth(shown(other))),
        };
        let name = match text_field(object, "name")? {
            Some(name) => check_name(name)?,
            None => default_name(&url),
        };
        let headers = headers_of(object.get("headers"))?;
        Ok(NewServer {
            url,
            name,
            headers,
            oauth,
        })
    }
}

/// A server's name when none is given: its host.
fn default_name(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', ':']).next().unwrap_or(rest);
    check_name(host).unwrap_or_else(|_| "server".to_owned())
}

/// `addSkill`'s argument: where the `SKILL.md` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillSource {
    Markdown(String),
    Url(String),
}

impl SkillSource {
    /// Reads `{ markdown }` or `{ url }`.
    ///
    /// # Errors
    /// [`AddonError`] for neither, both, or a URL outside the rules.
    pub fn from_json(value: &Value) -> Result<Self, AddonError> {
        let object = object(value, "addSkill")?;
        match (text_field(object, "markdown")?, text_field(object, "url")?) {
            (Some(markdown), None) => Ok(SkillSource::Markdown(markdown.to_owned())),
            (None, Some(url)) => Ok(SkillSource::Url(check_server_url(url)?)),
            _ => Err(AddonError::SkillSource),
        }
    }
}

/// `update`'s patch, checked for its shape (what needs the document is [`Patch::apply_server`]
/// and [`Patch::apply_skill`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patch {
    pub name: Option<String>,
    pub allowed: Option<Vec<String>>,
    pub headers: Option<Vec<(String, String)>>,
    pub bots: Option<Vec<BotId>>,
}

impl Patch {
    /// Reads `{ name?, allowed?, headers?, bots? }`.
    ///
    /// # Errors
    /// [`AddonError`] for a field of the wrong shape.
    pub fn from_json(value: &Value) -> Result<Self, AddonError> {
        let object = object(value, "update")?;
        let strings = |field: &str, error: AddonError| -> Result<Option<Vec<String>>, AddonError> {
            match object.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned).ok_or(error.clone()))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(_) => Err(error),
            }
        };
        let bots = match strings("bots", AddonError::BotsShape)? {
            Some(ids) => {
                let mut out: Vec<BotId> = Vec::new();
                for id in ids {
                    let id = BotId::parse(&id).map_err(|_| AddonError::BotsShape)?;
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
                Some(out)
            }
            None => None,
        };
        Ok(Patch {
            name: text_field(object, "name")?.map(check_name).transpose()?,
            allowed: strings("allowed", AddonError::AllowedShape)?,
            headers: match object.get("headers") {
                None | Some(Value::Null) => None,
                given => Some(headers_of(given)?),
            },
            bots,
        })
    }

    /// Applies the patch to a server and its secret.
    ///
    /// # Errors
    /// [`AddonError`] for an unknown tool or a header not given at add.
    pub fn apply_server(
        &self,
        doc: &mut ServerDoc,
        secret: &mut ServerSecret,
    ) -> Result<(), AddonError> {
        self.apply_headers(secret)?;
        self.apply_fields(doc)
    }

    /// The new header values (only names given at add).
    ///
    /// # Errors
    /// [`AddonError::HeaderUpdate`] for a name not given at add or a value outside the rules.
    pub fn apply_headers(&self, secret: &mut ServerSecret) -> Result<(), AddonError> {
        let Some(update) = &self.headers else {
            return Ok(());
        };
        headers::check_update(&secret.headers, update)?;
        for (name, value) in update {
            if let Some(slot) = secret
                .headers
                .iter_mut()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                slot.1.clone_from(value);
            }
        }
        Ok(())
    }

    /// The server's `name`, `allowed` and `bots`.
    ///
    /// # Errors
    /// [`AddonError::UnknownTool`] for an allowed name the server does not list.
    pub fn apply_fields(&self, doc: &mut ServerDoc) -> Result<(), AddonError> {
        if let Some(allowed) = &self.allowed {
            if let Some(unknown) = allowed
                .iter()
                .find(|a| !doc.tools.iter().any(|t| t.name == **a))
            {
                return Err(AddonError::UnknownTool(shown(unknown)));
            }
            let mut kept: Vec<String> = Vec::new();
            for a in allowed {
                if !kept.contains(a) {
                    kept.push(a.clone());
                }
            }
            doc.allowed = kept;
        }
        if let Some(name) = &self.name {
            doc.name.clone_from(name);
        }
        if let Some(bots) = &self.bots {
            doc.bots.clone_from(bots);
        }
        Ok(())
    }

    /// Applies the patch to a skill: only `bots` applies.
    ///
    /// # Errors
    /// [`AddonError::NotFor`] for a server's field.
    pub fn apply_skill(&self, doc: &mut SkillDoc, at: &str) -> Result<(), AddonError> {
        let not_for = |field| AddonError::NotFor {
            field,
            kind: "skill",
        };
        if self.name.is_some() {
            return Err(not_for("name (a skill's name is its reference)"));
        }
        if self.allowed.is_some() {
            return Err(not_for("allowed"));
        }
        if self.headers.is_some() {
            return Err(not_for("headers"));
        }
        if let Some(bots) = &self.bots {
            doc.bots.clone_from(bots);
            doc.updated_at = at.to_owned();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, read_only: bool) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema: json!({"type": "object"}),
            read_only,
        }
    }

    #[test]
    fn refs_are_never_bare() {
        assert_eq!(
            AddonRef::parse("server:0123456789ab").unwrap().to_string(),
            "server:0123456789ab"
        );
        assert_eq!(
            AddonRef::parse("skill:review"),
            Ok(AddonRef::Skill("review".into()))
        );
        for bad in [
            "0123456789ab",
            "review",
            "server:xyz",
            "skill:Review",
            "skill:",
            "tool:a",
        ] {
            assert!(AddonRef::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            AddonRef::from_json(&json!(5)).unwrap_err().to_string(),
            "ref must be a string, not a number"
        );
        assert_eq!(AddonRef::Skill("a".into()).key(), "addon/skill/a");
    }

    #[test]
    fn server_urls_follow_the_base_url_rules() {
        assert!(check_server_url("https://mcp.example/mcp").is_ok());
        assert!(check_server_url("http://127.0.0.1:9/mcp").is_ok());
        assert!(check_server_url("http://[::1]/mcp").is_ok());
        for bad in [
            "http://mcp.example/mcp",
            "https://u:p@mcp.example/",
            "https://mcp.example/?k=1",
            "https://mcp.example/#x",
            "ftp://mcp.example/",
            "",
        ] {
            assert!(check_server_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn new_servers_and_their_headers() {
        let server = NewServer::from_json(&json!({
            "url": "https://mcp.example/mcp",
            "headers": {"X-Api-Key": "k1"}
        }))
        .unwrap();
        assert_eq!(server.name, "mcp.example");
        assert_eq!(server.headers, [("X-Api-Key".to_owned(), "k1".to_owned())]);
        let refused = |value: Value| NewServer::from_json(&value).unwrap_err().to_string();
        assert!(
            refused(json!({"url": "https://a.example", "headers": {"X": "a\nb"}}))
                .contains("line break")
        );
        let long = "v".repeat(8 * 1024 + 1);
        assert!(
            refused(json!({"url": "https://a.example", "headers": {"X": long}}))
                .contains("at most 8192")
        );
        assert!(NewServer::from_json(
            &json!({"url": "https://a.example", "headers": {"X": "v".repeat(8192)}})
        )
        .is_ok());
        assert!(refused(json!({"url": "https://a.example", "auth": "magic"})).contains("auth"));
        assert!(
            NewServer::from_json(&json!({"url": "https://a.example", "auth": "oauth"}))
                .unwrap()
                .oauth
        );
        assert!(refused(json!({"url": 1})).contains("url must be a string"));
        assert!(refused(json!([])).contains("takes an object"));
        assert_eq!(slug("My Issues (prod)"), "my_issues_prod");
        assert_eq!(slug("!!"), "server");
    }

    #[test]
    fn patches_keep_to_what_the_server_was_added_with() {
        let mut doc = ServerDoc {
            schema: SCHEMA,
            id: ServerId::parse("0123456789ab").unwrap(),
            name: "s".into(),
            url: "https://a.example".into(),
            auth: "headers".into(),
            headers: vec!["X-Key".into()],
            tools: vec![],
            allowed: vec![],
            protocol_version: None,
            error: None,
            bots: vec![],
            created_at: String::new(),
            signed_in: false,
            resource_metadata: None,
            oauth_client: None,
            extra: BTreeMap::new(),
        };
        doc.relisted(&[tool("search", true), tool("close", false)]);
        let mut secret = ServerSecret {
            schema: SCHEMA,
            headers: vec![("X-Key".into(), "old".into())],
            oauth: None,
            extra: BTreeMap::new(),
        };
        let patch =
            Patch::from_json(&json!({"allowed": ["close", "close"], "headers": {"x-key": "new"}}))
                .unwrap();
        patch.apply_server(&mut doc, &mut secret).unwrap();
        assert_eq!(doc.allowed, ["close"]);
        assert_eq!(secret.headers, [("X-Key".to_owned(), "new".to_owned())]);
        let other = Patch::from_json(&json!({"headers": {"X-Other": "v"}})).unwrap();
        assert!(other
            .apply_server(&mut doc, &mut secret)
            .unwrap_err()
            .to_string()
            .contains("not given when the server was added"));
        let unknown = Patch::from_json(&json!({"allowed": ["nope"]})).unwrap();
        assert_eq!(
            unknown.apply_server(&mut doc, &mut secret),
            Err(AddonError::UnknownTool("\"nope\"".into()))
        );
        // A new listing drops what is gone and allows nothing new by itself.
        doc.relisted(&[tool("search", true), tool("merge", true)]);
        assert!(doc.allowed.is_empty());
        assert_eq!(doc.advertised().count(), 0);
        assert!(Patch::from_json(&json!({"bots": ["x"]})).is_err());
    }
}
