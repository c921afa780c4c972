//! Feature `redis`: a [`ReplayGuard`] shared by every instance of a server.
//!
//! Each consumed (flow id, round) becomes one Redis key, written with
//! `SET key 1 NX PX <ms until the token's expiry plus the skew>`: the first
//! instance to set it wins, every later attempt (on any instance) is a
//! replay, and Redis forgets the key when no instance whose clock is within
//! the skew of this one's could open the token anyway. `PX` is relative, so
//! Redis' own clock plays no part.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use redis::{
    Client, Cmd, Connection, ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo, RedisError,
    TlsCertificates, Value,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use time::OffsetDateTime;

use crate::state::claims::FlowId;
use crate::state::replay::{ReplayError, ReplayGuard};

/// Feature `redis`: a replay guard on Redis, for servers that run as
/// several instances.
///
/// Give every instance's codec a guard on the same Redis and a token opens
/// once across all of them. The guard connects lazily, keeps a few idle
/// connections for reuse, and drops a connection after any failure (the next
/// call reconnects). An idle connection found closed (Redis restarted) is
/// replaced at once, and the command sent again on the new one.
///
/// Each timeout bounds a whole phase, not each read: opening a connection
/// (TCP, TLS handshake, `AUTH`, `SELECT`) ends within the connect timeout,
/// and the `SET` within the command timeout. A Redis that accepts
/// connections but never answers makes `consume` fail after one of them.
/// `consume` blocks its thread meanwhile: async servers call it off their
/// runtime's workers, as the [`rmcp`](crate::rmcp) adapter does.
///
/// It fails closed: when Redis cannot be reached in time, or answers in error,
/// `consume` returns [`ReplayError::Unavailable`] and the codec refuses the
/// token ([`StateError::ReplayGuard`](crate::state::StateError::ReplayGuard)). The
/// message names the kind of failure and never the URL or its credentials.
///
/// <div class="warning">A call that times out after Redis applied the
/// <code>SET</code> leaves the token consumed: the client's retry of it is then
/// refused as a replay. That is the safe side; keep the command timeout well
/// above Redis' normal latency.</div>
///
/// `redis://` (TCP), `rediss://` (TCP with TLS) and `redis+unix://` URLs
/// are supported. TLS goes through rustls, and the server's certificate is
/// always verified, its name (or IP address) included: against the Mozilla
/// root certificates compiled in (`webpki-roots`), which managed services'
/// public certificates chain to, or, when
/// [`ca_certificate_pem`](RedisGuardBuilder::ca_certificate_pem) names one,
/// against that CA alone. `rediss://...#insecure` (no verification) is
/// refused. Client certificates (mutual TLS) are not supported.
///
/// ```no_run
/// use std::sync::Arc;
/// use mrtr_guard::{KeyRing, MasterKey, RedisReplayGuard, StateCodec};
/// use std::time::Duration;
///
/// let guard = RedisReplayGuard::builder("redis://127.0.0.1:6379/")
///     .key_prefix("shop:replay:")
///     .command_timeout(Duration::from_millis(200))
///     .build()?;
/// // A managed Redis over TLS, with a password; verified against the
/// // Mozilla roots, or a private CA:
/// let tls = RedisReplayGuard::builder("rediss://:password@redis.example.com:6380/")
///     .ca_certificate_pem(std::fs::read("/etc/redis/ca.pem")?)
///     .build()?;
/// # let _ = tls;
/// let codec = StateCodec::builder("https://mcp.example.com", MasterKey::generate()?)
///     .replay_guard(Arc::new(guard))
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RedisReplayGuard {
    client: Client,
    /// `host:port` or the socket path: never the credentials.
    server: String,
    tls: bool,
    /// `AUTH` and `SELECT`, sent on each new connection: never printed.
    handshake: Vec<Cmd>,
    prefix: String,
    connect_timeout: Duration,
    command_timeout: Duration,
    max_idle: usize,
    idle: Mutex<Vec<Connection>>,
}

impl RedisReplayGuard {
    /// The key prefix used unless [`RedisGuardBuilder::key_prefix`] sets another.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mrtr-guard:replay:";
    /// The default time allowed to open a connection (TCP and handshake): 500 ms.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
    /// The default time allowed for one command's request and answer: 500 ms.
    pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_millis(500);
    /// The default number of idle connections kept for reuse: 8.
    pub const DEFAULT_MAX_IDLE: usize = 8;

