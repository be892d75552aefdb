//! The tools of a bot's turn (fxbot DESIGN §4.5, §9.1), a [`ToolSet`] bound to the bot whose
//! chat runs them: `chat_history` (this chat's earlier messages, newest first or ranked by a
//! query's words), `library_list` and `library_read` (the bot's files), `skill` (the full
//! instructions of one of its skills, when it has any) and `mcp_<server>_<tool>` for each
//! allowed tool of its MCP servers. A call's arguments are decoded once, into a [`BotCall`],
//! when the model makes it.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use crate::caps::acp::ToolKind;
use crate::caps::{Cancel, Clock, DocStore, Http, Random, SessionStore};
use crate::gateway::ToolDefinition;
use crate::mcp::client::{McpClient, McpError};
use crate::mcp::names::model_names_of;
use crate::mcp::render::render;
use crate::tools::set::{Prepared, PreparedCall, Status, ToolOutcome, ToolSet};

use super::addon::{slug, ServerDoc, SkillDoc};
use super::docs::chat::ChatDoc;
use super::docs::keys;
use super::embed::{combined, cosine, from_bytes, vector_prefix};
use super::engine::addon_oauth::server_headers;
use super::engine::embedding::Source;
use super::engine::memories::{forget_memory, save_memory, search_memories, update_memory};
use super::history::{chat_entries, Entry};
use super::ids::{BotId, LibraryId, MemoryId};
use super::library::{self, ItemDoc};
use super::memory::{check_text, SavedBy};
use super::search::{rank, words};
use super::store::load;

pub const CHAT_HISTORY: &str = "chat_history";
pub const LIBRARY_LIST: &str = "library_list";
pub const LIBRARY_READ: &str = "library_read";
pub const SKILL: &str = "skill";
pub const MEMORY_SAVE: &str = "memory_save";
pub const MEMORY_SEARCH: &str = "memory_search";
pub const MEMORY_UPDATE: &str = "memory_update";
pub const MEMORY_FORGET: &str = "memory_forget";
/// The tools of every bot, in the order the request lists them.
pub const OWN_TOOLS: [&str; 7] = [
    CHAT_HISTORY,
    LIBRARY_LIST,
    LIBRARY_READ,
    MEMORY_SAVE,
    MEMORY_SEARCH,
    MEMORY_UPDATE,
    MEMORY_FORGET,
];
/// Longest tool result.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// Longest `library_read` slice.
pub const MAX_READ: u64 = 65_536;
/// Characters of a reply `chat_history` shows.
const REPLY_CHARS: usize = 300;

/// The bot tools of one turn.
pub struct BotTools<'a, S: SessionStore, D: DocStore> {
    /// The host: the session store, and `fetch` for the MCP servers.
    pub sessions: &'a S,
    pub docs: &'a D,
    pub bot: &'a BotId,
    pub session_id: &'a str,
    /// The running turn's `messageId` (a memory the bot saves names it).
    pub message_id: &'a str,
    /// The embedder of the settings, when one is on (searches combine its vectors).
    pub embedder: Option<Source>,
    /// The bot's skills (the `skill` tool is offered when there is one).
    pub skills: &'a [SkillDoc],
    /// The bot's MCP servers, each with its client for this turn.
    pub servers: Vec<ServerTools>,
    /// The model's name of each advertised MCP tool: (name, server index, tool name).
    pub mcp_names: Vec<(String, usize, String)>,
}

/// One MCP server of a turn: what it lists and allows, and its client (connected at the first
/// call).
pub struct ServerTools {
    pub doc: ServerDoc,
    /// Replaced by a client with a renewed bearer when an OAuth server answers 401.
    client: RefCell<Rc<McpClient>>,
}

impl ServerTools {
    pub fn new(doc: ServerDoc, headers: Vec<(String, String)>) -> Self {
        let client = RefCell::new(Rc::new(McpClient::new(doc.url.clone(), headers)));
        ServerTools { doc, client }
    }
}

