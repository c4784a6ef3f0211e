//! `locksmith check`: the exhaustive checker on one scenario file.

use crate::scenario::{AnyScenario, Scenario};
use clap::Args;
use locksmith_model::engine::explore::{Bound, Progress};
use locksmith_model::engine::harness::Writes;
use locksmith_model::{
    zk::check::check_with_progress, zk::check::Report, zk::check::Verdict, zk::check::MAX_CLIENTS,
};
use serde_json::json;
use std::ops::ControlFlow;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The scenario file (TOML), e.g. scenarios/racy-wait.toml.
    pub scenario: PathBuf,
    /// Override the number of clients (1–8).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=MAX_CLIENTS as i64))]
    pub clients: Option<u8>,
    /// Override the acquisitions per client.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..))]
    pub acquisitions: Option<u8>,
    /// Stop after this many distinct states (the verdict is then
    /// `incomplete` unless a violation was already found).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Stop when the checker's tables are estimated to exceed this many MB
    /// (default 4096; the verdict is then `incomplete`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory_mb: Option<u64>,
    /// States that differ only in sequence suffixes and unread zxids are
    /// one state (as `[check] abstract_sequences = true`): makes a polling
    /// recipe's exploration finite.
    #[arg(long)]
    pub abstract_sequences: bool,
    /// Partial-order reduction (as `[check] por = true`): where one
    /// client's next steps touch only that client and change nothing a
    /// property reads, only they are expanded. Fewer states; a trace it
    /// finds may be longer than the shortest.
    #[arg(long)]
    pub por: bool,
    /// Threads that expand states (default: every core). The verdict, the
    /// traces and the counts are the same for any number.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The scenario with the flags applied, checked as the run needs it: what
/// `run` explores, or the error it exits 2 with. A scenario names its
/// backend through its recipe.
pub fn plan(args: &CheckArgs) -> Result<AnyScenario, String> {
    match AnyScenario::load(&args.scenario).map_err(|e| e.to_string())? {
        AnyScenario::ZooKeeper(sc) => {
            plan_zookeeper(args, *sc).map(|s| AnyScenario::ZooKeeper(Box::new(s)))
        }
        AnyScenario::Redis(sc) => {
            super::check_backend::plan(args, *sc).map(|s| AnyScenario::Redis(Box::new(s)))
        }
        AnyScenario::Mysql(sc) => {
            super::check_backend::plan(args, *sc).map(|s| AnyScenario::Mysql(Box::new(s)))
        }
    }
}

fn plan_zookeeper(args: &CheckArgs, mut sc: Scenario) -> Result<Scenario, String> {
    if let Some(n) = args.clients {
        sc.check.clients = n;
    }
    if let Some(k) = args.acquisitions {
        sc.check.acquisitions = k;
    }
    if let Some(s) = args.max_states {
        sc.check.max_states = usize::try_from(s).unwrap_or(usize::MAX);
    }
    if let Some(mb) = args.max_memory_mb {
        let mb = usize::try_from(mb).unwrap_or(usize::MAX);
        sc.check.max_memory = mb.saturating_mul(1 << 20);
    }
    sc.check.abstract_sequences |= args.abstract_sequences;
    sc.check.por |= args.por;
    sc.check.jobs = args.jobs.map_or_else(super::cores, usize::from);
    sc.check
        .validate()
        .map_err(|e| format!("{}: {e}", sc.path.display()))?;
    Ok(sc)
}