    /// Starts building a guard on the Redis at `url`
    /// (`redis://[:password@]host:port/[db]`, the same with `rediss://` for
    /// TLS, or `redis+unix:///path`).
    pub fn builder(url: impl Into<String>) -> RedisGuardBuilder {
        RedisGuardBuilder {
            url: url.into(),
            ca_pem: None,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            command_timeout: Self::DEFAULT_COMMAND_TIMEOUT,
            max_idle: Self::DEFAULT_MAX_IDLE,
        }
    }

    /// The Redis key that records (flow id, round): the prefix, the flow id
    /// in lowercase hex, `:`, the round in decimal, for example
    /// `mrtr-guard:replay:000102030405060708090a0b0c0d0e0f:2`.
    pub fn key(&self, flow_id: FlowId, round: u32) -> String {
        format!("{}{flow_id}:{round}", self.prefix)
    }

    /// The key prefix.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    /// Checks that Redis answers, with the guard's timeouts: for a readiness
    /// probe.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Unavailable`] when it does not.
    pub fn ping(&self) -> Result<(), ReplayError> {
        self.with_connection(|conn| redis::cmd("PING").query::<Value>(conn))
            .map(|_| ())
    }

    /// Runs `command` on an idle connection (or a new one), returns the
    /// connection to the pool when the command succeeded and drops it when
    /// it failed.
    ///
    /// An idle connection may have died since its last use (Redis restarted,
    /// a proxy closed it): when one fails with a dropped connection, the
    /// command is sent once more on a new connection. That cannot accept a
    /// token twice: `SET NX` answers `OK` once per key, whichever connection
    /// carries it.
    fn with_connection(
        &self,
        command: impl Fn(&mut Connection) -> Result<Value, RedisError>,
    ) -> Result<Value, ReplayError> {
        let pooled = self.lock_idle().pop();
        let result = match pooled {
            Some(mut conn) => match command(&mut conn) {
                Err(error) if is_stale(&error) => {
                    let mut fresh = self.connect()?;
                    command(&mut fresh).map(|value| (value, fresh))
                }
                other => other.map(|value| (value, conn)),
            },
            None => {
                let mut fresh = self.connect()?;
                command(&mut fresh).map(|value| (value, fresh))
            }
        };
        match result {
            Ok((value, conn)) => {
                let mut idle = self.lock_idle();
                if idle.len() < self.max_idle {
                    idle.push(conn);
                }
                Ok(value)
            }
            Err(error) => Err(unavailable(&error)),
        }
    }

    /// Opens a connection and sends the handshake, all within the connect
    /// timeout: each command may wait only for what is left of it. (The
    /// `redis` crate would pipeline the handshake and give each reply the
    /// whole timeout.)
    fn connect(&self) -> Result<Connection, ReplayError> {
        let deadline = Instant::now().checked_add(self.connect_timeout);
        let mut conn = self
            .client
            .get_connection_with_timeout(self.connect_timeout)
            .map_err(|error| unavailable(&error))?;
        for command in &self.handshake {
            let left = deadline
                .and_then(|deadline| deadline.checked_duration_since(Instant::now()))
                .filter(|left| !left.is_zero())
                .ok_or_else(timed_out)?;
            set_timeouts(&conn, left)?;
            command
                .query::<Value>(&mut conn)
                .map_err(|error| unavailable(&error))?;
        }
        set_timeouts(&conn, self.command_timeout)?;
        Ok(conn)
    }

    fn lock_idle(&self) -> MutexGuard<'_, Vec<Connection>> {
        // The list is only pushed to and popped from; a panic elsewhere cannot
        // leave it inconsistent.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ReplayGuard for RedisReplayGuard {
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let key = self.key(flow_id, round);
        let ttl_ms = time_to_live_ms(retain_until, now);
        let reply = self.with_connection(|conn| {
            redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms)
                .query::<Value>(conn)
        })?;
        match reply {
            Value::Okay => Ok(()),
            Value::Nil => Err(ReplayError::Replayed),
            _ => Err(ReplayError::Unavailable(
                "redis answered SET NX with an unexpected reply".to_owned(),
            )),
        }
    }
}

impl fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("server", &self.server)
            .field("tls", &self.tls)
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.connect_timeout)
            .field("command_timeout", &self.command_timeout)
            .field("max_idle", &self.max_idle)
            .finish_non_exhaustive()
    }
}

/// Feature `redis`: settings for a [`RedisReplayGuard`]; see
/// [`RedisReplayGuard::builder`].
#[must_use]
pub struct RedisGuardBuilder {
    url: String,
    ca_pem: Option<Vec<u8>>,
    prefix: String,
    connect_timeout: Duration,
    command_timeout: Duration,
    max_idle: usize,
}

