//! `addons.*` (fxbot DESIGN §3.2, §9.2, §9.3): skills from a `SKILL.md` (given, or fetched from
//! a URL) and remote MCP servers (connected and listed at add, re-listed by `refresh`), their
//! assignment to bots, and what a bot's turn takes from them ([`TurnAddons`]).

use serde_json::Value;

use crate::caps::http::{fetch_whole, ExchangeError};
use crate::caps::{Cancel, DocStore, Host, HttpRequest, Method, StoreError};
use crate::mcp::client::{McpClient, McpError};
use crate::mcp::names::initially_allowed;

use super::super::addon::{
    pending_key, secret_key, server_key, skill_key, AddonError, AddonRef, NewServer, Patch,
    ServerDoc, ServerId, ServerSecret, SkillDoc, SkillSource, SERVER_PREFIX, SKILL_PREFIX,
};
use super::super::docs::{encode, SCHEMA};
use super::super::error::{Entity, FxbotError};
use super::super::ids::BotId;
use super::super::skill::{self, MAX_MARKDOWN};
use super::super::store::{self, load, store_error, Step};
use super::addon_oauth::server_headers;
use super::{not_found, Fxbot};

/// How long fetching a skill URL may take.
pub const SKILL_FETCH_TIMEOUT_MS: u32 = 15_000;

/// The add-ons a bot's turn uses: its skills and its servers (with their header values).
#[derive(Debug, Default)]
pub struct TurnAddons {
    pub skills: Vec<SkillDoc>,
    pub servers: Vec<(ServerDoc, Vec<(String, String)>)>,
}

fn server_failed(error: impl std::fmt::Display) -> FxbotError {
    FxbotError::ProviderFailed {
        message: error.to_string(),
    }
}

