//! What `locksmith real` on a thread-per-client backend (Redis, MySQL,
//! etcd: [`RealBackend`]) prints alike: the verdict, the figures of
//! [`Tally`] under the same names in text and `--json`, and the exit code;
//! and the verdict lines every backend's report opens with.

use super::flags::RealArgs;
use super::threads::{Plan, Tally};
use crate::commands::Planned;
use locksmith_model::engine::harness::Property;
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::time::Duration;

/// The flags every thread-per-client backend takes.
pub fn plan(a: &RealArgs, clients: usize) -> Plan {
    Plan {
        clients,
        seconds: a.seconds,
        seed: a.seed,
        hold: a.hold_ms,
        think: a.think_ms,
        stall_after: Duration::from_secs_f64(a.stall_seconds),
        interrupt: None,
        fencing: false,
    }
}

/// A thread-per-client backend's `real` command: its run, as planned from
/// the flags, and its report.
pub trait RealBackend {
    type Config;
    type Report;
    type Scenario;
    /// The run the flags ask for on the scenario, checked before any
    /// connection.
    fn plan(a: &RealArgs, sc: Self::Scenario) -> Result<Self::Config, String>;
    fn plan_mut(cfg: &mut Self::Config) -> &mut Plan;
    /// `Err` only when the run could not start or a connection failed.
    fn run(cfg: &Self::Config) -> Result<Self::Report, String>;
    fn tally(r: &Self::Report) -> &Tally;
    /// What the run created and could not remove, and why.
    fn leftover(r: &Self::Report) -> Option<String>;
    fn json(a: &RealArgs, cfg: &Self::Config, r: &Self::Report) -> Value;
    fn text(a: &RealArgs, cfg: &Self::Config, r: &Self::Report) -> String;
}

/// The run the flags ask for on `sc`, planned.
pub fn planned<B: RealBackend + 'static>(
    a: &RealArgs,
    sc: B::Scenario,
) -> Result<Planned<'_>, String> {
    let cfg = B::plan(a, sc)?;
    Ok(Box::new(move || run::<B>(a, cfg)))
}

/// Runs the command; exit codes as for ZooKeeper: 0 clean, 1 violated, 2
/// error (what the run created not removed included), 130 Ctrl-C.
pub fn run<B: RealBackend>(a: &RealArgs, mut cfg: B::Config) -> i32 {
    crate::interrupt::install();
    B::plan_mut(&mut cfg).interrupt = Some(crate::interrupt::shared());
    match B::run(&cfg) {
        Ok(r) => {
            if a.json {
                println!("{}", B::json(a, &cfg, &r));
            } else {
                print!("{}", B::text(a, &cfg, &r));
            }
            if let Some(e) = B::leftover(&r) {
                eprintln!("error: {e}");
                return 2;
            }
            exit_code(B::tally(&r))
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// 0 clean, 1 violated, 130 Ctrl-C (a failed cleanup is the caller's 2).
fn exit_code(r: &Tally) -> i32 {
    if r.violation.is_some() {
        1
    } else if r.interrupted {
        crate::interrupt::exit_code()
    } else {
        0
    }
}

fn verdict(r: &Tally) -> &'static str {
    if r.violation.is_some() {
        "violated"
    } else if r.interrupted {
        "incomplete"
    } else {
        "holds"
    }
}

/// The `--json` fields every backend prints, to which the caller adds its
/// own (`server`, `backend`, what it ran on and whether it cleaned up).
pub fn json_fields(a: &RealArgs, recipe: &str, plan: &Plan, r: &Tally) -> Map<String, Value> {
    let v = json!({
        "scenario": a.scenario.display().to_string(),
        "recipe": recipe,
        "clients": plan.clients,
        "seconds": plan.seconds,
        "hold_ms": super::flags::ms(plan.hold),
        "think_ms": super::flags::ms(plan.think),
        "seed": plan.seed,
        "interrupted": r.interrupted,
        "verdict": verdict(r),
        "property": r.violation.as_ref().map(|v| v.0.name()),
        "why": r.violation.as_ref().map(|v| v.1.clone()),
        "elapsed_ms": r.elapsed.as_secs_f64() * 1e3,
        "acquisitions": r.acquisitions,
        "acquisitions_per_second": r.acquisitions_per_second(),
        "gave_up": r.gave_up,
        "commands": r.commands,
        "commands_per_acquisition": r.commands_per_acquisition(),
        "overlapping_holders": r.overlapping_holders,
        "max_holders": r.max_holders,
        "exceptions": exceptions(r),
        "fencing": plan.fencing,
        "rejected_writes": r.rejected_writes,
        "at_resource": r.at_resource.iter().map(|(p, why)| (p.name(), why)).collect::<std::collections::BTreeMap<_, _>>(),
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One entry per client and cause, with how many times it was thrown.
fn exceptions(r: &Tally) -> Vec<String> {
    r.exceptions
        .iter()
        .map(|(what, n)| format!("{what} × {n}"))
        .collect()
}

/// The text report's verdict and figures, after the caller's title line.
pub fn text(out: &mut String, r: &Tally) {
    verdict_lines(
        out,
        r.violation.as_ref(),
        r.interrupted.then_some(r.elapsed),
        r.overlapping_holders,
        r.max_holders,
    );
    let _ = writeln!(
        out,
        "acquisitions: {} ({:.1}/s), {} lock() calls gave up",
        r.acquisitions,
        r.acquisitions_per_second(),
        r.gave_up
    );
    let _ = writeln!(
        out,
        "commands: {} ({:.2} per acquisition)",
        r.commands,
        r.commands_per_acquisition()
    );
    if !r.at_resource.is_empty() || r.rejected_writes > 0 {
        let _ = writeln!(out, "resource: {} stale writes rejected", r.rejected_writes);
    }
    for (p, why) in &r.at_resource {
        let _ = writeln!(out, "at the resource: violated: {p}\n  {why}");
    }
    if !r.exceptions.is_empty() {
        let _ = writeln!(
            out,
            "exceptions: {} ({})",
            r.exceptions.values().sum::<u64>(),
            exceptions(r).join("; ")
        );
    }
}

/// A real run's verdict and its overlap line, for every backend:
/// `interrupted` is how long it ran if Ctrl-C stopped it.
pub fn verdict_lines(
    out: &mut String,
    violation: Option<&(Property, String)>,
    interrupted: Option<Duration>,
    overlapping: u64,
    most: usize,
) {
    match (violation, interrupted) {
        (Some((p, why)), _) => {
            let _ = writeln!(out, "verdict: violated: {p}");
            let _ = writeln!(out, "  {why}");
        }
        (None, Some(after)) => {
            let _ = writeln!(
                out,
                "verdict: incomplete: interrupted ({}) after {:.1} s, no overlapping holders and no stall until then",
                crate::interrupt::what(),
                after.as_secs_f64()
            );
        }
        (None, None) => {
            let _ = writeln!(
                out,
                "verdict: holds (no overlapping holders, no stall) over this run"
            );
        }
    }
    let _ = writeln!(
        out,
        "overlapping holders: {overlapping} (most at once: {most})"
    );
}
