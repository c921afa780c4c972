//! The connect route (feature `connect`): the tower service a browser opens
//! a connect link at. [`ConnectRoute`] proves the browser user is the
//! link's principal, through a function the server provides (the same shape
//! as `McpServer`'s), before it shows anything; then it collects the secret
//! on its own page, CSRF-protected, or sends the browser to a third party
//! for an OAuth authorization (feature `connect-oauth`), and keeps what the
//! step produced bound to the principal.
//!
//! The files: `service` ([`ConnectRoute`]: what each request is, and the
//! refusals), `secret` (the secret page: shown, posted, validated, kept),
//! `oauth` (the redirect to the third party and its callback; feature
//! `connect-oauth`), `browser` (the cookie a ticket or a state is bound to)
//! `page` (the HTML and the headers every page carries) and `events`
//! (what the operator is told).

mod browser;
mod events;
#[cfg(feature = "connect-oauth")]
mod oauth;
mod page;
mod secret;
mod service;

pub use service::{ConnectBody, ConnectRoute};
