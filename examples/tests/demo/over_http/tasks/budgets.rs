//! What a task costs is what it holds: a principal's tasks padded to the
//! body limit stay within its byte budget, in memory, on Redis and on a
//! Redis Cluster; past it the call is refused with 429 and `Retry-After`,
//! and cancelling a task gives room back. Then the bound on a process:
//! 64 principals at their budgets leave the server's task memory within
//! the total, measured as its RSS (the server runs as a child process, so
//! that no other test's memory is counted).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use mrtr_guard::task::TaskStore;

use super::*;

/// A principal's budget in the padded test: room for three padded tasks.
const BUDGET: usize = 200 * 1024;

/// How a call is padded: its arguments to 60 KiB (under the default 64 KiB
/// a task keeps), and its `_meta` by `meta` KiB (none of it is kept).
#[derive(Clone, Copy)]
struct Padding {
    meta: usize,
}

/// To the body limit (1 MiB): 900 KiB of `_meta`.
const TO_THE_LIMIT: Padding = Padding { meta: 900 };
/// The arguments only.
const ARGUMENTS: Padding = Padding { meta: 0 };

fn padded(meta: &Value, retry: Option<(&Value, &str)>, padding: Padding) -> Value {
    let mut params = export(meta, retry);
    params["arguments"]["padding"] = json!("x".repeat(60 * 1024));
    params["_meta"]["padding"] = json!("y".repeat(padding.meta * 1024));
    params
}

