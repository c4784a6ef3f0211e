//! One cell of the matrix: a recipe's comparison configuration under one
//! fault class, written as a scenario file and judged by loading that very
//! file the way `locksmith check` / `locksmith sim` load it — so the
//! command printed beside the cell reproduces it.

pub use super::cell_config::CellConfig;
use super::faults::{Driver, FaultClass};
use super::recipes::RecipeRow;
use crate::simulate::sweep::SweepOptions;
use crate::zk::scenario::Scenario;
use crate::zk::sim::sweep::sweep;
use crate::zk::sim::{run_seed, SimConfig};
use crate::zk::sim_settings::{SimSettings, Target, TargetName};
use locksmith_model::engine::harness::{Property, Severity, Verdict, Writes};
use locksmith_model::engine::Trace;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{zk::check::check_with_progress, zk::check::FaultBudget, zk::check::Report};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The cell's name, as file names and `--json` spell it.
pub fn cell_id(recipe: RecipeId, fault: &FaultClass) -> String {
    format!("{}--{}", recipe.name(), fault.id)
}

impl CellConfig {
    /// The recipe's configuration for `fault`'s driver, changed by `fault`.
    pub fn new(row: &RecipeRow, fault: &FaultClass) -> CellConfig {
        let s = &row.setup_for(fault.id);
        let (clients, acquisitions) = match fault.driver {
            Driver::Check => (s.check_clients, s.check_acquisitions),
            Driver::Sim => (s.sim_clients, s.sim_acquisitions),
        };
        let mut c = CellConfig {
            recipe: row.id,
            clients,
            acquisitions,
            faults: FaultBudget::default(),
            sim: SimSettings {
                seeds: s.seeds,
                ..SimSettings::default()
            },
            max_states: s.max_states,
            abstract_sequences: s.abstract_sequences,
            writes: row.id.unfenced_writes(),
        };
        (fault.apply)(&mut c);
        c
    }

