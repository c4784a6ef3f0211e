//! `locksmith bench-sim`: the simulator's figures on ZooKeeper recipes —
//! simulated acquisitions per wall and CPU second, seeds per second, and
//! the wall time of a sweep.

use super::sweep::sweep;
use super::{run_seed, SimConfig, Totals};
use crate::simulate::flags::BenchSimArgs;
use crate::simulate::sweep::SweepOptions;
use serde_json::json;
use std::time::Instant;

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
pub fn throughput(cfg: &SimConfig, seeds: u64) -> (f64, f64, f64, super::Summary) {
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

pub fn run(a: &BenchSimArgs) -> i32 {
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