impl RedisGuardBuilder {
    /// Sets the prefix of every key the guard writes (default
    /// `mrtr-guard:replay:`). Give each server (audience) sharing one Redis
    /// its own prefix.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets the time allowed to open a connection, handshake included
    /// (default 500 ms).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the time allowed to send one command and read its answer
    /// (default 500 ms).
    pub fn command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// Sets how many idle connections are kept for reuse (default 8). More
    /// concurrent calls open more connections; those beyond this number are
    /// closed after use.
    pub fn max_idle(mut self, max_idle: usize) -> Self {
        self.max_idle = max_idle;
        self
    }

    /// Trusts only the CA certificates in `pem` (one or more PEM
    /// `CERTIFICATE` blocks) for a `rediss://` URL, instead of the Mozilla
    /// roots: for a private CA (a self-hosted Redis, a cloud service that
    /// issues its own server CA).
    pub fn ca_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.ca_pem = Some(pem.into());
        self
    }

    /// Checks the settings and builds the guard. It does not connect: the
    /// first `consume` (or [`ping`](RedisReplayGuard::ping)) does.
    ///
    /// For a `rediss://` URL, if the process has no default rustls crypto
    /// provider yet, this installs rustls' `ring` provider as the default.
    ///
    /// # Errors
    ///
    /// [`RedisConfigError::InvalidUrl`] when the URL does not parse;
    /// [`RedisConfigError::InsecureTls`] for `rediss://...#insecure`;
    /// [`RedisConfigError::CaWithoutTls`] for a CA with a URL without TLS;
    /// [`RedisConfigError::InvalidCaCertificate`] for a CA that holds no
    /// certificate or does not parse; [`RedisConfigError::ZeroTimeout`] for
    /// a zero timeout.
    pub fn build(self) -> Result<RedisReplayGuard, RedisConfigError> {
        if self.connect_timeout.is_zero() || self.command_timeout.is_zero() {
            return Err(RedisConfigError::ZeroTimeout);
        }
        let info = self
            .url
            .as_str()
            .into_connection_info()
            .map_err(|_| RedisConfigError::InvalidUrl)?;
        let tls = match info.addr() {
            ConnectionAddr::TcpTls { insecure: true, .. } => {
                return Err(RedisConfigError::InsecureTls);
            }
            ConnectionAddr::TcpTls { .. } => true,
            _ => false,
        };
        // The guard sends AUTH and SELECT itself, within the connect timeout;
        // the client connects with no handshake (not even CLIENT SETINFO).
        let handshake = handshake(info.redis_settings());
        let info = info.set_redis_settings(RedisConnectionInfo::default().set_skip_set_lib_name());
        let client = match self.ca_pem {
            None => Client::open(info),
            Some(_) if !tls => return Err(RedisConfigError::CaWithoutTls),
            Some(pem) => {
                check_ca_pem(&pem)?;
                let certificates = TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem),
                };
                Client::build_with_tls(info, certificates)
            }
        }
        .map_err(|_| RedisConfigError::InvalidUrl)?;
        if tls {
            install_crypto_provider();
        }
        let server = client.get_connection_info().addr().to_string();
        Ok(RedisReplayGuard {
            client,
            server,
            tls,
            handshake,
            prefix: self.prefix,
            connect_timeout: self.connect_timeout,
            command_timeout: self.command_timeout,
            max_idle: self.max_idle,
            idle: Mutex::new(Vec::new()),
        })
    }
}

impl fmt::Debug for RedisGuardBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        f.debug_struct("RedisGuardBuilder")
            .field("custom_ca", &self.ca_pem.is_some())
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.connect_timeout)
            .field("command_timeout", &self.command_timeout)
            .field("max_idle", &self.max_idle)
            .finish_non_exhaustive()
    }
}

/// Feature `redis`: why a [`RedisReplayGuard`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedisConfigError {
    /// The URL is not a `redis://`, `rediss://` or `redis+unix://` URL.
    InvalidUrl,
    /// The URL asks for TLS without certificate verification (`#insecure`).
    InsecureTls,
    /// A CA certificate was given for a URL without TLS.
    CaWithoutTls,
    /// The CA certificate holds no PEM certificate, or one that does not parse.
    InvalidCaCertificate,
    /// A timeout is zero.
    ZeroTimeout,
}

