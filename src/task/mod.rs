//! Tasks (the Tasks extension of MCP, SEP-2663): where they are kept.
//!
//! A task is a tool call that runs on after the call returns. The host that
//! runs them is `mrtr_guard::rmcp`'s (`McpServerBuilder::task_tool`); here
//! is what it keeps them in: the [`TaskStore`] contract, the in-process
//! [`MemoryTaskStore`]; the store every instance of a server shares is on
//! Redis, with the Redis client (`crate::redis`, feature `redis`). A store
//! holds sealed bytes under [`TaskId`]s: what a task asked, its answers and
//! its result are sealed with the server's key and bound to the task's id
//! before they reach it.
//!
//! The files: `store` (the contract: [`TaskStore`], what it is given and
//! gives back), `error` ([`TaskStoreError`]), `id` ([`TaskId`]), `millis`
//! (Unix milliseconds, as records and Redis scores carry time), `record`
//! (what the server keeps about one task, sealed; feature `server`) and
//! `memory` ([`MemoryTaskStore`], one process).

mod error;
mod id;
mod memory;
#[cfg(any(feature = "server", feature = "redis"))]
pub(crate) mod millis;
#[cfg(feature = "server")]
pub(crate) mod record;
mod store;

pub use error::TaskStoreError;
pub use id::TaskId;
pub use memory::{DEFAULT_REMEMBERED_BYTES, MemoryTaskStore};
pub use store::{CREATED_VERSION, NewTask, StoreFuture, Stored, TaskLimits, TaskStore};
