//! The MySQL simulator (sim/src/simulate/mysql.rs) on every MySQL scenario
//! of the repository, at its default size (at least 5 clients × 10
//! rounds): what it finds and at which seed, pinned as found, and checked
//! against the exhaustive checker's pinned verdicts — a property the
//! simulator reports violated must be one the checker finds violated in the
//! same scenario, and a scenario the checker says violated must show a
//! violation within the seeds swept. Also: same seed, same trace; and the
//! fenced scenarios' resource, as the checker judges it.

mod sweeps;

use locksmith::backends::AnyScenario;
use locksmith::mysql::scenario::MysqlScenario;
use locksmith::mysql::sim::run_seed;
use locksmith_model::engine::harness::Property;
use std::path::Path;

/// Seeds swept per scenario.
const SEEDS: u64 = 500;

fn scenario(name: &str) -> MysqlScenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(format!("{name}.toml"));
    match AnyScenario::load(&path) {
        Ok(AnyScenario::Mysql(sc)) => {
            let mut sc = *sc;
            sc.space.clients = sc.space.clients.max(5);
            sc.space.acquisitions = sc.space.acquisitions.max(10);
            sc
        }
        Ok(_) => panic!("{name} is not a MySQL scenario"),
        Err(e) => panic!("{e}"),
    }
}

/// The first seed in `0..SEEDS` that breaks a property, and which.
fn first_violation(sc: &MysqlScenario) -> Option<(u64, Property)> {
    (0..SEEDS).find_map(|seed| {
        run_seed(&sc.space, seed, false)
            .violation
            .map(|(p, _)| (seed, p))
    })
}

/// What the simulator found, per scenario: (first failing seed, property),
/// or `None` for no violation in `SEEDS` seeds.
const FOUND: [(&str, Option<(u64, &str)>); 18] = [
    (
        "mysql-for-update-connection-drop",
        Some((0, "mutual exclusion")),
    ),
    (
        "mysql-for-update-connection-drop-fenced",
        Some((0, "thread died")),
    ),
    (
        "mysql-for-update-lock-wait-timeout",
        Some((0, "thread died")),
    ),
    (
        "mysql-for-update-missing-row",
        Some((0, "mutual exclusion")),
    ),
    ("mysql-for-update-network-drop", Some((0, "thread died"))),
    ("mysql-for-update-queue-timeout", Some((0, "thread died"))),
    (
        "mysql-status-cas-cleanup-fenced",
        Some((0, "unlock by non-owner")),
    ),
    ("mysql-status-cas-crash", Some((0, "stuck lock"))),
    ("mysql-status-cas", None),
    (
        "mysql-unique-key-cleanup-fenced",
        Some((0, "unlock by non-owner")),
    ),
    ("mysql-unique-key-cleanup", Some((0, "unlock by non-owner"))),
    ("mysql-unique-key-crash", Some((0, "stuck lock"))),
    ("mysql-unique-key-restart", Some((0, "thread died"))),
    ("mysql-status-cas-unguarded", None),
    (
        "mysql-status-cas-unguarded-found-rows",
        Some((0, "mutual exclusion")),
    ),
    ("mysql-unique-key-txn-crash", None),
    (
        "mysql-unique-key-txn-connection-drop",
        Some((0, "thread died")),
    ),
    ("mysql-unique-key-txn-lock-wait-timeout", None),
];

