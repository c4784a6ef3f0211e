//! `locksmith sim`, `locksmith replay` and `locksmith bench-sim`: the
//! deterministic simulator from the command line.

pub use super::simulate_args::{BenchSimArgs, ReplayArgs, SimArgs};
use crate::backend::Capability;
use crate::backends::AnyScenario;
use crate::scenario::{EtcdScenario, MysqlScenario, RedisScenario};
use crate::simulate::sweep::SweepOptions;
use crate::zk::scenario::Scenario;
use crate::zk::sim::sweep::{sweep, SweepReport};
use crate::zk::sim::{run_seed, run_seed_with_timeline, SimConfig, Summary, Totals};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// A ZooKeeper scenario with the overrides applied, as the simulator
/// runs it; errors name the file.
pub fn prepare(
    path: &Path,
    sc: Scenario,
    clients: Option<u8>,
    acquisitions: Option<u8>,
) -> Result<SimConfig, String> {
    // The file was validated for its own client count; a fault aimed at a
    // client number must still name a client with the override.
    if let Some(n) = clients {
        sc.sim.validate(n).map_err(|(key, why)| {
            format!(
                "{}: [sim] {key}: {why} (with --clients {n})",
                path.display()
            )
        })?;
    }
    // The checker's budgets become the simulator's schedule, but the
    // simulated server never stops: rather than a run without the fault.
    let f = &sc.check.faults;
    if !crate::zk::sim::has_own_faults(&sc.sim) {
        for (key, n) in [
            ("server_restarts", f.server_restarts),
            ("long_server_restarts", f.long_server_restarts),
        ] {
            if n > 0 {
                return Err(format!(
                    "{}: [faults] {key}: expected 0 in a simulation: the simulator does not stop its server (the budget is the checker's: locksmith check {})",
                    path.display(),
                    path.display()
                ));
            }
        }
    }
    // The simulator gives each client a session of its own: a scenario of
    // mutexes sharing one would run as something else.
    if sc.check.shared_session {
        return Err(format!(
            "{}: shared_session = true: expected false in a simulation: the simulator gives every client its own session (the setting is the checker's: locksmith check {})",
            path.display(),
            path.display()
        ));
    }
    let mut cfg = SimConfig::of(&sc);
    if let Some(n) = clients {
        cfg.clients = n as usize;
    }
    if let Some(k) = acquisitions {
        cfg.acquisitions = k;
    }
    Ok(cfg)
}

fn replay_command(path: &Path, seed: u64, a: &SimArgs) -> String {
    let mut cmd = format!("locksmith replay {} --seed {seed}", path.display());
    if let Some(n) = a.clients {
        cmd.push_str(&format!(" --clients {n}"));
    }
    if let Some(k) = a.acquisitions {
        cmd.push_str(&format!(" --acquisitions {k}"));
    }
    cmd
}

/// What `locksmith sim` runs: the scenario file read once, and its
/// backend's configuration with the seeds `first .. first + count`.
pub enum SimPlan {
    ZooKeeper(SimConfig, u64, u64),
    Redis(RedisScenario, u64, u64),
    Mysql(MysqlScenario, u64, u64),
    Etcd(EtcdScenario, u64, u64),
}

/// The file read once and planned for its backend, or the error the
/// command exits 2 with.
pub fn plan(a: &SimArgs) -> Result<SimPlan, String> {
    use super::simulate_backend::plan as backend_plan;
    Ok(
        match AnyScenario::load_for(&a.scenario, &[("sim", Capability::Simulator)])
            .map_err(|e| e.to_string())?
        {
            AnyScenario::ZooKeeper(sc) => {
                let (cfg, first, count) = plan_sim(a, *sc)?;
                SimPlan::ZooKeeper(cfg, first, count)
            }
            AnyScenario::Redis(sc) => {
                let (sc, first, count) = backend_plan(a, *sc)?;
                SimPlan::Redis(sc, first, count)
            }
            AnyScenario::Mysql(sc) => {
                let (sc, first, count) = backend_plan(a, *sc)?;
                SimPlan::Mysql(sc, first, count)
            }
            AnyScenario::Etcd(sc) => {
                let (sc, first, count) = backend_plan(a, *sc)?;
                SimPlan::Etcd(sc, first, count)
            }
        },
    )
}

/// A ZooKeeper scenario's configuration and the seeds `first .. first +
/// count` that `run_sim` sweeps.
fn plan_sim(a: &SimArgs, sc: Scenario) -> Result<(SimConfig, u64, u64), String> {
    let cfg = prepare(&a.scenario, sc, a.clients, a.acquisitions)?;
    let (first, count) = a.seed_range(cfg.settings.seeds)?;
    Ok((cfg, first, count))
}