impl fmt::Display for RedisConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl => f.write_str(
                "redis url is not valid (expected redis://host:port/, rediss://host:port/ or redis+unix:///path)",
            ),
            Self::InsecureTls => {
                f.write_str("redis tls without certificate verification (#insecure) is refused")
            }
            Self::CaWithoutTls => {
                f.write_str("a redis ca certificate needs a rediss:// url")
            }
            Self::InvalidCaCertificate => {
                f.write_str("the redis ca certificate is not a valid pem certificate")
            }
            Self::ZeroTimeout => f.write_str("redis timeouts must be longer than zero"),
        }
    }
}

impl std::error::Error for RedisConfigError {}

/// Milliseconds from `now` until `retain_until`, rounded up so that the
/// entry never disappears early, and at least 1: `PX 0` is an error in Redis
/// (`consume` only sees tokens that have not expired).
fn time_to_live_ms(retain_until: OffsetDateTime, now: OffsetDateTime) -> u64 {
    let nanos = retain_until
        .unix_timestamp_nanos()
        .saturating_sub(now.unix_timestamp_nanos());
    let ms = nanos
        .saturating_add(999_999)
        .checked_div(1_000_000)
        .unwrap_or(1);
    u64::try_from(ms.max(1)).unwrap_or(u64::MAX)
}

/// The commands a new connection starts with: `AUTH [user] password` when the
/// URL has a password, `SELECT db` for a database other than 0.
fn handshake(settings: &RedisConnectionInfo) -> Vec<Cmd> {
    let mut commands = Vec::new();
    if let Some(password) = settings.password() {
        let mut auth = redis::cmd("AUTH");
        if let Some(username) = settings.username() {
            auth.arg(username);
        }
        auth.arg(password);
        commands.push(auth);
    }
    if settings.db() != 0 {
        let mut select = redis::cmd("SELECT");
        select.arg(settings.db());
        commands.push(select);
    }
    commands
}

fn set_timeouts(conn: &Connection, timeout: Duration) -> Result<(), ReplayError> {
    conn.set_read_timeout(Some(timeout))
        .and_then(|()| conn.set_write_timeout(Some(timeout)))
        .map_err(|error| unavailable(&error))
}

fn timed_out() -> ReplayError {
    ReplayError::Unavailable("redis did not answer in time".to_owned())
}

/// Checks that `pem` holds at least one certificate and nothing that fails
/// to parse: an empty trust store would refuse every connection later, with
/// a less helpful error.
fn check_ca_pem(pem: &[u8]) -> Result<(), RedisConfigError> {
    let mut count = 0usize;
    for certificate in CertificateDer::pem_slice_iter(pem) {
        certificate.map_err(|_| RedisConfigError::InvalidCaCertificate)?;
        count = count.saturating_add(1);
    }
    if count == 0 {
        return Err(RedisConfigError::InvalidCaCertificate);
    }
    Ok(())
}