#[test]
fn every_mysql_scenario_finds_what_is_pinned() {
    let mut wrong = Vec::new();
    for (name, pinned) in FOUND {
        let got = first_violation(&scenario(name)).map(|(s, p)| (s, p.name()));
        if got != pinned {
            wrong.push(format!("{name}: found {got:?}, pinned {pinned:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn every_mysql_scenario_file_is_pinned() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("mysql-") && n.ends_with(".toml"))
        .map(|n| n.trim_end_matches(".toml").to_string())
        .collect();
    files.sort();
    let mut pinned: Vec<String> = FOUND.iter().map(|(n, _)| n.to_string()).collect();
    pinned.sort();
    assert_eq!(
        files, pinned,
        "pin the simulator's finding for every MySQL scenario"
    );
}

/// The checker's expectation of a scenario: the properties it finds
/// violated (headline and `violated`).
fn checker_violated(sc: &MysqlScenario) -> Vec<&'static str> {
    let Some(e) = &sc.expect else {
        return Vec::new();
    };
    let mut out: Vec<Property> = e.violated.iter().map(|(p, _)| *p).collect();
    out.extend(
        e.property
            .filter(|_| e.verdict == locksmith_model::engine::harness::Verdict::Violated),
    );
    Property::ALL
        .into_iter()
        .filter(|p| out.contains(p))
        .map(|p| p.name())
        .collect()
}

#[test]
fn the_simulator_agrees_with_the_checker() {
    let mut wrong = Vec::new();
    for (name, _) in FOUND {
        let sc = scenario(name);
        let violated = checker_violated(&sc);
        // Every property any seed breaks, not only the first.
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..100 {
            seen.extend(run_seed(&sc.space, seed, false).violated);
        }
        for p in &seen {
            if !violated.contains(&p.name()) {
                wrong.push(format!(
                    "{name}: the simulator finds {p}; the checker's expectation has {violated:?} violated"
                ));
            }
        }
        if seen.is_empty() && !violated.is_empty() {
            wrong.push(format!(
                "{name}: the checker finds {violated:?} violated; the simulator nothing in 100 seeds"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let sc = scenario("mysql-for-update-network-drop");
    for seed in [0, 7, 99] {
        let a = run_seed(&sc.space, seed, true);
        let b = run_seed(&sc.space, seed, true);
        assert!(!a.trace.is_empty());
        assert_eq!(a.trace, b.trace, "seed {seed}");
        assert_eq!(a.violation, b.violation, "seed {seed}");
    }
    let a = run_seed(&sc.space, 1, true);
    let b = run_seed(&sc.space, 2, true);
    assert_ne!(a.trace, b.trace, "two seeds, one trace");
}

/// Seeds of `name` (at the simulator's size) whose run violated `p`, among
/// `0..SEEDS`.
fn seeds_violating(name: &str, p: Property) -> usize {
    let sc = scenario(name);
    (0..SEEDS)
        .filter(|&seed| run_seed(&sc.space, seed, false).violated.contains(&p))
        .count()
}

/// Fencing in the simulator, as in the checker: the unique key's id and
/// the status row's version keep the stale holders the cleanup job makes
/// away from the resource; `FOR UPDATE`'s version, bumped inside the
/// transaction a dropped connection rolls back, does not.
#[test]
fn fenced_tokens_hold_under_the_cleanup_job_and_not_under_a_dropped_transaction() {
    for name in [
        "mysql-unique-key-cleanup-fenced",
        "mysql-status-cas-cleanup-fenced",
    ] {
        assert_eq!(seeds_violating(name, Property::FencedSafety), 0, "{name}");
        assert_eq!(
            seeds_violating(name, Property::MutualExclusionAtResource),
            0,
            "{name}"
        );
        let belief = seeds_violating(name, Property::MutualExclusion);
        eprintln!("{name}: mutual exclusion by belief on {belief} seeds");
        assert!(belief > 50, "{name}: the job still makes stale holders");
    }
    let dropped = "mysql-for-update-connection-drop-fenced";
    let fenced = seeds_violating(dropped, Property::FencedSafety);
    let at_resource = seeds_violating(dropped, Property::MutualExclusionAtResource);
    eprintln!("{dropped}: fenced safety on {fenced} seeds, at the resource on {at_resource}");
    assert!(
        fenced + at_resource > 0,
        "{dropped}: the reissued token never showed"
    );
}

/// A sweep folds its seeds in order: one thread or three report the same
/// seeds, failing seeds and totals, so `locksmith sim` runs on every core
/// and prints the same result.
#[test]
fn a_sweep_reports_the_same_on_any_number_of_threads() {
    for name in ["mysql-unique-key-crash", "mysql-status-cas"] {
        let sc = scenario(name);
        for keep_going in [false, true] {
            sweeps::same_on_1_and_3_threads(
                name,
                &|seed| run_seed(&sc.space, seed, false),
                keep_going,
                |r| r.seed,
                |t| (t.acquisitions, t.commands),
            );
        }
    }
}
