//! A client of remote MCP servers (fxbot DESIGN §9.3): JSON-RPC over Streamable HTTP through
//! the host's `fetch` ([`crate::caps::Http`]), no runtime of its own.
//!
//! - [`client`]: [`McpClient`]: version negotiation from the newest version down, the
//!   `Mcp-Session-Id` and one re-initialise when the server forgets it, answers as JSON or as an
//!   SSE stream scoped to the request, server→client requests answered `-32601`, `tools/list`
//!   with pagination, `tools/call`.
//! - [`names`]: the model-facing name of a server's tool (`mcp_<server>_<tool>`, at most 64
//!   characters) and the read-only tools a new server starts with.
//! - [`render`]: a tool result as the text the model reads, capped at 64 KiB.
//! - [`headers`]: the rules for the headers an owner gives a server.
//! - [`oauth`]: sign-in to a server that needs it: metadata discovery, client registration,
//!   PKCE S256, the code exchange and refresh.
//!
//! Everything an MCP server sends is outside input: no indexing it can reach, every size capped,
//! every request within a deadline.

#![deny(clippy::indexing_slicing)]

pub mod client;
pub mod headers;
pub mod names;
pub mod oauth;
pub mod render;

pub use client::{McpClient, McpError, Tool, VERSIONS};
