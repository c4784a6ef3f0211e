//! `locksmith real` against a real ZooKeeper: the textbook lock keeps
//! mutual exclusion and costs one notification per contended acquisition;
//! the herd variant costs about one per other client.
//!
//! Needs a server: `scripts/zookeeper.sh start`, then
//! `cargo test -p locksmith --test real -- --ignored` (CI:
//! `scripts/ci-conformance.sh`).

use locksmith::real::{run, RealConfig, RealReport};
use locksmith_model::recipe::RecipeId;
use std::sync::Mutex;

/// The runs share one server and the machine's cores: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn addr() -> String {
    std::env::var("LOCKSMITH_ZK").unwrap_or_else(|_| "127.0.0.1:2181".to_string())
}

fn real(recipe: RecipeId, clients: usize, seconds: f64) -> RealReport {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
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
    assert_eq!(r.violation, None);
    assert_eq!(r.overlapping_holders(), 0);
    assert_eq!(r.max_holders, 1);
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    assert!(
        r.contended_acquisitions > 100,
        "too little contention: {r:?}"
    );
    let n = r.notifications_per_contended_acquisition();
    assert!(
        (0.8..=1.3).contains(&n),
        "{n} notifications per contended acquisition"
    );
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn herd_children_wakes_every_other_client() {
    let r = real(RecipeId::HerdChildren, 10, 5.0);
    assert_eq!(r.violation, None);
    assert_eq!(r.overlapping_holders(), 0);
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    assert!(
        r.contended_acquisitions > 100,
        "too little contention: {r:?}"
    );
    let n = r.notifications_per_contended_acquisition();
    assert!(
        (7.0..=11.0).contains(&n),
        "{n} notifications per contended acquisition"
    );
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test real -- --ignored"]
fn a_holder_that_never_lets_go_is_a_stall() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut cfg = RealConfig::new(RecipeId::Predecessor, 2, 10.0, &addr());
    cfg.hold = std::time::Duration::from_secs(4);
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
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
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