/// The model's names of the advertised tools of `servers` (unique, none a bot tool's name).
pub fn mcp_names(servers: &[ServerTools]) -> Vec<(String, usize, String)> {
    let slugs: Vec<String> = servers.iter().map(|s| slug(&s.doc.name)).collect();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    let mut at: Vec<(usize, String)> = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        for tool in server.doc.advertised() {
            let server_slug = slugs.get(index).map_or("server", String::as_str);
            pairs.push((server_slug, &tool.name));
            at.push((index, tool.name.clone()));
        }
    }
    let mut taken: Vec<&str> = OWN_TOOLS.to_vec();
    taken.push(SKILL);
    let names = model_names_of(&pairs, &taken);
    names
        .into_iter()
        .zip(at)
        .map(|(name, (index, tool))| (name, index, tool))
        .collect()
}

/// The tools' input schemas, as serde_json writes them (keys sorted); a test holds them against
/// the limits the decoding applies.
const CHAT_HISTORY_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"before":{"description":"Only messages before this msg:<id>.","type":"string"},"limit":{"maximum":20,"minimum":1,"type":"integer"},"query":{"description":"Words to look for.","type":"string"},"scope":{"description":"This chat (the default) or all your chats with this person.","enum":["chat","all"],"type":"string"}},"type":"object"}"#;
const LIBRARY_LIST_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"limit":{"maximum":50,"minimum":1,"type":"integer"},"query":{"description":"Part of a file name.","type":"string"}},"type":"object"}"#;
const LIBRARY_READ_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"id":{"description":"The file's id, from library_list.","type":"string"},"length":{"maximum":65536,"minimum":1,"type":"integer"},"offset":{"minimum":0,"type":"integer"}},"required":["id"],"type":"object"}"#;
const MEMORY_SAVE_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"text":{"description":"What to remember, in a sentence or two.","maxLength":4000,"minLength":1,"type":"string"}},"required":["text"],"type":"object"}"#;
const MEMORY_SEARCH_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"limit":{"maximum":20,"minimum":1,"type":"integer"},"query":{"description":"Words to look for.","type":"string"}},"required":["query"],"type":"object"}"#;
const MEMORY_UPDATE_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"id":{"description":"The memory's mem:<id>.","type":"string"},"text":{"maxLength":4000,"minLength":1,"type":"string"}},"required":["id","text"],"type":"object"}"#;
const MEMORY_FORGET_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"id":{"description":"The memory's mem:<id>.","type":"string"}},"required":["id"],"type":"object"}"#;
const SKILL_SCHEMA: &str = r#"{"additionalProperties":false,"properties":{"name":{"description":"The skill's name, as the skills list gives it (without $).","type":"string"}},"required":["name"],"type":"object"}"#;

fn definition(name: &str, description: &str, schema: String) -> Option<ToolDefinition> {
    Some(ToolDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: serde_json::value::RawValue::from_string(schema).ok()?,
    })
}

/// The definitions, in the order the request lists them.
pub fn definitions() -> Vec<ToolDefinition> {
    [
        (
            CHAT_HISTORY,
            "Earlier messages of this chat: the newest first, or those that best match a query. \
             Each entry is msg:<id>, its date, what the person wrote and the start of your reply.",
            CHAT_HISTORY_SCHEMA,
        ),
        (
            LIBRARY_LIST,
            "The files in your library (what the person sent you): id, name, type and size.",
            LIBRARY_LIST_SCHEMA,
        ),
        (
            LIBRARY_READ,
            "Reads a text file of your library by id, from a byte offset (up to 65536 bytes).",
            LIBRARY_READ_SCHEMA,
        ),
        (
            MEMORY_SAVE,
            "Remembers something for later chats (a fact about the person, a decision). Returns its mem:<id>.",
            MEMORY_SAVE_SCHEMA,
        ),
        (
            MEMORY_SEARCH,
            "Finds your memories that match a query: mem:<id>, when it was saved, and its text.",
            MEMORY_SEARCH_SCHEMA,
        ),
        (
            MEMORY_UPDATE,
            "Replaces the text of one of your memories.",
            MEMORY_UPDATE_SCHEMA,
        ),
        (MEMORY_FORGET, "Forgets one of your memories.", MEMORY_FORGET_SCHEMA),
    ]
    .into_iter()
    .filter_map(|(name, description, schema)| definition(name, description, schema.to_owned()))
    .collect()
}

