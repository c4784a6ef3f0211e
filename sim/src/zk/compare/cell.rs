//! One cell of ZooKeeper's matrix: a recipe's comparison configuration
//! under one fault class, written as a scenario file and judged by loading
//! that very file the way `locksmith check` / `locksmith sim` load it — so
//! the command printed beside the cell reproduces it.

pub use super::cell_config::CellConfig;
use super::faults::FaultClass;
use super::recipes::RecipeRow;
use crate::matrix::axes::Driver;
use crate::matrix::cell::{blank, cell_id, judge_headline, never_struck, CellResult};
use crate::matrix::cell::{CellTrace, PropertyVerdict, Source};
use crate::matrix::cell_file::{toml_faults, toml_head};
use crate::matrix::checked::{checked, interruptible};
use crate::simulate::sweep::SweepOptions;
use crate::zk::scenario::Scenario;
use crate::zk::sim::sweep::sweep;
use crate::zk::sim::{run_seed, SimConfig};
use crate::zk::sim_settings::{SimSettings, Target, TargetName};
use locksmith_model::engine::harness::{Property, Verdict, Writes};
use locksmith_model::zk::check::{check, check_with_progress, FaultBudget};
use std::path::Path;
use std::time::Instant;

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
        let size = (self.clients, self.acquisitions);
        let mut out = toml_head(self.recipe.name(), fault.label, fault.about, size);
        match fault.driver {
            Driver::Check => {
                match self.writes {
                    // Plain writes follow from the recipe.
                    Writes::Off | Writes::Plain => {}
                    Writes::Fenced => out.push_str("fencing = true\n"),
                    Writes::Guarded => out.push_str("guarded = true\n"),
                }
                out.push_str(&toml_faults(&self.faults.by_key()));
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

/// Runs the cell `row` × `fault`; `out` is the report folder as the
/// commands should name it (e.g. `reports`).
pub fn run(row: &RecipeRow, fault: &FaultClass, out: &str) -> Result<CellResult, String> {
    let started = Instant::now();
    let id = cell_id(row.id.name(), fault.id);
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
    r.recipe = row.id.name().into();
    r.fault = fault.id.into();
    r.scenario = scenario;
    r.scenario_text = text;
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
}

fn run_check(sc: &Scenario, path: &str, page: String) -> CellResult {
    // Ctrl-C stops a long cell too; the interrupted matrix is not written.
    let report = check_with_progress(&sc.check, &mut interruptible);
    let command = format!("cargo run --release -- check {path}");
    let c = &sc.check;
    let unfaulted = (c.faults != FaultBudget::default()).then(|| {
        let mut none = c.clone();
        none.faults = FaultBudget::default();
        check(&none).states
    });
    checked(
        &report,
        (c.clients, c.acquisitions),
        unfaulted,
        command,
        page,
        &|t| t.mermaid(c.clients),
    )
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
