//! The contract every [`TaskStore`] keeps, one rule a function, each on a
//! fresh pair of clients of one store (for Redis: two stores, two
//! connections, one key prefix): what one writes, the other reads.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::state::PrincipalKey;
use mrtr_guard::task::{
    Answer, CREATED_VERSION, Due, ENTRY_BYTES, NewTask, Replacement, Stored, StoredHead, TaskId,
    TaskLimits, TaskStore, TaskStoreError,
};
use time::OffsetDateTime;

use crate::task_store::run::{Boxed, Run, join_all};

/// Two clients of one store.
pub(super) struct Subject {
    pub(super) one: Arc<dyn TaskStore>,
    pub(super) two: Arc<dyn TaskStore>,
}

/// Caps no rule but the caps' reaches.
const ROOMY: TaskLimits = TaskLimits {
    per_principal: 64,
    total: 1024,
    bytes_per_principal: 64 << 20,
    bytes_total: 256 << 20,
};

/// Count caps only: bytes no rule of counts reaches.
const fn counts(per_principal: usize, total: usize) -> TaskLimits {
    TaskLimits {
        per_principal,
        total,
        ..ROOMY
    }
}

/// The body every rule's task carries beside its head.
const BODY: &[u8] = b"body";

/// The expiry the expiry rules give, and how long they wait past it.
const SHORT: Duration = Duration::from_millis(300);
const PAST_SHORT: Duration = Duration::from_millis(450);

/// Every rule, each on a subject `make` gives for its name.
pub(super) fn all<R: Run>(run: &R, make: &dyn Fn(&str) -> Subject) {
    type Rule<R> = fn(&R, &Subject);
    let rules: [(&str, Rule<R>); 14] = [
        ("created", a_created_task_is_found_at_once_by_both_clients),
        ("bytes", records_and_answers_are_stored_as_given),
        ("replace", a_replace_over_the_version_read_wins_once),
        ("race", of_32_concurrent_replaces_over_one_version_one_wins),
        (
            "caps",
            the_caps_refuse_naming_the_cap_and_spare_other_principals,
        ),
        (
            "expiry",
            a_task_is_gone_after_its_expiry_and_frees_its_place,
        ),
        ("answers", remembered_answers_round_trip_and_expire),
        (
            "released",
            a_released_task_frees_its_place_and_stays_readable,
        ),
        ("head", a_head_reads_alone_at_the_version_of_the_task),
        ("counted", a_count_ends_when_a_replacement_says),
        ("budget", the_byte_budgets_refuse_growth_naming_the_budget),
        ("held", bytes_are_held_until_expiry_and_then_given_back),
        ("fleet", the_fleet_record_is_none_then_the_last_written),
        (
            "due",
            the_due_tasks_are_listed_soonest_first_until_rescheduled,
        ),
    ];
    for (name, rule) in rules {
        rule(run, &make(name));
    }
}

/// `work`'s output, run to its end.
fn on<R: Run, F: std::future::Future>(run: &R, work: F) -> F::Output {
    run.block_on(work)
}

/// Now, by the clock every call of the store is given.
fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

fn later(by: Duration) -> OffsetDateTime {
    OffsetDateTime::now_utc() + by
}

fn principal(n: u8) -> PrincipalKey {
    PrincipalKey::from_bytes([n; 16])
}

fn new_id() -> TaskId {
    TaskId::random().expect("random")
}

fn task<'a>(id: &'a TaskId, owner: u8, head: &'a [u8], limits: TaskLimits) -> NewTask<'a> {
    NewTask {
        id,
        owner: principal(owner),
        head,
        body: BODY,
        expires_at: later(Duration::from_secs(60)),
        due: None,
        limits,
    }
}

fn replacement<'a>(
    id: &'a TaskId,
    owner: u8,
    version: u64,
    (head, body): (&'a [u8], &'a [u8]),
    limits: TaskLimits,
) -> Replacement<'a> {
    Replacement {
        id,
        owner: principal(owner),
        version,
        head,
        body,
        expires_at: later(Duration::from_secs(60)),
        counted_until: None,
        due: None,
        limits,
    }
}

