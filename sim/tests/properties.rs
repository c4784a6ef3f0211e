//! No vacuous property: every property locksmith judges is violated by
//! some scenario and holds in another, and no `holds` is reported for a
//! run in which a client never got the lock.

use locksmith::backends::{is_redis, AnyScenario};
use locksmith::expect::Expectation;
use locksmith::redis::scenario::RedisScenario;
use locksmith::scenario::all_in;
use locksmith::zk::check::to_text as check_report_text;
use locksmith::zk::scenario::Scenario;
use locksmith::zk::sim::{run_seed, SimConfig};
use locksmith_model::engine::harness::{Property, Verdict};
use locksmith_model::engine::Judged as _;
use locksmith_model::zk::check::explore::explore;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{zk::check::property, zk::check::CheckConfig, zk::check::Report};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn scenarios() -> Vec<Scenario> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    all_in(&dir)
        .expect("scenarios/")
        .iter()
        .filter_map(|f| match AnyScenario::load(f) {
            Ok(AnyScenario::ZooKeeper(sc)) => Some(*sc),
            Ok(_) => None,
            Err(e) => panic!("{e}"),
        })
        .collect()
}

fn redis_scenarios() -> Vec<RedisScenario> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    all_in(&dir)
        .expect("scenarios/")
        .iter()
        .filter(|f| is_redis(f))
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{e}"));
            RedisScenario::parse(f, &text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// Whether a driver judges a property on a scenario.
type Judged<'a> = dyn Fn(Property) -> bool + 'a;

/// Each property, with the pinned expectations (held by `cargo test`'s
/// `check::<name>` and `sim::<name>`) that show it violated — as the
/// headline — and holding; a property no headline shows violated is looked
/// for on the seeds of the simulator scenarios that judge it.
#[test]
fn every_property_is_violated_by_one_scenario_and_holds_in_another() {
    let all = scenarios();
    let mut violated: BTreeMap<Property, Vec<String>> = BTreeMap::new();
    let mut holds: BTreeMap<Property, Vec<String>> = BTreeMap::new();
    // The Redis checker's pinned expectations: the only driver that judges
    // unlock by non-owner and stuck lock.
    for sc in redis_scenarios() {
        let Some(e) = &sc.expect else { continue };
        let name = format!("check::{}", sc.name);
        if let (Verdict::Violated, Some(p)) = (e.verdict, e.property) {
            violated.entry(p).or_default().push(name.clone());
        }
        for &(p, _) in &e.violated {
            violated.entry(p).or_default().push(name.clone());
        }
        for p in Property::ALL.into_iter().filter(|&p| sc.space.judges(p)) {
            if e.verdict == Verdict::Holds || e.holds.contains(&p) {
                holds.entry(p).or_default().push(name.clone());
            }
        }
    }
    for sc in &all {
        let sim = SimConfig::of(sc);
        let drivers: [(&str, &Option<Expectation>, &Judged); 2] = [
            ("check", &sc.expect, &|p| property::judged_in(p, &sc.check)),
            ("sim", &sc.sim_expect, &|p| sim.judges(p)),
        ];
        for (driver, expect, judged) in drivers {
            let Some(e) = expect else { continue };
            let name = format!("{driver}::{}", sc.name);
            if let (Verdict::Violated, Some(p)) = (e.verdict, e.property) {
                violated.entry(p).or_default().push(name.clone());
            }
            for &(p, _) in &e.violated {
                violated.entry(p).or_default().push(name.clone());
            }
            for p in Property::ALL.into_iter().filter(|p| judged(*p)) {
                if e.verdict == Verdict::Holds || e.holds.contains(&p) {
                    holds.entry(p).or_default().push(name.clone());
                }
            }
        }
    }
    for p in Property::ALL {
        if violated.contains_key(&p) {
            continue;
        }
        'search: for sc in all.iter().filter(|s| s.sim_expect.is_some()) {
            let cfg = SimConfig::of(sc);
            if !cfg.judges(p) {
                continue;
            }
            for seed in 0..cfg.settings.seeds {
                if run_seed(&cfg, seed, false).violations.contains(p) {
                    violated
                        .entry(p)
                        .or_default()
                        .push(format!("sim::{} seed {seed}", sc.name));
                    break 'search;
                }
            }
        }
    }
    let mut missing = Vec::new();
    for p in Property::ALL {
        let v = violated.get(&p).map(Vec::as_slice).unwrap_or_default();
        let h = holds.get(&p).map(Vec::as_slice).unwrap_or_default();
        eprintln!("{p}: violated by {v:?}; holds in {h:?}");
        if v.is_empty() {
            missing.push(format!("no scenario violates {p}"));
        }
        if h.is_empty() {
            missing.push(format!("no scenario shows {p} holding"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Fenced safety catches what mutual exclusion at the resource cannot: an
/// older tenure's write accepted after a newer tenure's, with no overlap.
/// A token (the lock node's czxid) stops an expired holder's late writes
/// when the lock grants in node order — herd-unique's single node and the
/// textbook lock reject them on every seed — and does not when it grants
/// out of it: no-recheck after a disconnect, where the newer tenure holds
/// the older node (the checker's 24 steps).
#[test]
fn fenced_safety_breaks_when_the_lock_grants_out_of_node_order_and_holds_otherwise() {
    let load = |name: &str| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{name}.toml"));
        SimConfig::of(&Scenario::load(&path).unwrap_or_else(|e| panic!("{e}")))
    };
    for name in [
        "herd-unique-fenced-late-write",
        "predecessor-fenced-late-write",
    ] {
        let cfg = load(name);
        let mut rejected = 0;
        for seed in 0..200 {
            let r = run_seed(&cfg, seed, false);
            assert!(
                !r.violations.contains(Property::FencedSafety),
                "{name} seed {seed}: {:?}",
                r.violations
            );
            rejected += r.metrics.rejected_writes;
        }
        assert!(rejected >= 20, "{name}: {rejected} stale writes rejected");
    }
    let cfg = load("no-recheck-fenced-out-of-order");
    let mut broken = 0;
    for seed in 0..500 {
        let r = run_seed(&cfg, seed, false);
        // Counted where the resource saw no overlap: there only fenced
        // safety can tell.
        broken += u32::from(
            r.violations.contains(Property::FencedSafety)
                && !r.violations.contains(Property::MutualExclusionAtResource),
        );
    }
    assert!(
        broken >= 5,
        "fenced safety broke without an overlap on {broken} of 500 seeds"
    );
}

/// The checker records which clients hold the lock somewhere in the
/// explored graph; a `holds` needs every one of them.
#[test]
fn a_run_in_which_a_client_never_acquires_does_not_hold() {
    let mut cfg = CheckConfig::new(RecipeId::FixedWait, 2, 1);
    cfg.symmetry = false;
    let x = explore(&cfg);
    assert_eq!(x.acquired, 0b11, "both clients acquire on some path");
    let r = Report::from_exploration(&cfg, &x);
    assert_eq!(
        (r.verdict, r.never_acquired.clone()),
        (Verdict::Holds, vec![])
    );

    // The same graph, had c2 never held the lock: nothing holds.
    let mut vacuous = x.clone();
    vacuous.acquired = 0b01;
    let r = Report::from_exploration(&cfg, &vacuous);
    assert_eq!(r.verdict, Verdict::Incomplete);
    assert_eq!(r.never_acquired, [2]);
    assert!(r.properties.iter().all(|p| p.verdict != Verdict::Holds));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/fixed-wait.toml");
    let mut sc = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    sc.check = cfg.clone();
    let text = check_report_text(&sc, &r);
    assert!(
        text.contains("vacuous: c2 never acquired the lock"),
        "{text}"
    );

    // Under symmetry the states are canonical: one holder stands for all,
    // so only "nobody ever" is left.
    cfg.symmetry = true;
    let x = explore(&cfg);
    assert_ne!(x.acquired, 0);
    assert_eq!(Report::from_exploration(&cfg, &x).verdict, Verdict::Holds);
    let mut nobody = x.clone();
    nobody.acquired = 0;
    let r = Report::from_exploration(&cfg, &nobody);
    assert_eq!(
        (r.verdict, r.never_acquired),
        (Verdict::Incomplete, vec![1, 2])
    );

    // A violation stands whoever acquired.
    let cfg = CheckConfig::new(RecipeId::RacyWait, 2, 1);
    let mut x = explore(&cfg);
    x.acquired = 0;
    let r = Report::from_exploration(&cfg, &x);
    assert_eq!(
        (r.verdict, r.property),
        (Verdict::Violated, Some(Property::Deadlock))
    );
}