impl<H: Host + Clone + 'static, D: DocStore> Fxbot<H, D> {
    async fn skills(&self) -> Result<Vec<SkillDoc>, FxbotError> {
        let mut out = Vec::new();
        for doc in store::list(&self.docs, SKILL_PREFIX).await? {
            if let Some(skill) = load::<SkillDoc, D>(&self.docs, &doc.key).await? {
                out.push(skill.doc);
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    async fn servers(&self) -> Result<Vec<ServerDoc>, FxbotError> {
        let mut out = Vec::new();
        for doc in store::list(&self.docs, SERVER_PREFIX).await? {
            if let Some(server) = load::<ServerDoc, D>(&self.docs, &doc.key).await? {
                out.push(server.doc);
            }
        }
        out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    async fn server_secret(&self, id: &ServerId) -> Result<ServerSecret, FxbotError> {
        Ok(load::<ServerSecret, D>(&self.docs, &secret_key(id))
            .await?
            .map(|l| l.doc)
            .unwrap_or_default())
    }

    async fn addon_view(&self, reference: &AddonRef) -> Result<Value, FxbotError> {
        let missing = || not_found(Entity::Addon, reference);
        match reference {
            AddonRef::Skill(_) => Ok(load::<SkillDoc, D>(&self.docs, &reference.key())
                .await?
                .ok_or_else(missing)?
                .doc
                .view()),
            AddonRef::Server(_) => Ok(load::<ServerDoc, D>(&self.docs, &reference.key())
                .await?
                .ok_or_else(missing)?
                .doc
                .view()),
        }
    }

    /// `addons.list()`: the servers (oldest first), then the skills (by name).
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn addons_list(&self) -> Result<Vec<Value>, FxbotError> {
        self.check_open()?;
        let mut out: Vec<Value> = self.servers().await?.iter().map(ServerDoc::view).collect();
        out.extend(self.skills().await?.iter().map(SkillDoc::view));
        Ok(out)
    }

    /// `addons.get(ref)`.
    ///
    /// # Errors
    /// 400 for the reference, 404 for an unknown add-on.
    pub async fn addons_get(&self, reference: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        self.addon_view(&AddonRef::from_json(reference)?).await
    }

    /// The `SKILL.md` at `url` (https, or http on a loopback host).
    async fn fetch_skill(&self, url: &str) -> Result<String, FxbotError> {
        let request = HttpRequest {
            method: Method::Get,
            url: url.to_owned(),
            headers: vec![(
                "accept".to_owned(),
                "text/markdown, text/plain;q=0.9, */*;q=0.1".to_owned(),
            )],
            body: Vec::new(),
        };
        let response = fetch_whole(
            &self.host,
            &self.host,
            request,
            MAX_MARKDOWN,
            SKILL_FETCH_TIMEOUT_MS,
            &Cancel::new(),
        )
        .await
        .map_err(|e| match e {
            ExchangeError::TooLarge => {
                FxbotError::Addon(AddonError::Skill(skill::SkillError::TooLarge {
                    bytes: MAX_MARKDOWN + 1,
                }))
            }
            other => server_failed(format!("the skill could not be fetched: {other}")),
        })?;
        if !(200..300).contains(&response.status) {
            return Err(server_failed(format!(
                "the skill could not be fetched: HTTP {}",
                response.status
            )));
        }
        String::from_utf8(response.body.to_vec()).map_err(|_| {
            server_failed("the skill could not be fetched: its SKILL.md is not UTF-8 text")
        })
    }

    /// `addons.addSkill({ markdown } | { url })`.
    ///
    /// # Errors
    /// 400 for a `SKILL.md` outside the rules or a name in use; 502 when the URL cannot be
    /// fetched.
    pub async fn addons_add_skill(&self, source: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let (markdown, url) = match SkillSource::from_json(source)? {
            SkillSource::Markdown(markdown) => (markdown, None),
            SkillSource::Url(url) => (self.fetch_skill(&url).await?, Some(url)),
        };
        let text = skill::parse(&markdown).map_err(AddonError::from)?;
        let name = text.name.clone();
        let doc = SkillDoc::new(text, url, &self.now());
        let key = skill_key(&name);
        // Created only where nothing is stored: a name in use (here or by another tab) is a 400.
        match self.docs.doc_commit(&key, &encode(&doc), None).await {
            Ok(_) => Ok(doc.view()),
            Err(StoreError::RevisionConflict { .. }) => Err(AddonError::SkillExists(name).into()),
            Err(other) => Err(store_error(&key, other)),
        }
    }

    /// `addons.addServer({ url, name?, headers?, auth? })`: connects, lists the tools, and
    /// allows the read-only ones. A server with `auth: "oauth"`, or one that answers 401 to a
    /// request without headers, is stored unlisted until `oauth()` signs in.
    ///
    /// # Errors
    /// 400 for the argument; 502 when the server cannot be reached or listed (nothing is
    /// stored).
    pub async fn addons_add_server(&self, server: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let NewServer {
            url,
            name,
            headers,
            oauth,
        } = NewServer::from_json(server)?;
        let client = McpClient::new(url.clone(), headers.clone());
        let cancel = Cancel::new();
        let (tools, resource_metadata, oauth) = if oauth {
            (Vec::new(), None, true)
        } else {
            match client.list_tools(&self.host, &cancel).await {
                Ok(tools) => (tools, None, false),
                Err(McpError::Unauthorized { www_authenticate }) if headers.is_empty() => (
                    Vec::new(),
                    www_authenticate
                        .as_deref()
                        .and_then(crate::mcp::oauth::resource_metadata_url),
                    true,
                ),
                Err(error) => return Err(server_failed(error)),
            }
        };
        let id = ServerId::mint(|b| self.host.fill_random(b));
        let auth = if oauth {
            "oauth"
        } else if headers.is_empty() {
            "none"
        } else {
            "headers"
        };
        let mut doc = ServerDoc {
            schema: SCHEMA,
            id: id.clone(),
            name,
            url,
            auth: auth.to_owned(),
            headers: headers.iter().map(|(n, _)| n.clone()).collect(),
            tools: Vec::new(),
            allowed: initially_allowed(&tools),
            protocol_version: client.version().map(str::to_owned),
            error: oauth.then(|| "sign in with addons.oauth(ref, { origin })".to_owned()),
            bots: Vec::new(),
            created_at: self.now(),
            signed_in: false,
            resource_metadata,
            oauth_client: None,
            extra: Default::default(),
        };
        doc.relisted(&tools);
        if !headers.is_empty() {
            let secret = ServerSecret {
                schema: SCHEMA,
                headers,
                oauth: None,
                extra: Default::default(),
            };
            store::commit(&self.docs, &secret_key(&id), &encode(&secret), None).await?;
        }
        store::commit(&self.docs, &server_key(&id), &encode(&doc), None).await?;
        Ok(doc.view())
    }

    /// `addons.update(ref, patch)`: a server's `name`, `allowed`, `headers` (only names given
    /// at add) and `bots`; a skill's `bots`.
    ///
    /// # Errors
    /// 400 for the reference or the patch, 404 for an unknown add-on or bot.
    pub async fn addons_update(
        &self,
        reference: &Value,
        patch: &Value,
    ) -> Result<Value, FxbotError> {
        self.check_open()?;
        let reference = AddonRef::from_json(reference)?;
        let patch = Patch::from_json(patch)?;
        for bot in patch.bots.iter().flatten() {
            self.bot_doc(bot).await?;
        }
        let missing = || not_found(Entity::Addon, &reference);
        match &reference {
            AddonRef::Skill(_) => {
                let at = self.now();
                store::update::<SkillDoc, D, SkillDoc>(
                    &self.docs,
                    &reference.key(),
                    || None,
                    |doc| {
                        let doc = doc.ok_or_else(missing)?;
                        patch.apply_skill(doc, &at)?;
                        Ok(Step::Write(doc.clone()))
                    },
                )
                .await
                .map(|d| d.view())
            }
            AddonRef::Server(id) => {
                // Every rule is checked before anything is written.
                let mut stored = load::<ServerDoc, D>(&self.docs, &reference.key())
                    .await?
                    .ok_or_else(missing)?
                    .doc;
                let mut secret = self.server_secret(id).await?;
                patch.apply_server(&mut stored, &mut secret)?;
                if patch.headers.is_some() {
                    store::update::<ServerSecret, D, ()>(
                        &self.docs,
                        &secret_key(id),
                        || None,
                        |secret| {
                            if let Some(secret) = secret {
                                patch.apply_headers(secret)?;
                            }
                            Ok(Step::Write(()))
                        },
                    )
                    .await?;
                }
                store::update::<ServerDoc, D, ServerDoc>(
                    &self.docs,
                    &reference.key(),
                    || None,
                    |doc| {
                        let doc = doc.ok_or_else(missing)?;
                        patch.apply_fields(doc)?;
                        Ok(Step::Write(doc.clone()))
                    },
                )
                .await
                .map(|d| d.view())
            }
        }
    }

    /// `addons.remove(ref)`: the next turn goes without it.
    ///
    /// # Errors
    /// 400 for the reference, 404 for an unknown add-on.
    pub async fn addons_remove(&self, reference: &Value) -> Result<(), FxbotError> {
        self.check_open()?;
        let reference = AddonRef::from_json(reference)?;
        self.addon_view(&reference).await?;
        store::remove(&self.docs, &reference.key()).await?;
        if let AddonRef::Server(id) = &reference {
            store::remove(&self.docs, &secret_key(id)).await?;
            store::remove(&self.docs, &pending_key(id)).await?;
        }
        Ok(())
    }

    /// `addons.refresh(ref)`: re-lists a server's tools (new ones are not allowed by
    /// themselves), re-fetches a skill's URL.
    ///
    /// # Errors
    /// 400 for the reference or a skill not from a URL, 404 for an unknown add-on, 502 when the
    /// server or URL cannot be reached (nothing changes).
    pub async fn addons_refresh(&self, reference: &Value) -> Result<Value, FxbotError> {
        self.check_open()?;
        let reference = AddonRef::from_json(reference)?;
        let missing = || not_found(Entity::Addon, &reference);
        match &reference {
            AddonRef::Skill(name) => {
                let stored = load::<SkillDoc, D>(&self.docs, &reference.key())
                    .await?
                    .ok_or_else(missing)?
                    .doc;
                let Some(url) = stored.source_url.clone() else {
                    return Err(AddonError::NotFromUrl(name.clone()).into());
                };
                let text =
                    skill::parse(&self.fetch_skill(&url).await?).map_err(AddonError::from)?;
                if text.name != *name {
                    return Err(AddonError::Renamed {
                        name: name.clone(),
                        found: text.name,
                    }
                    .into());
                }
                let at = self.now();
                store::update::<SkillDoc, D, SkillDoc>(
                    &self.docs,
                    &reference.key(),
                    || None,
                    |doc| {
                        let doc = doc.ok_or_else(missing)?;
                        doc.description.clone_from(&text.description);
                        doc.instructions.clone_from(&text.instructions);
                        doc.updated_at.clone_from(&at);
                        Ok(Step::Write(doc.clone()))
                    },
                )
                .await
                .map(|d| d.view())
            }
            AddonRef::Server(_) => {
                let stored = load::<ServerDoc, D>(&self.docs, &reference.key())
                    .await?
                    .ok_or_else(missing)?
                    .doc;
                let headers = server_headers(&self.host, &self.docs, &stored, false).await?;
                let client = McpClient::new(stored.url.clone(), headers);
                let tools = client
                    .list_tools(&self.host, &Cancel::new())
                    .await
                    .map_err(server_failed)?;
                let version = client.version().map(str::to_owned);
                store::update::<ServerDoc, D, ServerDoc>(
                    &self.docs,
                    &reference.key(),
                    || None,
                    |doc| {
                        let doc = doc.ok_or_else(missing)?;
                        doc.relisted(&tools);
                        doc.protocol_version.clone_from(&version);
                        doc.error = None;
                        Ok(Step::Write(doc.clone()))
                    },
                )
                .await
                .map(|d| d.view())
            }
        }
    }

    /// The add-ons assigned to `bot`, for its next turn.
    ///
    /// # Errors
    /// 500 for a store failure.
    pub async fn turn_addons(&self, bot: &BotId) -> Result<TurnAddons, FxbotError> {
        let skills = self
            .skills()
            .await?
            .into_iter()
            .filter(|s| s.bots.contains(bot))
            .collect();
        let mut servers = Vec::new();
        for server in self.servers().await? {
            if !server.bots.contains(bot) || (server.auth == "oauth" && !server.signed_in) {
                continue;
            }
            // A server whose tokens cannot be renewed sits this turn out (its tools are not
            // offered) rather than failing the message.
            if let Ok(headers) = server_headers(&self.host, &self.docs, &server, false).await {
                servers.push((server, headers));
            }
        }
        Ok(TurnAddons { skills, servers })
    }

    /// Takes a removed bot out of every add-on's `bots`.
    pub(super) async fn unassign(&self, bot: &BotId) -> Result<(), FxbotError> {
        for skill in self.skills().await? {
            if skill.bots.contains(bot) {
                self.drop_bot::<SkillDoc>(&skill_key(&skill.name), bot, |d| &mut d.bots)
                    .await?;
            }
        }
        for server in self.servers().await? {
            if server.bots.contains(bot) {
                self.drop_bot::<ServerDoc>(&server_key(&server.id), bot, |d| &mut d.bots)
                    .await?;
            }
        }
        Ok(())
    }

    /// Removes `bot` from the `bots` list of the add-on document at `key`.
    async fn drop_bot<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        key: &str,
        bot: &BotId,
        bots: fn(&mut T) -> &mut Vec<BotId>,
    ) -> Result<(), FxbotError> {
        store::update::<T, D, ()>(
            &self.docs,
            key,
            || None,
            |doc| {
                if let Some(doc) = doc {
                    bots(doc).retain(|b| b != bot);
                }
                Ok(Step::Write(()))
            },
        )
        .await
    }
}