fn answer<'a>(key: &'a [u8; 32], owner: u8, kept: &'a [u8], by: Duration) -> Answer<'a> {
    Answer {
        key,
        owner: principal(owner),
        answer: kept,
        expires_at: later(by),
        limits: ROOMY,
    }
}

fn load<R: Run>(run: &R, store: &Arc<dyn TaskStore>, id: &TaskId) -> Option<Stored> {
    on(run, store.load(id, now())).expect("load")
}

/// Replaces the head of a task of principal 1 (its body as created).
fn replace<R: Run>(
    run: &R,
    store: &Arc<dyn TaskStore>,
    id: &TaskId,
    version: u64,
    head: &[u8],
) -> bool {
    let replacing = replacement(id, 1, version, (head, BODY), ROOMY);
    on(run, store.replace(replacing, now())).expect("replace")
}

fn a_created_task_is_found_at_once_by_both_clients<R: Run>(run: &R, s: &Subject) {
    let id = new_id();
    on(
        run,
        s.one.create(task(&id, 1, b"sealed record", ROOMY), now()),
    )
    .expect("create");
    let by_one = load(run, &s.one, &id).expect("the creator finds it");
    let by_two = load(run, &s.two, &id).expect("another client finds it at once");
    assert_eq!(by_one.head, b"sealed record");
    assert_eq!(by_one.body, BODY);
    assert_eq!(by_one, by_two);
    let unknown = new_id();
    assert_eq!(load(run, &s.one, &unknown), None);
    assert_eq!(load(run, &s.two, &unknown), None);
}

fn records_and_answers_are_stored_as_given<R: Run>(run: &R, s: &Subject) {
    let every_byte: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    let id = new_id();
    on(run, s.one.create(task(&id, 1, &every_byte, ROOMY), now())).expect("create");
    let stored = load(run, &s.two, &id).unwrap();
    assert_eq!(stored.head, every_byte);
    let reversed: Vec<u8> = every_byte.iter().rev().copied().collect();
    let replacing = replacement(&id, 1, stored.version, (&reversed, &every_byte), ROOMY);
    assert!(on(run, s.two.replace(replacing, now())).unwrap());
    let stored = load(run, &s.one, &id).unwrap();
    assert_eq!((stored.head, stored.body), (reversed, every_byte.clone()));
    let key = [7u8; 32];
    let kept = answer(&key, 1, &every_byte, Duration::from_secs(60));
    on(run, s.one.remember(kept, now())).expect("remember");
    assert_eq!(
        on(run, s.two.recall(&key, now())).expect("recall"),
        Some(every_byte)
    );
}

fn a_replace_over_the_version_read_wins_once<R: Run>(run: &R, s: &Subject) {
    let id = new_id();
    on(run, s.one.create(task(&id, 1, b"v1", ROOMY), now())).expect("create");
    let read = load(run, &s.one, &id).unwrap();
    assert_eq!(read.version, CREATED_VERSION, "a new task's version");
    assert!(
        replace(run, &s.one, &id, read.version, b"v2"),
        "the first writer wins"
    );
    assert!(
        !replace(run, &s.two, &id, read.version, b"v2 too"),
        "a second writer over the same version loses"
    );
    let now = load(run, &s.two, &id).unwrap();
    assert_eq!(now.head, b"v2", "read your write, on another client");
    // One more: the task host seals each record bound to the version it
    // will be stored under.
    assert_eq!(now.version, read.version + 1, "the version moved on by one");
    assert!(
        replace(run, &s.two, &id, now.version, b"v3"),
        "over the version now read"
    );
    assert_eq!(load(run, &s.one, &id).unwrap().head, b"v3");
    assert!(
        !replace(run, &s.one, &new_id(), 1, b"x"),
        "no task, no replace"
    );
}

