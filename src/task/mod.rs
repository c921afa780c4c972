//! Tasks (the Tasks extension of MCP, SEP-2663): where they are kept.
//!
//! A task is a tool call that runs on after the call returns. The host that
//! runs them is `mrtr_guard::rmcp`'s (`McpServerBuilder::task_tool`); here
//! is what it keeps them in: the [`TaskStore`] contract, the in-process
//! [`MemoryTaskStore`]; the store every instance of a server shares is on
//! Redis, with the Redis client (`crate::redis`, feature `redis`). A store
//! holds sealed bytes under [`TaskId`]s, each task in two parts: its head
//! (status, questions, result: what polling reads) and its body (the call,
//! its state and answers). Both are sealed with the server's key and bound
//! to the task's id and version before they reach it, and everything a
//! store holds is charged to its owner's byte budget.
//!
//! The files: `store` (the contract: [`TaskStore`], what it is given and
//! gives back), `error` ([`TaskStoreError`]), `id` ([`TaskId`]), `millis`
//! (Unix milliseconds, as records and Redis scores carry time), `record`
//! (what the server keeps about one task, sealed; feature `server`) and
//! `memory` ([`MemoryTaskStore`], one process).

mod error;
mod id;
mod memory;
pub(crate) mod millis;
#[cfg(feature = "server")]
pub(crate) mod record;
mod store;

pub use error::TaskStoreError;
pub use id::TaskId;
pub use memory::MemoryTaskStore;
pub use store::{
    Answer, CREATED_VERSION, Due, ENTRY_BYTES, NewTask, Replacement, StoreFuture, Stored,
    StoredHead, TaskLimits, TaskStore,
};
