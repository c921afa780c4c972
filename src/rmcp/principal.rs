//! [`PrincipalFn`]: how the mount finds who is calling.

/// Derives the principal from a request's HTTP parts (headers, and
/// extensions an authentication layer inserted). `None` means anonymous.
pub type PrincipalFn = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;
