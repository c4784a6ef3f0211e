//! A judged cell, as every backend's matrix holds it: its headline
//! verdict and property, every property's verdict, where the verdict came
//! from (the checker or the simulator), its shortest trace, and how many
//! cells read each verdict. A backend's registry makes its cells; the
//! report (`crate::compare`) draws them.

use locksmith_model::engine::harness::{Property, Severity, Verdict};
use serde::Serialize;

/// Where a cell's verdict came from.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "driver", rename_all = "lowercase")]
pub enum Source {
    /// The exhaustive checker.
    Check {
        clients: u8,
        acquisitions: u8,
        states: usize,
        transitions: usize,
        depth: usize,
        /// The bound that stopped the run, if one did (then incomplete).
        bound: Option<String>,
        /// Whether the fault budget was spent on at least one explored
        /// path: the exploration reached more states than the same file
        /// with its budget zeroed (every fault transition takes one from
        /// the budget, which is part of the state); none without a budget.
        fault_struck: Option<bool>,
    },
    /// The simulator, seeds `0 .. seeds`, every one run.
    Sim {
        clients: u8,
        acquisitions: u8,
        seeds: u64,
        failing_seeds: Vec<u64>,
        /// For a fault aimed at the holder: in how many seeds a session
        /// expired while its client was inside its critical section (the
        /// fault struck where the column says); none for other columns.
        struck_seeds: Option<u64>,
    },
}

/// The shortest trace of a cell's headline violation.
#[derive(Clone, Debug, Serialize)]
pub struct CellTrace {
    /// The property it shows violated: the headline's, or mutual exclusion
    /// by belief where the resource was safe.
    #[serde(serialize_with = "one_property_name")]
    pub property: Property,
    /// Steps (checker) or trace entries (simulator).
    pub steps: usize,
    /// The simulator's seed (the failing seed with the shortest trace).
    pub seed: Option<u64>,
    /// What the run said of the violation (simulator).
    pub why: Option<String>,
    /// The page, relative to the report folder.
    pub page: String,
    /// The command that prints this trace.
    pub command: String,
    #[serde(skip)]
    pub text: String,
    #[serde(skip)]
    pub mermaid: String,
    /// The checker trace's fingerprint ([`super::confirmed::of_trace`]).
    #[serde(skip)]
    pub fingerprint: String,
}

impl CellTrace {
    /// The trace's own HTML page, beside its Markdown one.
    pub fn html_page(&self) -> String {
        let stem = self.page.strip_suffix(".md").unwrap_or(&self.page);
        format!("{stem}.html")
    }

    /// The trace's sequence diagram, beside its pages.
    pub fn svg_page(&self) -> String {
        let stem = self.page.strip_suffix(".md").unwrap_or(&self.page);
        format!("{stem}.svg")
    }
}

/// A judged cell.
#[derive(Clone, Debug, Serialize)]
pub struct CellResult {
    pub recipe: String,
    pub fault: String,
    /// The headline verdict: violated if any property is, else incomplete
    /// if any is, else holds.
    pub verdict: Verdict,
    /// The first violated (or incomplete) property in `Property::ALL` order
    /// (worst first); where the cell protects its resource (fencing,
    /// guarded writes), mutual exclusion by belief is left to `belief`.
    #[serde(serialize_with = "property_name")]
    pub property: Option<Property>,
    /// How bad the headline violation is (none unless violated).
    pub severity: Option<Severity>,
    /// Where the cell protects its resource: what the clients believed
    /// (the cell's second line) — the first violated property of safety
    /// by belief (mutual exclusion, unlock by non-owner), else how they
    /// held; none elsewhere.
    pub belief: Option<PropertyVerdict>,
    /// Every property's verdict, in `Property::ALL` order.
    pub properties: Vec<PropertyVerdict>,
    pub source: Source,
    pub trace: Option<CellTrace>,
    /// The server the cell's checker trace was confirmed on by `locksmith
    /// confirm` (from its backend's committed record: [`super::confirmed`]).
    pub confirmed: Option<String>,
    /// The scenario file, relative to the report folder.
    pub scenario: String,
    /// The command that reproduces the cell (from the repository's top).
    pub command: String,
    #[serde(skip)]
    pub scenario_text: String,
    #[serde(skip)]
    pub elapsed_ms: u128,
}

