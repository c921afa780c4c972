//! The connection store on the Redis client: [`RedisConnectionStore`], the
//! [`ConnectionStore`](crate::connect::ConnectionStore) every instance of a
//! server shares, so that a connect step completed through one instance's
//! connect route is read by the tool on any.
//!
//! The files: `store` ([`RedisConnectionStore`]: its key, the contract on
//! it, and the store's own runtime that serves the contract's synchronous
//! calls) and `builder` ([`RedisConnectionStoreBuilder`], which checks the
//! settings and makes the store).

mod builder;
mod store;

pub use builder::RedisConnectionStoreBuilder;
pub use store::RedisConnectionStore;
