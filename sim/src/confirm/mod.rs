//! What every backend's `locksmith confirm` reports, whatever server it
//! re-enacts the checker's trace on: each step as both sides saw it
//! ([`StepRecord`]), why a re-enactment stopped early ([`Stop`]), how it
//! ended ([`Outcome`]) and the whole report ([`ConfirmReport`]). Each
//! backend's re-enactment is in its own folder (ZooKeeper's:
//! `crate::zk::confirm`).

pub mod flags;
pub mod output;

use locksmith_model::engine::harness::Property;
use locksmith_model::engine::TraceStep;
use serde::Serialize;
use std::time::Duration;

/// One step of the re-enactment, as both sides saw it.
#[derive(Clone, Debug, Serialize)]
pub struct StepRecord {
    pub step: usize,
    pub actor: String,
    /// The model's account (the checker's trace line).
    pub model: String,
    /// What was done on the real side, and what the server answered.
    pub real: String,
}

/// Why the re-enactment stopped before the end of the trace.
#[derive(Clone, Debug)]
pub enum Stop {
    /// The real server did something else than the model at this step.
    Diverged {
        step: usize,
        expected: String,
        actual: String,
    },
    /// The trace needs something at this step that `confirm` cannot force
    /// on a real server yet.
    Unforced { step: usize, why: String },
    /// The server could not be used (no answer, a lost session).
    Failed(String),
    /// Ctrl-C.
    Interrupted,
}

/// How the re-enactment ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The real server showed the same violation; why.
    Confirmed(String),
    /// The real server did something else at this step.
    Diverged {
        step: usize,
        expected: String,
        actual: String,
    },
    /// The trace needs something `confirm` cannot force yet: neither
    /// confirmed nor diverged.
    Unforced { step: usize, why: String },
}

/// What a confirmation found.
#[derive(Clone, Debug)]
pub struct ConfirmReport {
    pub property: Property,
    /// The checker's trace length, and the states it explored.
    pub trace_steps: usize,
    pub states: usize,
    /// For starvation: where the repeating part begins (1-based).
    pub cycle_start: Option<usize>,
    pub outcome: Outcome,
    pub transcript: Vec<StepRecord>,
    /// The run's own root; gone when the run returns unless `cleanup` says
    /// otherwise.
    pub root: String,
    pub cleanup: Result<usize, String>,
    pub elapsed: Duration,
    pub interrupted: bool,
}

/// A trace step as `confirm` shows the model's side: the step's line with
/// the nodes it created and deleted.
pub fn line_of(s: &TraceStep) -> String {
    let mut line = s.text.clone();
    if !s.tree.is_empty() {
        line.push_str(&format!("   [{}]", s.tree.join(" ")));
    }
    line
}

/// How a re-enactment that stopped with `result` after `taken` steps
/// ended, and whether Ctrl-C stopped it; `Err`: the server failed (and,
/// if it did too, why the run's state could not be cleaned up).
pub fn outcome(
    result: Result<String, Stop>,
    taken: usize,
    cleanup: &Result<usize, String>,
) -> Result<(Outcome, bool), String> {
    Ok(match result {
        Ok(why) => (Outcome::Confirmed(why), false),
        Err(Stop::Diverged {
            step,
            expected,
            actual,
        }) => (
            Outcome::Diverged {
                step,
                expected,
                actual,
            },
            false,
        ),
        Err(Stop::Unforced { step, why }) => (Outcome::Unforced { step, why }, false),
        Err(Stop::Interrupted) => (
            Outcome::Unforced {
                step: taken,
                why: format!("interrupted ({})", crate::interrupt::what()),
            },
            true,
        ),
        Err(Stop::Failed(e)) => {
            return Err(match cleanup {
                Ok(_) => e,
                Err(c) => format!("{e}; and {c}"),
            })
        }
    })
}