    /// The scenario file: only what differs from the defaults, so a reader
    /// sees what the fault class changed.
    pub fn to_toml(&self, fault: &FaultClass) -> String {
        let mut out = format!(
            "# {} × {}: a cell of `locksmith compare`, generated; do not edit\n\
             # (regenerate with `cargo run --release -- compare`).\n\
             description = {}\nrecipe = \"{}\"\nclients = {}\nacquisitions = {}\n",
            self.recipe.name(),
            fault.label,
            toml_string(fault.about),
            self.recipe.name(),
            self.clients,
            self.acquisitions
        );
        match fault.driver {
            Driver::Check => {
                match self.writes {
                    // Plain writes follow from the recipe.
                    Writes::Off | Writes::Plain => {}
                    Writes::Fenced => out.push_str("fencing = true\n"),
                    Writes::Guarded => out.push_str("guarded = true\n"),
                }
                let budgets = self.faults.by_key();
                if budgets.iter().any(|(_, n)| *n > 0) {
                    out.push_str("\n[faults]\n");
                    for (k, n) in budgets.iter().filter(|(_, n)| *n > 0) {
                        out.push_str(&format!("{k} = {n}\n"));
                    }
                }
                out.push_str(&format!("\n[check]\nmax_states = {}\n", self.max_states));
                if self.abstract_sequences {
                    out.push_str("abstract_sequences = true\n");
                }
            }
            Driver::Sim => {
                out.push('\n');
                out.push_str(&sim_table(&self.sim));
            }
        }
        out
    }
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `[sim]` with the keys that differ from [`SimSettings::default`].
fn sim_table(s: &SimSettings) -> String {
    let (Ok(toml::Value::Table(mine)), Ok(toml::Value::Table(def))) = (
        toml::Value::try_from(s),
        toml::Value::try_from(SimSettings::default()),
    ) else {
        return String::from("[sim]\n");
    };
    // The seeds always: they say how much the simulator's "holds" is worth.
    let diff: toml::Table = mine
        .into_iter()
        .filter(|(k, v)| k == "seeds" || def.get(k) != Some(v))
        .collect();
    let mut top = toml::Table::new();
    top.insert("sim".into(), toml::Value::Table(diff));
    toml::to_string(&top).unwrap_or_else(|_| String::from("[sim]\n"))
}

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
    /// confirm` (from the committed record, [`super::confirmed`]).
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
pub(super) fn judge_headline(r: &mut CellResult, protects: bool) -> Option<Property> {
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

/// Runs the cell `row` × `fault`; `out` is the report folder as the
/// commands should name it (e.g. `reports`).
pub fn run(row: &RecipeRow, fault: &FaultClass, out: &str) -> Result<CellResult, String> {
    let started = Instant::now();
    let id = cell_id(row.id, fault);
    let cfg = CellConfig::new(row, fault);
    let text = cfg.to_toml(fault);
    let scenario = format!("scenarios/{id}.toml");
    let path = format!("{out}/{scenario}");
    let sc = Scenario::parse(Path::new(&path), &text).map_err(|e| e.to_string())?;
    let page = format!("traces/{id}.md");
    let mut r = match fault.driver {
        Driver::Check => run_check(&sc, &path, page),
        Driver::Sim => run_sim(&sc, &path, page),
    };
    if fault.driver == Driver::Check {
        r.confirmed = r
            .trace
            .as_ref()
            .and_then(|t| super::confirmed::mark(&id, &t.fingerprint));
    }
    r.recipe = row.id.name().into();
    r.fault = fault.id.into();
    r.scenario = scenario;
    r.scenario_text = text;
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
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
pub(super) fn never_struck(r: &mut CellResult) -> Option<Property> {
    r.verdict = Verdict::NotApplicable;
    r.property = None;
    r.severity = None;
    r.belief = None;
    None
}

pub(super) fn blank(source: Source, command: String) -> CellResult {
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

fn run_check(sc: &Scenario, path: &str, page: String) -> CellResult {
    // Ctrl-C stops a long cell too; the interrupted matrix is not written.
    let report = check_with_progress(&sc.check, &mut |_| {
        if crate::interrupt::requested() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    let command = format!("cargo run --release -- check {path}");
    let c = &sc.check;
    let unfaulted = (c.faults != FaultBudget::default()).then(|| {
        let mut none = c.clone();
        none.faults = FaultBudget::default();
        locksmith_model::zk::check::check(&none).states
    });
    checked(
        &report,
        (c.clients, c.acquisitions),
        unfaulted,
        command,
        page,
        &|t| t.mermaid(c.clients),
        &|t| super::confirmed::of_trace(&t.steps),
    )
}

/// The cell a checker's `report` makes: its verdicts, its headline and,
/// if violated, the headline's shortest trace (on `page`, drawn by
/// `mermaid`, with its `fingerprint`). `size` is (clients, rounds);
/// `unfaulted` the states of the same file with its fault budget zeroed
/// (none if it has no budget).
pub(super) fn checked(
    report: &Report,
    size: (u8, u8),
    unfaulted: Option<usize>,
    command: String,
    page: String,
    mermaid: &dyn Fn(&Trace) -> String,
    fingerprint: &dyn Fn(&Trace) -> String,
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
                fingerprint: fingerprint(t),
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

/// How many failing seeds are replayed with a trace to find the shortest.
const TRACE_CANDIDATES: usize = 20;

/// The most entries of a simulator trace a report shows: its last ones.
/// (Pollers under a long pause write tens of thousands.)
const SHOWN_ENTRIES: usize = 300;

fn run_sim(sc: &Scenario, path: &str, page: String) -> CellResult {
    let cfg = SimConfig::of(sc);
    let opts = SweepOptions::every_seed(sc.sim.seeds);
    let sweep = sweep(&cfg, &opts, &|| {});
    let command = format!("cargo run --release -- sim {path} --keep-going");
    let holder = Target::Named(TargetName::Holder);
    let at_the_holder = cfg.settings.schedule.iter().any(|f| f.target == holder);
    let mut r = blank(
        Source::Sim {
            clients: cfg.clients as u8,
            acquisitions: cfg.acquisitions,
            seeds: sweep.seeds_run,
            failing_seeds: sweep.failures.iter().map(|f| f.seed).collect(),
            struck_seeds: at_the_holder.then(|| sweep.totals.struck_holder_runs()),
        },
        command,
    );
    r.properties = Property::ALL
        .into_iter()
        .map(|p| PropertyVerdict {
            property: p,
            verdict: if !cfg.judges(p) {
                Verdict::NotApplicable
            } else if sweep.failures.iter().any(|f| f.violations.contains(p)) {
                Verdict::Violated
            } else if sweep.seeds_run < opts.count {
                Verdict::Incomplete
            } else {
                Verdict::Holds
            },
        })
        .collect();
    // A fenced holder, or one whose listener guards its writes, protects
    // the resource: the resource's verdict is the cell's.
    let protects = cfg.settings.fencing || cfg.recipe.unfenced_writes().is_on();
    let mut shown = judge_headline(&mut r, protects);
    if at_the_holder && sweep.totals.struck_holder_runs() == 0 {
        shown = never_struck(&mut r);
    }
    if let Some(p) = shown {
        // The failing seed with the fewest trace entries (lowest on a tie):
        // an untraced run counts the entries it would have made, so only
        // the chosen seed runs again with its trace.
        let best = sweep
            .failures
            .iter()
            .filter(|f| f.violations.contains(p))
            .take(TRACE_CANDIDATES)
            .min_by_key(|f| (f.trace.count, f.seed))
            .map(|f| run_seed(&cfg, f.seed, true));
        if let Some(mut run) = best {
            let command = format!("cargo run --release -- replay {path} --seed {}", run.seed);
            let steps = run.trace.entries.len();
            // A page shows the end of a long trace, where the violation is.
            let cut = steps.saturating_sub(SHOWN_ENTRIES);
            run.trace.entries.drain(..cut);
            let mut text = run.trace.text();
            if cut > 0 {
                text = format!(
                    "({cut} earlier entries left out here; `{command}` prints the whole trace)\n{text}"
                );
            }
            r.trace = Some(CellTrace {
                property: p,
                steps,
                seed: Some(run.seed),
                why: run.violations.get(p).map(str::to_string),
                page,
                command,
                text,
                mermaid: run.trace.mermaid(cfg.clients),
                fingerprint: String::new(),
            });
        }
    }
    r
}
