//! The bots layer of `createFxbot()` (fxbot DESIGN): plain Rust, tested natively. This part holds
//! the pieces that need no host: the engine over the capability traits builds on them.
//!
//! Table of contents:
//!
//! - [`args`]: the arguments of the calls as the boundary decodes them ([`args::Arg`]: a field
//!   of the wrong kind is kept by its kind's name, for the rule's 400).
//! - [`ids`]: bot, provider, memory and library ids (12 lowercase hex), `mem:`/`msg:` forms, the
//!   `messageId` rule.
//! - [`fields`]: a bot's [`fields::Fields`], the Shape and Color tables, the limits, patches and
//!   the pinned rule.
//! - [`upload`]: the `chat.send` message check: text, files, image sniffing, size limits.
//! - [`error`]: [`error::FxbotError`] with its `FXBOT_*` code (a row of [`crate::Code`]) and status.
//! - [`cursor`], [`stream`]: stream cursors and [`stream::StreamLine`].
//! - [`replay`]: the lines of committed turns, derived from the session log.
//! - [`journal`]: the live journal of a running turn.
//! - [`resume`]: which lines a consumer at a cursor is owed (replay and journal combined).
//! - [`docs`]: the `bot/<id>` and `chat/<botId>` documents and their pure read-modify-write steps.
//! - [`store`]: typed documents over the [`crate::caps::DocStore`], compare-and-set with retries.
//! - [`library`], [`settings`]: library items; settings and providers (part 1 kinds).
//! - [`instructions`], [`tools`]: a turn's system prompt; the bot tools.
//! - [`history`]: a chat's messages as the tools and the fill-in read them.
//! - [`memory`], [`search`]: memories and the budget of them a turn carries; lexical ranking.
//! - [`skill`], [`addon`]: `SKILL.md`, `$name` mentions and the skills list; the add-on
//!   references, the skill and MCP server documents and their rules.
//! - [`engine`]: the engine, every call of `createFxbot()`'s object.
//! - `shown` (crate-private): caller values inside messages. (RFC 3339 timestamps:
//!   [`crate::agent::time`].)

// Parsers of outside input: no indexing that input can reach.
#![deny(clippy::indexing_slicing)]

pub mod addon;
pub mod args;
pub mod cursor;
pub mod docs;
pub mod embed;
pub mod engine;
pub mod error;
pub mod fields;
pub mod history;
pub mod ids;
pub mod instructions;
pub mod journal;
pub mod kinds;
pub mod library;
pub mod memory;
pub mod models;
pub mod replay;
pub mod resume;
pub mod search;
pub mod settings;
pub(crate) mod shown;
pub mod skill;
pub mod store;
pub mod stream;
pub mod tools;
pub mod upload;

pub use error::FxbotError;