pub fn run_sim(a: &SimArgs) -> i32 {
    let (cfg, first, count) = match plan(a) {
        Ok(SimPlan::ZooKeeper(cfg, first, count)) => (cfg, first, count),
        Ok(SimPlan::Redis(sc, first, count)) => {
            return super::simulate_backend::run_sim(a, (sc, first, count))
        }
        Ok(SimPlan::Mysql(sc, first, count)) => {
            return super::simulate_backend::run_sim(a, (sc, first, count))
        }
        Ok(SimPlan::Etcd(sc, first, count)) => {
            return super::simulate_backend::run_sim(a, (sc, first, count))
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let report = a.sweep(first, count, &|seed| run_seed(&cfg, seed, false));
    let failed = report.first_failure().is_some();
    if a.json {
        println!("{}", to_json(&cfg, a, &report));
    } else {
        print!("{}", to_text(&cfg, a, &report));
    }
    if failed {
        1
    } else if report.interrupted {
        crate::interrupt::exit_code()
    } else if report.seeds_run < count {
        crate::exit::INCOMPLETE
    } else {
        0
    }
}

fn to_json(cfg: &SimConfig, a: &SimArgs, r: &SweepReport) -> serde_json::Value {
    let s = r.totals.summary();
    let f = r.first_failure();
    json!({
        "scenario": a.scenario.display().to_string(),
        "recipe": cfg.recipe.name(),
        "clients": cfg.clients,
        "acquisitions": cfg.acquisitions,
        "verdict": if f.is_some() {
            "violated"
        } else if r.interrupted {
            "incomplete"
        } else {
            "holds"
        },
        "interrupted": r.interrupted,
        "property": f.and_then(|f| f.violation.as_ref()).map(|v| v.0.name()),
        "why": f.and_then(|f| f.violation.as_ref()).map(|v| v.1.clone()),
        "seed": f.map(|f| f.seed),
        "failing_seeds": r.failures.iter().map(|f| f.seed).collect::<Vec<_>>(),
        "replay": f.map(|f| replay_command(&a.scenario, f.seed, a)),
        "seeds_run": r.seeds_run,
        // Seeds in which a session expired while its client was inside its
        // critical section: whether a holder fault struck a holder.
        "stale_holder_seeds": r.totals.stale_holder_runs(),
        "elapsed_ms": r.elapsed_ms,
        "metrics": s,
    })
}

fn to_text(cfg: &SimConfig, a: &SimArgs, r: &SweepReport) -> String {
    use std::fmt::Write;
    let s = r.totals.summary();
    let how = format!(" × {} acquisitions, simulated", cfg.acquisitions);
    let mut out = crate::title::title(a.scenario.display(), cfg.recipe, cfg.clients, &how);
    match r.first_failure() {
        Some(f) => {
            let (p, why) = f
                .violation
                .as_ref()
                .map(|(p, w)| (p.name(), w.as_str()))
                .unwrap_or(("?", ""));
            let _ = writeln!(out, "verdict: violated: {p}");
            let _ = writeln!(out, "  seed {}: {why}", f.seed);
            if r.failures.len() > 1 {
                let seeds: Vec<String> = r.failures.iter().map(|f| f.seed.to_string()).collect();
                let _ = writeln!(
                    out,
                    "  {} failing seeds: {}",
                    r.failures.len(),
                    seeds.join(" ")
                );
            }
            let _ = writeln!(out, "replay: {}", replay_command(&a.scenario, f.seed, a));
        }
        None if r.interrupted => {
            let _ = writeln!(
                out,
                "verdict: incomplete: interrupted ({}) after {} of {} seeds, no violation in those",
                crate::interrupt::what(),
                r.seeds_run,
                seeds_asked(a, cfg)
            );
        }
        None => {
            let _ = writeln!(out, "verdict: no violation in {} seeds", r.seeds_run);
        }
    }
    let _ = writeln!(
        out,
        "{} seeds in {} ms ({:.0} seeds/s, {:.0} simulated acquisitions/s)",
        r.seeds_run,
        r.elapsed_ms,
        r.seeds_run as f64 * 1000.0 / r.elapsed_ms.max(1) as f64,
        s.acquisitions as f64 * 1000.0 / r.elapsed_ms.max(1) as f64
    );
    let _ = writeln!(
        out,
        "acquisitions {}; per acquisition: {:.2} notifications, {:.2} packets ({} requests, {} replies, {} notifications; {} heartbeats apart)",
        s.acquisitions,
        s.notifications_per_acquisition,
        s.packets_per_acquisition,
        s.requests,
        s.replies,
        s.notifications,
        s.heartbeats
    );
    let _ = writeln!(
        out,
        "wake-ups per release {:.2}; acquisition latency p50 {:.3} ms, p99 {:.3} ms; stale writes rejected {}; belief overlaps {}; expiries {}; faults {}; wait timeouts {}{}\nFIFO: {} acquisitions ahead of an earlier arrival still waiting ({:.1} % of acquisitions)",
        s.wakeups_per_release,
        s.latency_p50_ms,
        s.latency_p99_ms,
        s.rejected_writes,
        s.belief_overlaps,
        s.expiries,
        s.faults,
        s.wait_timeouts,
        gave_up(&s),
        s.out_of_order_acquisitions,
        100.0 * s.out_of_order_per_acquisition
    );
    out
}

/// A timed acquire's figures, where one ran out of time.
fn gave_up(s: &Summary) -> String {
    if s.deadlines_passed == 0 && s.gave_up == 0 {
        return String::new();
    }
    format!(
        "; acquire deadlines passed {}, lock() gave up {}",
        s.deadlines_passed, s.gave_up
    )
}

/// How many seeds `a` asked for.
fn seeds_asked(a: &SimArgs, cfg: &SimConfig) -> u64 {
    a.seeds.unwrap_or(if a.seed.is_some() {
        1
    } else {
        cfg.settings.seeds
    })
}

/// What `locksmith replay` runs: the scenario file read once, planned for
/// its backend.
pub enum ReplayPlan {
    ZooKeeper(SimConfig),
    Redis(RedisScenario),
    Mysql(MysqlScenario),
    Etcd(EtcdScenario),
}

/// The file read once and planned for its backend, or the error the
/// command exits 2 with.
pub fn plan_replay(a: &ReplayArgs) -> Result<ReplayPlan, String> {
    use super::simulate_backend::load_replay;
    let needs: &[_] = if a.timeline.is_some() {
        &[
            ("replay", Capability::Simulator),
            ("replay --timeline", Capability::Timeline),
        ]
    } else {
        &[("replay", Capability::Simulator)]
    };
    Ok(
        match AnyScenario::load_for(&a.scenario, needs).map_err(|e| e.to_string())? {
            AnyScenario::ZooKeeper(sc) => {
                ReplayPlan::ZooKeeper(prepare(&a.scenario, *sc, a.clients, a.acquisitions)?)
            }
            AnyScenario::Redis(sc) => ReplayPlan::Redis(load_replay(a, *sc)?),
            AnyScenario::Mysql(sc) => ReplayPlan::Mysql(load_replay(a, *sc)?),
            AnyScenario::Etcd(sc) => ReplayPlan::Etcd(load_replay(a, *sc)?),
        },
    )
}

pub fn run_replay(a: &ReplayArgs) -> i32 {
    let cfg = match plan_replay(a) {
        Ok(ReplayPlan::ZooKeeper(cfg)) => cfg,
        Ok(ReplayPlan::Redis(sc)) => return super::simulate_backend::run_replay(a, sc),
        Ok(ReplayPlan::Mysql(sc)) => return super::simulate_backend::run_replay(a, sc),
        Ok(ReplayPlan::Etcd(sc)) => return super::simulate_backend::run_replay(a, sc),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let r = if a.timeline.is_some() {
        run_seed_with_timeline(&cfg, a.seed)
    } else {
        run_seed(&cfg, a.seed, true)
    };
    if let Some(path) = &a.timeline {
        if let Err(e) = r.timeline.write(path) {
            eprintln!("error: {e}");
            return 2;
        }
    }
    let mut t = Totals::default();
    t.add(&r.metrics);
    let s = t.summary();
    if a.json {
        let text = r.trace.text();
        let lines: Vec<&str> = text.lines().collect();
        let mut out = super::simulate_backend::replay_json(
            a,
            "zookeeper",
            cfg.recipe.name(),
            r.violation.as_ref(),
            &lines,
            json!(s),
        );
        out["clients"] = json!(cfg.clients);
        out["acquisitions"] = json!(cfg.acquisitions);
        out["mermaid"] = json!(r.trace.mermaid(cfg.clients));
        println!("{out}");
        return i32::from(r.violation.is_some());
    }
    print!("{}", r.trace.text());
    if a.mermaid {
        println!("\n```mermaid\n{}```", r.trace.mermaid(cfg.clients));
    }
    match &r.violation {
        Some((p, why)) => {
            println!("verdict: violated: {} (seed {}): {why}", p.name(), a.seed);
        }
        None => println!("verdict: no violation (seed {})", a.seed),
    }
    println!(
        "acquisitions {}, requests {}, replies {}, notifications {}, heartbeats {}, simulated {:.3} ms",
        s.acquisitions, s.requests, s.replies, s.notifications, s.heartbeats, s.simulated_ms
    );
    if r.violation.is_some() {
        1
    } else {
        0
    }
}

/// CPU seconds this process has used (user + system), from
/// `/proc/self/stat`; `None` where that file does not exist. Unlike wall
/// time it does not count the time other processes took the core.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// One throughput figure: `seeds` runs of `cfg` on this thread. Returns
/// (acquisitions per wall second, per CPU second, seeds per wall second,
/// the metrics).
pub fn throughput(cfg: &SimConfig, seeds: u64) -> (f64, f64, f64, crate::zk::sim::Summary) {
    let started = Instant::now();
    let cpu0 = cpu_seconds();
    let mut t = Totals::default();
    for seed in 0..seeds {
        t.add(&run_seed(cfg, seed, false).metrics);
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let cpu = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => secs,
    };
    let s = t.summary();
    let acq = s.acquisitions as f64;
    (acq / secs, acq / cpu, seeds as f64 / secs, s)
}

pub fn run_bench(a: &BenchSimArgs) -> i32 {
    use crate::zk::sim_settings::SimSettings;
    use locksmith_model::zk::recipes::RecipeId;
    let mk = |recipe, clients, acquisitions| SimConfig {
        recipe,
        clients,
        acquisitions,
        reentries: 0,
        acquire_timeout_ms: None,
        recipe_root: false,
        settings: SimSettings::default(),
    };
    if !a.json {
        println!("simulator figures (one core unless noted; default [sim] settings)");
    }
    let mut rows = Vec::new();
    for (recipe, n) in [
        (RecipeId::Predecessor, 5),
        (RecipeId::Predecessor, 20),
        (RecipeId::HerdChildren, 5),
        (RecipeId::HerdChildren, 20),
    ] {
        let cfg = mk(recipe, n, 20);
        let (aps, cpu_aps, sps, s) = throughput(&cfg, a.seeds);
        if a.json {
            rows.push(json!({
                "recipe": recipe.name(),
                "clients": n,
                "acquisitions": 20,
                "seeds": a.seeds,
                "acquisitions_per_second": aps,
                "acquisitions_per_cpu_second": cpu_aps,
                "seeds_per_second": sps,
                "metrics": s,
            }));
            continue;
        }
        println!(
            "{recipe} × {n} clients × 20: {aps:.0} simulated acquisitions per wall second ({cpu_aps:.0} per CPU second), {sps:.1} seeds/s; {:.2} notifications and {:.2} packets per acquisition, {:.2} wake-ups per release, p50 {:.2} ms, p99 {:.2} ms",
            s.notifications_per_acquisition,
            s.packets_per_acquisition,
            s.wakeups_per_release,
            s.latency_p50_ms,
            s.latency_p99_ms
        );
    }
    let cfg = mk(RecipeId::Predecessor, 5, 20);
    let opts = SweepOptions {
        first: 0,
        count: a.sweep_seeds,
        keep_going: true,
        jobs: a.jobs as usize,
    };
    let cpu0 = cpu_seconds();
    let r = sweep(&cfg, &opts, &|| {});
    let cpu_s = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    if a.json {
        println!(
            "{}",
            json!({
                "throughput": rows,
                "sweep": {
                    "recipe": "predecessor",
                    "clients": 5,
                    "acquisitions": 20,
                    "seeds_run": r.seeds_run,
                    "jobs": a.jobs,
                    "wall_s": r.elapsed_ms as f64 / 1000.0,
                    "cpu_s": cpu_s,
                    "failing_seeds": r.failures.len(),
                },
            })
        );
        return 0;
    }
    let cpu = cpu_s.map_or_else(String::new, |c| format!(", {c:.2} CPU s"));
    println!(
        "sweep: {} seeds of predecessor × 5 clients × 20 on {} threads: {:.2} s wall{cpu} ({} failing)",
        r.seeds_run,
        a.jobs,
        r.elapsed_ms as f64 / 1000.0,
        r.failures.len()
    );
    0
}
