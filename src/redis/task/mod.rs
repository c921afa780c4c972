//! The task store on the Redis client: [`RedisTaskStore`], the
//! [`TaskStore`](crate::task::TaskStore) shared by every instance of a
//! server.
//!
//! The files, bottom-up: `script` (the commands and scripts, each atomic on
//! one hash slot, what their replies mean, and the client's failure as a
//! [`TaskStoreError`](crate::task::TaskStoreError)), `store`
//! ([`RedisTaskStore`]: its keys and the contract on them), `builder`
//! ([`RedisTaskStoreBuilder`], which checks the settings and makes the
//! store).

mod builder;
mod script;
mod store;

pub use builder::RedisTaskStoreBuilder;
pub use store::RedisTaskStore;
