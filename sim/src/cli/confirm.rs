//! `locksmith confirm`: the checker's shortest trace of a scenario,
//! re-enacted step for step on a real ZooKeeper.

use crate::confirm::{run, ConfirmConfig, ConfirmReport, Outcome};
use crate::real::root;
use crate::scenario::Scenario;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ConfirmArgs {
    /// The scenario file (TOML) whose checker counterexample is re-enacted,
    /// e.g. scenarios/racy-wait.toml.
    pub scenario: PathBuf,
    /// The ZooKeeper server, HOST:PORT (`scripts/zookeeper.sh start` runs
    /// one).
    #[arg(long)]
    pub zk: String,
    /// An existing path on the server under which the run creates its own
    /// root, `locksmith-0-<session id>`, and deletes it at the end.
    #[arg(long, default_value = "/")]
    pub root: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The confirmation the flags ask for, checked before any connection.
pub fn plan(a: &ConfirmArgs) -> Result<(Scenario, ConfirmConfig), String> {
    let mut sc = Scenario::load(&a.scenario).map_err(|e| e.to_string())?;
    if sc.expect.is_none() && sc.sim_expect.is_some() {
        // Its clients and acquisitions are sized for the simulator: the
        // checker would explore far beyond any reasonable run.
        return Err(format!(
            "{}: a simulation scenario ([sim.expect], no [expect]): confirm re-enacts the checker's trace; give it a checker scenario (one with [expect])",
            sc.path.display()
        ));
    }
    super::real::check_server(&a.zk)?;
    root::check_base(&a.root)?;
    sc.check.jobs = super::cores();
    sc.check
        .validate()
        .map_err(|e| format!("{}: {e}", sc.path.display()))?;
    let mut cfg = ConfirmConfig::new(sc.check.clone(), &a.zk);
    cfg.base = a.root.clone();
    Ok((sc, cfg))
}

/// Exit codes: 0 confirmed, 1 diverged, 2 error (no violation to confirm,
/// no server, a step confirm cannot force), 130 Ctrl-C.
pub fn run_confirm(a: &ConfirmArgs) -> i32 {
    let (sc, mut cfg) = match plan(a) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    cfg.interrupt = Some(crate::interrupt::shared());
    let r = match run(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if a.json {
        println!("{}", to_json(&sc, &a.zk, &r));
    } else {
        print!("{}", to_text(&sc, &a.zk, &r));
    }
    if r.interrupted {
        return crate::interrupt::EXIT;
    }
    if r.cleanup.is_err() {
        return 2;
    }
    exit_code(&r.outcome)
}

pub fn exit_code(o: &Outcome) -> i32 {
    match o {
        Outcome::Confirmed(_) => 0,
        Outcome::Diverged { .. } => 1,
        Outcome::Unforced { .. } => 2,
    }
}

/// The verdict's word: `confirmed`, `diverged`, or `not confirmed`.
pub fn verdict_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Confirmed(_) => "confirmed",
        Outcome::Diverged { .. } => "diverged",
        Outcome::Unforced { .. } => "not confirmed",
    }
}

pub fn to_text(sc: &Scenario, zk: &str, r: &ConfirmReport) -> String {
    use std::fmt::Write;
    let how = format!(" re-enacted on ZooKeeper at {zk}");
    let mut out = super::title(&sc.name, sc.recipe(), sc.check.clients, &how);
    let _ = writeln!(
        out,
        "the checker's shortest trace: {}, {} steps ({} states explored){}",
        r.property,
        r.trace_steps,
        r.states,
        r.cycle_start
            .map(|c| format!("; the cycle starts at step {c}"))
            .unwrap_or_default()
    );
    for s in &r.transcript {
        let _ = writeln!(out, "{:>4}. {:<22} model: {}", s.step, s.actor, s.model);
        let _ = writeln!(out, "      {:<22} real:  {}", "", s.real);
    }
    match &r.outcome {
        Outcome::Confirmed(why) => {
            let _ = writeln!(out, "confirmed: {} on the real server — {why}", r.property);
        }
        Outcome::Diverged {
            step,
            expected,
            actual,
        } => {
            let _ = writeln!(out, "diverged at step {step}");
            let _ = writeln!(out, "  the model expected: {expected}");
            let _ = writeln!(out, "  the server did:     {actual}");
        }
        Outcome::Unforced { step, why } => {
            let _ = writeln!(
                out,
                "not confirmed: step {step}: {why} — neither confirmed nor diverged"
            );
        }
    }
    match &r.cleanup {
        Ok(n) => {
            let _ = writeln!(
                out,
                "run root {}: {n} node(s), deleted with it; every session ended ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        Err(e) => {
            let _ = writeln!(out, "run root {}: NOT cleaned up: {e}", r.root);
        }
    }
    out
}

pub fn to_json(sc: &Scenario, zk: &str, r: &ConfirmReport) -> serde_json::Value {
    let (step, expected, actual, why) = match &r.outcome {
        Outcome::Confirmed(why) => (None, None, None, Some(why.clone())),
        Outcome::Diverged {
            step,
            expected,
            actual,
        } => (
            Some(*step),
            Some(expected.clone()),
            Some(actual.clone()),
            None,
        ),
        Outcome::Unforced { step, why } => (Some(*step), None, None, Some(why.clone())),
    };
    json!({
        "scenario": sc.name,
        "recipe": sc.recipe().name(),
        "clients": sc.check.clients,
        "acquisitions": sc.check.acquisitions,
        "server": zk,
        "property": r.property.name(),
        "trace_steps": r.trace_steps,
        "states": r.states,
        "cycle_start": r.cycle_start,
        "verdict": verdict_word(&r.outcome),
        "step": step,
        "expected": expected,
        "actual": actual,
        "why": why,
        "transcript": r.transcript,
        "root": r.root,
        "nodes_deleted": r.cleanup.as_ref().ok(),
        "cleanup_error": r.cleanup.as_ref().err(),
        "elapsed_ms": r.elapsed.as_millis() as u64,
        "interrupted": r.interrupted,
    })
}
