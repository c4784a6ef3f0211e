//! Scenario files: one TOML file per situation a user wants judged — which
//! recipe, how many clients, which faults — read by every driver
//! (`locksmith check`, `locksmith sim`). Settings only one driver needs live
//! in its own table (`[check]`, `[sim]`) and have defaults.
//!
//! ```toml
//! recipe = "racy-wait"
//! clients = 2
//! acquisitions = 1
//!
//! [faults]                 # budgets per run for the checker
//! waiter_expiries = 0
//! holder_expiries = 0
//! connection_losses = 0
//!
//! [expect]                 # what `cargo test` holds the checker to
//! verdict = "violated"     # holds | violated | incomplete
//! property = "deadlock"    # the property the verdict is about
//! holds = ["mutual exclusion"]
//!
//! [check]
//! max_states = 20000000   # bounds: hitting one gives `incomplete`, naming it
//! max_memory_mb = 4096
//! max_depth = 200
//! clients = 2              # optional: explore fewer clients than [sim] runs
//! ```

use locksmith_model::check::{CheckConfig, FaultBudget, Property, Verdict};
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
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    verdict: String,
    #[serde(default)]
    property: Option<String>,
    #[serde(default)]
    holds: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    #[serde(default = "default_max_states")]
    max_states: usize,
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
}

impl Default for RawCheck {
    fn default() -> Self {
        RawCheck {
            max_states: default_max_states(),
            max_depth: None,
            max_memory_mb: None,
            clients: None,
            acquisitions: None,
        }
    }
}

fn default_max_states() -> usize {
    20_000_000
}

/// What the checker must find for the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub verdict: Verdict,
    pub property: Option<Property>,
    /// Properties that must hold as well.
    pub holds: Vec<Property>,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file name without `.toml`.
    pub name: String,
    pub path: PathBuf,
    pub description: String,
    pub check: CheckConfig,
    pub expect: Option<Expectation>,
    pub sim: crate::sim_settings::SimSettings,
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
        // The span of the line that sets `key` (`key = ...`), for messages
        // about values that parsed but mean nothing.
        let find = |key: &str| -> Option<std::ops::Range<usize>> {
            let mut offset = 0;
            for line in text.split_inclusive('\n') {
                let t = line.trim_start();
                if t.strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
                {
                    let start = offset + (line.len() - t.len());
                    return Some(start..start + key.len());
                }
                offset += line.len();
            }
            text.find(key).map(|i| i..i + key.len())
        };
        let recipe = RecipeId::parse(&raw.recipe).ok_or_else(|| {
            let names: Vec<&str> = RecipeId::ALL.iter().map(|r| r.name()).collect();
            at(
                find("recipe"),
                format!(
                    "unknown recipe `{}`: expected one of {}",
                    raw.recipe,
                    names.join(", ")
                ),
            )
        })?;
        if raw.clients == 0 || raw.clients > 64 {
            return Err(at(
                find("clients"),
                format!("clients = {}: expected 1 to 64", raw.clients),
            ));
        }
        if raw.acquisitions == 0 {
            return Err(at(
                find("acquisitions"),
                "acquisitions = 0: expected at least 1".into(),
            ));
        }
        let property = |s: &str| {
            Property::parse(s).ok_or_else(|| {
                let names: Vec<&str> = Property::ALL.iter().map(|p| p.name()).collect();
                at(
                    find(s),
                    format!(
                        "unknown property `{s}`: expected one of {}",
                        names.join(", ")
                    ),
                )
            })
        };
        let expect = match &raw.expect {
            None => None,
            Some(e) => Some(Expectation {
                verdict: Verdict::parse(&e.verdict).ok_or_else(|| {
                    at(
                        find("verdict"),
                        format!(
                            "unknown verdict `{}`: expected holds, violated or incomplete",
                            e.verdict
                        ),
                    )
                })?,
                property: e.property.as_deref().map(property).transpose()?,
                holds: e
                    .holds
                    .iter()
                    .map(|s| property(s))
                    .collect::<Result<_, _>>()?,
            }),
        };
        if let Some(Expectation {
            verdict: Verdict::Violated,
            property: None,
            ..
        }) = &expect
        {
            return Err(at(
                find("verdict"),
                "verdict = \"violated\" needs `property = ...`".into(),
            ));
        }
        let check_clients = raw.check.clients.unwrap_or(raw.clients);
        if check_clients == 0 {
            return Err(at(
                find("clients"),
                "[check] clients = 0: expected 1 to 8".into(),
            ));
        }
        let check_acquisitions = raw.check.acquisitions.unwrap_or(raw.acquisitions);
        if check_acquisitions == 0 {
            return Err(at(
                find("acquisitions"),
                "[check] acquisitions = 0: expected at least 1".into(),
            ));
        }
        let mut check = CheckConfig::new(recipe, check_clients, check_acquisitions);
        check.faults = FaultBudget {
            waiter_expiries: raw.faults.waiter_expiries,
            holder_expiries: raw.faults.holder_expiries,
            connection_losses: raw.faults.connection_losses,
        };
        check.max_states = raw.check.max_states;
        check.max_depth = raw.check.max_depth.unwrap_or(usize::MAX);
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
            clients: raw.clients,
            acquisitions: raw.acquisitions,
        })
    }
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
