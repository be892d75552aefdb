//! Vercel device login: the OAuth device authorization grant, token refresh, the stored OAuth
//! record and logout. Pure logic over the host capabilities it needs ([`crate::caps::Http`],
//! [`crate::caps::Clock`], [`crate::caps::OAuthStore`]); the terminal draws, the host fetches
//! and stores.
//!
//! - [`exchange`]: the requests (JSON `GET`, form `POST`) and the one capped, bounded exchange
//!   they go through.
//! - [`endpoints`]: the issuer, discovery and its endpoint rules, teams URL, client id.
//! - [`device`]: the device flow as a caller-driven state machine ([`DeviceLogin`]).
//! - [`teams`]: listing teams and deciding whether to ask.
//! - [`record`]: the stored record's bytes ([`OAuthRecord`]).
//! - [`login`]: the stored login's lifecycle: load, resolve, refresh, save, log out.
//! - [`credentials`]: which credential a request carries (env key or login), and keeping the
//!   login fresh.
//! - [`error`]: [`AuthError`], the one error type of this area, and [`RecordInvalid`].
//! - [`secret`]: [`Secret`], a token that never prints.
//!
//! Tokens never appear in any `Debug` or `Display` output of this module's types.

pub mod credentials;
pub mod device;
pub mod endpoints;
pub mod error;
pub mod exchange;
mod json;
pub mod login;
pub mod record;
pub mod secret;
pub mod teams;
pub(crate) mod token;

pub use device::{Authorized, DeviceCode, DeviceLogin, PollOutcome};
pub use endpoints::{AuthConfig, Endpoints, Issuer};
pub use error::{AuthError, RecordInvalid, Step, StoreOp};
pub use login::{
    load_login, logout, refresh, resolve_credential, save_login, Credential, LoadedLogin,
    LocalLogout, LogoutReport, Resolution, Revocation, StoredLogin,
};
pub use record::OAuthRecord;
pub use secret::Secret;
pub use teams::{Team, TeamChoice};
