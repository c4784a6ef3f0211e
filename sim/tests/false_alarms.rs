//! No false alarms: every scenario expected to hold — a pinned `[expect]`
//! or `[sim.expect]` of `holds`, and every cell of the committed
//! comparison that holds — swept over many simulator seeds (10,000 by
//! default) with no violation, and every exhaustive `holds` of a small
//! configuration explored again with symmetry reduction off, which must
//! hold too. The Redis, MySQL and etcd scenarios and cells expected to
//! hold are swept on their simulators the same way (Redis at the default
//! size, at least 5 clients × 10 rounds; MySQL and etcd at their own
//! clients × at least 10 rounds); their checkers have no symmetry
//! reduction, so there is nothing to cross-check there.
//!
//! Long (minutes): `#[ignore]`d; `scripts/false-alarms.sh` runs it niced
//! in the test profile. `LOCKSMITH_FALSE_ALARM_SEEDS` (default 10000),
//! `LOCKSMITH_FALSE_ALARM_JOBS` (default 2), `LOCKSMITH_SYMMETRY_OFF_MAX`
//! (the largest reduced state count cross-checked, default 250000).

use locksmith::backends::{backend_of, AnyScenario};
use locksmith::etcd::sim::run_seed as etcd_run;
use locksmith::mysql::sim::run_seed as mysql_run;
use locksmith::redis::sim::run_seed as redis_run;
use locksmith::scenario::{all_in, CommandScenario, CommandSpace};
use locksmith::simulate::command::BackendRun;
use locksmith::simulate::sweep::SweepOptions;
use locksmith::zk::scenario::Scenario;
use locksmith::zk::sim::sweep::sweep;
use locksmith::zk::sim::SimConfig;
use locksmith_model::catalogue::Backend;
use locksmith_model::engine::harness::{Property, Verdict};
use locksmith_model::zk::check::check;
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
        .filter(|f| backend_of(f).is_none_or(|b| b == Backend::ZooKeeper))
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
        // A fenced or guarded cell that holds at the resource while its
        // clients' beliefs overlapped claims nothing holds by belief.
        if c["verdict"] != "holds" || c["belief"]["verdict"] == "violated" {
            continue;
        }
        let rel = c["scenario"].as_str().expect("a scenario path");
        let sc = Scenario::load(&root.join("reports").join(rel)).unwrap_or_else(|e| panic!("{e}"));
        let check = c["source"]["driver"] == "check";
        out.push((format!("reports/{rel}"), sc, check));
    }
    out
}

/// One seed's run on a backend's simulator: its first violation.
type Seeded = Box<dyn Fn(u64) -> Option<(Property, String)> + Sync>;

/// A command backend's scenario grown to at least `clients` clients and
/// 10 rounds, as a description, its expected verdict and its seeded run.
fn seeded<S: CommandSpace + Send + Sync>(
    sc: &CommandScenario<S>,
    clients: u8,
    run: fn(&S, u64, bool) -> BackendRun,
) -> (String, Verdict, Seeded) {
    let mut space = sc.space.clone();
    let (c, k, _) = space.sizes();
    *c = (*c).max(clients);
    *k = (*k).max(10);
    let (c, k) = (*c, *k);
    let what = format!("{} × {c} clients × {k}", space.recipe_id());
    let verdict = sc.expect.as_ref().map_or(Verdict::Holds, |e| e.verdict);
    let run: Seeded = Box::new(move |seed| run(&space, seed, false).violation);
    (what, verdict, run)
}

/// A Redis, MySQL or etcd scenario at its simulator's size (`locksmith
/// sim`: a fault must find someone contending), as a description and its
/// seeded run; `None` for a ZooKeeper scenario.
fn backend_sim(path: &std::path::Path) -> Option<(String, Verdict, Seeded)> {
    match AnyScenario::load(path) {
        Ok(AnyScenario::Redis(sc)) => Some(seeded(&sc, 5, redis_run)),
        // More rounds, not more clients: a database lock's waiters queue,
        // and with more clients than the checker's a waiter behind several
        // holders meets `innodb_lock_wait_timeout` — a violation the
        // checker finds too at that size
        // (scenarios/mysql-for-update-queue-timeout.toml), not one its
        // verdict at two clients rules out.
        Ok(AnyScenario::Mysql(sc)) => Some(seeded(&sc, 0, mysql_run)),
        // More rounds, not more clients: a herd needs three waiting
        // clients, and a checker's `holds` at two says nothing of one (a
        // three-client file, etcd-mutex-herd, keeps its three).
        Ok(AnyScenario::Etcd(sc)) => Some(seeded(&sc, 0, etcd_run)),
        Ok(AnyScenario::ZooKeeper(_)) => None,
        Err(e) => panic!("{e}"),
    }
}

