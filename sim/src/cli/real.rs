//! `locksmith real`: a scenario's recipe against a real ZooKeeper server,
//! with the figures `locksmith sim` prints, under the same names.

use crate::real::{run, RealConfig, RealError, RealReport};
use crate::simulate::{SimConfig, Totals};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct RealArgs {
    /// The scenario file (TOML), e.g. scenarios/predecessor.toml; only its
    /// recipe, client count and `reentries` are used (faults are the real
    /// world's).
    pub scenario: PathBuf,
    /// The ZooKeeper server, host:port (`scripts/zookeeper.sh start` runs
    /// one on 127.0.0.1:2181).
    #[arg(long, default_value = "127.0.0.1:2181")]
    pub zk: String,
    /// How many clients compete, each with its own session (default: the
    /// scenario's `[sim] clients`, else its `clients`).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub clients: Option<u16>,
    /// How long the clients compete, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    pub seconds: f64,
    /// How long a client stays in its critical section, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub hold_ms: u64,
    /// How long a client pauses after unlock() before its next lock(), in
    /// milliseconds (`locksmith sim` defaults: hold 0.5–1.5, think 0–2).
    #[arg(long, default_value_t = 0)]
    pub think_ms: u64,
    /// A client waiting this many seconds with no acquisition by anyone is
    /// a stall (exit 1).
    #[arg(long, default_value_t = 5.0, value_parser = positive_seconds)]
    pub stall_seconds: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 86_400.0 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a number of seconds between 0 and 86400"
        )),
    }
}

/// Runs the command; exit code 0 clean, 1 violated (overlap or stall), 2
/// error (no server, bad scenario).
pub fn run_real(a: &RealArgs) -> i32 {
    let Some(sc) = super::load(&a.scenario) else {
        return 2;
    };
    let sim = SimConfig::of(&sc);
    let clients = a.clients.map(usize::from).unwrap_or(sim.clients).max(1);
    let mut cfg = RealConfig::new(sim.recipe, clients, a.seconds, &a.zk);
    cfg.hold = Duration::from_millis(a.hold_ms);
    cfg.think = Duration::from_millis(a.think_ms);
    cfg.stall_after = Duration::from_secs_f64(a.stall_seconds);
    cfg.reentries = sim.reentries;
    match run(&cfg) {
        Ok(r) => {
            if a.json {
                println!("{}", to_json(a, &cfg, &r));
            } else {
                print!("{}", to_text(a, &cfg, &r));
            }
            if r.violation.is_some() {
                1
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
fn summary(r: &RealReport) -> crate::simulate::Summary {
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
        "hold_ms": a.hold_ms,
        "think_ms": a.think_ms,
        "verdict": if r.violation.is_some() { "violated" } else { "holds" },
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
        "leftovers_deleted": r.leftovers_deleted,
        "metrics": s,
    })
}

fn per(x: u64, n: f64) -> f64 {
    crate::real::driver::per(x, n)
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
    let mut out = super::title(a.scenario.display(), cfg.recipe, cfg.clients, &how);
    match &r.violation {
        Some((p, why)) => {
            let _ = writeln!(out, "verdict: violated: {p}");
            let _ = writeln!(out, "  {why}");
        }
        None => {
            let _ = writeln!(
                out,
                "verdict: holds (no overlapping holders, no stall) over this run"
            );
        }
    }
    let _ = writeln!(
        out,
        "overlapping holders: {} (most at once: {})",
        r.overlapping_holders(),
        r.max_holders
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
    if !r.exceptions.is_empty() {
        let _ = writeln!(
            out,
            "exceptions ({}; each client got a new session): {}",
            r.exceptions.len(),
            r.exceptions.join("; ")
        );
    }
    if r.leftovers_deleted > 0 {
        let _ = writeln!(
            out,
            "deleted {} ephemeral node(s) left by an earlier run's sessions",
            r.leftovers_deleted
        );
    }
    out
}