fn of_32_concurrent_replaces_over_one_version_one_wins<R: Run>(run: &R, s: &Subject) {
    let id = new_id();
    on(run, s.one.create(task(&id, 1, b"start", ROOMY), now())).expect("create");
    let version = load(run, &s.one, &id).unwrap().version;
    let records: Vec<Vec<u8>> = (0..32)
        .map(|n| format!("writer {n}").into_bytes())
        .collect();
    let writes: Vec<Boxed<'_, Result<bool, TaskStoreError>>> = records
        .iter()
        .enumerate()
        .map(|(n, record)| {
            let store = if n % 2 == 0 { &s.one } else { &s.two };
            store.replace(replacement(&id, 1, version, (record, BODY), ROOMY), now())
        })
        .collect();
    let won: Vec<bool> = on(run, join_all(writes))
        .into_iter()
        .map(|won| won.expect("replace"))
        .collect();
    assert_eq!(won.iter().filter(|won| **won).count(), 1, "{won:?}");
    let winner = won.iter().position(|won| *won).unwrap();
    assert_eq!(load(run, &s.two, &id).unwrap().head, records[winner]);
}

fn the_caps_refuse_naming_the_cap_and_spare_other_principals<R: Run>(run: &R, s: &Subject) {
    let limits = counts(2, 3);
    let create = |store: &Arc<dyn TaskStore>, owner: u8| {
        let id = new_id();
        let created = on(run, store.create(task(&id, owner, b"r", limits), now()));
        (id, created)
    };
    assert!(create(&s.one, 1).1.is_ok());
    assert!(create(&s.two, 1).1.is_ok());
    let (refused, error) = create(&s.one, 1);
    assert!(
        matches!(error, Err(TaskStoreError::PrincipalFull)),
        "{error:?}"
    );
    assert_eq!(
        load(run, &s.two, &refused),
        None,
        "a refused task is not kept"
    );
    assert!(
        create(&s.two, 2).1.is_ok(),
        "another principal still creates"
    );
    let error = create(&s.one, 3).1;
    assert!(matches!(error, Err(TaskStoreError::Full)), "{error:?}");
    let error = create(&s.two, 2).1;
    assert!(matches!(error, Err(TaskStoreError::Full)), "{error:?}");
}

fn a_task_is_gone_after_its_expiry_and_frees_its_place<R: Run>(run: &R, s: &Subject) {
    let one_only = counts(1, 1);
    let id = new_id();
    let short = NewTask {
        expires_at: later(SHORT),
        ..task(&id, 1, b"brief", one_only)
    };
    on(run, s.one.create(short, now())).expect("create");
    let read = load(run, &s.two, &id).expect("there before its expiry");
    let next = new_id();
    let error = on(run, s.two.create(task(&next, 2, b"r", one_only), now()));
    assert!(matches!(error, Err(TaskStoreError::Full)), "{error:?}");
    std::thread::sleep(PAST_SHORT);
    assert_eq!(load(run, &s.one, &id), None);
    assert_eq!(load(run, &s.two, &id), None);
    assert!(
        !replace(run, &s.one, &id, read.version, b"late"),
        "an expired task is not replaced"
    );
    on(run, s.two.create(task(&next, 1, b"r", one_only), now())).expect("its place is free again");
}

fn a_released_task_frees_its_place_and_stays_readable<R: Run>(run: &R, s: &Subject) {
    let one_each = counts(1, 2);
    let (ended, next, other) = (new_id(), new_id(), new_id());
    on(
        run,
        s.one.create(task(&ended, 1, b"ended", one_each), now()),
    )
    .expect("create");
    let error = on(run, s.two.create(task(&next, 1, b"next", one_each), now()));
    assert!(
        matches!(error, Err(TaskStoreError::PrincipalFull)),
        "{error:?}"
    );
    on(run, s.two.release(&ended, principal(1), now())).expect("release");
    on(run, s.one.release(&ended, principal(1), now())).expect("released again: no error");
    on(run, s.two.create(task(&next, 1, b"next", one_each), now())).expect("its place is free");
    assert_eq!(
        load(run, &s.one, &ended).expect("still there").head,
        b"ended",
        "a released task stays readable until its expiry"
    );
    on(
        run,
        s.one.create(task(&other, 2, b"other", one_each), now()),
    )
    .expect("in all: two");
    on(run, s.one.release(&new_id(), principal(3), now())).expect("an unknown id: no error");
}

