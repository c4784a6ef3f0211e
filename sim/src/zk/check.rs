//! `locksmith check` on a ZooKeeper scenario: the flags applied to its
//! configuration (with ZooKeeper's own `--por` and
//! `--abstract-sequences`), its exploration, and what its report says of
//! it (reentries, timed acquires, shared sessions, writes, the partial-order
//! reduction's share).

use super::scenario::Scenario;
use crate::check::flags::{CheckArgs, Sizes};
use crate::check::output::{exploration_json, figures, headline_trace, joined};
use crate::check::Checked;
use locksmith_model::engine::harness::Writes;
use locksmith_model::engine::{Progress, Report, Trace, Verdict};
use locksmith_model::zk::check::check_with_progress;
use serde_json::json;
use std::ops::ControlFlow;

/// The scenario with the flags applied, checked as the run needs it: what
/// `run` explores, or the error it exits 2 with. A scenario names its
/// backend through its recipe; a flag its backend cannot serve (`--por`,
/// `--abstract-sequences`) is refused rather than silently gone without.
impl Checked for Scenario {
    fn apply(&mut self, a: &CheckArgs) -> Result<(), String> {
        let c = &mut self.check;
        a.apply(Sizes {
            clients: &mut c.clients,
            acquisitions: &mut c.acquisitions,
            max_states: &mut c.max_states,
            max_memory: &mut c.max_memory,
            jobs: &mut c.jobs,
        });
        c.abstract_sequences |= a.abstract_sequences;
        c.por |= a.por;
        c.validate()
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        check_with_progress(&self.check, progress)
    }

    fn to_json(&self, r: &Report) -> serde_json::Value {
        to_json(self, r)
    }

    fn to_text(&self, r: &Report) -> String {
        to_text(self, r)
    }

    fn mermaid(&self, t: &Trace) -> String {
        t.mermaid(self.check.clients)
    }
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
        Writes::Plain => ", plain writes",
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
    let mut out = crate::title::title(&sc.name, sc.recipe(), sc.check.clients, &how);
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
        }
    }
    out
}