/// The Redis, MySQL and etcd scenarios expected to hold: a pinned
/// `[expect]` of `holds` in scenarios/, and the holding cells of their
/// matrices.
fn backends_expected_to_hold() -> Vec<(String, String, Seeded)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for f in all_in(&root.join("scenarios"))
        .expect("scenarios/")
        .into_iter()
        .filter(|f| backend_of(f).is_some_and(|b| b != Backend::ZooKeeper))
    {
        if let Some((what, Verdict::Holds, run)) = backend_sim(&f) {
            let name = f.file_stem().map(|n| n.to_string_lossy().to_string());
            out.push((format!("scenarios/{}", name.unwrap_or_default()), what, run));
        }
    }
    let json = std::fs::read_to_string(root.join("reports/compare.json")).expect("compare.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    for backend in ["redis", "mysql", "etcd"] {
        for c in v[backend]["cells"].as_array().expect("cells") {
            if c["verdict"] == "holds" && c["belief"]["verdict"] != "violated" {
                let rel = c["scenario"].as_str().expect("a scenario path");
                let (what, _, run) =
                    backend_sim(&root.join("reports").join(rel)).expect("a backend's cell");
                out.push((format!("reports/{rel}"), what, run));
            }
        }
    }
    out
}

/// The seeds of `0..seeds` on which `run` finds a violation, on `jobs`
/// threads, in seed order.
fn backend_alarms(run: &Seeded, seeds: u64, jobs: u64) -> Vec<String> {
    let jobs = jobs.max(1);
    let mut found: Vec<(u64, String)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                s.spawn(move || {
                    (j..seeds)
                        .step_by(jobs as usize)
                        .filter_map(|seed| {
                            run(seed).map(|(p, why)| (seed, format!("seed {seed}: {p}: {why}")))
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
        // The simulator does not stop its server: a scenario whose faults
        // are server restarts would be swept without them (`locksmith sim`
        // refuses it); its checker verdict is still cross-checked below.
        // Nor does it put clients on one session (`shared_session`).
        let simulable = !sc.check.shared_session
            && (sc.check.faults.restarts() == 0 || locksmith::zk::sim::has_own_faults(&sc.sim));
        if simulable {
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
fn nothing_expected_to_hold_on_redis_mysql_or_etcd_is_violated_on_any_seed() {
    let seeds = env("LOCKSMITH_FALSE_ALARM_SEEDS", 10_000);
    let jobs = env("LOCKSMITH_FALSE_ALARM_JOBS", 2);
    let mut alarms = Vec::new();
    let (mut swept, mut total_seeds) = (0, 0);
    let started = Instant::now();
    for (name, what, run) in backends_expected_to_hold() {
        let t = Instant::now();
        let failing = backend_alarms(&run, seeds, jobs);
        swept += 1;
        total_seeds += seeds;
        eprintln!(
            "false-alarms: sim {name}: {what}: {seeds} seeds, {} violated ({:.1} s)",
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
        "false-alarms: redis, mysql and etcd: {swept} scenarios, {total_seeds} seeds in all, {} alarm(s), {:.0} s",
        alarms.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(alarms.is_empty(), "{}", alarms.join("\n"));
}

trait PairOrDefault {
    fn unwrap_or_default_pair(self) -> (String, String);
}

impl PairOrDefault for Option<(locksmith_model::engine::harness::Property, String)> {
    fn unwrap_or_default_pair(self) -> (String, String) {
        self.map(|(p, w)| (p.name().to_string(), w))
            .unwrap_or_default()
    }
}
