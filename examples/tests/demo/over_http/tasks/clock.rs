//! A task's lease, TTL and its questions' time are measured by the clock
//! its flow takes, as its rounds' states are: the server is built over a
//! `FixedClock`, and only that clock moves; no real time passes beyond the
//! export's one second.

use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::runtime::FixedClock;
use mrtr_guard::task::{MemoryTaskStore, TaskStore};
use mrtr_guard::{Flow, MasterKey, Policy, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use time::OffsetDateTime;

use super::super::server::on_loopback;
use serde_json::json;

use super::{AUDIENCE, create, get, outstanding, refunds, settled, update};

/// The demo over a fixed clock, set at the real time, its rounds' states
/// living `round_ttl` (its flows 30 minutes, or `round_ttl` if longer),
/// its tasks' questions `question_timeout`.
async fn start_with(
    round_ttl: Duration,
    question_timeout: Duration,
) -> (std::net::SocketAddr, Arc<FixedClock>) {
    start_on(
        round_ttl,
        question_timeout,
        Arc::new(MemoryTaskStore::new()),
    )
    .await
}

/// [`start_with`], the tasks in `store`.
async fn start_on(
    round_ttl: Duration,
    question_timeout: Duration,
    store: Arc<dyn TaskStore>,
) -> (std::net::SocketAddr, Arc<FixedClock>) {
    let clock = Arc::new(FixedClock::new(OffsetDateTime::now_utc()));
    let round_ttl = time::Duration::try_from(round_ttl).unwrap();
    let policy = Policy::default()
        .with_ttl(round_ttl)
        .with_flow_ttl(round_ttl.max(time::Duration::minutes(30)));
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .policy(policy)
        .build()
        .unwrap();
    let flow = Flow::new(codec).with_clock(clock.clone());
    let service = Signup::service_over(flow, |builder| {
        builder
            .task_store(store)
            .task_lease(Duration::from_secs(15))
            .task_ttl(Duration::from_secs(3600))
            .task_question_timeout(question_timeout)
            .task_limits(1, 100)
    })
    .unwrap();
    (on_loopback(service).await, clock)
}

/// [`start_with`] the default round TTL, 10 minutes, and questions that
/// wait as long.
async fn start() -> (std::net::SocketAddr, Arc<FixedClock>) {
    start_with(Duration::from_secs(600), Duration::from_secs(600)).await
}

#[tokio::test]
async fn a_working_task_whose_lease_lapses_by_the_clock_is_resumed_then_failed_when_lost_again() {
    let (addr, clock) = start().await;
    let (created, _) = create(addr, "alice").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(created["result"]["status"], "working", "{created}");
    // Still within its lease by the clock, whatever the real time.
    clock.advance(time::Duration::seconds(14));
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    // Past it, the run is taken as lost: the task is resumed, not failed.
    clock.advance(time::Duration::seconds(2));
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    // Lost again and again (each resumed run's lease lapses by the clock
    // before it can renew it): past the third resume the task fails.
    let mut lost = 1;
    let failed = loop {
        clock.advance(time::Duration::seconds(16));
        let got = get(addr, "alice", &id).await["result"].clone();
        lost += 1;
        if got["status"] != "working" || lost > 12 {
            break got;
        }
    };
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["statusMessage"], "the server instances running the task stopped, 3 times in a row",
        "{failed}"
    );
}

#[tokio::test]
async fn a_parked_task_lives_until_its_ttl_by_the_clock() {
    // Its question's state lives two hours: the task's hour ends first.
    let (addr, clock) = start_with(Duration::from_secs(7200), Duration::from_secs(7200)).await;
    let (created, _) = create(addr, "alice").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = settled(addr, "alice", &id).await;
    assert_eq!(parked["status"], "input_required", "{parked}");
    assert_eq!(parked["ttlMs"], 3_600_000, "{parked}");
    // Parked, it holds no lease: an hour less a second on, it waits still.
    clock.advance(time::Duration::seconds(3599));
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "input_required", "{got}");
    // Past its TTL the store has forgotten it: an unknown task.
    clock.advance(time::Duration::seconds(2));
    let gone = get(addr, "alice", &id).await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert_eq!(
        gone["error"]["message"], "Failed to retrieve task: Task not found",
        "{gone}"
    );
}

#[tokio::test]
async fn a_question_past_its_timeout_fails_its_task() {
    let (addr, clock) = start().await;
    let (created, _) = create(addr, "alice").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = settled(addr, "alice", &id).await;
    assert_eq!(parked["status"], "input_required", "{parked}");
    // Within the question's timeout the question waits.
    clock.advance(time::Duration::seconds(599));
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "input_required", "{got}");
    // Past it the task ends now, not at its TTL an hour on.
    clock.advance(time::Duration::seconds(2));
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert_eq!(
        got["result"]["statusMessage"], "the task's question was not answered in time",
        "{got}"
    );
    // Failed, it is polled alike on both paths, its error included.
    let failed = super::polls::same_on_both_paths(addr, "alice", &id).await;
    assert!(failed["result"]["error"]["code"].is_i64(), "{failed}");
}

#[tokio::test]
async fn a_question_past_its_time_frees_its_place_unread() {
    let (addr, clock) = start().await;
    let (created, _) = create(addr, "alice").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        settled(addr, "alice", &id).await["status"],
        "input_required"
    );
    let (refused, _) = create(addr, "alice").await;
    assert_eq!(refused["error"]["code"], -32000, "one task each: {refused}");
    // Past the question's time, the task no longer counts, though nobody
    // polled it: no answer could resume it.
    clock.advance(time::Duration::seconds(601));
    let (second, _) = create(addr, "alice").await;
    assert_eq!(second["result"]["resultType"], "task", "{second}");
    let got = get(addr, "alice", &id).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
}

/// A task's clock is the task's: its question, asked inside the task,
/// waits past the flow's deadline and the round TTL (under the default
/// question timeout, an hour, and the task's TTL), and its answer completes
/// the task.
#[tokio::test]
async fn a_task_asks_past_its_flow_deadline_and_still_completes() {
    past_the_flow_deadline(Arc::new(MemoryTaskStore::new())).await;
}

/// A question answered 40 minutes on completes its task, the tasks in
/// `store`.
pub(super) async fn past_the_flow_deadline(store: Arc<dyn TaskStore>) {
    let (addr, clock) = start_on(
        Duration::from_secs(600),
        mrtr_guard::rmcp::DEFAULT_TASK_QUESTION_TIMEOUT,
        store,
    )
    .await;
    let (created, _) = create(addr, "alice").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let key = outstanding(&settled(addr, "alice", &id).await);
    // 40 minutes on: past the flow's 30-minute deadline from round 1, and
    // past the round TTL of the state the question was parked with.
    clock.advance(time::Duration::minutes(40));
    let ack = update(addr, "alice", &id, json!({key: refunds(&json!(false))})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = settled(addr, "alice", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported the orders from 2026-01-01 to 2026-01-31 as CSV.",
        "{done}"
    );
}
