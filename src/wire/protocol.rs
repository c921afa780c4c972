//! The protocol revision this crate implements, and the `_meta` keys every
//! request of that revision carries. In a file of their own (not in the
//! index) so that the files here that need them import them by path.

/// The protocol revision this crate implements.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The `_meta` key of the protocol version every 2026-07-28 request carries.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The `_meta` key of the client capabilities every 2026-07-28 request carries.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The `_meta` key of the (self-reported, untrusted) client information.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
