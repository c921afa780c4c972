//! The messages of the start-up and configuration errors, word for word:
//! each names the setting and the fix, and quotes nothing secret.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::state::{ConfigError, KeyError, MintError};
use mrtr_guard::{KeyRing, MasterKey, Policy, StateCodec};
use time::Duration;

fn key() -> MasterKey {
    MasterKey::from_bytes(&[3; 32]).unwrap()
}

#[test]
fn key_errors_say_what_to_give() {
    // What `openssl rand -hex 32` prints.
    let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let cases = [
        (
            MasterKey::from_base64(hex).err(),
            "the master key is hexadecimal text; give base64, as `mrtr-guard keygen` \
             (or `openssl rand -base64 32`) prints, or the key's bytes to \
             MasterKey::from_bytes",
        ),
        (
            MasterKey::from_base64("AAAAAAAAAAAAAAAAAAAAAA==").err(),
            "the master key is 16 bytes; give at least 32 random bytes \
             (base64, as `mrtr-guard keygen` prints)",
        ),
        (
            MasterKey::from_base64("not base64!").err(),
            "the master key text is not base64; give it as `mrtr-guard keygen` \
             (or `openssl rand -base64 32`) prints it",
        ),
        (
            Some(KeyError::Rng),
            "the operating system's random number generator failed; run where \
             getrandom works, or load a key with MasterKey::from_base64",
        ),
    ];
    for (error, expected) in cases {
        let error = error.expect("the key is refused");
        assert_eq!(error.to_string(), expected);
    }
    let id = key().id();
    let duplicate = KeyRing::new(key()).with_verify_only(key()).err();
    assert_eq!(duplicate, Some(KeyError::DuplicateKeyId(id)));
    assert_eq!(
        duplicate.unwrap().to_string(),
        format!(
            "the key ring already holds key {id}; give each key once (the active key \
             is not also verify-only)"
        )
    );
    let message = MasterKey::from_base64(hex).unwrap_err().to_string();
    assert!(!message.contains(hex), "{message}");
}

#[test]
fn an_audience_that_is_not_an_endpoint_url_is_refused() {
    for audience in [
        "not a url",
        "aud",
        "mcp.example.com/mcp",
        "urn:mcp:shop",
        "https://",
    ] {
        assert_eq!(
            StateCodec::builder(audience, key()).build().err(),
            Some(ConfigError::InvalidAudience),
            "{audience}"
        );
    }
    assert_eq!(
        StateCodec::builder("", key()).build().err(),
        Some(ConfigError::EmptyAudience)
    );
    for audience in ["https://mcp.example.com/mcp", "http://127.0.0.1:8080/mcp"] {
        assert!(
            StateCodec::builder(audience, key()).build().is_ok(),
            "{audience}"
        );
    }
}

#[test]
fn config_errors_name_the_setting_and_the_fix() {
    let build = |audience: &str, policy: Policy| {
        StateCodec::builder(audience, key())
            .policy(policy)
            .build()
            .unwrap_err()
            .to_string()
    };
    let url = "https://mcp.example.com/mcp";
    let cases = [
        (
            build("", Policy::default()),
            "the audience is empty; give StateCodec::builder the MCP endpoint's URL, \
             as clients reach it (e.g. https://mcp.example.com/mcp)",
        ),
        (
            build("not a url", Policy::default()),
            "the audience is not an absolute http(s) URL; give StateCodec::builder the \
             MCP endpoint's URL with scheme and host, as clients reach it \
             (e.g. https://mcp.example.com/mcp)",
        ),
        (
            build(url, Policy::default().with_ttl(Duration::ZERO)),
            "the round ttl is under one second; give Policy::with_ttl at least one \
             second (the default is 10 minutes)",
        ),
        (
            build(url, Policy::default().with_flow_ttl(Duration::ZERO)),
            "the flow deadline is under one second; give Policy::with_flow_ttl at least \
             one second (the default is 30 minutes)",
        ),
        (
            build(url, Policy::default().with_skew(Duration::seconds(-1))),
            "the clock skew is negative; give Policy::with_skew zero or more \
             (the default is 60 seconds)",
        ),
        (
            build(url, Policy::default().with_max_rounds(0)),
            "the round cap is 0, so no flow could ask; give Policy::with_max_rounds \
             at least 1 (the default is 10)",
        ),
        (
            build(url, Policy::default().with_max_token_len(1)),
            "the maximum token length is too small for any token; give \
             Policy::with_max_token_len at least 256 characters (the default is 8192)",
        ),
    ];
    for (message, expected) in cases {
        assert_eq!(message, expected);
    }
}

#[test]
fn mint_errors_of_configuration_say_what_to_change() {
    assert_eq!(
        MintError::MissingPrincipal.to_string(),
        "the binding has no principal; bind the authenticated caller \
         (Binding::new), or build the codec with allow_anonymous() for tools that \
         need no authentication"
    );
    assert_eq!(
        MintError::TooLarge {
            len: 9000,
            max: 8192
        }
        .to_string(),
        "the token would be 9000 characters, over the policy's maximum of 8192; \
         carry less in the state, or raise Policy::with_max_token_len"
    );
}

#[cfg(feature = "redis")]
#[test]
fn redis_config_errors_name_the_setting_and_the_fix() {
    use mrtr_guard::RedisReplayGuard;
    use mrtr_guard::redis::RedisConfigError;

    let build = |url: &str| RedisReplayGuard::builder(url).build().unwrap_err();
    let cases = [
        (
            build("http://:hunter2@127.0.0.1/"),
            "the redis url is not valid; give redis://host:port/, rediss://host:port/ \
             (tls) or redis+unix:///path",
        ),
        (
            build("rediss://:hunter2@127.0.0.1:6380/#insecure"),
            "the redis url turns off tls certificate verification (#insecure); remove \
             #insecure, and give a private ca with ca_certificate_pem",
        ),
        (
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .ca_certificate_pem("-----BEGIN CERTIFICATE-----")
                .build()
                .unwrap_err(),
            "a redis ca certificate was given for a url without tls; use a rediss:// url, \
             or drop ca_certificate_pem",
        ),
        (
            RedisReplayGuard::builder("rediss://127.0.0.1:6380/")
                .ca_certificate_pem("not pem")
                .build()
                .unwrap_err(),
            "the redis ca certificate is not a valid pem certificate; give \
             ca_certificate_pem the ca's pem text (-----BEGIN CERTIFICATE-----)",
        ),
        (
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .connect_timeout(std::time::Duration::ZERO)
                .build()
                .unwrap_err(),
            "a redis timeout is zero; give connect_timeout, command_timeout, \
             watch_interval and the wait_for_replicas timeout more than zero",
        ),
        (
            RedisConfigError::Evicts("allkeys-lru".to_owned()),
            "redis maxmemory-policy is allkeys-lru: redis may evict mrtr-guard's keys (a used \
             requestState would open again, a task would vanish); set maxmemory-policy \
             noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf)",
        ),
        (
            RedisConfigError::PolicyUnreadable,
            "redis refused CONFIG GET maxmemory-policy, so mrtr-guard cannot check that \
             redis never evicts; set the service's eviction policy to noeviction, then build \
             with allow_replay_if_redis_evicts() (the replay guard) or \
             allow_task_loss_if_redis_evicts() (the task store)",
        ),
    ];
    for (error, expected) in cases {
        let message = error.to_string();
        assert_eq!(message, expected);
        assert!(!message.contains("hunter2"), "{message}");
    }
}
