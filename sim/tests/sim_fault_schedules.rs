//! Generated fault schedules for the simulator, shrunk by proptest.
//!
//! 1. With fencing, no schedule of expiries, pauses, partitions and
//!    connection losses makes the resource accept overlapping holders or a
//!    stale token (fenced safety).
//! 2. Without fencing, proptest finds a schedule that breaks mutual
//!    exclusion and shrinks it; a final greedy pass leaves a schedule from
//!    which no fault can be removed — one or two faults, usually a single
//!    expiry, pause or partition of the holder — the minimal story of "no ZooKeeper lock is safe without a
//!    fencing token".
//!
//! Failing cases are persisted in `sim_fault_schedules.proptest-regressions`
//! beside this file (committed), and replayed first on every run.

use locksmith::zk::sim::{run_seed, SimConfig};
use locksmith::zk::sim_settings::{FaultKind, ScheduledFault, SimSettings, Target, TargetName};
use locksmith_model::engine::harness::Property;
use locksmith_model::zk::recipes::RecipeId;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestError, TestRunner};

const REGRESSIONS: &str = "tests/sim_fault_schedules.proptest-regressions";

fn fault() -> impl Strategy<Value = ScheduledFault> {
    (
        0.0..40.0f64,
        prop_oneof![
            Just(FaultKind::Expire),
            Just(FaultKind::Pause),
            Just(FaultKind::Partition),
            Just(FaultKind::ConnectionLoss),
        ],
        prop_oneof![
            Just(Target::Named(TargetName::Any)),
            Just(Target::Named(TargetName::Holder)),
            Just(Target::Named(TargetName::Waiter)),
            (1u8..=3).prop_map(Target::Client),
        ],
        10.0..8000.0f64,
        any::<bool>(),
    )
        .prop_map(
            |(at_ms, fault, target, duration_ms, applied)| ScheduledFault {
                at_ms: (at_ms * 10.0).round() / 10.0,
                fault,
                target,
                duration_ms: Some(duration_ms.round()),
                applied,
            },
        )
}

fn schedule() -> impl Strategy<Value = Vec<ScheduledFault>> {
    prop::collection::vec(fault(), 0..5)
}

fn config(fencing: bool, schedule: Vec<ScheduledFault>) -> SimConfig {
    SimConfig {
        recipe: RecipeId::Predecessor,
        clients: 3,
        acquisitions: 3,
        reentries: 0,
        acquire_timeout_ms: None,
        recipe_root: false,
        settings: SimSettings {
            hold_ms: [2.0, 4.0],
            fencing,
            schedule,
            ..SimSettings::default()
        },
    }
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..Config::default()
    })
}

#[test]
fn fenced_resource_never_accepts_overlap_or_stale_tokens() {
    let result = runner(48).run(&schedule(), |s| {
        let r = run_seed(&config(true, s), 0, false);
        let bad = matches!(
            r.violation.as_ref().map(|v| v.0),
            Some(Property::MutualExclusionAtResource | Property::FencedSafety)
        );
        prop_assert!(!bad, "{:?}", r.violation);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn unfenced_mutual_exclusion_breaks_with_one_holder_fault() {
    let result = runner(200).run(&schedule(), |s| {
        let r = run_seed(&config(false, s), 0, false);
        prop_assert_ne!(
            r.violation.as_ref().map(|v| v.0),
            Some(Property::MutualExclusionAtResource)
        );
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, shrunk)) => {
            eprintln!("proptest shrank to: {shrunk:?}");
            let breaks = |s: &[ScheduledFault]| {
                run_seed(&config(false, s.to_vec()), 0, false)
                    .violation
                    .is_some_and(|v| v.0 == Property::MutualExclusionAtResource)
            };
            assert!(breaks(&shrunk));
            // proptest's shrinking is local (it does not retry removing a
            // fault after simplifying the others); finish with a greedy
            // pass so that no single fault can go (1-minimal).
            let mut minimal = shrunk.clone();
            let mut i = 0;
            while i < minimal.len() {
                let mut fewer = minimal.clone();
                fewer.remove(i);
                if breaks(&fewer) {
                    minimal = fewer;
                } else {
                    i += 1;
                }
            }
            eprintln!("minimal schedule: {minimal:?}");
            assert!(
                (1..=2).contains(&minimal.len()),
                "minimal schedule has {} faults: {minimal:?}",
                minimal.len()
            );
            assert!(
                minimal.iter().any(|f| matches!(
                    f.fault,
                    FaultKind::Pause | FaultKind::Partition | FaultKind::Expire
                )),
                "no holder-killing fault in {minimal:?}"
            );
        }
        Err(e) => panic!("{e}"),
        Ok(()) => panic!("no schedule broke mutual exclusion in 200 cases"),
    }
}
