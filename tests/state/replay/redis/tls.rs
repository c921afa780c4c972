//! `rediss://` (feature `redis-tls`): verified against a given CA, an
//! untrusted certificate refused, a TLS server not spoken to in plain; a
//! Redis Cluster over TLS.

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
use mrtr_guard::state::ReplayError;
use mrtr_guard::{RedisReplayGuard, StateError};

use crate::replay::redis::support::{
    CLUSTER_TLS_CA_VAR, CLUSTER_TLS_URL_VAR, OTHER_CA, binding, instance, redis_tls, runtime,
    setting, token, unique_prefix,
};

#[test]
fn over_tls_a_token_opens_once_across_two_instances() {
    let Some((url, ca)) = redis_tls() else { return };
    assert!(url.starts_with("rediss://"), "{url}");
    let prefix = unique_prefix("tls");
    let tls_guard = || {
        RedisReplayGuard::builder(url.as_str())
            .key_prefix(prefix.as_str())
            .ca_certificate_pem(ca.clone())
            .build()
            .unwrap()
    };
    assert_eq!(tls_guard().ping(), Ok(()));
    let a = instance(Arc::new(tls_guard()));
    let b = instance(Arc::new(tls_guard()));
    let token = token(&a);
    assert!(a.open::<()>(&token, &binding()).is_ok());
    assert_eq!(
        b.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );
}

#[test]
fn over_tls_an_untrusted_certificate_fails_closed() {
    let Some((url, _)) = redis_tls() else { return };
    // The Mozilla roots (the default), and a CA that did not sign the
    // server's certificate: neither trusts the test server.
    let guards = [
        RedisReplayGuard::builder(url.as_str()).build().unwrap(),
        RedisReplayGuard::builder(url.as_str())
            .ca_certificate_pem(OTHER_CA)
            .build()
            .unwrap(),
    ];
    for guard in guards {
        assert_eq!(
            guard.ping(),
            Err(ReplayError::Unavailable(
                "redis' tls certificate was not accepted".to_owned()
            )),
            "{guard:?}"
        );
        let codec = instance(Arc::new(guard));
        assert!(matches!(
            codec.open::<()>(&token(&codec), &binding()),
            Err(StateError::ReplayGuard(ReplayError::Unavailable(_)))
        ));
    }
}

#[test]
fn a_tls_server_does_not_answer_plain_redis() {
    let Some((url, _)) = redis_tls() else { return };
    let plain = url.replacen("rediss://", "redis://", 1);
    let guard = RedisReplayGuard::builder(plain).build().unwrap();
    assert!(matches!(guard.ping(), Err(ReplayError::Unavailable(_))));
}

/// A Redis Cluster over TLS only (`scripts/redis-up --cluster --tls`): every
/// node verified against the test CA, single use across instances.
#[test]
fn on_a_tls_redis_cluster_a_token_opens_once_across_two_instances() {
    let Some(url) = setting(CLUSTER_TLS_URL_VAR) else {
        return;
    };
    let ca = std::fs::read(setting(CLUSTER_TLS_CA_VAR).unwrap()).unwrap();
    assert!(url.starts_with("rediss://"), "{url}");
    let runtime = runtime();
    let prefix = unique_prefix("cluster-tls");
    let connect = || {
        runtime
            .block_on(
                RedisReplayGuard::builder(url.as_str())
                    .key_prefix(prefix.as_str())
                    .ca_certificate_pem(ca.clone())
                    .connect(),
            )
            .unwrap()
    };
    let a = instance(Arc::new(connect()));
    let b = instance(Arc::new(connect()));
    for _ in 0..30 {
        let token = token(&a);
        assert!(
            runtime
                .block_on(a.open_async::<()>(&token, &binding()))
                .is_ok()
        );
        assert_eq!(
            b.open::<()>(&token, &binding()).err(),
            Some(StateError::Replayed)
        );
    }
    // A CA that did not sign the nodes' certificates: refused at start.
    let untrusted = runtime.block_on(
        RedisReplayGuard::builder(url.as_str())
            .ca_certificate_pem(OTHER_CA)
            .connect(),
    );
    let Err(RedisConfigError::Unavailable(why)) = untrusted else {
        panic!("expected the certificate refusal, got {untrusted:?}");
    };
    assert_eq!(why.to_string(), "redis' tls certificate was not accepted");
}