fn remembered_answers_round_trip_and_expire<R: Run>(run: &R, s: &Subject) {
    let brief = [1u8; 32];
    let lasting = [2u8; 32];
    on(
        run,
        s.one.remember(answer(&brief, 1, b"answer", SHORT), now()),
    )
    .expect("remember");
    let kept = answer(&lasting, 1, b"kept", Duration::from_secs(60));
    on(run, s.one.remember(kept, now())).expect("remember");
    assert_eq!(
        on(run, s.two.recall(&brief, now())).unwrap(),
        Some(b"answer".to_vec())
    );
    assert_eq!(on(run, s.one.recall(&[3u8; 32], now())).unwrap(), None);
    std::thread::sleep(PAST_SHORT);
    assert_eq!(on(run, s.two.recall(&brief, now())).unwrap(), None);
    assert_eq!(on(run, s.one.recall(&brief, now())).unwrap(), None);
    assert_eq!(
        on(run, s.two.recall(&lasting, now())).unwrap(),
        Some(b"kept".to_vec())
    );
}

fn a_head_reads_alone_at_the_version_of_the_task<R: Run>(run: &R, s: &Subject) {
    let id = new_id();
    on(run, s.one.create(task(&id, 1, b"h1", ROOMY), now())).expect("create");
    let head = |store: &Arc<dyn TaskStore>| on(run, store.load_head(&id, now())).expect("head");
    assert_eq!(
        head(&s.two),
        Some(StoredHead {
            version: CREATED_VERSION,
            head: b"h1".to_vec()
        })
    );
    let replacing = replacement(
        &id,
        1,
        CREATED_VERSION,
        (b"h2", b"a much longer body"),
        ROOMY,
    );
    assert!(on(run, s.two.replace(replacing, now())).unwrap());
    let read = head(&s.one).expect("there");
    assert_eq!(
        (read.version, read.head),
        (CREATED_VERSION + 1, b"h2".to_vec())
    );
    assert_eq!(on(run, s.one.load_head(&new_id(), now())).unwrap(), None);
}

/// Budgets of `per_principal` and `total` bytes, counts no rule reaches.
fn bytes(per_principal: usize, total: usize) -> TaskLimits {
    TaskLimits {
        bytes_per_principal: per_principal,
        bytes_total: total,
        ..ROOMY
    }
}

/// What a task of `head` bytes (and [`BODY`]) is charged.
fn charge(head: usize) -> usize {
    head + BODY.len() + ENTRY_BYTES
}

