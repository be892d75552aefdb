//! [`FxbotError`]: every failure of a `createFxbot` call, with an HTTP-like `status` (400, 404,
//! 409, 500, 502) and a stable [`Code`] (fxbot DESIGN §3.4). Each leaf keeps its own typed error
//! (ids, fields, messages, cursors, documents), and this module is the one place they become a
//! status and a code, by exhaustive matches.

use crate::agent::session::SessionError;
use crate::caps::StoreError;

use super::cursor::CursorError;
use super::docs::bot::UpdateError;
use super::docs::DocError;
use super::fields::{FieldError, PinError};
use super::ids::IdError;
use super::library::LibraryError;
use super::stream::LineError;
use super::upload::MessageError;

/// The stable codes of the bots layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// 400: an argument breaks a rule.
    BadRequest,
    /// 404: an unknown bot, provider, memory or library item.
    NotFound,
    /// 409: a turn of another message is running for this bot.
    Busy,
    /// 409: the store kept changing under a read-modify-write (retries exhausted).
    Conflict,
    /// 409: the object was closed.
    Closed,
    /// 409: what a store adapter throws for a stale `expectedRevision`. The engine retries on
    /// it and never passes it on; it is listed so the adapters and the engine agree on it.
    StoreRevisionConflict,
    /// 500: a store adapter failed, or a stored document is damaged.
    StoreFailed,
    /// 500: a fault of fxbot itself.
    Internal,
    /// 502: a provider (or a server behind one) failed.
    ProviderFailed,
}

impl Code {
    /// Every code, in this order in the docs.
    pub const ALL: [Code; 9] = [
        Code::BadRequest,
        Code::NotFound,
        Code::Busy,
        Code::Conflict,
        Code::Closed,
        Code::StoreRevisionConflict,
        Code::StoreFailed,
        Code::Internal,
        Code::ProviderFailed,
    ];

    /// The `code` property of the JS error.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::BadRequest => "FXBOT_BAD_REQUEST",
            Code::NotFound => "FXBOT_NOT_FOUND",
            Code::Busy => "FXBOT_BUSY",
            Code::Conflict => "FXBOT_CONFLICT",
            Code::Closed => "FXBOT_CLOSED",
            Code::StoreRevisionConflict => "FXBOT_STORE_REVISION_CONFLICT",
            Code::StoreFailed => "FXBOT_STORE_FAILED",
            Code::Internal => "FXBOT_INTERNAL",
            Code::ProviderFailed => "FXBOT_PROVIDER_FAILED",
        }
    }

    /// The `status` property of the JS error.
    pub fn status(self) -> u16 {
        match self {
            Code::BadRequest => 400,
            Code::NotFound => 404,
            Code::Busy | Code::Conflict | Code::Closed | Code::StoreRevisionConflict => 409,
            Code::StoreFailed | Code::Internal => 500,
            Code::ProviderFailed => 502,
        }
    }

    /// The code named `text`.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

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
    /// `send` for a bot without a provider, or whose provider was removed.
    /// An argument outside the rules, described.
    #[error("{message}")]
    Invalid { message: String },
    #[error("this bot has no provider; choose one with bots.update(botId, {{ provider }})")]
    NoProvider,
    /// `send` for a bot with no model of its own and no default model on its provider.
    #[error("this bot has no model, and its provider has no default model; set one with bots.update(botId, {{ model }})")]
    NoModel,
    #[error("there is no {} {id}", what.as_str())]
    NotFound { what: Entity, id: String },
    #[error("a turn for message {running} is still running for this bot; wait for it or stop it")]
    Busy { running: String },
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
            | FxbotError::NoProvider
            | FxbotError::NoModel => Code::BadRequest,
            FxbotError::NotFound { .. } => Code::NotFound,
            FxbotError::Busy { .. } => Code::Busy,
            FxbotError::Conflict { .. } => Code::Conflict,
            FxbotError::Closed => Code::Closed,
            FxbotError::Doc(_) | FxbotError::Store { .. } | FxbotError::Session(_) => {
                Code::StoreFailed
            }
            FxbotError::ProviderFailed { .. } => Code::ProviderFailed,
            FxbotError::Internal { .. } => Code::Internal,
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

    /// The status (400, 404, 409, 500 or 502).
    pub fn status(&self) -> u16 {
        self.code().status()
    }

    /// The error as a `turn_end` carries it.
    pub fn to_line_error(&self) -> LineError {
        LineError {
            status: self.status(),
            code: self.code().as_str().to_owned(),
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
    DocError => Doc,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::ids::BotId;
    use crate::caps::{Failure, Store};

    #[test]
    fn the_code_list() {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
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
        let statuses: Vec<u16> = Code::ALL.iter().map(|c| c.status()).collect();
        assert_eq!(statuses, [400, 404, 409, 409, 409, 409, 500, 500, 502]);
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
        }
        assert_eq!(Code::parse("FX_SESSION_INVALID"), None);
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
            (FxbotError::Busy { running: "m1".into() }, 409, "a turn for message m1 is still running for this bot; wait for it or stop it"),
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
        let line = FxbotError::Busy {
            running: "m1".into(),
        }
        .to_line_error();
        assert_eq!((line.status, line.code.as_str()), (409, "FXBOT_BUSY"));
    }
}
