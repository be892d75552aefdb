//! Reading what arrives over the network, shared by every protocol of the crate (the gateway,
//! the OAuth login; the bots' providers and MCP next). Pure: text and bytes in, typed values out.
//!
//! - [`url`]: absolute `http(s)://` URLs ([`url::Url`]); each caller applies its own policy.
//! - [`sse`]: server-sent events split into lines, across chunks cut anywhere.
//! - [`bytes`]: word-at-a-time byte searches the decoders share.

pub mod bytes;
pub mod sse;
pub mod url;