/// Round 1 and round 2 of a padded export: the head and body of round 2's
/// answer.
async fn create_padded(addr: SocketAddr, user: &str, padding: Padding) -> (String, Value) {
    let first = padded(&task_meta(), None, padding);
    let asked = rpc(addr, user, "tools/call", "export_orders", &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let params = padded(&task_meta(), Some((&range(), &state)), padding);
    rpc_with_head(addr, user, "tools/call", "export_orders", &params).await
}

/// Padded tasks of one principal until the budget refuses one: how many
/// were created, and the refusal (its head and body).
async fn fill(addr: SocketAddr, user: &str, padding: Padding) -> (Vec<String>, (String, Value)) {
    let mut created = Vec::new();
    loop {
        let (head, answer) = create_padded(addr, user, padding).await;
        match answer["result"]["taskId"].as_str() {
            Some(id) => created.push(id.to_owned()),
            None => return (created, (head, answer)),
        }
        assert!(created.len() <= 256, "the budget never refused");
    }
}

async fn padded_tasks_stay_within_the_budget(store: Arc<dyn TaskStore>) {
    let addr = on_loopback(
        Signup::service_with(codec(), move |builder| {
            builder.task_store(store).task_budget(BUDGET, 64 * BUDGET)
        })
        .unwrap(),
    )
    .await;
    let (created, (head, refused)) = fill(addr, "ada", TO_THE_LIMIT).await;
    // Each task holds its 60 KiB call and its state: three fit in 200 KiB.
    assert_eq!(created.len(), 3, "{refused}");
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert_eq!(
        refused["error"]["data"]["limit"], "task bytes for this principal",
        "{refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("tasks/cancel"), "{message}");
    // Another principal has a budget of its own.
    let (_, other) = create_padded(addr, "bob", TO_THE_LIMIT).await;
    assert_eq!(other["result"]["resultType"], "task", "{other}");
    // A cancelled task keeps no call: room for one more.
    let params = json!({"taskId": created[0], "_meta": task_meta()});
    let ack = rpc(addr, "ada", "tasks/cancel", &created[0], &params).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let (_, again) = create_padded(addr, "ada", TO_THE_LIMIT).await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
    assert_eq!(
        settled(addr, "ada", &created[0]).await["status"],
        "cancelled"
    );
}

#[tokio::test]
async fn padded_tasks_stay_within_the_budget_in_memory() {
    padded_tasks_stay_within_the_budget(Arc::new(MemoryTaskStore::new())).await;
}

#[cfg(feature = "redis")]
async fn on_redis(var: &str) {
    use mrtr_guard::redis::RedisTaskStore;

    let Some(url) = super::redis::setting(var) else {
        return;
    };
    let store = RedisTaskStore::builder(url.as_str())
        .key_prefix(super::redis::prefix())
        .connect()
        .await
        .unwrap();
    padded_tasks_stay_within_the_budget(Arc::new(store)).await;
}

#[cfg(feature = "redis")]
#[tokio::test]
async fn padded_tasks_stay_within_the_budget_on_redis() {
    on_redis("MRTR_GUARD_REDIS_URL").await;
}

#[cfg(feature = "redis")]
#[tokio::test]
async fn padded_tasks_stay_within_the_budget_on_a_redis_cluster() {
    on_redis("MRTR_GUARD_REDIS_CLUSTER_URL").await;
}

/// The environment variable that makes [`a_server_to_measure`] serve.
const SERVE: &str = "MRTR_GUARD_TEST_SERVE_TASKS";
/// The total budget of the measured server, in MiB (16 unless set).
const TOTAL_MIB: &str = "MRTR_GUARD_TEST_TASK_BUDGET_MIB";

fn total_budget() -> usize {
    std::env::var(TOTAL_MIB)
        .ok()
        .and_then(|mib| mib.parse::<usize>().ok())
        .unwrap_or(16)
        << 20
}

/// The measured server, in a process of its own: this test binary run
/// again with only this test, which serves when [`SERVE`] is set, prints
/// its address, and serves until it is killed.
#[tokio::test]
#[ignore = "the server a_process_s_task_memory_stays_within_the_budget measures"]
async fn a_server_to_measure() {
    if std::env::var_os(SERVE).is_none() {
        return;
    }
    let total = total_budget();
    let addr = on_loopback(
        Signup::service_with(codec(), move |builder| {
            builder
                .task_limits(1_000_000, 1_000_000)
                .task_budget(total / 16, total)
        })
        .unwrap(),
    )
    .await;
    println!("serving on {addr}");
    std::future::pending::<()>().await;
}

/// The resident set of process `pid`, in bytes (Linux' `/proc`).
fn rss(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: usize = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib * 1024
}

/// The child server, killed when dropped.
struct Measured(Child);

impl Drop for Measured {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_process_s_task_memory_stays_within_the_budget() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let mut child = Measured(
        Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "--nocapture"])
            .arg("over_http::tasks::budgets::a_server_to_measure")
            .env(SERVE, "1")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Its output is read to its end (the test harness writes on, and would
    // stop at a closed pipe); the address it serves on is sent here.
    let stdout = child.0.stdout.take().unwrap();
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("serving on ") {
                let _ = said.send(addr.to_owned());
            }
        }
    });
    let addr: SocketAddr = heard
        .recv_timeout(Duration::from_secs(60))
        .expect("the server says where it serves")
        .parse()
        .unwrap();
    let pid = child.0.id();
    // Warm: one task, so that what the first request allocates is counted
    // before the measure.
    let (_, first) = create_padded(addr, "warm", ARGUMENTS).await;
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    let before = rss(pid);
    let mut tasks = 0;
    for principal in 0..64 {
        let (created, (_, refused)) = fill(addr, &format!("user-{principal}"), ARGUMENTS).await;
        tasks += created.len();
        assert_eq!(refused["error"]["code"], -32000, "{refused}");
    }
    // A new principal is refused at once, with when to retry: the store is
    // at its total.
    let (head, refused) = create_padded(addr, "newcomer", ARGUMENTS).await;
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    assert_eq!(refused["error"]["data"]["limit"], "task bytes", "{refused}");
    let grown = rss(pid).saturating_sub(before);
    let total = total_budget();
    eprintln!(
        "64 principals, {tasks} tasks: RSS grew {} KiB for a budget of {} KiB",
        grown / 1024,
        total / 1024
    );
    assert!(tasks * 60 * 1024 <= total, "{tasks} tasks of 60 KiB calls");
    assert!(
        grown <= total + total / 2,
        "RSS grew {grown} bytes for a budget of {total}"
    );
}
