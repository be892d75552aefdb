//! [`FxbotError`]: every failure of a `createFxbot` call, with a stable `FXBOT_*` [`Code`] of the
//! one code table and its HTTP-like status (400, 404, 409, 500, 502; fxbot DESIGN §3.4). Each
//! leaf keeps its own typed error (ids, fields, messages, cursors, documents, the agent's), and
//! this module is the one place they become a code, by exhaustive matches.

use crate::agent::model::StepError;
use crate::agent::session::SessionError;
use crate::agent::turn::TurnError;
use crate::agent::AgentError;
use crate::caps::StoreError;
use crate::Code;

use super::addon::AddonError;
use super::cursor::CursorError;
use super::docs::bot::UpdateError;
use super::docs::DocError;
use super::fields::{FieldError, PinError};
use super::ids::IdError;
use super::library::LibraryError;
use super::memory::MemoryError;
use super::stream::LineError;
use super::upload::MessageError;

/// What a 404 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    Bot,
    Provider,
    Memory,
    LibraryItem,
    /// An earlier chat asked for by `sessionId`.
    Chat,
    SignIn,
    /// A skill or MCP server, named by its reference.
    Addon,
}

impl Entity {
    fn as_str(self) -> &'static str {
        match self {
            Entity::Bot => "bot",
            Entity::Provider => "provider",
            Entity::Memory => "memory",
            Entity::LibraryItem => "library item",
            Entity::Chat => "chat",
            Entity::SignIn => "sign-in",
            Entity::Addon => "add-on",
        }
    }
}

/// A failed call of the bots layer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FxbotError {
    #[error("{0}")]
    Id(IdError),
    #[error("{0}")]
    Field(FieldError),
    #[error("{0}")]
    Pin(PinError),
    #[error("{0}")]
    Update(UpdateError),
    #[error("{0}")]
    Message(MessageError),
    #[error("{0}")]
    Cursor(CursorError),
    #[error("{0}")]
    Library(LibraryError),
    /// An argument outside the rules, described.
    #[error("{message}")]
    Invalid { message: String },
    #[error("{0}")]
    Addon(AddonError),
    #[error("{0}")]
    Memory(MemoryError),
    /// `send` for a bot without a provider, or whose provider was removed.
    #[error("this bot has no provider; choose one with bots.update(botId, {{ provider }})")]
    NoProvider,
    /// `send` for a bot with no model of its own and no default model on its provider.
    #[error("this bot has no model, and its provider has no default model; set one with bots.update(botId, {{ model }})")]
    NoModel,
    #[error("there is no {} {id}", what.as_str())]
    NotFound { what: Entity, id: String },
    /// A turn runs for this bot (of message `running`, when known).
    #[error("{}", busy_text(.running.as_deref()))]
    Busy { running: Option<String> },
    #[error("{key} kept changing in the store while it was being updated ({attempts} attempts); try again")]
    Conflict { key: String, attempts: u32 },
    #[error("this fxbot was closed")]
    Closed,
    #[error("{0}")]
    Doc(DocError),
    /// A store call failed: the document store (`key` a document's key) or the session store
    /// (`key` a chat's session id).
    #[error("{}", store_text(key, error))]
    Store { key: String, error: StoreError },
    /// A chat's session could not be opened or changed (a damaged or misfiled log); a failure
    /// of the session store itself is [`FxbotError::Store`].
    #[error("{0}")]
    Session(SessionError),
    #[error("{message}")]
    ProviderFailed { message: String },
    #[error("internal error: {message}")]
    Internal { message: String },
    /// A turn (or the chat's session) failed in the agent: its `FX_*` code is the
    /// [`FxbotError::cause`].
    #[error("{0}")]
    Agent(AgentError),
}

fn busy_text(running: Option<&str>) -> String {
    match running {
        Some(message) => format!(
            "a turn for message {message} is still running for this bot; wait for it or stop it"
        ),
        None => "a turn is running for this bot; wait for it or stop it".to_owned(),
    }
}