/// A call of a bot tool, its arguments decoded (the `limit`s clamped to their ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotCall {
    ChatHistory {
        query: String,
        /// Only messages before this one (`msg:` prefix taken off).
        before: Option<String>,
        limit: usize,
        /// `scope: "all"`: the bot's earlier chats too.
        all: bool,
    },
    LibraryList {
        query: Option<String>,
        limit: usize,
    },
    LibraryRead {
        id: LibraryId,
        offset: usize,
        length: usize,
    },
    Skill {
        name: String,
    },
    MemorySave {
        text: String,
    },
    MemorySearch {
        query: String,
        limit: usize,
    },
    MemoryUpdate {
        id: MemoryId,
        text: String,
    },
    MemoryForget {
        id: MemoryId,
    },
    /// A tool of the turn's MCP server `server` (its index), with the model's arguments.
    Mcp {
        server: usize,
        tool: String,
        arguments: Value,
    },
}

/// The arguments of one call, a JSON object, read field by field.
struct Args<'a> {
    tool: &'a str,
    object: serde_json::Map<String, Value>,
}

impl Args<'_> {
    /// Refuses a field the tool does not take.
    fn only(&self, known: &[&str]) -> Result<(), ToolOutcome> {
        match self.object.keys().find(|k| !known.contains(&k.as_str())) {
            Some(extra) => Err(failure(format!(
                "the arguments of {}: unknown field {extra:?}, expected one of {}",
                self.tool,
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    fn text(&self, field: &str) -> Result<Option<String>, ToolOutcome> {
        match self.object.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(failure(format!(
                "the arguments of {}: {field} must be a string",
                self.tool
            ))),
        }
    }

    fn number(&self, field: &str) -> Result<Option<u64>, ToolOutcome> {
        match self.object.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_u64().map(Some).ok_or_else(|| {
                failure(format!(
                    "the arguments of {}: {field} must be a whole number from 0",
                    self.tool
                ))
            }),
        }
    }
}

fn clamp(n: Option<u64>, max: u64, default: u64) -> usize {
    usize::try_from(n.unwrap_or(default).clamp(1, max)).unwrap_or(1)
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl BotCall {
    /// Decodes the model's arguments for tool `name` (one of the three), or the failure it
    /// reads back.
    fn decode(name: &str, arguments_json: &str) -> Result<BotCall, ToolOutcome> {
        let text = match arguments_json.trim() {
            "" | "null" => "{}",
            text => text,
        };
        let object = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            _ => {
                return Err(failure(format!(
                    "the arguments of {name} must be a JSON object"
                )))
            }
        };
        let args = Args { tool: name, object };
        match name {
            CHAT_HISTORY => {
                args.only(&["query", "before", "limit", "scope"])?;
                let all = match args.text("scope")?.as_deref() {
                    None | Some("chat") => false,
                    Some("all") => true,
                    Some(other) => {
                        return Err(failure(format!(
                            "chat_history's scope is \"chat\" or \"all\", not {other:?}"
                        )))
                    }
                };
                Ok(BotCall::ChatHistory {
                    all,
                    query: args.text("query")?.unwrap_or_default(),
                    before: args
                        .text("before")?
                        .map(|b| b.strip_prefix("msg:").unwrap_or(&b).to_owned()),
                    limit: clamp(args.number("limit")?, 20, 8),
                })
            }
            MEMORY_SAVE => {
                args.only(&["text"])?;
                Ok(BotCall::MemorySave {
                    text: memory_text(&args, "memory_save")?,
                })
            }
            MEMORY_SEARCH => {
                args.only(&["query", "limit"])?;
                Ok(BotCall::MemorySearch {
                    query: args.text("query")?.unwrap_or_default(),
                    limit: clamp(args.number("limit")?, 20, 8),
                })
            }
            MEMORY_UPDATE => {
                args.only(&["id", "text"])?;
                Ok(BotCall::MemoryUpdate {
                    id: memory_ref(&args, "memory_update")?,
                    text: memory_text(&args, "memory_update")?,
                })
            }
            MEMORY_FORGET => {
                args.only(&["id"])?;
                Ok(BotCall::MemoryForget {
                    id: memory_ref(&args, "memory_forget")?,
                })
            }
            SKILL => {
                args.only(&["name"])?;
                let Some(name) = args.text("name")? else {
                    return Err(failure(
                        "skill needs the name of one of your skills".to_owned(),
                    ));
                };
                Ok(BotCall::Skill {
                    name: name.trim().trim_start_matches(['$', '/']).to_owned(),
                })
            }
            LIBRARY_LIST => {
                args.only(&["query", "limit"])?;
                Ok(BotCall::LibraryList {
                    query: args.text("query")?,
                    limit: clamp(args.number("limit")?, 50, 20),
                })
            }
            _ => {
                args.only(&["id", "offset", "length"])?;
                let Some(id) = args.text("id")? else {
                    return Err(failure(
                        "library_read needs the id of a file (see library_list)".to_owned(),
                    ));
                };
                let Ok(id) = LibraryId::parse(&id) else {
                    return Err(failure(format!(
                        "{id:?} is not a library id (12 hex characters)"
                    )));
                };
                Ok(BotCall::LibraryRead {
                    id,
                    offset: to_usize(args.number("offset")?.unwrap_or(0)),
                    length: to_usize(
                        args.number("length")?
                            .unwrap_or(MAX_READ)
                            .clamp(1, MAX_READ),
                    ),
                })
            }
        }
    }
}

fn memory_text(args: &Args<'_>, tool: &str) -> Result<String, ToolOutcome> {
    let text = args.text("text")?.unwrap_or_default();
    check_text(&text).map_err(|e| failure(format!("{tool}: {e}")))
}

fn memory_ref(args: &Args<'_>, tool: &str) -> Result<MemoryId, ToolOutcome> {
    let Some(id) = args.text("id")? else {
        return Err(failure(format!("{tool} needs the mem:<id> of a memory")));
    };
    MemoryId::parse_ref(id.trim()).map_err(|_| {
        failure(format!(
            "{id:?} is not a memory id (mem:<12 hex characters>)"
        ))
    })
}

fn failure(message: String) -> ToolOutcome {
    ToolOutcome::failure(json!({"error": message}).to_string())
}

fn success(output: String) -> ToolOutcome {
    ToolOutcome::success(cap(output))
}

fn cap(mut text: String) -> String {
    if text.len() > MAX_OUTPUT_BYTES {
        let mut end = MAX_OUTPUT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n[cut at 64 KiB]");
    }
    text
}

impl<S: SessionStore, D: DocStore> BotTools<'_, S, D> {
    /// This chat's messages, or (`all`) those of the bot's earlier chats too, oldest first.
    async fn history(&self, all: bool) -> Result<Vec<Entry>, String> {
        let mut sessions = Vec::new();
        if all {
            let chat = load::<ChatDoc, D>(self.docs, &keys::chat(self.bot))
                .await
                .map_err(|e| e.to_string())?
                .map(|l| l.doc)
                .unwrap_or_default();
            sessions.extend(chat.earlier.into_iter().map(|e| e.session_id));
        }
        sessions.push(self.session_id.to_owned());
        let mut out = Vec::new();
        for session in sessions {
            out.extend(chat_entries(self.sessions, self.docs, self.bot, &session).await?);
        }
        Ok(out)
    }

    async fn chat_history(
        &self,
        query: &str,
        before: Option<&str>,
        limit: usize,
        all: bool,
    ) -> ToolOutcome {
        let entries = match self.history(all).await {
            Ok(entries) => entries,
            Err(message) => return failure(format!("the chat could not be read: {message}")),
        };
        let mut entries: Vec<(usize, Entry)> = entries.into_iter().enumerate().collect();
        if let Some(id) = before {
            match entries.iter().position(|(_, e)| e.message_id == id) {
                Some(at) => entries.truncate(at),
                None => return failure(format!("there is no message msg:{id} in this chat")),
            }
        }
        if words(query).is_empty() {
            entries.reverse();
        } else {
            let texts: Vec<String> = entries
                .iter()
                .map(|(_, e)| format!("{} {}", e.input, e.reply))
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut lexical = vec![0.0; entries.len()];
            for (index, score) in rank(query, &refs) {
                if let Some(slot) = lexical.get_mut(index) {
                    *slot = score;
                }
            }
            // With an embedder, messages that have a vector are scored by meaning too.
            let vector = match &self.embedder {
                Some(source) => source
                    .embed(vec![query.to_owned()])
                    .await
                    .ok()
                    .and_then(|mut v| v.pop())
                    .map(|v| (source.key.clone(), v)),
                None => None,
            };
            let mut scored: Vec<(f64, (usize, Entry))> = Vec::new();
            for (position, entry) in entries.into_iter().enumerate() {
                let words = lexical.get(position).copied().unwrap_or(0.0);
                let cosine = match &vector {
                    Some((key, query)) => {
                        let vkey = format!(
                            "{}{}",
                            vector_prefix(key, "msg", self.bot.as_str()),
                            entry.1.message_id
                        );
                        self.docs
                            .doc_load(&vkey)
                            .await
                            .ok()
                            .flatten()
                            .and_then(|v| from_bytes(&v.bytes))
                            .map(|v| cosine(query, &v))
                    }
                    None => None,
                };
                if cosine.is_some() || words > 0.0 {
                    scored.push((combined(cosine, words), entry));
                }
            }
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then((b.1).0.cmp(&(a.1).0)));
            entries = scored.into_iter().map(|(_, e)| e).collect();
        }
        entries.truncate(limit);
        if entries.is_empty() {
            return success("No earlier messages match.".to_owned());
        }
        let lines: Vec<String> = entries
            .iter()
            .map(|(_, e)| {
                let reply: String = e.reply.chars().take(REPLY_CHARS).collect();
                format!(
                    "msg:{}  {}\nuser: {}\nreply: {}",
                    e.message_id, e.at, e.input, reply
                )
            })
            .collect();
        success(lines.join("\n\n"))
    }

    async fn items(&self) -> Result<Vec<ItemDoc>, String> {
        let listed = self
            .docs
            .doc_list(library::ITEM_PREFIX)
            .await
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for doc in listed {
            if let Ok(Some(item)) = load::<ItemDoc, D>(self.docs, &doc.key).await {
                if item.doc.bot_id.as_deref() == Some(self.bot.as_str()) {
                    out.push(item.doc);
                }
            }
        }
        Ok(out)
    }

    async fn library_list(&self, query: Option<&str>, limit: usize) -> ToolOutcome {
        let mut items = match self.items().await {
            Ok(items) => items,
            Err(message) => return failure(format!("the library could not be read: {message}")),
        };
        if let Some(query) = query {
            let query = query.to_lowercase();
            items.retain(|i| i.name.to_lowercase().contains(&query));
        }
        items.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
        items.truncate(limit);
        if items.is_empty() {
            return success("The library has no files yet.".to_owned());
        }
        let lines: Vec<String> = items
            .iter()
            .map(|i| format!("{}  {}  {}  {} bytes", i.id, i.name, i.media_type, i.size))
            .collect();
        success(lines.join("\n"))
    }

    async fn library_read(&self, id: &LibraryId, offset: usize, length: usize) -> ToolOutcome {
        let item = match load::<ItemDoc, D>(self.docs, &library::item_key(id)).await {
            Ok(Some(item)) if item.doc.bot_id.as_deref() == Some(self.bot.as_str()) => item.doc,
            Ok(_) => return failure(format!("there is no file {id} in your library")),
            Err(e) => return failure(e.to_string()),
        };
        if item.is_image() {
            return success(format!(
                "{} is an image ({}, {} bytes); you saw it when it was sent, it has no text to read.",
                item.name, item.media_type, item.size
            ));
        }
        let bytes = match self.docs.doc_load(&library::blob_key(id)).await {
            Ok(Some(blob)) => blob.bytes,
            Ok(None) => return failure(format!("the bytes of {} are missing", item.name)),
            Err(e) => return failure(e.to_string()),
        };
        let text = String::from_utf8_lossy(&bytes);
        let (slice, next) = library::text_slice(&text, offset, length);
        let mut out = slice.to_owned();
        if let Some(next) = next {
            out.push_str(&format!("\n[more from offset {next}]"));
        }
        success(out)
    }
}

