//! No false alarms: every scenario expected to hold — a pinned `[expect]`
//! or `[sim.expect]` of `holds`, and every cell of the committed
//! comparison that holds — swept over many simulator seeds (10,000 by
//! default) with no violation, and every exhaustive `holds` of a small
//! configuration explored again with symmetry reduction off, which must
//! hold too. The Redis scenarios and cells expected to hold are swept
//! on the Redis simulator the same way, at its default size (at least 5
//! clients × 10 rounds); the Redis checker has no symmetry reduction, so
//! there is nothing to cross-check there.
//!
//! Long (minutes): `#[ignore]`d; `scripts/false-alarms.sh` runs it niced
//! in the test profile. `LOCKSMITH_FALSE_ALARM_SEEDS` (default 10000),
//! `LOCKSMITH_FALSE_ALARM_JOBS` (default 2), `LOCKSMITH_SYMMETRY_OFF_MAX`
//! (the largest reduced state count cross-checked, default 250000).

use locksmith::scenario::{all_in, is_mysql, is_redis, AnyScenario, RedisScenario, Scenario};
use locksmith::simulate::redis::run_seed;
use locksmith::simulate::sweep::{sweep, SweepOptions};
use locksmith::simulate::SimConfig;
use locksmith_model::check::check;
use locksmith_model::harness::Verdict;
use std::path::PathBuf;
use std::time::Instant;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The scenarios expected to hold: (name, scenario, the checker's verdict
/// is pinned `holds`).
fn expected_to_hold() -> Vec<(String, Scenario, bool)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for f in all_in(&root.join("scenarios"))
        .expect("scenarios/")
        .into_iter()
        .filter(|f| !is_redis(f) && !is_mysql(f))
    {
        let sc = Scenario::load(&f).unwrap_or_else(|e| panic!("{e}"));
        let check = sc
            .expect
            .as_ref()
            .is_some_and(|e| e.verdict == Verdict::Holds);
        let sim = sc
            .sim_expect
            .as_ref()
            .is_some_and(|e| e.verdict == Verdict::Holds);
        if check || sim {
            out.push((format!("scenarios/{}", sc.name), sc, check));
        }
    }
    let json = std::fs::read_to_string(root.join("reports/compare.json")).expect("compare.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    for c in v["cells"].as_array().expect("cells") {
        if c["verdict"] != "holds" {
            continue;
        }
        let rel = c["scenario"].as_str().expect("a scenario path");
        let sc = Scenario::load(&root.join("reports").join(rel)).unwrap_or_else(|e| panic!("{e}"));
        let check = c["source"]["driver"] == "check";
        out.push((format!("reports/{rel}"), sc, check));
    }
    out
}

/// The Redis scenarios expected to hold: a pinned `[expect]` of `holds`
/// in scenarios/, and the Redis matrix's holding cells.
fn redis_expected_to_hold() -> Vec<(String, RedisScenario)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let load = |path: &std::path::Path| match AnyScenario::load(path) {
        Ok(AnyScenario::Redis(sc)) => {
            let mut sc = *sc;
            // The simulator's default size (`locksmith sim`): a fault
            // must find someone contending.
            sc.space.clients = sc.space.clients.max(5);
            sc.space.acquisitions = sc.space.acquisitions.max(10);
            sc
        }
        Ok(_) => panic!("{}: not a Redis scenario", path.display()),
        Err(e) => panic!("{e}"),
    };
    let mut out = Vec::new();
    for f in all_in(&root.join("scenarios"))
        .expect("scenarios/")
        .into_iter()
        .filter(|f| is_redis(f))
    {
        let sc = load(&f);
        if sc
            .expect
            .as_ref()
            .is_some_and(|e| e.verdict == Verdict::Holds)
        {
            out.push((format!("scenarios/{}", sc.name), sc));
        }
    }
    let json = std::fs::read_to_string(root.join("reports/compare.json")).expect("compare.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    for c in v["redis"]["cells"].as_array().expect("redis cells") {
        if c["verdict"] == "holds" {
            let rel = c["scenario"].as_str().expect("a scenario path");
            out.push((
                format!("reports/{rel}"),
                load(&root.join("reports").join(rel)),
            ));
        }
    }
    out
}

