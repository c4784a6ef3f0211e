//! What `locksmith confirm` prints for every backend: the title, the
//! checker's trace beside what the server did, step by step, the outcome
//! and what was cleaned up, as text or `--json`; and its exit code.

use super::flags::ConfirmArgs;
use super::{ConfirmReport, Outcome};
use crate::commands::Planned;
use crate::scenario::{CommandScenario, CommandSpace};
use serde_json::json;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A re-enactment, planned: what its report says of the scenario and the
/// server, and the run itself, handed the Ctrl-C flag.
pub fn planned<'a>(
    a: &'a ConfirmArgs,
    shown: Shown,
    run: impl FnOnce(Option<Arc<AtomicBool>>) -> Result<ConfirmReport, String> + 'a,
) -> Planned<'a> {
    Box::new(move || {
        crate::interrupt::install();
        report(a, &shown, run(Some(crate::interrupt::shared())))
    })
}

/// Prints the re-enactment's report. Exit codes: 0 confirmed, 1 diverged,
/// 2 error (no violation to confirm, no server, a step confirm cannot
/// force), 130 Ctrl-C.
fn report(a: &ConfirmArgs, shown: &Shown, r: Result<ConfirmReport, String>) -> i32 {
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if a.json {
        println!("{}", to_json(shown, &r));
    } else {
        print!("{}", to_text(shown, &r));
    }
    if r.interrupted {
        return crate::interrupt::exit_code();
    }
    if r.cleanup.is_err() {
        return 2;
    }
    exit_code(&r.outcome)
}

/// What a report says of the scenario and the server.
pub struct Shown {
    pub scenario: String,
    pub recipe: String,
    pub clients: u8,
    pub acquisitions: u8,
    pub backend: &'static str,
    pub server: String,
    /// Redis: real milliseconds per tick.
    pub tick_ms: Option<u32>,
    /// How the title line ends: what it was re-enacted on.
    pub on: String,
    /// Where the run kept its state on the server.
    pub place: Place,
}

impl Shown {
    /// What a command backend's report says of its scenario, re-enacted on
    /// `server` (`on`: how the title line ends).
    pub fn command<S: CommandSpace>(
        sc: &CommandScenario<S>,
        server: String,
        on: String,
        place: Place,
        tick_ms: Option<u32>,
    ) -> Shown {
        Shown {
            scenario: sc.name.clone(),
            recipe: sc.space.recipe_id().to_string(),
            clients: sc.space.clients(),
            acquisitions: sc.space.acquisitions(),
            backend: crate::backend::key(S::BACKEND),
            server,
            tick_ms,
            on,
            place,
        }
    }
}

/// Where a re-enactment kept its state on the server, and what its last
/// line says of it.
pub enum Place {
    /// A root node and the nodes under it (ZooKeeper).
    Root,
    /// Keys under a prefix, and what else was let go (`its leases
    /// revoked`, `every connection closed`).
    Keys { also: &'static str },
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

pub fn to_text(sc: &Shown, r: &ConfirmReport) -> String {
    use std::fmt::Write;
    let mut out = crate::title::title(&sc.scenario, &sc.recipe, sc.clients, &sc.on);
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
    match (&r.cleanup, &sc.place) {
        (Ok(n), Place::Keys { also }) => {
            let _ = writeln!(
                out,
                "run keys {}*: {n} deleted; {also} ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        (Ok(n), Place::Root) => {
            let _ = writeln!(
                out,
                "run root {}: {n} node(s), deleted with it; every session ended ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        (Err(e), _) => {
            let _ = writeln!(out, "run root {}: NOT cleaned up: {e}", r.root);
        }
    }
    out
}

pub fn to_json(sc: &Shown, r: &ConfirmReport) -> serde_json::Value {
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
    let mut v = json!({
        "scenario": sc.scenario,
        "backend": sc.backend,
        "recipe": sc.recipe,
        "clients": sc.clients,
        "acquisitions": sc.acquisitions,
        "server": sc.server,
        "tick_ms": sc.tick_ms,
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
        "cleanup_error": r.cleanup.as_ref().err(),
        "elapsed_ms": r.elapsed.as_millis() as u64,
        "interrupted": r.interrupted,
    });
    // Where the run kept its state on the server, and how much of it was
    // deleted at the end: a root and its nodes, or a key prefix and keys.
    let (place, count) = match sc.place {
        Place::Keys { .. } => ("key_prefix", "keys_deleted"),
        Place::Root => ("root", "nodes_deleted"),
    };
    v[place] = json!(r.root);
    v[count] = json!(r.cleanup.as_ref().ok());
    v
}
