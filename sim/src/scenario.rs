//! Scenario files: one TOML file per situation a user wants judged — which
//! recipe, how many clients, which faults — read by every driver
//! (`locksmith check`, `locksmith sim`). Settings only one driver needs live
//! in its own table (`[check]`, `[sim]`) and have defaults.
//!
//! ```toml
//! recipe = "racy-wait"
//! clients = 2
//! acquisitions = 1
//! reentries = 0            # lock() again by the holder, per round
//! root = "driver"          # or "recipe": the recipe creates its lock root itself
//!                          # (checker and simulator; `locksmith real` creates it)
//!
//! [faults]                 # budgets per run for the checker
//! waiter_expiries = 0
//! holder_expiries = 0
//! connection_losses = 0
//! disconnects = 0          # a drop with nothing in flight; the reconnect follows
//! expiries = 0             # any live session expires, at any step
//! crashes = 0              # a client process crashes; its session times out later
//! reorders = 0             # UNSAFE: a reply or event overtakes the one before it
//!
//! [expect]                 # what `cargo test` holds the checker to
//! verdict = "violated"     # holds | violated | incomplete
//! property = "deadlock"    # the property the verdict is about
//! holds = ["mutual exclusion"]
//! steps = 33               # the shortest trace's length
//! states = 359             # states explored (exact: the run is exhaustive)
//!
//! [check]
//! max_states = 20000000   # bounds: hitting one gives `incomplete`, naming it
//! max_memory_mb = 4096
//! max_depth = 200
//! clients = 2              # optional: explore fewer clients than [sim] runs
//! abstract_sequences = false # true: states that differ only in sequence
//!                          # suffixes and unread zxids are one (polling recipes)
//! ```
//!
//! `[sim]` (see [`crate::sim_settings`]) and both expectations (see
//! [`crate::expect`]) are validated here, when the file is loaded, so every
//! command rejects a broken file the same way, with its line.

use crate::expect::{Expectation, RawExpect};
use crate::sim_settings;
use locksmith_model::check::{CheckConfig, FaultBudget, MAX_CLIENTS};
use locksmith_model::recipe::RecipeId;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A scenario file that could not be used: which file, where, and what was
/// expected there.
#[derive(Debug)]
pub struct ScenarioError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    recipe: String,
    clients: u8,
    #[serde(default = "one")]
    acquisitions: u8,
    /// The holder calls `lock()` again this many times per round.
    #[serde(default)]
    reentries: u8,
    /// Who creates the lock root: `"driver"` (before the clients start, the
    /// default) or `"recipe"` (its own code, e.g. exists-then-create).
    #[serde(default)]
    root: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    faults: RawFaults,
    #[serde(default)]
    expect: Option<RawExpect>,
    #[serde(default)]
    check: RawCheck,
    #[serde(default)]
    sim: crate::sim_settings::SimSettings,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFaults {
    #[serde(default)]
    waiter_expiries: u8,
    #[serde(default)]
    holder_expiries: u8,
    #[serde(default)]
    connection_losses: u8,
    #[serde(default)]
    disconnects: u8,
    #[serde(default)]
    expiries: u8,
    #[serde(default)]
    crashes: u8,
    #[serde(default)]
    reorders: u8,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    #[serde(default)]
    max_states: Option<usize>,
    #[serde(default)]
    max_depth: Option<usize>,
    #[serde(default)]
    max_memory_mb: Option<usize>,
    /// The checker explores a smaller configuration than the simulator
    /// runs: these override the top-level `clients` / `acquisitions`.
    #[serde(default)]
    clients: Option<u8>,
    #[serde(default)]
    acquisitions: Option<u8>,
    /// States that differ only in sequence suffixes and unread zxids are
    /// one state (the checker's `sequences` abstraction): what makes a
    /// polling recipe finite.
    #[serde(default)]
    abstract_sequences: bool,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file name without `.toml`.
    pub name: String,
    pub path: PathBuf,
    pub description: String,
    pub check: CheckConfig,
    /// What the checker must find (`[expect]`).
    pub expect: Option<Expectation>,
    pub sim: crate::sim_settings::SimSettings,
    /// What the simulator must find (`[sim.expect]`).
    pub sim_expect: Option<Expectation>,
    /// The top-level `clients` and `acquisitions` (before `[check]`
    /// narrows them for the checker); the simulator starts from these.
    pub clients: u8,
    pub acquisitions: u8,
}

