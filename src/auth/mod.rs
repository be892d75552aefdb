//! Vercel device login: the OAuth device authorization grant, token refresh, the stored OAuth
//! record and logout. Pure logic over small host traits; the terminal draws, the host fetches
//! and stores.
//!
//! - [`transport`]: what the host provides: [`Transport`] (HTTP), [`Clock`], [`Sleeper`].
//! - [`store`]: the `oauthSessionStore` contract ([`OAuthStore`]).
//! - [`endpoints`]: the issuer, discovery and its endpoint rules, teams URL, client id, form
//!   encoding.
//! - [`device`]: the device flow as a caller-driven state machine ([`DeviceLogin`]).
//! - [`teams`]: listing teams and deciding whether to ask.
//! - [`record`]: the stored record's bytes ([`OAuthRecord`]).
//! - [`session`]: the credential lifecycle: resolve, refresh, save, logout.
//! - [`error`]: [`AuthError`], the one error type of this area.
//! - [`secret`]: [`Secret`], a token that never prints.
//!
//! Tokens never appear in any `Debug` or `Display` output of this module's types.

pub mod device;
pub mod endpoints;
pub mod error;
mod json;
pub mod record;
pub mod secret;
pub mod session;
pub mod store;
pub mod teams;
mod token;
pub mod transport;

pub use device::{Authorized, DeviceCode, DeviceLogin, PollOutcome};
pub use endpoints::{AuthConfig, Endpoints, Issuer};
pub use error::{AuthError, Step, StoreOp};
pub use record::{OAuthRecord, RecordInvalid};
pub use secret::Secret;
pub use session::{
    load_session, logout, refresh, resolve_credential, save_new_session, Credential, LoadedSession,
    LocalLogout, LogoutReport, Resolution, Revocation, StoredSession,
};
pub use store::{OAuthStore, RemoveOutcome, StoreError};
pub use teams::{Team, TeamChoice};
pub use transport::{Clock, HttpRequest, HttpResponse, Method, Sleeper, Transport, TransportError};
