//! What the operator is told of the connect route: why it refused a
//! request, and a store that failed. Never a principal, a link, a ticket or
//! a submitted value.

use crate::connect::store::ConnectionStoreError;

/// Tells the operator why the route refused a request: `link_refused`,
/// `link_replayed`, `other_principal`, `ticket_refused`, `csrf`,
/// `ticket_replayed`, `state_refused`, `issuer_mismatch`, `state_replayed`.
#[cfg(feature = "tracing")]
pub(super) fn event(reason: &'static str) {
    tracing::warn!(
        name: "connect_refused", target: "mrtr_guard::connect",
        reason,
        "connect request refused: {reason}"
    );
}

#[cfg(not(feature = "tracing"))]
pub(super) fn event(_: &'static str) {}

/// Tells the operator the store could not keep a completed connection.
#[cfg(feature = "tracing")]
pub(super) fn store_failed(error: &ConnectionStoreError) {
    tracing::error!(name: "connect_store_failed", target: "mrtr_guard::connect", "{error}");
}

#[cfg(not(feature = "tracing"))]
pub(super) fn store_failed(_: &ConnectionStoreError) {}

/// Tells the operator the third party refused the code, or could not be
/// reached (`why` holds no token and no code).
#[cfg(all(feature = "tracing", feature = "connect-oauth"))]
pub(super) fn exchange_failed(why: &str) {
    tracing::warn!(name: "connect_exchange_failed", target: "mrtr_guard::connect", "{why}");
}

#[cfg(all(not(feature = "tracing"), feature = "connect-oauth"))]
pub(super) fn exchange_failed(_: &str) {}
