//! Tasks (the Tasks extension of MCP, SEP-2663): where they are kept.
//!
//! A task is a tool call that runs on after the call returns. The host that
//! runs them is `mrtr_guard::rmcp`'s (`McpServerBuilder::task_tool`); here
//! is what it keeps them in: the [`TaskStore`] contract, the in-process
//! [`MemoryTaskStore`], and with feature `redis` a store every instance of a
//! server shares. A store holds sealed bytes under [`TaskId`]s: what a task
//! asked, its answers and its result are sealed with the server's key and
//! bound to the task's id before they reach it.

mod error;
mod id;
mod memory;
#[cfg(any(feature = "server", feature = "redis"))]
pub(crate) mod millis;
#[cfg(feature = "server")]
pub(crate) mod record;
#[cfg(feature = "redis")]
mod redis;
mod store;

pub use error::TaskStoreError;
pub use id::TaskId;
pub use memory::{DEFAULT_REMEMBERED_BYTES, MemoryTaskStore};
#[cfg(feature = "redis")]
pub use redis::{RedisTaskStore, RedisTaskStoreBuilder};
pub use store::{NewTask, StoreFuture, Stored, TaskLimits, TaskStore};
