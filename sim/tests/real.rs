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

/// Runs without a server: nothing listens on port 1.
#[test]
fn no_server_is_a_clear_error() {
    let cfg = RealConfig::new(RecipeId::Predecessor, 1, 1.0, "127.0.0.1:1");
    let e = run(&cfg).expect_err("nothing listens on port 1");
    let text = e.to_string();
    assert!(text.contains("127.0.0.1:1"), "{text}");
    assert!(text.contains("scripts/zookeeper.sh start"), "{text}");
}
