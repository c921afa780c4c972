//! Servers a test starts with `scripts/redis-up` (one `redis-server`, or a
//! Redis Cluster of three masters) under a directory of its own, and can
//! restart in place: the same port and settings, no persistence, so the
//! restarted instance has lost every key (a cluster master rejoins from its
//! `nodes.conf`). Stopped, and their directory removed, when dropped.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What `scripts/redis-up` started, and where.
pub(super) struct Scripted {
    dir: PathBuf,
    url: String,
    /// Each node's directory and port (one without `--cluster`).
    nodes: Vec<(PathBuf, u16)>,
    cluster: bool,
}

impl Scripted {
    /// Starts a plain server, or a cluster.
    pub(super) fn up(cluster: bool) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("mrtr-guard-test-up-{}-{nanos}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/redis-up");
        let run = || {
            let mut command = Command::new(&script);
            if cluster {
                command.arg("--cluster");
            }
            command.arg(&dir).output().unwrap()
        };
        // A loaded machine can miss the script's 10 s: once more.
        let mut output = run();
        if !output.status.success() {
            stop_all(&dir);
            output = run();
        }
        if !output.status.success() {
            stop_all(&dir);
        }
        assert!(
            output.status.success(),
            "scripts/redis-up failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let url = String::from_utf8(output.stdout).unwrap().trim().to_owned();
        let nodes = if cluster {
            (1..=3)
                .map(|n| {
                    let node = dir.join(format!("node-{n}"));
                    let port = own_port(&node);
                    (node, port)
                })
                .collect()
        } else {
            let port = url
                .trim_end_matches('/')
                .rsplit(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            vec![(dir.clone(), port)]
        };
        Self {
            dir,
            url,
            nodes,
            cluster,
        }
    }

    /// The URL `scripts/redis-up` printed (a cluster: its first node's).
    pub(super) fn url(&self) -> &str {
        &self.url
    }

    /// The first node's `host:port`, as the guard names it.
    #[cfg_attr(
        not(feature = "tracing"),
        expect(dead_code, reason = "the events name it")
    )]
    pub(super) fn server(&self) -> &str {
        self.url
            .trim_start_matches("redis://")
            .trim_end_matches('/')
    }

    /// The URL of node `n` (0-based).
    pub(super) fn node_url(&self, n: usize) -> String {
        format!("redis://127.0.0.1:{}/", self.nodes[n].1)
    }

    /// Stops node `n` and starts it again on its port, with the settings
    /// `scripts/redis-up` gave it and no data; returns once it answers (a
    /// cluster: once every node reports `cluster_state:ok`).
    pub(super) fn restart(&self, n: usize) {
        let (node, port) = &self.nodes[n];
        stop(node);
        let mut command = Command::new("redis-server");
        command
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--protected-mode",
                "yes",
                "--save",
                "",
                "--appendonly",
                "no",
            ]);
        if self.cluster {
            command
                .args(["--cluster-enabled", "yes", "--cluster-config-file"])
                .arg(node.join("nodes.conf"))
                .args(["--cluster-port", &(port + 10_000).to_string()])
                .args(["--cluster-node-timeout", "5000"]);
        }
        let status = command
            .arg("--dir")
            .arg(node)
            .args(["--daemonize", "yes", "--pidfile"])
            .arg(node.join("redis.pid"))
            .arg("--logfile")
            .arg(node.join("redis.log"))
            .status()
            .unwrap();
        assert!(status.success(), "redis-server did not start again");
        for _ in 0..200 {
            if self.ready() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the restarted redis-server on port {port} is not ready");
    }

    fn ready(&self) -> bool {
        self.nodes.iter().all(|(_, port)| {
            let url = format!("redis://127.0.0.1:{port}/");
            let Ok(mut conn) = redis::Client::open(url).and_then(|client| client.get_connection())
            else {
                return false;
            };
            if self.cluster {
                let info: Result<String, _> = redis::cmd("CLUSTER").arg("INFO").query(&mut conn);
                info.is_ok_and(|info| info.contains("cluster_state:ok"))
            } else {
                redis::cmd("PING").query::<String>(&mut conn).is_ok()
            }
        })
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        stop_all(&self.dir);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Stops every server `scripts/redis-up` started under `dir`.
fn stop_all(dir: &Path) {
    stop(dir);
    for n in 1..=3 {
        stop(&dir.join(format!("node-{n}")));
    }
}

/// The port in a cluster node's `nodes.conf` (its `myself` line).
fn own_port(node: &Path) -> u16 {
    let conf = std::fs::read_to_string(node.join("nodes.conf")).unwrap();
    let line = conf.lines().find(|line| line.contains("myself")).unwrap();
    let address = line.split(' ').nth(1).unwrap();
    let port = address
        .split('@')
        .next()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap();
    port.parse().unwrap()
}

/// Stops the server whose pid file is in `node`, and waits until it is gone.
fn stop(node: &Path) {
    let Ok(pid) = std::fs::read_to_string(node.join("redis.pid")) else {
        return;
    };
    let pid = pid.trim().to_owned();
    let _ = Command::new("kill").arg(&pid).status();
    for _ in 0..200 {
        let alive = Command::new("kill")
            .args(["-0", &pid])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !alive {
            let _ = std::fs::remove_file(node.join("redis.pid"));
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("redis-server {pid} did not stop");
}
