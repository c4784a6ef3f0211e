//! `locksmith check` on a scenario of a backend that is not ZooKeeper
//! (Redis, MySQL): the flags applied the same way, the run with its
//! progress bar and Ctrl-C, the exit codes, the JSON, and the shortest
//! trace in the text report. A command backend brings only what its
//! configuration says of itself ([`CommandCheck`]); `check_redis.rs` and
//! `check_mysql.rs` hold that.

use super::check_args::CheckArgs;
use super::check_output::{
    budgets, exploration_json, figures, headline_trace, interrupted, joined, with_progress,
};
use crate::scenario::{CommandScenario, CommandSpace};
use locksmith_model::engine::Judged;
use locksmith_model::engine::Limits;
use locksmith_model::engine::Progress;
use locksmith_model::engine::Trace;
use locksmith_model::{zk::check::Report, zk::check::Verdict};
use std::ops::ControlFlow;
use std::path::Path;

/// A backend's scenario, as `locksmith check` runs it.
pub trait BackendScenario: Sized {
    fn path(&self) -> &Path;
    /// Its clients, rounds and bounds, which the flags override.
    fn sizes(&mut self) -> (&mut u8, &mut u8, &mut Limits);
    fn validate(&self) -> Result<(), String>;
    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report;
    fn to_json(&self, r: &Report) -> serde_json::Value;
    fn to_text(&self, r: &Report) -> String;
    /// A trace of this backend as a Mermaid sequence diagram.
    fn mermaid(&self, t: &Trace) -> String;
}

/// What `check` needs of a command backend's configuration (its checker
/// space) beyond what every backend has.
pub trait CommandCheck: CommandSpace {
    /// Its own settings in `--json` (time, switches), by their keys.
    fn settings_json(&self) -> serde_json::Map<String, serde_json::Value>;
    /// The title line's tail: " × N acquisitions on <backend>: …".
    fn how(&self) -> String;
}

impl<S: CommandCheck> BackendScenario for CommandScenario<S> {
    fn path(&self) -> &Path {
        &self.path
    }

    fn sizes(&mut self) -> (&mut u8, &mut u8, &mut Limits) {
        self.space.sizes()
    }

    fn validate(&self) -> Result<(), String> {
        self.space.validate_config()
    }

    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        Judged::check_with_progress(&self.space, progress)
    }

    fn to_json(&self, r: &Report) -> serde_json::Value {
        to_json(self, r)
    }

    fn to_text(&self, r: &Report) -> String {
        to_text(self, r)
    }

    fn mermaid(&self, t: &Trace) -> String {
        self.space.mermaid(t)
    }
}

/// `check --json` of a command backend's scenario.
pub fn to_json<S: CommandCheck>(sc: &CommandScenario<S>, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let s = &sc.space;
    let mut config = s.settings_json();
    let common = [
        ("scenario", serde_json::json!(sc.name)),
        ("backend", crate::backend::key(S::BACKEND).into()),
        ("recipe", s.recipe_id().into()),
        ("clients", s.clients().into()),
        ("acquisitions", s.acquisitions().into()),
        ("faults", budgets(&s.fault_budgets())),
        ("trace", serde_json::json!(trace.map(|t| &t.steps))),
        ("mermaid", serde_json::json!(trace.map(|t| s.mermaid(t)))),
    ];
    config.extend(common.map(|(k, v)| (k.to_string(), v)));
    joined(config.into(), exploration_json(r, s.limits().jobs))
}

/// `check`'s text report of a command backend's scenario.
pub fn to_text<S: CommandCheck>(sc: &CommandScenario<S>, r: &Report) -> String {
    let s = &sc.space;
    let mut out = crate::title::title(&sc.name, s.recipe_id(), s.clients(), &s.how());
    report_text(&mut out, r);
    out
}

/// `sc` with the flags applied and checked (`--por` and
/// `--abstract-sequences` were refused as the file loaded: no backend but
/// ZooKeeper has them).
pub fn plan<S: BackendScenario>(args: &CheckArgs, mut sc: S) -> Result<S, String> {
    let (clients, acquisitions, limits) = sc.sizes();
    if let Some(n) = args.clients {
        *clients = n;
    }
    if let Some(k) = args.acquisitions {
        *acquisitions = k;
    }
    if let Some(s) = args.max_states {
        limits.max_states = usize::try_from(s).unwrap_or(usize::MAX);
    }
    if let Some(mb) = args.max_memory_mb {
        let mb = usize::try_from(mb).unwrap_or(usize::MAX);
        limits.max_memory = mb.saturating_mul(1 << 20);
    }
    limits.jobs = args.jobs.map_or_else(crate::machine::cores, usize::from);
    sc.validate()
        .map_err(|e| format!("{}: {e}", sc.path().display()))?;
    Ok(sc)
}

pub fn run<S: BackendScenario>(args: &CheckArgs, sc: &S) -> i32 {
    let report = with_progress(|progress| sc.check(progress));
    if args.json {
        println!("{}", sc.to_json(&report));
    } else {
        print!("{}", sc.to_text(&report));
        if args.mermaid {
            print!("{}", mermaid_text(&report, &|t| sc.mermaid(t)));
        }
    }
    if interrupted(&report) {
        return crate::interrupt::exit_code();
    }
    crate::exit::of(report.verdict)
}

/// The figures after the title line, then the headline's shortest trace.
pub fn report_text(out: &mut String, r: &Report) {
    use std::fmt::Write;
    figures(out, r);
    if r.verdict == Verdict::Violated {
        if let Some(t) = headline_trace(r) {
            let _ = writeln!(out, "\nshortest trace ({} steps):", t.steps.len());
            out.push_str(&t.text());
        }
    }
}

/// `--mermaid`: the headline's trace as a Mermaid block (`mermaid` draws
/// it), or nothing when there is none.
pub fn mermaid_text(r: &Report, mermaid: &dyn Fn(&Trace) -> String) -> String {
    match headline_trace(r).filter(|_| r.verdict == Verdict::Violated) {
        Some(t) => format!("\nmermaid:\n```mermaid\n{}```\n", mermaid(t)),
        None => String::new(),
    }
}
