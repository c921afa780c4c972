//! The connect flow: URL-mode elicitation that cannot be phished.
//!
//! A round asks for a connection ([`Round::connect`](crate::Round::connect))
//! through a link the [`Connector`] seals: bound to the principal, the flow
//! and round, the tool and its arguments, and the connect route; short-lived
//! and single use. The connect route (`route`, feature `connect`) proves the
//! browser user is the link's principal before anything else, then collects
//! the secret on its own page, or runs an OAuth authorization-code flow with
//! PKCE at a third party (feature `connect-oauth`); what the step produced is a [`Connection`],
//! sealed into a [`ConnectionStore`] bound to the principal and a name, and
//! read by the tool, never sent to the client. What is guaranteed, and what
//! the server provides:
//! [`docs/CONNECT.md`](https://docs.rs/crate/mrtr-guard/latest/source/docs/CONNECT.md).
//!
//! The files: `link` (the sealed link, form ticket and OAuth state, and the
//! link's id), `connection` ([`Connection`], sealed for the store), `store`
//! (the [`ConnectionStore`] contract and its error), `memory`
//! ([`MemoryConnectionStore`]), `connector` ([`Connector`], its builder
//! and [`Connect`], one ask), `oauth` (`OAuthProvider`, a third party
//! and the calls made to it; feature `connect-oauth`) and `route/` (the connect route, feature
//! `connect`).

mod connection;
mod connector;
mod link;
mod memory;
#[cfg(feature = "connect-oauth")]
mod oauth;
#[cfg(feature = "connect")]
pub mod route;
mod store;

pub use connection::Connection;
pub use connector::{
    Connect, Connector, ConnectorBuilder, ConnectorConfigError, DEFAULT_CONNECTION_TTL,
    DEFAULT_LINK_TTL,
};
pub(crate) use link::LinkAsk;
pub use memory::MemoryConnectionStore;
#[cfg(feature = "connect-oauth")]
pub use oauth::OAuthProvider;
pub use store::{ConnectionStore, ConnectionStoreError};