/// The bots code of an agent failure: its store is the bots' store (500), the model behind it
/// the bot's provider (502).
fn agent_code(error: &AgentError) -> Code {
    let session = |error: &SessionError| match error {
        SessionError::Store(_)
        | SessionError::NotFound(_)
        | SessionError::Unreadable { .. }
        | SessionError::Misfiled { .. } => Code::BotStoreFailed,
        SessionError::Log(_) => Code::BotInternal,
    };
    match error {
        AgentError::Session(error) => session(error),
        AgentError::Turn(TurnError::Session(error)) => session(error),
        AgentError::Turn(TurnError::Step(StepError::Cancelled)) => Code::BotInternal,
        AgentError::Turn(TurnError::Step(
            StepError::Http(_)
            | StepError::Network(_)
            | StepError::IdleTimeout { .. }
            | StepError::Response(_)
            | StepError::Decode(_),
        )) => Code::BotProviderFailed,
        AgentError::Turn(TurnError::Request(_)) => Code::BotProviderFailed,
        AgentError::InvalidModel(_) | AgentError::EmptyPrompt => Code::BotBadRequest,
        AgentError::NoCredential => Code::BotProviderFailed,
        AgentError::Busy(_) => Code::BotBusy,
        AgentError::Closed => Code::BotClosed,
        AgentError::Endpoint(_)
        | AgentError::Workspace(_)
        | AgentError::NoSession(_)
        | AgentError::InvalidMode(_)
        | AgentError::ModeUnavailable { .. }
        | AgentError::InvalidConfigOption(_)
        | AgentError::InvalidEffort(_) => Code::BotInternal,
    }
}

/// `store.commit(bot/…) failed: …`, `sessionStore.load(<id>) failed: …`.
fn store_text(key: &str, error: &StoreError) -> String {
    match error {
        StoreError::Failed { store, method, .. } => {
            format!(
                "{}.{method}({key}) failed: {}",
                store.name(),
                error.message()
            )
        }
        StoreError::RevisionConflict { .. } => format!("{key}: {}", error.message()),
    }
}

impl FxbotError {
    /// The stable code.
    pub fn code(&self) -> Code {
        match self {
            FxbotError::Id(_)
            | FxbotError::Field(_)
            | FxbotError::Pin(_)
            | FxbotError::Update(_)
            | FxbotError::Message(_)
            | FxbotError::Cursor(_)
            | FxbotError::Library(_)
            | FxbotError::Invalid { .. }
            | FxbotError::Addon(_)
            | FxbotError::Memory(_)
            | FxbotError::NoProvider
            | FxbotError::NoModel => Code::BotBadRequest,
            FxbotError::NotFound { .. } => Code::BotNotFound,
            FxbotError::Busy { .. } => Code::BotBusy,
            FxbotError::Conflict { .. } => Code::BotConflict,
            FxbotError::Closed => Code::BotClosed,
            FxbotError::Doc(_) | FxbotError::Store { .. } | FxbotError::Session(_) => {
                Code::BotStoreFailed
            }
            FxbotError::ProviderFailed { .. } => Code::BotProviderFailed,
            FxbotError::Internal { .. } => Code::BotInternal,
            FxbotError::Agent(error) => agent_code(error),
        }
    }

    /// The agent's `FX_*` code underneath, for a failure in the agent.
    pub fn cause(&self) -> Option<Code> {
        match self {
            FxbotError::Agent(error) => Some(error.code()),
            _ => None,
        }
    }

    /// A failure of the chat session `id` (none yet: a new chat).
    pub fn session(id: Option<&str>, error: SessionError) -> Self {
        match error {
            SessionError::Store(error) => FxbotError::Store {
                key: id.unwrap_or_default().to_owned(),
                error,
            },
            other => FxbotError::Session(other),
        }
    }

    /// The status (400, 404, 409, 500 or 502): the code's.
    pub fn status(&self) -> u16 {
        self.code().status().unwrap_or(500)
    }

    /// The error as a `turn_end` carries it.
    pub fn to_line_error(&self) -> LineError {
        LineError {
            status: self.status(),
            code: self.code().as_str().to_owned(),
            cause: self.cause().map(|c| c.as_str().to_owned()),
            message: self.to_string(),
        }
    }
}

macro_rules! from_leaf {
    ($($leaf:ty => $variant:ident),+ $(,)?) => {
        $(impl From<$leaf> for FxbotError {
            fn from(error: $leaf) -> Self {
                FxbotError::$variant(error)
            }
        })+
    };
}

