//! Feature `redis`: the task store shared by every instance of a server,
//! on the replay guard's connection to Redis (`crate::state`'s).
//!
//! The files, bottom-up: `script` (the commands and scripts, each atomic on
//! one hash slot, and what their replies mean), `store` ([`RedisTaskStore`]:
//! its keys and the contract on them), `builder` ([`RedisTaskStoreBuilder`],
//! which checks the settings and makes the store).

mod builder;
mod script;
mod store;

pub use builder::RedisTaskStoreBuilder;
pub use store::RedisTaskStore;
