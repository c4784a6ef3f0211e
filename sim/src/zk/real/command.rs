//! `locksmith real` on a ZooKeeper scenario: the flags checked against the
//! scenario, the run ([`super::run`]) and what it prints — the
//! simulator's figures under the same names.

use super::{root, run, RealConfig, RealError, RealReport};
use crate::real::flags::{ms, RealArgs};
use crate::zk::scenario::Scenario;
use crate::zk::sim::{SimConfig, Totals};
use serde_json::json;
use std::time::Duration;

/// `--zk`: host:port pairs, and no path (the run roots its sessions
/// itself).
pub fn check_server(zk: &str) -> Result<(), String> {
    let bad =
        || format!("--zk {zk:?}: expected HOST:PORT (or several, comma-separated), without a path");
    if zk.is_empty() || zk.contains('/') || zk.chars().any(char::is_whitespace) {
        return Err(bad());
    }
    for hp in zk.split(',') {
        let (host, port) = hp.rsplit_once(':').ok_or_else(bad)?;
        if host.is_empty() || port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(bad());
        }
    }
    Ok(())
}

/// The run the flags ask for on `sc`, checked before any connection.
pub fn plan(a: &RealArgs, sc: Scenario) -> Result<RealConfig, String> {
    a.only_servers_of(
        locksmith_model::catalogue::Backend::ZooKeeper,
        sc.recipe().name(),
        "--zk",
    )?;
    if a.cleanup_ms.is_some() {
        return Err(format!(
            "{}: --cleanup-ms: the cleanup job is a MySQL recipe's (recipe `{}` runs on ZooKeeper)",
            a.scenario.display(),
            sc.recipe().name()
        ));
    }
    if sc.check.shared_session {
        return Err(format!(
            "{}: shared_session = true: expected false: locksmith real gives every client its own session (the setting is the checker's)",
            a.scenario.display()
        ));
    }
    check_server(&a.zk)?;
    root::check_base(&a.root)?;
    let sim = SimConfig::of(&sc);
    let clients = a.clients.map(usize::from).unwrap_or(sim.clients);
    if !(1..=255).contains(&clients) {
        return Err(format!(
            "{}: {clients} clients: expected 1 to 255 (pass --clients)",
            a.scenario.display()
        ));
    }
    let mut cfg = RealConfig::new(sim.recipe, clients, a.seconds, &a.zk);
    cfg.base = a.root.clone();
    cfg.seed = a.seed;
    cfg.hold = a.hold_ms;
    cfg.think = a.think_ms;
    cfg.stall_after = Duration::from_secs_f64(a.stall_seconds);
    cfg.reentries = sim.reentries;
    cfg.acquire_timeout_ms = sim.acquire_timeout_ms;
    cfg.recipe_root = sim.recipe_root;
    cfg.timeline = a.timeline.is_some();
    Ok(cfg)
}