pub fn run(args: &CheckArgs) -> i32 {
    let sc = match plan(args) {
        Ok(AnyScenario::ZooKeeper(sc)) => *sc,
        Ok(AnyScenario::Redis(sc)) => return super::check_backend::run(args, &*sc),
        Ok(AnyScenario::Mysql(sc)) => return super::check_backend::run(args, &*sc),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    let bar = progress_bar();
    let report = check_with_progress(&sc.check, &mut |p| {
        show(&bar, p);
        if crate::interrupt::requested() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    bar.finish_and_clear();
    if args.json {
        println!("{}", to_json(&sc, &report));
    } else {
        print!("{}", to_text(&sc, &report));
    }
    if interrupted(&report) {
        return crate::interrupt::EXIT;
    }
    super::exit_code(report.verdict)
}

/// The run stopped on Ctrl-C.
pub(super) fn interrupted(r: &Report) -> bool {
    r.bound.as_deref() == Some(&Bound::Interrupted.to_string())
}

/// A progress line on stderr (drawn only when stderr is a terminal).
pub(super) fn progress_bar() -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar
}

/// Runs under a second stay quiet.
pub(super) fn show(bar: &indicatif::ProgressBar, p: Progress) {
    let secs = p.elapsed.as_secs_f64();
    if secs < 1.0 {
        return;
    }
    bar.set_message(format!(
        "{} states, {:.0} states/s, depth {}, tables ≈ {:.0} MB",
        p.states,
        p.states as f64 / secs,
        p.depth,
        p.table_bytes as f64 / 1e6
    ));
    bar.tick();
}

/// The trace of the property the overall verdict is about.
pub(super) fn headline_trace(r: &Report) -> Option<&locksmith_model::engine::trace::Trace> {
    let p = r.property?;
    r.properties
        .iter()
        .find(|x| x.property == p)?
        .trace
        .as_ref()
}

/// The exploration's part of `--json` — verdicts, figures, bounds — the
/// same fields for every backend; each backend adds its configuration and
/// its trace.
pub(super) fn exploration_json(r: &Report, jobs: usize) -> serde_json::Value {
    json!({
        "verdict": r.verdict.name(),
        "property": r.property.map(|p| p.name()),
        "states": r.states,
        "transitions": r.transitions,
        "depth": r.depth,
        "jobs": jobs,
        "elapsed_ms": r.elapsed_ms,
        "states_per_second": r.states as f64 / (r.elapsed_ms.max(1) as f64 / 1e3),
        "peak_bytes": r.peak_bytes,
        "bytes_per_state": r.peak_bytes / r.states.max(1),
        "peak_memory_bytes": super::peak_memory_bytes(),
        "bound": r.bound,
        "growth": r.growth,
        "never_acquired": r.never_acquired,
        "properties": r.properties.iter().map(|p| json!({
            "property": p.property.name(),
            "verdict": p.verdict.name(),
            "trace_steps": p.trace.as_ref().map(|t| t.steps.len()),
            "reason": p.reason,
        })).collect::<Vec<_>>(),
    })
}

/// `value`'s fields followed by `more`'s (both JSON objects).
pub(super) fn joined(mut value: serde_json::Value, more: serde_json::Value) -> serde_json::Value {
    if let (Some(a), serde_json::Value::Object(b)) = (value.as_object_mut(), more) {
        a.extend(b);
    }
    value
}

pub fn to_json(sc: &Scenario, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let config = json!({
        "scenario": sc.name,
        "recipe": sc.recipe().name(),
        "clients": sc.check.clients,
        "acquisitions": sc.check.acquisitions,
        "reentries": sc.check.reentries,
        "abstract_sequences": sc.check.abstract_sequences,
        "por": sc.check.por,
        "por_reduced_states": r.reduced,
        "fencing": sc.check.writes == Writes::Fenced,
        "guarded": sc.check.writes == Writes::Guarded,
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| t.mermaid(sc.check.clients)),
    });
    joined(config, exploration_json(r, sc.check.jobs))
}

/// The verdict, every property's, the figures, and why a run that is not
/// exhaustive or not vacuous-free says nothing holds — for any backend.
pub(super) fn figures(out: &mut String, r: &Report) {
    use std::fmt::Write;
    let about = match r.property {
        Some(p) => format!("{}: {}", r.verdict, p),
        None => r.verdict.to_string(),
    };
    let _ = writeln!(out, "verdict: {about}");
    for p in &r.properties {
        let steps = match (&p.trace, p.reason) {
            // A reduced state's left-out steps may hide a shorter path.
            (Some(t), _) if r.reduced > 0 => format!(" (trace: {} steps)", t.steps.len()),
            (Some(t), _) => format!(" (shortest trace: {} steps)", t.steps.len()),
            (None, Some(why)) => format!(" ({why})"),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "  {:<33} {}{}", p.property.name(), p.verdict, steps);
    }
    let _ = writeln!(
        out,
        "explored {} states, {} transitions, depth {}, in {} ms ({:.0} states/s; checker tables ≈ {:.1} MB, {} bytes/state; peak memory {:.0} MB)",
        r.states,
        r.transitions,
        r.depth,
        r.elapsed_ms,
        r.states as f64 / (r.elapsed_ms.max(1) as f64 / 1e3),
        r.peak_bytes as f64 / 1e6,
        r.peak_bytes / r.states.max(1),
        super::peak_memory_bytes().unwrap_or(0) as f64 / 1e6
    );
    if interrupted(r) {
        let _ = writeln!(
            out,
            "interrupted (Ctrl-C) after {} states — the run stopped early; properties not violated so far are incomplete, not holding",
            r.states
        );
    } else if let Some(b) = &r.bound {
        let _ = writeln!(
            out,
            "bound hit: {b} — the run stopped early; properties not violated so far are incomplete, not holding"
        );
        if let Some(why) = &r.growth {
            let _ = writeln!(out, "still growing: {why}");
        }
    }
    if !r.never_acquired.is_empty() {
        let who: Vec<String> = r.never_acquired.iter().map(|c| format!("c{c}")).collect();
        let _ = writeln!(
            out,
            "vacuous: {} never acquired the lock on any explored path — the properties nothing broke say nothing about this lock: incomplete, not holding",
            who.join(", ")
        );
    }
}

pub fn to_text(sc: &Scenario, r: &Report) -> String {
    use std::fmt::Write;
    let reentries = match sc.check.reentries {
        0 => String::new(),
        r => format!(", each lock() re-entered {r}×"),
    };
    let abstracted = if sc.check.abstract_sequences {
        ", sequence suffixes abstracted"
    } else {
        ""
    };
    let por = if sc.check.por {
        ", partial-order reduction"
    } else {
        ""
    };
    let writes = match sc.check.writes {
        Writes::Off => "",
        Writes::Fenced => ", fenced writes",
        Writes::Guarded => ", guarded writes",
    };
    let timed = match sc.check.acquire_timeout_ms {
        Some(ms) => format!(", acquire({ms} ms)"),
        None => String::new(),
    };
    let shared = if sc.check.shared_session {
        ", every client a thread of one process on one session"
    } else {
        ""
    };
    let how = format!(
        " × {} acquisitions{reentries}{timed}{shared}{abstracted}{por}{writes}",
        sc.check.acquisitions
    );
    let mut out = super::title(&sc.name, sc.recipe(), sc.check.clients, &how);
    figures(&mut out, r);
    if sc.check.por {
        let _ = writeln!(
            out,
            "partial-order reduction: {} of {} states expanded in part; a trace found may be longer than the shortest (run without --por for the shortest)",
            r.reduced, r.states
        );
    }
    if r.verdict == Verdict::Violated {
        if let Some(t) = headline_trace(r) {
            let shortest = if r.reduced > 0 { "" } else { "shortest " };
            let _ = writeln!(out, "\n{shortest}trace ({} steps):", t.steps.len());
            out.push_str(&t.text());
            let _ = writeln!(
                out,
                "\nmermaid:\n```mermaid\n{}```",
                t.mermaid(sc.check.clients)
            );
        }
    }
    out
}
