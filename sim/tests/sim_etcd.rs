//! The etcd simulator (sim/src/simulate/etcd.rs) on every etcd scenario of
//! the repository, at its default size (at least 5 clients × 10 rounds):
//! what it finds and at which seed, pinned as found, and held against the
//! exhaustive checker where their sizes meet: a scenario with no fault
//! whose checker verdict holds holds in every seed swept. (At five clients
//! the faulted runs find a herd first where the checker's two find none:
//! herd needs three, and `etcd-*-herd.toml` pin it in the checker.) Also:
//! same seed, same trace.

use locksmith::scenario::{AnyScenario, EtcdScenario};
use locksmith::simulate::etcd::run_seed;
use locksmith_model::engine::harness::{Property, Verdict};
use std::path::Path;

/// Seeds swept per scenario.
const SEEDS: u64 = 200;

fn scenario(name: &str) -> EtcdScenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(format!("{name}.toml"));
    match AnyScenario::load(&path) {
        Ok(AnyScenario::Etcd(sc)) => {
            let mut sc = *sc;
            sc.space.clients = sc.space.clients.max(5);
            sc.space.acquisitions = sc.space.acquisitions.max(10);
            sc
        }
        Ok(_) => panic!("{name} is not an etcd scenario"),
        Err(e) => panic!("{e}"),
    }
}

fn first_violation(sc: &EtcdScenario) -> Option<(u64, Property)> {
    (0..SEEDS).find_map(|seed| {
        run_seed(&sc.space, seed, false)
            .violation
            .map(|(p, _)| (seed, p))
    })
}

/// What the simulator found, per scenario: (first failing seed, property),
/// or `None` for no violation in `SEEDS` seeds.
const FOUND: [(&str, Option<(u64, &str)>); 15] = [
    ("etcd-mutex", None),
    ("etcd-mutex-compaction", None),
    ("etcd-mutex-crash", None),
    ("etcd-mutex-herd", None),
    ("etcd-mutex-pause", Some((0, "mutual exclusion"))),
    ("etcd-mutex-waiter-expiry", Some((0, "herd"))),
    (
        "etcd-mutex-waiter-expiry-fenced",
        Some((0, "mutual exclusion")),
    ),
    ("etcd-mutex-3.5-late-unlock", None),
    ("etcd-mutex-3.5-pause", Some((0, "herd"))),
    ("etcd-mutex-3.5-pause-fenced", Some((0, "mutual exclusion"))),
    ("etcd-mutex-3.5-waiter-expiry", Some((0, "herd"))),
    ("etcd-mutex-3.5-waiter-expiry-herd", Some((0, "herd"))),
    ("etcd-txn-lease", Some((0, "herd"))),
    ("etcd-txn-lease-herd", Some((0, "herd"))),
    ("etcd-txn-lease-pause", Some((0, "herd"))),
];

#[test]
fn every_etcd_scenario_finds_what_is_pinned() {
    let mut wrong = Vec::new();
    for (name, want) in FOUND {
        let sc = scenario(name);
        let found = first_violation(&sc);
        if found.map(|(s, p)| (s, p.to_string())) != want.map(|(s, p)| (s, p.to_string())) {
            wrong.push(format!("{name}: found {found:?}, pinned {want:?}"));
        }
        // A scenario whose checker verdict holds with no fault holds here.
        let holds = sc
            .expect
            .as_ref()
            .is_some_and(|e| e.verdict == Verdict::Holds);
        let faulted = sc.space.faults != Default::default();
        if holds && !faulted {
            assert_eq!(found, None, "{name}: the checker says it holds");
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn same_seed_same_trace() {
    let sc = scenario("etcd-mutex-waiter-expiry");
    let a = run_seed(&sc.space, 7, true);
    let b = run_seed(&sc.space, 7, true);
    assert!(!a.trace.is_empty());
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.violation, b.violation);
}
