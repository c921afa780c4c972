//! What the Redis guard's tests share (and the task store's, in
//! `task_store/`): the servers they run against, and fixtures.
//!
//! The server's URL comes from `MRTR_GUARD_REDIS_URL`; a second server, TLS
//! only, from `MRTR_GUARD_REDIS_TLS_URL`, with the path of the CA that signed
//! its certificate in `MRTR_GUARD_REDIS_TLS_CA`; one node of a Redis Cluster
//! of three masters from `MRTR_GUARD_REDIS_CLUSTER_URL`, and one over TLS from
//! `MRTR_GUARD_REDIS_CLUSTER_TLS_URL` with its CA in
//! `MRTR_GUARD_REDIS_CLUSTER_TLS_CA` (`.ci/run` starts all four with
//! `scripts/redis-up`, with `--tls`, `--cluster`, `--cluster --tls`). Without them
//! the tests fail when `CI` is set and are skipped, with a notice, otherwise.
//! A few tests start a `redis-server` of their own, with the settings they
//! test (an eviction policy, a small `maxmemory`, a replica).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write as _;
use std::net::TcpListener;
use std::sync::{Arc, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr_guard::state::{FlowId, PrincipalKey, TokenUse};
use mrtr_guard::{
    Binding, MasterKey, Method, RedisReplayGuard, ReplayGuard, StateCodec, StateContents,
};
use time::OffsetDateTime;

pub(crate) const URL_VAR: &str = "MRTR_GUARD_REDIS_URL";
#[cfg(feature = "redis-tls")]
pub(crate) const TLS_URL_VAR: &str = "MRTR_GUARD_REDIS_TLS_URL";
#[cfg(feature = "redis-tls")]
pub(crate) const TLS_CA_VAR: &str = "MRTR_GUARD_REDIS_TLS_CA";
/// One node of a Redis Cluster of three masters (`scripts/redis-up --cluster`).
pub(crate) const CLUSTER_URL_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_URL";
/// The same over TLS only (`--cluster --tls`), and the CA of its certificates.
#[cfg(feature = "redis-tls")]
pub(crate) const CLUSTER_TLS_URL_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_TLS_URL";
#[cfg(feature = "redis-tls")]
pub(crate) const CLUSTER_TLS_CA_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_TLS_CA";

/// The variable's value, or `None` (after a notice) when it is not set
/// outside CI.
pub(crate) fn setting(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => Some(value),
        _ if std::env::var_os("CI").is_some() => panic!(
            "{var} is not set: CI must start the redis-servers (scripts/redis-up) \
             and export their settings before the tests"
        ),
        _ => {
            // Written to the process' stderr, past the test harness' capture,
            // so that the skip shows in a passing run.
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "notice: {var} is not set; skipping Redis tests \
                     (start servers with `scripts/redis-up [--tls] DIR`, as .ci/run does)"
                );
            });
            None
        }
    }
}

/// The plain test server's URL.
pub(crate) fn redis_url() -> Option<String> {
    setting(URL_VAR)
}

/// The TLS test server's URL and the PEM of the CA that signed its
/// certificate.
#[cfg(feature = "redis-tls")]
pub(crate) fn redis_tls() -> Option<(String, Vec<u8>)> {
    let url = setting(TLS_URL_VAR)?;
    let ca = std::fs::read(setting(TLS_CA_VAR)?).unwrap();
    Some((url, ca))
}

/// A key prefix no other test (or earlier run) uses.
pub(super) fn unique_prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mrtr-guard-test:{}-{nanos}:{test}", std::process::id())
}

/// The same server, another database index.
pub(super) fn with_db(url: &str, db: u32) -> String {
    let base = url.trim_end_matches('/');
    let base = base
        .rsplit_once('/')
        .filter(|(_, index)| index.parse::<u32>().is_ok())
        .map_or(base, |(server, _)| server);
    format!("{base}/{db}")
}

pub(super) fn guard(url: &str, prefix: &str) -> RedisReplayGuard {
    RedisReplayGuard::builder(url)
        .key_prefix(prefix)
        .build()
        .unwrap()
}

/// One server instance: its own codec and its own guard (own connections),
/// the key ring and audience shared with the other instances.
pub(super) fn instance(guard: Arc<dyn ReplayGuard>) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .replay_guard(guard)
    .build()
    .unwrap()
}

pub(super) fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "redeem_voucher", None)
}