from_leaf!(
    IdError => Id,
    FieldError => Field,
    PinError => Pin,
    UpdateError => Update,
    MessageError => Message,
    CursorError => Cursor,
    LibraryError => Library,
    AddonError => Addon,
    MemoryError => Memory,
    DocError => Doc,
    AgentError => Agent,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::ids::BotId;
    use crate::caps::{Failure, Store};

    #[test]
    fn the_bots_rows_of_the_code_table() {
        let bots: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| c.as_str().starts_with("FXBOT_"))
            .collect();
        let names: Vec<&str> = bots.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "FXBOT_BAD_REQUEST",
                "FXBOT_NOT_FOUND",
                "FXBOT_BUSY",
                "FXBOT_CONFLICT",
                "FXBOT_CLOSED",
                "FXBOT_STORE_REVISION_CONFLICT",
                "FXBOT_STORE_FAILED",
                "FXBOT_INTERNAL",
                "FXBOT_PROVIDER_FAILED",
            ]
        );
        let statuses: Vec<Option<u16>> = bots.iter().map(|c| c.status()).collect();
        let s = Some;
        assert_eq!(
            statuses,
            [
                s(400),
                s(404),
                s(409),
                s(409),
                s(409),
                s(409),
                s(500),
                s(500),
                s(502)
            ]
        );
        // Every FXBOT_* code has a status, no FX_* code has one.
        for code in Code::ALL {
            assert_eq!(code.status().is_some(), code.as_str().starts_with("FXBOT_"));
        }
    }

    #[test]
    fn leaves_map_to_statuses() {
        let cases: Vec<(FxbotError, u16, &str)> = vec![
            (BotId::parse("0123456789abc").unwrap_err().into(), 400, "botId must be 12 lowercase hex characters (0-9, a-f); got \"0123456789abc\""),
            (FieldError::EmptyName.into(), 400, "name must not be empty"),
            (PinError { max: 3 }.into(), 400, "at most 3 bots can be pinned; unpin one first"),
            (UpdateError::ProviderNeededForChat.into(), 400, "provider cannot be \"\" for a bot with a chat; choose another provider instead"),
            (MessageError::TextRequired.into(), 400, "text is required unless the message has files"),
            (crate::bot::cursor::Cursor::from_f64(0.5).unwrap_err().into(), 400, "cursor must be a whole number from 0 to 9007199254740991; got 0.5"),
            (FxbotError::NoProvider, 400, "this bot has no provider; choose one with bots.update(botId, { provider })"),
            (FxbotError::NoModel, 400, "this bot has no model, and its provider has no default model; set one with bots.update(botId, { model })"),
            (FxbotError::NotFound { what: Entity::Bot, id: "0123456789ab".into() }, 404, "there is no bot 0123456789ab"),
            (FxbotError::NotFound { what: Entity::LibraryItem, id: "0123456789ab".into() }, 404, "there is no library item 0123456789ab"),
            (FxbotError::Busy { running: Some("m1".into()) }, 409, "a turn for message m1 is still running for this bot; wait for it or stop it"),
            (FxbotError::Busy { running: None }, 409, "a turn is running for this bot; wait for it or stop it"),
            (FxbotError::Conflict { key: "bot/0123456789ab".into(), attempts: 5 }, 409, "bot/0123456789ab kept changing in the store while it was being updated (5 attempts); try again"),
            (FxbotError::Closed, 409, "this fxbot was closed"),
            (DocError::Damaged { key: "bot/x".into(), detail: "eof".into() }.into(), 500, "the stored document bot/x is damaged: eof"),
            (FxbotError::Store { key: "bot/x".into(), error: StoreError::failed(Store::Docs, "load", Failure::Threw, "quota".into()) }, 500, "store.load(bot/x) failed: quota"),
            (FxbotError::Store { key: "s1".into(), error: StoreError::failed(Store::Session, "remove", Failure::TimedOut, "sessionStore.remove() did not answer within 10 ms".into()) }, 500, "sessionStore.remove(s1) failed: sessionStore.remove() did not answer within 10 ms"),
            (FxbotError::Internal { message: "oops".into() }, 500, "internal error: oops"),
            (FxbotError::ProviderFailed { message: "the provider answered 500".into() }, 502, "the provider answered 500"),
        ];
        for (error, status, message) in cases {
            assert_eq!(error.status(), status, "{error:?}");
            assert_eq!(error.to_string(), message);
        }
        let line = FxbotError::Busy { running: None }.to_line_error();
        assert_eq!((line.status, line.code.as_str()), (409, "FXBOT_BUSY"));
        // A session-store failure in a turn is the store's (500), with the agent's code beside.
        let store = StoreError::failed(Store::Session, "commit", Failure::Threw, "quota".into());
        let error = FxbotError::from(AgentError::Turn(TurnError::Session(SessionError::Store(
            store,
        ))));
        let line = error.to_line_error();
        assert_eq!(
            (line.status, line.code.as_str(), line.cause.as_deref()),
            (500, "FXBOT_STORE_FAILED", Some("FX_SESSION_STORE_FAILED"))
        );
    }
}