impl<S: SessionStore + Http + Clock + Random, D: DocStore> BotTools<'_, S, D> {
    async fn memory(&self, call: &BotCall) -> ToolOutcome {
        let answer = match call {
            BotCall::MemorySave { text } => save_memory(
                self.sessions,
                self.docs,
                self.bot,
                text.clone(),
                SavedBy::Bot,
                Some(self.message_id.to_owned()),
            )
            .await
            .map(|m| format!("Saved as mem:{}.", m.id)),
            BotCall::MemorySearch { query, limit } => {
                let vector = match &self.embedder {
                    Some(source) => source
                        .embed(vec![query.clone()])
                        .await
                        .ok()
                        .and_then(|mut v| v.pop())
                        .map(|v| (source.key.clone(), v)),
                    None => None,
                };
                let vector = vector.as_ref().map(|(k, v)| (k.as_str(), v.as_slice()));
                search_memories(self.docs, self.bot, query, *limit, vector)
                    .await
                    .map(|hits| {
                        if hits.is_empty() {
                            return "No memories match.".to_owned();
                        }
                        hits.iter()
                            .map(|(m, _)| format!("mem:{}  {}  {}", m.id, m.updated_at, m.text))
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
            }
            BotCall::MemoryUpdate { id, text } => {
                update_memory(self.sessions, self.docs, self.bot, id, text)
                    .await
                    .map(|m| format!("Updated mem:{}.", m.id))
            }
            BotCall::MemoryForget { id } => forget_memory(self.docs, self.bot, id)
                .await
                .map(|()| format!("Forgot mem:{id}.")),
            _ => return ToolOutcome::unavailable("memory"),
        };
        match answer {
            Ok(text) => success(text),
            Err(error) => failure(error.to_string()),
        }
    }

    fn skill(&self, name: &str) -> ToolOutcome {
        match self.skills.iter().find(|s| s.name == name) {
            Some(skill) => success(skill.instructions.clone()),
            None => {
                let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
                failure(format!(
                    "you have no skill named {name:?}; your skills are {}",
                    names.join(", ")
                ))
            }
        }
    }

    async fn mcp(
        &self,
        server: usize,
        tool: &str,
        arguments: &Value,
        cancel: &Cancel,
    ) -> ToolOutcome {
        let Some(server) = self.servers.get(server) else {
            return ToolOutcome::unavailable(tool);
        };
        let client = server.client.borrow().clone();
        let mut answer = client
            .call_tool(self.sessions, tool, arguments.clone(), cancel)
            .await;
        // An OAuth server that refuses its bearer gets one renewed token and one more try.
        if matches!(answer, Err(McpError::Unauthorized { .. })) && server.doc.auth == "oauth" {
            match server_headers(self.sessions, self.docs, &server.doc, true).await {
                Ok(headers) => {
                    let renewed = Rc::new(McpClient::new(server.doc.url.clone(), headers));
                    *server.client.borrow_mut() = renewed.clone();
                    answer = renewed
                        .call_tool(self.sessions, tool, arguments.clone(), cancel)
                        .await;
                }
                Err(error) => {
                    return failure(format!(
                        "{tool} ({}): the server needs its owner to sign in again: {error}",
                        server.doc.name
                    ))
                }
            }
        }
        match answer {
            Ok(result) => {
                let rendered = render(&result);
                if rendered.is_error {
                    ToolOutcome::failure(rendered.text)
                } else {
                    ToolOutcome::success(rendered.text)
                }
            }
            Err(error) => failure(format!("{} ({}): {error}", tool, server.doc.name)),
        }
    }
}

impl<S: SessionStore + Http + Clock + Random, D: DocStore> ToolSet for BotTools<'_, S, D> {
    type Arguments = BotCall;

    fn definitions(&self) -> Vec<ToolDefinition> {
        let mut out = definitions();
        if !self.skills.is_empty() {
            out.extend(definition(
                SKILL,
                "The full instructions of one of your skills (the skills list in your \
                 instructions names them).",
                SKILL_SCHEMA.to_owned(),
            ));
        }
        for (name, index, tool) in &self.mcp_names {
            let Some(server) = self.servers.get(*index) else {
                continue;
            };
            let Some(listed) = server.doc.tools.iter().find(|t| t.name == *tool) else {
                continue;
            };
            let description = if listed.description.is_empty() {
                format!(
                    "{} (MCP server {})",
                    listed.title.as_deref().unwrap_or(tool),
                    server.doc.name
                )
            } else {
                format!("{} (MCP server {})", listed.description, server.doc.name)
            };
            out.extend(definition(
                name,
                &description,
                listed.input_schema.to_string(),
            ));
        }
        out
    }

    fn kind(&self, name: &str) -> ToolKind {
        match name {
            CHAT_HISTORY | MEMORY_SEARCH => ToolKind::Search,
            LIBRARY_LIST | LIBRARY_READ | SKILL => ToolKind::Read,
            MEMORY_SAVE | MEMORY_UPDATE => ToolKind::Edit,
            MEMORY_FORGET => ToolKind::Delete,
            _ => ToolKind::Other,
        }
    }

    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared<BotCall> {
        let title = name.to_owned();
        let own = OWN_TOOLS.contains(&name) || (name == SKILL && !self.skills.is_empty());
        let call = if own {
            BotCall::decode(name, arguments_json)
        } else if let Some((_, server, tool)) = self.mcp_names.iter().find(|(n, _, _)| n == name) {
            let text = match arguments_json.trim() {
                "" | "null" => "{}",
                text => text,
            };
            match serde_json::from_str::<Value>(text) {
                Ok(arguments @ Value::Object(_)) => Ok(BotCall::Mcp {
                    server: *server,
                    tool: tool.clone(),
                    arguments,
                }),
                _ => Err(failure(format!(
                    "the arguments of {name} must be a JSON object"
                ))),
            }
        } else {
            Err(ToolOutcome::unavailable(name))
        };
        // Nothing is put to the user: bots run unattended, and an MCP tool is offered only
        // once its owner allowed it.
        let call = call.map(|arguments| PreparedCall {
            name: name.to_owned(),
            arguments,
            permission_key: None,
        });
        Prepared { title, call }
    }

    async fn run(&self, call: &PreparedCall<BotCall>, cancel: &Cancel) -> ToolOutcome {
        match &call.arguments {
            BotCall::ChatHistory {
                query,
                before,
                limit,
                all,
            } => {
                self.chat_history(query, before.as_deref(), *limit, *all)
                    .await
            }
            BotCall::LibraryList { query, limit } => {
                self.library_list(query.as_deref(), *limit).await
            }
            BotCall::LibraryRead { id, offset, length } => {
                self.library_read(id, *offset, *length).await
            }
            BotCall::Skill { name } => self.skill(name),
            BotCall::MemorySave { .. }
            | BotCall::MemorySearch { .. }
            | BotCall::MemoryUpdate { .. }
            | BotCall::MemoryForget { .. } => self.memory(&call.arguments).await,
            BotCall::Mcp {
                server,
                tool,
                arguments,
            } => self.mcp(*server, tool, arguments, cancel).await,
        }
    }

    fn cancelled(&self, call: &PreparedCall<BotCall>) -> ToolOutcome {
        ToolOutcome {
            status: Status::Failure,
            output: json!({"error": format!("{} was cancelled", call.name)}).to_string(),
            exit_code: None,
            cancelled: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schemas_are_json_written_as_serde_json_writes_it() {
        for schema in [
            CHAT_HISTORY_SCHEMA,
            LIBRARY_LIST_SCHEMA,
            LIBRARY_READ_SCHEMA,
            MEMORY_SAVE_SCHEMA,
            MEMORY_SEARCH_SCHEMA,
            MEMORY_UPDATE_SCHEMA,
            MEMORY_FORGET_SCHEMA,
            SKILL_SCHEMA,
        ] {
            let value: Value = serde_json::from_str(schema).unwrap();
            assert_eq!(value.to_string(), schema);
        }
        let read: Value = serde_json::from_str(LIBRARY_READ_SCHEMA).unwrap();
        assert_eq!(read["properties"]["length"]["maximum"], MAX_READ);
        let save: Value = serde_json::from_str(MEMORY_SAVE_SCHEMA).unwrap();
        assert_eq!(
            save["properties"]["text"]["maxLength"],
            crate::bot::memory::MAX_TEXT_CHARS
        );
        let names: Vec<String> = definitions().into_iter().map(|d| d.name).collect();
        assert_eq!(names, OWN_TOOLS);
    }

    #[test]
    fn arguments_are_decoded_once_or_refused_with_a_reason() {
        assert_eq!(
            BotCall::decode(
                CHAT_HISTORY,
                r#"{"query":"tea","before":"msg:m1","limit":99}"#
            ),
            Ok(BotCall::ChatHistory {
                query: "tea".into(),
                before: Some("m1".into()),
                limit: 20,
                all: false,
            })
        );
        assert_eq!(
            BotCall::decode(LIBRARY_LIST, ""),
            Ok(BotCall::LibraryList {
                query: None,
                limit: 20
            })
        );
        let refused = |name: &str, args: &str| BotCall::decode(name, args).unwrap_err().output;
        assert!(refused(LIBRARY_LIST, "[1]").contains("must be a JSON object"));
        assert!(refused(LIBRARY_LIST, r#"{"limit":"5"}"#).contains("limit must be a whole number"));
        assert!(refused(CHAT_HISTORY, r#"{"who":1}"#).contains("unknown field \\\"who\\\""));
        assert!(matches!(
            BotCall::decode(CHAT_HISTORY, r#"{"scope":"all"}"#),
            Ok(BotCall::ChatHistory { all: true, .. })
        ));
        assert!(refused(CHAT_HISTORY, r#"{"scope":"everything"}"#)
            .contains("\\\"chat\\\" or \\\"all\\\""));
        assert!(refused(LIBRARY_READ, "{}").contains("needs the id"));
        assert!(refused(LIBRARY_READ, r#"{"id":"nope"}"#).contains("not a library id"));
        assert_eq!(
            BotCall::decode(MEMORY_FORGET, r#"{"id":"mem:00000000000a"}"#),
            Ok(BotCall::MemoryForget {
                id: MemoryId::parse("00000000000a").unwrap()
            })
        );
        assert_eq!(
            BotCall::decode(MEMORY_UPDATE, r#"{"id":"00000000000a","text":" tea "}"#),
            Ok(BotCall::MemoryUpdate {
                id: MemoryId::parse("00000000000a").unwrap(),
                text: "tea".into()
            })
        );
        assert!(refused(MEMORY_SAVE, r#"{"text":""}"#).contains("empty"));
        assert!(refused(
            MEMORY_SAVE,
            &format!(r#"{{"text":"{}"}}"#, "x".repeat(4001))
        )
        .contains("4001"));
        assert!(refused(MEMORY_FORGET, r#"{"id":"mem:x"}"#).contains("not a memory id"));
    }
}