#[derive(Clone, Debug, Serialize)]
pub struct PropertyVerdict {
    #[serde(serialize_with = "one_property_name")]
    pub property: Property,
    pub verdict: Verdict,
}

/// Properties go out by their one name (`mutual exclusion`), as in every
/// other `--json`.
fn property_name<S: serde::Serializer>(p: &Option<Property>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_some(&p.map(|p| p.name()))
}

fn one_property_name<S: serde::Serializer>(p: &Property, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}

/// Sets the cell's headline from its per-property verdicts, as the
/// checker's report forms it — except that a cell which `protects` its
/// resource (fenced or guarded writes) headlines what the resource saw and
/// reports mutual exclusion by belief as its second line: two clients that
/// believe they hold the lock are what fencing exists to make harmless.
/// Returns the property whose trace the cell shows: the headline's, or the
/// belief's when only the belief broke.
pub fn judge_headline(r: &mut CellResult, protects: bool) -> Option<Property> {
    let by_belief =
        |p: &&PropertyVerdict| protects && p.property.severity() == Severity::SafetyByBelief;
    let first = |v: Verdict| {
        r.properties
            .iter()
            .filter(|p| !by_belief(p))
            .find(|p| p.verdict == v)
            .map(|p| p.property)
    };
    (r.verdict, r.property) = match (first(Verdict::Violated), first(Verdict::Incomplete)) {
        (Some(p), _) => (Verdict::Violated, Some(p)),
        (None, Some(p)) => (Verdict::Incomplete, Some(p)),
        (None, None) => (Verdict::Holds, None),
    };
    r.severity = r
        .property
        .filter(|_| r.verdict == Verdict::Violated)
        .map(|p| p.severity());
    let beliefs: Vec<&PropertyVerdict> = r
        .properties
        .iter()
        .filter(by_belief)
        .filter(|p| p.verdict != Verdict::NotApplicable)
        .collect();
    let of = |v: Verdict| beliefs.iter().find(|p| p.verdict == v).copied();
    r.belief = of(Verdict::Violated)
        .or(of(Verdict::Incomplete))
        .or(beliefs.first().copied())
        .cloned();
    match (r.verdict, &r.belief) {
        (Verdict::Violated, _) => r.property,
        (_, Some(b)) if b.verdict == Verdict::Violated => Some(b.property),
        _ => None,
    }
}

/// How many cells read each headline verdict: what every summary line and
/// `compare.json`'s `summary` say.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Counts {
    pub cells: usize,
    pub holds: usize,
    pub violated: usize,
    pub incomplete: usize,
    /// The fault never struck where its column says.
    #[serde(rename = "n/a")]
    pub not_applicable: usize,
}

impl Counts {
    pub fn of(cells: &[CellResult]) -> Counts {
        let n = |v| cells.iter().filter(|c| c.verdict == v).count();
        Counts {
            cells: cells.len(),
            holds: n(Verdict::Holds),
            violated: n(Verdict::Violated),
            incomplete: n(Verdict::Incomplete),
            not_applicable: n(Verdict::NotApplicable),
        }
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} violated, {} hold, {} incomplete, {} n/a",
            self.violated, self.holds, self.incomplete, self.not_applicable
        )
    }
}

/// A cell whose fault never struck where its column says shows nothing of
/// that column — a verdict it reached is the no-fault column's — so it is
/// n/a, never "holds", and carries no trace. Returns the (no) property to
/// trace.
pub fn never_struck(r: &mut CellResult) -> Option<Property> {
    r.verdict = Verdict::NotApplicable;
    r.property = None;
    r.severity = None;
    r.belief = None;
    None
}

/// A cell of `source`, reproduced by `command`, before its verdicts and
/// names are set.
pub fn blank(source: Source, command: String) -> CellResult {
    CellResult {
        recipe: String::new(),
        fault: String::new(),
        verdict: Verdict::Holds,
        property: None,
        severity: None,
        belief: None,
        properties: Vec::new(),
        source,
        trace: None,
        confirmed: None,
        scenario: String::new(),
        command,
        scenario_text: String::new(),
        elapsed_ms: 0,
    }
}

/// The cell's name, as file names and `--json` spell it.
pub fn cell_id(recipe: &str, fault: &str) -> String {
    format!("{recipe}--{fault}")
}
