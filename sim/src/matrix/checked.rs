//! A checker's report as a cell: its verdicts, its headline and, if
//! violated, the headline's shortest trace, marked where it fails — the
//! same for every backend whose cells the exhaustive checker judges
//! (ZooKeeper's check columns, every command backend's cells).

use super::cell::{
    blank, cell_id, judge_headline, never_struck, CellResult, CellTrace, PropertyVerdict, Source,
};
use super::confirmed::of_trace;
use locksmith_model::engine::harness::{Property, Verdict};
use locksmith_model::engine::{Report, Trace};
use std::path::Path;
use std::time::Instant;

/// The cell a checker's `report` makes: its verdicts, its headline and,
/// if violated, the headline's shortest trace (on `page`, drawn by
/// `mermaid`, with its fingerprint). `size` is (clients, rounds);
/// `unfaulted` the states of the same file with its fault budget zeroed
/// (none if it has no budget).
pub fn checked(
    report: &Report,
    size: (u8, u8),
    unfaulted: Option<usize>,
    command: String,
    page: String,
    mermaid: &dyn Fn(&Trace) -> String,
) -> CellResult {
    let mut r = blank(
        Source::Check {
            clients: size.0,
            acquisitions: size.1,
            states: report.states,
            transitions: report.transitions,
            depth: report.depth,
            bound: report.bound.clone(),
            fault_struck: unfaulted.map(|none| report.states > none),
        },
        command.clone(),
    );
    r.properties = report
        .properties
        .iter()
        .map(|p| PropertyVerdict {
            property: p.property,
            verdict: p.verdict,
        })
        .collect();
    // The resource is in the checked system exactly when mutual exclusion
    // at it is judged (fenced, guarded or plain writes).
    let protects = r.properties.iter().any(|p| {
        p.property == Property::MutualExclusionAtResource && p.verdict != Verdict::NotApplicable
    });
    let mut shown = judge_headline(&mut r, protects);
    if unfaulted.is_some_and(|none| report.states <= none) {
        shown = never_struck(&mut r);
    }
    if let Some(shown) = shown {
        if let Some(t) = report.trace_of(shown) {
            r.trace = Some(CellTrace {
                property: shown,
                steps: t.steps.len(),
                seed: None,
                why: None,
                page,
                command,
                text: marked(t, shown),
                mermaid: mermaid(t),
                fingerprint: of_trace(&t.steps),
            });
        }
    }
    r
}

/// The checker's trace as text, its failing step marked. A breadth-first
/// trace ends at the first state that breaks a safety property or at the
/// step that wakes the herd; a deadlock is the state after its last step;
/// starvation's cycle is already marked where it begins. (The simulator's
/// traces carry their own `VIOLATION` entries.)
fn marked(t: &Trace, p: Property) -> String {
    let text = t.text();
    let mark = match p {
        Property::Starvation => return text,
        Property::Deadlock => {
            "   ◀ deadlock: from here nothing but a fault can happen, and a client still waits"
                .to_string()
        }
        p => format!("   ◀ {p} violated here"),
    };
    match text.strip_suffix('\n') {
        Some(body) => format!("{body}{mark}\n"),
        None => text,
    }
}

/// What a checker's `report` on the cell `recipe` × `fault` shows: its
/// verdicts, its headline and, if violated, the headline's shortest trace
/// (`mermaid` draws it). `scenario` is the cell's file as the report
/// names it, `text` the file's contents.
pub struct Judged<'a> {
    pub recipe: &'a str,
    pub fault: &'a str,
    pub scenario: String,
    pub text: String,
    pub out: &'a str,
    pub clients: u8,
    pub acquisitions: u8,
    /// The states without the file's faults (none without a budget).
    pub unfaulted: Option<usize>,
}

/// The cell, from the checker's report.
pub fn judged(j: Judged, report: &Report, mermaid: &dyn Fn(&Trace) -> String) -> CellResult {
    let command = format!("cargo run --release -- check {}/{}", j.out, j.scenario);
    let page = format!("traces/{}.md", cell_id(j.recipe, j.fault));
    let mut r = checked(
        report,
        (j.clients, j.acquisitions),
        j.unfaulted,
        command,
        page,
        mermaid,
    );
    r.recipe = j.recipe.into();
    r.fault = j.fault.into();
    r.scenario = j.scenario;
    r.scenario_text = j.text;
    r
}

/// Runs the cell `recipe` × `fault` whose scenario file is `text`:
/// `check` loads the file as `locksmith check` does and explores it,
/// returning the report, the clients and rounds, and how its traces are
/// drawn. `out` is the report folder as the commands name it.
pub fn run_cell(
    recipe: &str,
    fault: &str,
    out: &str,
    text: String,
    check: impl FnOnce(&Path, &str) -> Result<Checked, String>,
) -> Result<CellResult, String> {
    let started = Instant::now();
    let scenario = format!("scenarios/{}.toml", cell_id(recipe, fault));
    let path = format!("{out}/{scenario}");
    let c = check(Path::new(&path), &text)?;
    let j = Judged {
        recipe,
        fault,
        scenario,
        text,
        out,
        clients: c.clients,
        acquisitions: c.acquisitions,
        unfaulted: c.unfaulted,
    };
    let mut r = judged(j, &c.report, &*c.mermaid);
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
}

/// A cell's scenario, explored by its backend's checker.
pub struct Checked {
    pub report: Report,
    pub clients: u8,
    pub acquisitions: u8,
    /// The states of the same file with its fault budget zeroed; none if
    /// it has no budget (see [`super::cell::Source::Check`]).
    pub unfaulted: Option<usize>,
    /// Draws one of its traces as a Mermaid sequence diagram.
    pub mermaid: Box<dyn Fn(&Trace) -> String>,
}

/// Breaks the checker's run when the user presses Ctrl-C.
pub fn interruptible(_: locksmith_model::engine::Progress) -> std::ops::ControlFlow<()> {
    if crate::interrupt::requested() {
        std::ops::ControlFlow::Break(())
    } else {
        std::ops::ControlFlow::Continue(())
    }
}
