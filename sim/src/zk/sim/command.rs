//! `locksmith sim` and `locksmith replay` on a ZooKeeper scenario: the
//! flags checked against the scenario, its seeds swept ([`super::sweep`]),
//! one seed's whole trace, and what each prints.

use super::budgets::{AsSimulated, BUDGETS};
use super::sweep::SweepReport;
use super::{run_seed, run_seed_with_timeline, SimConfig, Summary, Totals};
use crate::commands::Planned;
use crate::simulate::flags::{ReplayArgs, SimArgs};
use crate::simulate::replay_json;
use crate::zk::scenario::Scenario;
use serde_json::json;
use std::path::Path;

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
    // The checker's budgets become the simulator's schedule; one it does
    // not simulate (the server never stops) is refused rather than run
    // without the fault.
    if !crate::zk::sim::has_own_faults(&sc.sim) {
        for (key, n) in sc.check.faults.by_key() {
            let refused = BUDGETS.iter().find_map(|(k, how)| match how {
                AsSimulated::Refused(why) if *k == key => Some(why),
                _ => None,
            });
            if let (Some(why), true) = (refused, n > 0) {
                return Err(format!(
                    "{}: [faults] {key}: expected 0 in a simulation: {why} (the budget is the checker's: locksmith check {})",
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

/// The sweep the flags ask for on `sc` (its seeds `first .. first +
/// count`), and its run.
pub fn plan(a: &SimArgs, sc: Scenario) -> Result<Planned<'_>, String> {
    let cfg = prepare(&a.scenario, sc, a.clients, a.acquisitions)?;
    let (first, count) = a.seed_range(cfg.settings.seeds)?;
    Ok(Box::new(move || sweep(a, &cfg, first, count)))
}

fn sweep(a: &SimArgs, cfg: &SimConfig, first: u64, count: u64) -> i32 {
    let report = a.sweep(first, count, &|seed| run_seed(cfg, seed, false));
    let failed = report.first_failure().is_some();
    if a.json {
        println!("{}", to_json(cfg, a, &report));
    } else {
        print!("{}", to_text(cfg, a, &report));
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

/// The replay the flags ask for on `sc`, and its run.
pub fn plan_replay(a: &ReplayArgs, sc: Scenario) -> Result<Planned<'_>, String> {
    let cfg = prepare(&a.scenario, sc, a.clients, a.acquisitions)?;
    Ok(Box::new(move || replay(a, &cfg)))
}

fn replay(a: &ReplayArgs, cfg: &SimConfig) -> i32 {
    let r = if a.timeline.is_some() {
        run_seed_with_timeline(cfg, a.seed)
    } else {
        run_seed(cfg, a.seed, true)
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
        let mut out = replay_json(
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