fn the_byte_budgets_refuse_growth_naming_the_budget<R: Run>(run: &R, s: &Subject) {
    let kib = vec![0xa5u8; 1024];
    // Room for two such tasks of one principal, three in all.
    let limits = bytes(2 * charge(1024), 3 * charge(1024));
    let create = |store: &Arc<dyn TaskStore>, owner: u8, head: &[u8]| {
        let id = new_id();
        let created = on(run, store.create(task(&id, owner, head, limits), now()));
        (id, created)
    };
    let (first, created) = create(&s.one, 1, &kib);
    created.expect("within the budget");
    create(&s.two, 1, &kib).1.expect("within the budget");
    let (refused, error) = create(&s.one, 1, &kib);
    assert!(
        matches!(error, Err(TaskStoreError::PrincipalOverBudget)),
        "{error:?}"
    );
    assert_eq!(
        load(run, &s.two, &refused),
        None,
        "a refused task is not kept"
    );
    create(&s.two, 2, &kib)
        .1
        .expect("another principal has its own budget");
    let error = create(&s.one, 3, b"small").1;
    assert!(
        matches!(error, Err(TaskStoreError::OverBudget)),
        "{error:?}"
    );

    // A replacement that grows the task past the budget changes nothing.
    let grown = vec![0x5au8; 2048];
    let growing = replacement(&first, 1, CREATED_VERSION, (&grown, BODY), limits);
    let error = on(run, s.two.replace(growing, now()));
    assert!(
        matches!(
            error,
            Err(TaskStoreError::OverBudget | TaskStoreError::PrincipalOverBudget)
        ),
        "{error:?}"
    );
    let stored = load(run, &s.one, &first).unwrap();
    assert_eq!(
        (stored.version, stored.head),
        (CREATED_VERSION, kib.clone())
    );
    // One that does not grow it is never refused, at the budget or past it.
    let tight = bytes(1, 1);
    let same = replacement(&first, 1, CREATED_VERSION, (&[], BODY), tight);
    assert!(on(run, s.one.replace(same, now())).expect("a smaller record"));
    // What the shrinking gave back (1 KiB) is room again.
    let (_, created) = create(&s.two, 3, &[0u8; 500]);
    created.expect("the bytes a replacement gave back");

    // Remembered answers are charged to the same budgets.
    let key = [9u8; 32];
    let mut kept = answer(&key, 1, &kib, Duration::from_secs(60));
    kept.limits = limits;
    let error = on(run, s.one.remember(kept, now()));
    assert!(
        matches!(
            error,
            Err(TaskStoreError::OverBudget | TaskStoreError::PrincipalOverBudget)
        ),
        "{error:?}"
    );
    assert_eq!(
        on(run, s.two.recall(&key, now())).unwrap(),
        None,
        "not kept"
    );
}

fn bytes_are_held_until_expiry_and_then_given_back<R: Run>(run: &R, s: &Subject) {
    // One such task per principal, two in all.
    let limits = bytes(charge(1024), 2 * charge(1024));
    let kib = vec![1u8; 1024];
    let create = |store: &Arc<dyn TaskStore>, task: NewTask<'_>| on(run, store.create(task, now()));
    let (ended, brief) = (new_id(), new_id());
    create(&s.one, task(&ended, 1, &kib, limits)).expect("create");
    on(run, s.one.release(&ended, principal(1), now())).expect("release");
    let error = create(&s.two, task(&new_id(), 1, &kib, limits));
    assert!(
        matches!(error, Err(TaskStoreError::PrincipalOverBudget)),
        "a released task's bytes are held until its expiry: {error:?}"
    );
    let short = NewTask {
        expires_at: later(SHORT),
        ..task(&brief, 2, &kib, limits)
    };
    create(&s.two, short).expect("another principal's");
    let error = create(&s.one, task(&new_id(), 3, b"x", limits));
    assert!(
        matches!(error, Err(TaskStoreError::OverBudget)),
        "{error:?}"
    );
    std::thread::sleep(PAST_SHORT);
    create(&s.two, task(&new_id(), 3, &kib, limits))
        .expect("the expired task's bytes are given back");
}

fn a_count_ends_when_a_replacement_says<R: Run>(run: &R, s: &Subject) {
    let one_only = counts(1, 1);
    let id = new_id();
    on(run, s.one.create(task(&id, 1, b"parked", one_only), now())).expect("create");
    let mut parking = replacement(&id, 1, CREATED_VERSION, (b"asks", BODY), one_only);
    parking.counted_until = Some(later(SHORT));
    assert!(on(run, s.two.replace(parking, now())).unwrap());
    let next = new_id();
    let error = on(run, s.two.create(task(&next, 2, b"r", one_only), now()));
    assert!(matches!(error, Err(TaskStoreError::Full)), "{error:?}");
    std::thread::sleep(PAST_SHORT);
    on(run, s.one.create(task(&next, 2, b"r", one_only), now()))
        .expect("the parked task no longer counts, unread");
    assert!(
        load(run, &s.two, &id).is_some(),
        "it is still there until its expiry"
    );
}

