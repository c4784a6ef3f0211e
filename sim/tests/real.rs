//! `locksmith real` against a real ZooKeeper: the textbook lock keeps
//! mutual exclusion and costs one notification per contended acquisition;
//! the herd variants cost about one per other client. Also the adapter's
//! (`locksmith::real::zk`) detached sessions, which the conformance test
//! lets expire.
//!
//! Needs a server: `scripts/zookeeper.sh start`, then
//! `cargo test -p locksmith --test real -- --ignored` (CI:
//! `scripts/ci-conformance.sh`).

mod common;

use common::{one_at_a_time, zk_addr as addr};
use locksmith::real::zk::{Notification, Session};
use locksmith::real::times::Between;
use locksmith::real::{run, RealConfig, RealReport};
use locksmith_model::recipe::RecipeId;
use locksmith_model::zk::{CreateMode, EventType, Op, OpResult, WatchedEvent};
use std::time::Duration;

fn real(recipe: RecipeId, clients: usize, seconds: f64) -> RealReport {
    let _one = one_at_a_time();
    let cfg = RealConfig::new(recipe, clients, seconds, &addr());
    let r = match run(&cfg) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    eprintln!(
        "{recipe} × {clients}: {} acquisitions ({:.0}/s), {} contended, {:.2} notifications \
         per contended acquisition, {} requests, {} replies, {} notifications, overlaps {}, \
         violation {:?}",
        r.metrics.acquisitions,
        r.acquisitions_per_second(),
        r.contended_acquisitions,
        r.notifications_per_contended_acquisition(),
        r.metrics.requests,
        r.metrics.replies,
        r.metrics.notifications,
        r.overlapping_holders(),
        r.violation
    );
    r
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn predecessor_keeps_mutual_exclusion_with_one_notification_per_contended_acquisition() {
    let r = real(RecipeId::Predecessor, 5, 5.0);
    assert_eq!(r.max_holders, 1);
    assert_clean_with_notifications(&r, 0.8..=1.3);
}

/// No violation, no overlap, no exception, enough contention, and this
/// many notifications per contended acquisition.
fn assert_clean_with_notifications(r: &RealReport, per: std::ops::RangeInclusive<f64>) {
    assert_eq!(r.violation, None);
    assert_eq!(r.overlapping_holders(), 0);
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    assert!(
        r.contended_acquisitions > 100,
        "too little contention: {r:?}"
    );
    let n = r.notifications_per_contended_acquisition();
    assert!(
        per.contains(&n),
        "{n} notifications per contended acquisition"
    );
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn herd_children_wakes_every_other_client() {
    let r = real(RecipeId::HerdChildren, 10, 5.0);
    assert_clean_with_notifications(&r, 7.0..=11.0);
}

/// Seed 003's text: every waiter watches the lowest node, so a release
/// notifies every parked waiter. They are parked only if the holder stays a
/// little: with no hold the next release often beats a woken waiter's
/// re-watch (measured here: 4.2 notifications per contended acquisition at
/// hold 0, 8.9 at hold 5 ms, of 9 other clients).
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn herd_lowest_wakes_every_parked_client() {
    let _one = one_at_a_time();
    let mut cfg = RealConfig::new(RecipeId::HerdLowest, 10, 5.0, &addr());
    cfg.hold = Between::exactly(Duration::from_millis(5));
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "herd-lowest × 10, hold 5 ms: {} acquisitions, {:.2} notifications per contended acquisition",
        r.metrics.acquisitions,
        r.notifications_per_contended_acquisition()
    );
    assert_eq!(r.max_holders, 1);
    assert_clean_with_notifications(&r, 6.0..=9.5);
}

/// A holder that keeps the lock for 2.5 s outlasts the waiters' 1 s
/// `wait(millis)`: they time out, re-read the children and wait again, and
/// the run goes on without a stall or an exception.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn timed_wait_times_out_and_rechecks_on_a_real_server() {
    let _one = one_at_a_time();
    let mut cfg = RealConfig::new(RecipeId::TimedWait, 3, 6.0, &addr());
    cfg.hold = Between::exactly(Duration::from_millis(2500));
    cfg.stall_after = Duration::from_secs(5);
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "timed-wait × 3, hold 2.5 s: {} acquisitions, {} wait timeouts, violation {:?}",
        r.metrics.acquisitions, r.metrics.wait_timeouts, r.violation
    );
    assert_eq!(r.violation, None);
    assert_eq!(r.overlapping_holders(), 0);
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    assert!(r.metrics.acquisitions >= 2, "{r:?}");
    assert!(r.metrics.wait_timeouts >= 2, "no wait ran out: {r:?}");
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn a_holder_that_never_lets_go_is_a_stall() {
    let _one = one_at_a_time();
    let mut cfg = RealConfig::new(RecipeId::Predecessor, 2, 10.0, &addr());
    cfg.hold = Between::exactly(Duration::from_secs(4));
    cfg.stall_after = std::time::Duration::from_secs(1);
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let (property, why) = r.violation.expect("a stall");
    assert_eq!(property, locksmith_model::harness::Property::Deadlock);
    assert!(why.contains("holds the lock"), "{why}");
    assert!(
        r.elapsed < std::time::Duration::from_secs(3),
        "{:?}",
        r.elapsed
    );
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn json_has_the_simulators_field_names() {
    let _one = one_at_a_time();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["real", "scenarios/predecessor.toml", "--zk", &addr()])
        .args(["--clients", "3", "--seconds", "1", "--json"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    for k in [
        "verdict",
        "property",
        "elapsed_ms",
        "acquisitions_per_second",
        "overlapping_holders",
        "clients",
        "recipe",
        "seconds",
        "notifications_per_contended_acquisition",
    ] {
        assert!(v.get(k).is_some(), "no {k} in {v}");
    }
    for k in [
        "acquisitions",
        "requests",
        "replies",
        "notifications",
        "heartbeats",
        "notifications_per_acquisition",
        "packets_per_acquisition",
        "wakeups_per_release",
        "latency_p50_ms",
        "latency_p99_ms",
    ] {
        assert!(v["metrics"].get(k).is_some(), "no metrics.{k} in {v}");
    }
    assert_eq!(v["verdict"], "holds");
    assert_eq!(v["recipe"], "predecessor");
    assert_eq!(v["overlapping_holders"], 0);
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn a_detached_session_keeps_its_ephemerals_until_it_is_expired() {
    let _one = one_at_a_time();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async {
        let addr = addr();
        let timeout = Duration::from_secs(10);
        let mut owner = Session::connect_detachable(&addr, timeout)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut other = Session::connect(&addr, timeout)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let path = format!("/locksmith-detached-{:x}", owner.id().expect("an id"));
        let create = Op::Create {
            path: path.clone(),
            data: Vec::new(),
            mode: CreateMode::Ephemeral,
        };
        let created = owner.call(&create).await.reply;
        assert_eq!(created, Ok(OpResult::Created(path.clone())));
        let detached = owner.detach().expect("opened detachable");
        assert!(!owner.is_open());
        // The session outlives its client: the node stays, and is watched.
        let watch = Op::Exists {
            path: path.clone(),
            watch: true,
        };
        let seen = other.call(&watch).await.reply;
        assert!(matches!(seen, Ok(OpResult::Exists(Some(_)))), "{seen:?}");
        detached.expire().await.unwrap_or_else(|e| panic!("{e}"));
        let look = Op::Exists {
            path: path.clone(),
            watch: false,
        };
        let out = other.call(&look).await;
        assert_eq!(out.reply, Ok(OpResult::Exists(None)));
        // The deletion was sent before the reply to the later read.
        let deleted = Notification::Node(WatchedEvent {
            kind: EventType::NodeDeleted,
            path,
        });
        assert_eq!(out.before, vec![deleted]);
        other.close().await.unwrap_or_else(|e| panic!("{e}"));
    });
}

/// Runs without a server: nothing listens on port 1.
#[test]
fn cli_without_a_server_exits_2_and_says_how_to_start_one() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["real", "scenarios/predecessor.toml", "--zk", "127.0.0.1:1"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("127.0.0.1:1"), "{err}");
    assert!(err.contains("scripts/zookeeper.sh start"), "{err}");
}

/// Runs without a server: nothing listens on port 1.
#[test]
fn no_server_is_a_clear_error() {
    let cfg = RealConfig::new(RecipeId::Predecessor, 1, 1.0, "127.0.0.1:1");
    let e = run(&cfg).expect_err("nothing listens on port 1");
    let text = e.to_string();
    assert!(text.contains("127.0.0.1:1"), "{text}");
    assert!(text.contains("scripts/zookeeper.sh start"), "{text}");
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn a_reentrant_call_deadlocks_the_textbook_lock_and_not_a_counting_one() {
    let _one = one_at_a_time();
    let mut cfg = RealConfig::new(RecipeId::Predecessor, 1, 10.0, &addr());
    cfg.reentries = 1;
    cfg.stall_after = std::time::Duration::from_secs(1);
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let (property, why) = r.violation.expect("a stall");
    assert_eq!(property, locksmith_model::harness::Property::Deadlock);
    assert!(why.contains("c1 holds the lock"), "{why}");

    let mut cfg = RealConfig::new(RecipeId::CasVersion, 2, 1.0, &addr());
    cfg.reentries = 1;
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.violation, None);
    assert!(r.metrics.acquisitions > 10, "{}", r.metrics.acquisitions);
    assert_eq!(r.max_holders, 1);
}

/// Seed 001's callback lock on a real server: each client takes the lock in
/// its event thread, closes its session and starts again on a new one.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn watcher_callback_takes_the_lock_in_the_callback_with_one_notification() {
    let r = real(RecipeId::WatcherCallback, 5, 3.0);
    assert_eq!(r.max_holders, 1);
    assert_clean_with_notifications(&r, 0.8..=1.3);
}
