//! A Redis Cluster found from one node's URL: single use across instances, the
//! policy read on every master (over TLS: `tls`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;

use mrtr_guard::redis::RedisConfigError;
use mrtr_guard::{RedisReplayGuard, StateError};

use crate::replay::redis::support::{
    CLUSTER_URL_VAR, binding, cluster_alone, instance, runtime, setting, token, unique_prefix,
};

/// Against the local Redis Cluster (`scripts/redis-up --cluster`): found
/// from one node's URL, its policy checked on every master, single use
/// across instances, and the share key in its own slot.
#[test]
fn on_a_redis_cluster_a_token_opens_once_across_two_instances() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    let runtime = runtime();
    let prefix = unique_prefix("cluster");
    let connect = || {
        runtime
            .block_on(
                RedisReplayGuard::builder(url.as_str())
                    .key_prefix(prefix.as_str())
                    .principal_share(100)
                    .connect(),
            )
            .unwrap()
    };
    let a = instance(Arc::new(connect()));
    let b = instance(Arc::new(connect()));
    assert!(format!("{a:?}").contains("RedisReplayGuard"));
    // Enough tokens to land on every master.
    for _ in 0..30 {
        let token = token(&a);
        assert!(
            runtime
                .block_on(a.open_async::<()>(&token, &binding()))
                .is_ok()
        );
        assert_eq!(
            runtime
                .block_on(b.open_async::<()>(&token, &binding()))
                .err(),
            Some(StateError::Replayed)
        );
        assert_eq!(
            b.open::<()>(&token, &binding()).err(),
            Some(StateError::Replayed)
        );
    }
    assert_eq!(runtime.block_on(connect().health_check()), Ok(()));
}

/// Sets a cluster node's `maxmemory-policy` back when dropped.
struct PolicyBack(redis::Connection);

impl Drop for PolicyBack {
    fn drop(&mut self) {
        let _: Result<(), _> = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg("noeviction")
            .query(&mut self.0);
    }
}

/// The policy is read on every master: one evicting master of three, not
/// the one the URL names, stops the guard.
#[test]
fn on_a_redis_cluster_one_evicting_master_is_refused() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    let mut seed = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let nodes: String = redis::cmd("CLUSTER").arg("NODES").query(&mut seed).unwrap();
    let other = nodes
        .lines()
        .find(|line| line.contains("master") && !line.contains("myself"))
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|address| address.split('@').next())
        .unwrap()
        .to_owned();
    let mut node = redis::Client::open(format!("redis://{other}/"))
        .unwrap()
        .get_connection()
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-lfu")
        .query(&mut node)
        .unwrap();
    let _back = PolicyBack(node);
    let refused = runtime()
        .block_on(RedisReplayGuard::builder(url.as_str()).connect())
        .unwrap_err();
    assert_eq!(refused, RedisConfigError::Evicts("allkeys-lfu".to_owned()));
}