/// Runs the planned run; exit code 0 clean, 1 violated (overlap or
/// stall), 2 error (no server, the run's root not deleted), 130 Ctrl-C.
pub fn execute(a: &RealArgs, mut cfg: RealConfig) -> i32 {
    crate::interrupt::install();
    cfg.interrupt = Some(crate::interrupt::shared());
    match run(&cfg) {
        Ok(r) => {
            if let Some(path) = &a.timeline {
                if let Err(e) = r.timeline.write(path) {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
            if a.json {
                println!("{}", to_json(a, &cfg, &r));
            } else {
                print!("{}", to_text(a, &cfg, &r));
            }
            if let Err(e) = &r.cleanup {
                eprintln!(
                    "error: the run's root {} is still on the server: {e}",
                    r.root
                );
                return 2;
            }
            if r.violation.is_some() {
                1
            } else if r.interrupted {
                crate::interrupt::exit_code()
            } else {
                0
            }
        }
        Err(e) => {
            let what = match e {
                RealError::Connect(_) => "error",
                RealError::Setup(_) => "error: setting up the run",
            };
            eprintln!("{what}: {e}");
            2
        }
    }
}

/// The simulator's summary of the run's metrics (with the driver's own
/// count of contended acquisitions, which its metrics do not keep).
fn summary(r: &RealReport) -> crate::zk::sim::Summary {
    let mut t = Totals::default();
    let mut m = r.metrics.clone();
    m.contended_acquisitions = r.contended_acquisitions;
    t.add(&m);
    t.summary()
}

pub fn to_json(a: &RealArgs, cfg: &RealConfig, r: &RealReport) -> serde_json::Value {
    let s = summary(r);
    let m = &r.metrics;
    let acq = m.acquisitions as f64;
    json!({
        "scenario": a.scenario.display().to_string(),
        "recipe": cfg.recipe.name(),
        "server": cfg.addr,
        "clients": cfg.clients,
        "seconds": cfg.seconds,
        "hold_ms": ms(cfg.hold),
        "think_ms": ms(cfg.think),
        "acquire_timeout_ms": cfg.acquire_timeout_ms,
        "seed": cfg.seed,
        "root": r.root,
        "nodes_deleted": r.cleanup.as_ref().ok(),
        "interrupted": r.interrupted,
        "verdict": if r.violation.is_some() {
            "violated"
        } else if r.interrupted {
            "incomplete"
        } else {
            "holds"
        },
        "property": r.violation.as_ref().map(|v| v.0.name()),
        "why": r.violation.as_ref().map(|v| v.1.clone()),
        "elapsed_ms": r.elapsed.as_secs_f64() * 1e3,
        "acquisitions_per_second": r.acquisitions_per_second(),
        "overlapping_holders": r.overlapping_holders(),
        "max_holders": r.max_holders,
        "contended_acquisitions": r.contended_acquisitions,
        "requests_per_acquisition": per(m.requests, acq),
        "replies_per_acquisition": per(m.replies, acq),
        "notifications_per_contended_acquisition": r.notifications_per_contended_acquisition(),
        "exceptions": r.exceptions,
        "metrics": s,
    })
}

fn per(x: u64, n: f64) -> f64 {
    crate::real::per(x, n)
}

pub fn to_text(a: &RealArgs, cfg: &RealConfig, r: &RealReport) -> String {
    use std::fmt::Write;
    let s = summary(r);
    let m = &r.metrics;
    let acq = m.acquisitions as f64;
    let how = format!(
        " against ZooKeeper at {} for {:.1} s",
        cfg.addr,
        r.elapsed.as_secs_f64()
    );
    let mut out = crate::title::title(a.scenario.display(), cfg.recipe, cfg.clients, &how);
    crate::real::report::verdict_lines(
        &mut out,
        r.violation.as_ref(),
        r.interrupted.then_some(r.elapsed),
        r.overlapping_holders(),
        r.max_holders,
    );
    let _ = writeln!(
        out,
        "acquisitions: {} ({:.1}/s), {} contended (waited for a notification)",
        m.acquisitions,
        r.acquisitions_per_second(),
        r.contended_acquisitions
    );
    let _ = writeln!(
        out,
        "per acquisition: {:.2} requests, {:.2} replies, {:.2} notifications, {:.2} packets",
        per(m.requests, acq),
        per(m.replies, acq),
        s.notifications_per_acquisition,
        s.packets_per_acquisition
    );
    let _ = writeln!(
        out,
        "notifications per contended acquisition: {:.2}",
        r.notifications_per_contended_acquisition()
    );
    let _ = writeln!(
        out,
        "wake-ups per contended release: {:.2} ({} releases)",
        s.wakeups_per_release, m.contended_releases
    );
    let _ = writeln!(
        out,
        "latency lock() → acquired: p50 {:.2} ms, p99 {:.2} ms",
        s.latency_p50_ms, s.latency_p99_ms
    );
    let _ = writeln!(
        out,
        "totals: {} requests, {} replies, {} notifications (heartbeats not counted)",
        m.requests, m.replies, m.notifications
    );
    if let Some(ms) = cfg.acquire_timeout_ms {
        let _ = writeln!(
            out,
            "acquire({ms} ms): {} deadline(s) passed, lock() gave up {} time(s)",
            m.deadlines_passed, m.gave_up
        );
    }
    if !r.exceptions.is_empty() {
        let _ = writeln!(
            out,
            "exceptions ({}; each client got a new session): {}",
            r.exceptions.len(),
            r.exceptions.join("; ")
        );
    }
    let times = if cfg.hold.is_zero() && cfg.think.is_zero() {
        String::new()
    } else {
        format!(
            "; hold {}, think {}, drawn from seed {}",
            cfg.hold, cfg.think, cfg.seed
        )
    };
    match &r.cleanup {
        Ok(n) => {
            let _ = writeln!(
                out,
                "run root {}: {n} node(s), deleted with it{times}",
                r.root
            );
        }
        Err(e) => {
            let _ = writeln!(out, "run root {}: NOT deleted: {e}{times}", r.root);
        }
    }
    out
}