/// The fleet record: none before any instance wrote one; then what the last
/// write gave, byte for byte, to every client of the store.
fn the_fleet_record_is_none_then_the_last_written<R: Run>(run: &R, s: &Subject) {
    assert_eq!(on(run, s.two.fleet()).expect("fleet"), None);
    let first = br#"{"audience":"a","mode":"sealed","key":"00"}"#;
    on(run, s.one.set_fleet(first)).expect("set_fleet");
    assert_eq!(
        on(run, s.two.fleet()).expect("fleet").as_deref(),
        Some(&first[..])
    );
    let every_byte: Vec<u8> = (0..=255).collect();
    on(run, s.two.set_fleet(&every_byte)).expect("set_fleet again");
    assert_eq!(
        on(run, s.one.fleet()).expect("fleet").as_deref(),
        Some(&every_byte[..])
    );
}

/// The sweep's index: a task is due at the time its creation or its last
/// replacement gave, to the millisecond, listed by `due` on every client
/// once that time passed, soonest first, at most the limit; `reschedule`
/// moves or drops it only from the time it was read at.
fn the_due_tasks_are_listed_soonest_first_until_rescheduled<R: Run>(run: &R, s: &Subject) {
    let start = now();
    let (first, second, never, later_on) = (new_id(), new_id(), new_id(), new_id());
    let at = |ms: i64| start + time::Duration::milliseconds(ms);
    for (id, due) in [
        (&second, Some(at(-1_000))),
        (&first, Some(at(-2_000))),
        (&never, None),
        (&later_on, Some(at(20_000))),
    ] {
        let mut new = task(id, 1, b"head", ROOMY);
        new.due = due;
        on(run, s.one.create(new, now())).expect("create");
    }
    let ms = |at: time::OffsetDateTime| at.unix_timestamp_nanos() / 1_000_000;
    let listed = on(run, s.two.due(now(), 10)).expect("due");
    let ids: Vec<TaskId> = listed.iter().map(|due| due.id).collect();
    assert_eq!(ids, [first, second], "soonest first, only those due by now");
    assert_eq!(ms(listed[0].at), ms(at(-2_000)));
    assert_eq!(
        on(run, s.two.due(now(), 1)).expect("due"),
        listed[..1],
        "at most the limit"
    );
    // A replacement that gives a new time moves the task; one that gives
    // none leaves it where it was.
    let mut moved = replacement(&first, 1, CREATED_VERSION, (b"h2", BODY), ROOMY);
    moved.due = Some(at(30_000));
    assert!(on(run, s.one.replace(moved, now())).expect("replace"));
    let kept = replacement(&second, 1, CREATED_VERSION, (b"h2", BODY), ROOMY);
    assert!(on(run, s.one.replace(kept, now())).expect("replace"));
    let ids: Vec<TaskId> = on(run, s.two.due(now(), 10))
        .expect("due")
        .iter()
        .map(|due| due.id)
        .collect();
    assert_eq!(ids, [second]);
    // Rescheduling from a time the task is no longer due at changes
    // nothing: the newer time stays.
    on(run, s.two.reschedule(listed[0], None)).expect("reschedule");
    let soon = on(run, s.two.due(at(35_000), 10)).expect("due");
    assert!(soon.iter().any(|due| due.id == first), "{soon:?}");
    // From the time it was read at, it moves, or goes.
    on(run, s.one.reschedule(listed[1], Some(at(40_000)))).expect("reschedule");
    assert!(on(run, s.two.due(now(), 10)).expect("due").is_empty());
    let moved = Due {
        id: second,
        at: on(run, s.two.due(at(45_000), 10))
            .expect("due")
            .iter()
            .find(|due| due.id == second)
            .expect("moved, not dropped")
            .at,
    };
    assert_eq!(ms(moved.at), ms(at(40_000)));
    on(run, s.two.reschedule(moved, None)).expect("reschedule");
    let left: Vec<TaskId> = on(run, s.one.due(at(50_000), 10))
        .expect("due")
        .iter()
        .map(|due| due.id)
        .collect();
    assert_eq!(
        left,
        [later_on, first],
        "dropped; never due is never listed"
    );
}
