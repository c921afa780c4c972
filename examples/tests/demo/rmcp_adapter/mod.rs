//! `mrtr_guard::rmcp`, the adapter, in process: `rmcp`'s stateless
//! `StreamableHttpService` behind `ScreenLayer` called with HTTP requests
//! (`on_the_wire`), tools written with `rmcp`'s macros (`macros`) and the
//! README's snippets checked against them (`readme`), mounting with
//! `McpServer` (`wiring`), and `McpHandler` under `rmcp`'s own `2025-11-25`
//! client (`legacy`) and the forms each session revision is sent
//! (`legacy_revisions`), on the session both drive (`legacy_session`).

mod legacy;
mod legacy_revisions;
mod legacy_session;
mod macros;
mod on_the_wire;
mod readme;
mod wiring;