/// The seeds of `0..seeds` on which the Redis simulator finds a
/// violation, on `jobs` threads, in seed order.
fn redis_alarms(sc: &RedisScenario, seeds: u64, jobs: u64) -> Vec<String> {
    let jobs = jobs.max(1);
    let mut found: Vec<(u64, String)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                s.spawn(move || {
                    (j..seeds)
                        .step_by(jobs as usize)
                        .filter_map(|seed| {
                            run_seed(&sc.space, seed, false)
                                .violation
                                .map(|(p, why)| (seed, format!("seed {seed}: {p}: {why}")))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a sweep thread"))
            .collect()
    });
    found.sort();
    found.into_iter().map(|(_, s)| s).collect()
}

#[test]
#[ignore = "minutes: scripts/false-alarms.sh"]
fn nothing_expected_to_hold_is_violated_on_any_seed_or_without_symmetry() {
    let seeds = env("LOCKSMITH_FALSE_ALARM_SEEDS", 10_000);
    let jobs = env("LOCKSMITH_FALSE_ALARM_JOBS", 2) as usize;
    let max_states = env("LOCKSMITH_SYMMETRY_OFF_MAX", 250_000) as usize;
    let mut alarms = Vec::new();
    let (mut swept, mut total_seeds, mut crosschecked) = (0, 0, 0);
    let started = Instant::now();
    for (name, sc, check_holds) in expected_to_hold() {
        let cfg = SimConfig::of(&sc);
        let t = Instant::now();
        let opts = SweepOptions {
            first: 0,
            count: seeds,
            keep_going: true,
            jobs,
        };
        let r = sweep(&cfg, &opts, &|| {});
        swept += 1;
        total_seeds += r.seeds_run;
        let failing: Vec<String> = r
            .failures
            .iter()
            .take(5)
            .map(|f| {
                let (p, why) = f.violation.clone().unwrap_or_default_pair();
                format!("seed {}: {p}: {why}", f.seed)
            })
            .collect();
        eprintln!(
            "false-alarms: sim {name}: {} × {} clients × {}: {} seeds, {} violated ({:.1} s)",
            cfg.recipe,
            cfg.clients,
            cfg.acquisitions,
            r.seeds_run,
            r.failures.len(),
            t.elapsed().as_secs_f64()
        );
        if !r.failures.is_empty() {
            alarms.push(format!("sim {name}: {}", failing.join("; ")));
        }
        if !check_holds {
            continue;
        }
        let reduced = check(&sc.check);
        if reduced.states > max_states {
            eprintln!(
                "false-alarms: check {name}: {} states with symmetry: over {max_states}, not cross-checked",
                reduced.states
            );
            continue;
        }
        let mut plain = sc.check.clone();
        plain.symmetry = false;
        let t = Instant::now();
        let r = check(&plain);
        crosschecked += 1;
        eprintln!(
            "false-alarms: check {name}: symmetry off: {} ({} states; {} with symmetry) ({:.1} s)",
            r.verdict,
            r.states,
            reduced.states,
            t.elapsed().as_secs_f64()
        );
        if r.verdict != Verdict::Holds || reduced.verdict != Verdict::Holds {
            alarms.push(format!(
                "check {name}: {} with symmetry, {} without",
                reduced.verdict, r.verdict
            ));
        }
    }
    eprintln!(
        "false-alarms: {swept} scenarios, {total_seeds} seeds in all, {crosschecked} exhaustive holds explored again with symmetry off, {} alarm(s), {:.0} s",
        alarms.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(alarms.is_empty(), "{}", alarms.join("\n"));
}

#[test]
#[ignore = "minutes: scripts/false-alarms.sh"]
fn nothing_expected_to_hold_on_redis_is_violated_on_any_seed() {
    let seeds = env("LOCKSMITH_FALSE_ALARM_SEEDS", 10_000);
    let jobs = env("LOCKSMITH_FALSE_ALARM_JOBS", 2);
    let mut alarms = Vec::new();
    let (mut swept, mut total_seeds) = (0, 0);
    let started = Instant::now();
    for (name, sc) in redis_expected_to_hold() {
        let t = Instant::now();
        let failing = redis_alarms(&sc, seeds, jobs);
        swept += 1;
        total_seeds += seeds;
        eprintln!(
            "false-alarms: sim {name}: {} × {} clients × {}: {seeds} seeds, {} violated ({:.1} s)",
            sc.space.recipe,
            sc.space.clients,
            sc.space.acquisitions,
            failing.len(),
            t.elapsed().as_secs_f64()
        );
        if !failing.is_empty() {
            alarms.push(format!(
                "sim {name}: {}",
                failing[..failing.len().min(5)].join("; ")
            ));
        }
    }
    eprintln!(
        "false-alarms: redis: {swept} scenarios, {total_seeds} seeds in all, {} alarm(s), {:.0} s",
        alarms.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(alarms.is_empty(), "{}", alarms.join("\n"));
}

trait PairOrDefault {
    fn unwrap_or_default_pair(self) -> (String, String);
}

impl PairOrDefault for Option<(locksmith_model::harness::Property, String)> {
    fn unwrap_or_default_pair(self) -> (String, String) {
        self.map(|(p, w)| (p.name().to_string(), w))
            .unwrap_or_default()
    }
}