impl Scenario {
    pub fn recipe(&self) -> RecipeId {
        self.check.recipe
    }

    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: path.to_path_buf(),
            line: None,
            column: None,
            message: format!("cannot read the scenario file: {e}"),
        })?;
        Scenario::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Scenario, ScenarioError> {
        let at = |span: Option<std::ops::Range<usize>>, message: String| {
            let (line, column) = match span {
                Some(r) => {
                    let before = &text[..r.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().map(|l| l.chars().count() + 1);
                    (Some(line), column)
                }
                None => (None, None),
            };
            ScenarioError {
                file: path.to_path_buf(),
                line,
                column,
                message,
            }
        };
        let raw: Raw = toml::from_str(text).map_err(|e| at(e.span(), e.message().to_string()))?;
        let find = |table: Option<&str>, key: &str| key_span(text, table, key);
        let recipe = RecipeId::parse(&raw.recipe).ok_or_else(|| {
            let names: Vec<&str> = RecipeId::ALL.iter().map(|r| r.name()).collect();
            at(
                find(None, "recipe"),
                format!(
                    "unknown recipe `{}`: expected one of {}",
                    raw.recipe,
                    names.join(", ")
                ),
            )
        })?;
        if raw.clients == 0 {
            return Err(at(
                find(None, "clients"),
                format!("clients = 0: expected 1 to {}", sim_settings::MAX_CLIENTS),
            ));
        }
        if raw.acquisitions == 0 {
            return Err(at(
                find(None, "acquisitions"),
                "acquisitions = 0: expected at least 1".into(),
            ));
        }
        let expectation = |table: &str, e: &RawExpect| {
            Expectation::parse(e).map_err(|(key, why)| at(find(Some(table), &key), why))
        };
        let expect = raw
            .expect
            .as_ref()
            .map(|e| expectation("expect", e))
            .transpose()?;
        let sim_expect = raw
            .sim
            .expect
            .as_ref()
            .map(|e| expectation("sim.expect", e))
            .transpose()?;
        if let Some(e) = &sim_expect {
            let key = if e.steps.is_some() { "steps" } else { "states" };
            if e.steps.is_some() || e.states.is_some() {
                return Err(at(
                    find(Some("sim.expect"), key),
                    format!("{key} pins the checker's exploration: put it in [expect], not [sim.expect]"),
                ));
            }
        }
        raw.sim
            .validate()
            .map_err(|(key, why)| at(find(Some("sim"), &key), why))?;
        let check_clients = raw.check.clients.unwrap_or(raw.clients);
        if check_clients == 0 || check_clients > MAX_CLIENTS {
            let key = if raw.check.clients.is_some() {
                Some("check")
            } else {
                None
            };
            return Err(at(
                find(key, "clients"),
                format!(
                    "the checker explores 1 to {MAX_CLIENTS} clients, this asks for {check_clients} (set `[check] clients` to explore fewer than the simulator runs)"
                ),
            ));
        }
        let check_acquisitions = raw.check.acquisitions.unwrap_or(raw.acquisitions);
        if check_acquisitions == 0 {
            return Err(at(
                find(Some("check"), "acquisitions"),
                "[check] acquisitions = 0: expected at least 1".into(),
            ));
        }
        let mut check = CheckConfig::new(recipe, check_clients, check_acquisitions);
        check.reentries = raw.reentries;
        check.recipe_root = match raw.root.as_deref() {
            None | Some("driver") => false,
            Some("recipe") => true,
            Some(other) => {
                return Err(at(
                    find(None, "root"),
                    format!(
                        "root = \"{other}\": expected \"driver\" (created before the clients start) or \"recipe\" (the recipe's own code creates it)"
                    ),
                ))
            }
        };
        check.faults = FaultBudget {
            waiter_expiries: raw.faults.waiter_expiries,
            holder_expiries: raw.faults.holder_expiries,
            connection_losses: raw.faults.connection_losses,
            disconnects: raw.faults.disconnects,
            expiries: raw.faults.expiries,
            crashes: raw.faults.crashes,
            reorders: raw.faults.reorders,
        };
        if let Some(n) = raw.check.max_states {
            check.max_states = n;
        }
        check.max_depth = raw.check.max_depth.unwrap_or(usize::MAX);
        check.abstract_sequences = raw.check.abstract_sequences;
        if let Some(mb) = raw.check.max_memory_mb {
            check.max_memory = mb.saturating_mul(1 << 20);
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Scenario {
            name,
            path: path.to_path_buf(),
            description: raw.description,
            check,
            expect,
            sim: raw.sim,
            sim_expect,
            clients: raw.clients,
            acquisitions: raw.acquisitions,
        })
    }
}

/// The span of the line that sets `key` (`key = ...`) inside `[table]` (the
/// top level for `None`), for messages about values that parsed but mean
/// nothing. Falls back to the first mention of `key` anywhere.
fn key_span(text: &str, table: Option<&str>, key: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut current: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(header) = t.strip_prefix('[') {
            let name = header.trim_start_matches('[');
            let name = name.split(']').next().unwrap_or("").trim();
            current = Some(name.to_string());
        } else if current.as_deref() == table
            && t.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            let start = offset + (line.len() - t.len());
            return Some(start..start + key.len());
        }
        offset += line.len();
    }
    text.find(key).map(|i| i..i + key.len())
}

/// Every `*.toml` in `dir`, sorted by file name.
pub fn all_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    Ok(out)
}