/// rustls needs a process-wide crypto provider; the `redis` crate takes the
/// default one. Installs `ring` unless the application already chose one.
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err means another thread installed one first: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The rustls error inside a Redis I/O error, if TLS failed. The `redis`
/// crate keeps the I/O error in an `Arc`, which is what `source` returns.
fn tls_error(error: &RedisError) -> Option<&rustls::Error> {
    type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
    let source = std::error::Error::source(error)?;
    let io = match source.downcast_ref::<Shared>() {
        Some(shared) => shared.downcast_ref::<std::io::Error>(),
        None => source.downcast_ref::<std::io::Error>(),
    }?;
    io.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Describes a Redis failure without its text: client errors can quote the
/// URL, and server errors are reduced to their code (`NOAUTH`, `READONLY`...).
fn unavailable(error: &RedisError) -> ReplayError {
    let why = if let Some(tls) = tls_error(error) {
        match tls {
            rustls::Error::InvalidCertificate(_) => {
                "redis' tls certificate was not accepted".to_owned()
            }
            _ => "tls error talking to redis".to_owned(),
        }
    } else if error.is_timeout() {
        return timed_out();
    } else if error.is_connection_refusal() {
        "redis refused the connection".to_owned()
    } else if error.is_connection_dropped() {
        "the connection to redis was lost".to_owned()
    } else if error.kind() == redis::ErrorKind::AuthenticationFailed
        || error.code() == Some("WRONGPASS")
    {
        "redis refused the credentials".to_owned()
    } else if error.is_io_error() {
        "i/o error talking to redis".to_owned()
    } else {
        match error.code().filter(|code| is_plain_code(code)) {
            Some(code) => format!("redis answered with error {code}"),
            None => "redis answered in error".to_owned(),
        }
    };
    ReplayError::Unavailable(why)
}

/// Whether a pooled connection failed because it was already closed, as
/// opposed to Redis being slow or answering in error.
fn is_stale(error: &RedisError) -> bool {
    error.is_connection_dropped()
}

/// Whether a server error code is a short upper-case word, safe to log.
fn is_plain_code(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= 32
        && code
            .bytes()
            .all(|byte| byte.is_ascii_uppercase() || byte == b'_')
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use time::Duration as TimeDuration;

    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    /// A self-signed CA certificate made for these tests (its key is gone).
    const TEST_CA: &str = "-----BEGIN CERTIFICATE-----
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

    #[test]
    fn tls_urls_build_with_the_default_roots_or_a_ca() {
        let guard = RedisReplayGuard::builder("rediss://:pw@redis.example.com:6380/")
            .build()
            .unwrap();
        assert!(format!("{guard:?}").contains("tls: true"), "{guard:?}");
        let with_ca = RedisReplayGuard::builder("rediss://127.0.0.1:6380/")
            .ca_certificate_pem(TEST_CA)
            .build();
        assert!(with_ca.is_ok());
        let plain = RedisReplayGuard::builder("redis://127.0.0.1:6379/")
            .build()
            .unwrap();
        assert!(format!("{plain:?}").contains("tls: false"), "{plain:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }

    #[test]
    fn ttl_is_milliseconds_until_expiry_and_never_zero() {
        assert_eq!(time_to_live_ms(at(600), at(0)), 600_000);
        assert_eq!(
            time_to_live_ms(at(0) + TimeDuration::milliseconds(1500), at(0)),
            1500
        );
        assert_eq!(
            time_to_live_ms(at(0) + TimeDuration::nanoseconds(1_000_001), at(0)),
            2,
            "rounded up"
        );
        assert_eq!(time_to_live_ms(at(0), at(0)), 1);
        assert_eq!(time_to_live_ms(at(0), at(5)), 1);
    }

    #[test]
    fn keys_are_prefix_hex_flow_id_and_round() {
        let guard = RedisReplayGuard::builder("redis://127.0.0.1:1/")
            .key_prefix("p:")
            .build()
            .unwrap();
        let flow = FlowId::from_bytes([0xab; 16]);
        assert_eq!(guard.key(flow, 7), format!("p:{}:7", "ab".repeat(16)));
        assert_eq!(guard.key_prefix(), "p:");
    }

    #[test]
    fn configuration_errors() {
        assert_eq!(
            RedisReplayGuard::builder("http://example.com/")
                .build()
                .err(),
            Some(RedisConfigError::InvalidUrl)
        );
        assert_eq!(
            RedisReplayGuard::builder("rediss://127.0.0.1:6379/#insecure")
                .build()
                .err(),
            Some(RedisConfigError::InsecureTls)
        );
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .ca_certificate_pem(TEST_CA)
                .build()
                .err(),
            Some(RedisConfigError::CaWithoutTls)
        );
        for bad in [
            &b""[..],
            b"not pem",
            b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n",
        ] {
            assert_eq!(
                RedisReplayGuard::builder("rediss://127.0.0.1:6379/")
                    .ca_certificate_pem(bad)
                    .build()
                    .err(),
                Some(RedisConfigError::InvalidCaCertificate)
            );
        }
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .command_timeout(Duration::ZERO)
                .build()
                .err(),
            Some(RedisConfigError::ZeroTimeout)
        );
        assert_eq!(
            RedisConfigError::ZeroTimeout.to_string(),
            "redis timeouts must be longer than zero"
        );
    }

    #[test]
    fn debug_shows_the_server_but_no_credentials() {
        let url = "redis://:hunter2-secret@127.0.0.1:6399/3";
        let guard = RedisReplayGuard::builder(url).build().unwrap();
        let builder = RedisReplayGuard::builder(url);
        for text in [format!("{guard:?}"), format!("{builder:?}")] {
            assert!(!text.contains("hunter2"), "{text}");
        }
        assert!(format!("{guard:?}").contains("127.0.0.1:6399"));
    }

    #[test]
    fn server_error_codes_are_kept_only_when_plain() {
        assert!(is_plain_code("NOAUTH"));
        assert!(is_plain_code("WRONGTYPE"));
        assert!(!is_plain_code("pass=x"));
        assert!(!is_plain_code(""));
        assert!(!is_plain_code(&"A".repeat(33)));
    }
}