/// A direct `consume`'s token: (flow id, round) minted at `now` under the
/// generation `guard` mints with, kept until `retain_until`, by any
/// principal (no share is set: any will do).
pub(super) fn token_use(
    guard: &RedisReplayGuard,
    flow: FlowId,
    round: u32,
    retain_until: OffsetDateTime,
    now: OffsetDateTime,
) -> TokenUse {
    let anyone = PrincipalKey::from_bytes([0; 16]);
    TokenUse::new(anyone, flow, round, now, time::Duration::ZERO, retain_until)
        .with_generation(ReplayGuard::generation(guard, flow))
}

/// An instance without a guard: mints, and opens to read the claims.
pub(super) fn minter() -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap()
}

/// A round-1 state minted by `codec` (an instance: under its guard's
/// generation).
pub(super) fn token(codec: &StateCodec) -> String {
    codec.start(&binding(), &StateContents::new(())).unwrap()
}

/// A `redis-server` this test starts (loopback, no persistence) with its
/// own settings, stopped when dropped.
pub(crate) struct OwnRedis {
    pub(super) child: std::process::Child,
    pub(crate) port: u16,
    /// Its working directory (a replica writes the data it receives there).
    pub(super) dir: std::path::PathBuf,
}

impl OwnRedis {
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub(crate) fn admin(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .unwrap()
            .get_connection()
            .unwrap()
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts `redis-server` with `settings`; `None` (after a notice) when it
/// is not installed outside CI. Under CI it must be: `.ci/run` installs it
/// (scripts/redis-up).
pub(crate) fn own_redis(settings: &[&str]) -> Option<OwnRedis> {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let dir = std::env::temp_dir().join(format!("mrtr-guard-test-redis-{port}"));
    std::fs::create_dir_all(&dir).unwrap();
    let spawned = std::process::Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(&dir)
        .args(settings)
        .stdout(std::process::Stdio::null())
        .spawn();
    let child = match spawned {
        Ok(child) => child,
        Err(error) if std::env::var_os("CI").is_some() => {
            panic!("redis-server could not be started under CI: {error}")
        }
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "notice: redis-server is not installed; skipping a test of its own \
                 (scripts/redis-up installs it)"
            );
            return None;
        }
    };
    let redis = OwnRedis { child, port, dir };
    for _ in 0..100 {
        let answered = redis::Client::open(redis.url())
            .and_then(|client| client.get_connection())
            .and_then(|mut conn| redis::cmd("PING").query::<String>(&mut conn));
        if answered.is_ok() {
            return Some(redis);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("redis-server on port {port} did not answer PING");
}

/// A `redis-server` of its own replicating `primary`, once its link to it
/// is up; `None` as [`own_redis`].
pub(crate) fn own_replica(primary: &OwnRedis) -> Option<OwnRedis> {
    let port = primary.port.to_string();
    let replica = own_redis(&["--replicaof", "127.0.0.1", &port])?;
    let online = (0..200).any(|_| {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut replica.admin())
            .unwrap();
        let synced = info.contains("master_link_status:up");
        if !synced {
            std::thread::sleep(Duration::from_millis(50));
        }
        synced
    });
    assert!(online, "the replica did not sync within 10 s");
    Some(replica)
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The cluster tests one at a time: one of them reconfigures a master.
pub(crate) fn cluster_alone() -> std::sync::MutexGuard<'static, ()> {
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ALONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A CA that signed nothing the test servers use (its key is gone).
#[cfg(feature = "redis-tls")]
pub(super) const OTHER_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBmTCCAT+gAwIBAgIUDTJXZcTbIWXMRV1z/RuG9XokuGMwCgYIKoZIzj0EAwIw
IjEgMB4GA1UEAwwXbXJ0ci1ndWFyZCB1bml0LXRlc3QgQ0EwHhcNMjYxMjAxMDY0
MDU3WhcNMzYxMTI4MDY0MDU3WjAiMSAwHgYDVQQDDBdtcnRyLWd1YXJkIHVuaXQt
dGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAAFlRKjB18BJ0Io2Hmj
SQKMeRFQQ5ehCyxmG7NFvgsJgtyDL4k2CQrE0k5HhZJKbGzd9LrIsSZccuF5w2nw
yHqjUzBRMB0GA1UdDgQWBBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAfBgNVHSMEGDAW
gBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49
BAMCA0gAMEUCIBivzFwLLwrlOV1GrtIZWIl6+TiDXv5RSuvW8FZbSncfAiEAic8m
0tTTFeq1NuLID6GSk4qSA+O7Mq1BtOOmaC9g3nM=
-----END CERTIFICATE-----
";
