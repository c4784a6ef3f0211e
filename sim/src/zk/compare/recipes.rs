//! Each recipe's comparison configuration and the prose of its paragraph,
//! read from `recipes.toml` beside this file (compiled in). Every recipe of
//! the catalogue ([`RecipeId::ALL`]) gets a row of the matrix: one missing
//! from the file runs with its `[default]` table.

use locksmith_model::zk::recipes::RecipeId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Acquisitions per client in a cost run, unless a recipe's row says
/// fewer.
pub const ACQUISITIONS: u8 = 10;

const TEXT: &str = include_str!("recipes.toml");

/// The file as written: `[default]` and one optional `[recipe.<id>]` each.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default: Setup,
    #[serde(default)]
    recipe: BTreeMap<String, Partial>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Partial {
    check_clients: Option<u8>,
    check_acquisitions: Option<u8>,
    sim_clients: Option<u8>,
    sim_acquisitions: Option<u8>,
    seeds: Option<u64>,
    max_states: Option<usize>,
    /// The checker's sequence-suffix abstraction (`[check]
    /// abstract_sequences`): a polling recipe's cells need it to finish.
    abstract_sequences: Option<bool>,
    /// Acquisitions per client in the cost runs, if not
    /// [`ACQUISITIONS`]: 1 for a recipe
    /// whose release ends its client (`close()`).
    cost_acquisitions: Option<u8>,
    #[serde(default)]
    claim: String,
    #[serde(default)]
    instead: String,
    /// Per fault class (by id), sizes that differ from the recipe's.
    #[serde(default)]
    faults: BTreeMap<String, Sizes>,
}

/// Sizes a recipe sets for one fault class only (so that, say, a costly
/// recipe's faulted checks stay small while its fault-free one shows a herd).
#[derive(Clone, Debug, Deserialize, Serialize, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Sizes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_clients: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_acquisitions: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_clients: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_acquisitions: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u64>,
}

/// How big a recipe's cells are.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub check_clients: u8,
    pub check_acquisitions: u8,
    pub sim_clients: u8,
    pub sim_acquisitions: u8,
    pub seeds: u64,
    pub max_states: usize,
    /// The checker's sequence-suffix abstraction on (off unless a recipe
    /// asks for it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abstract_sequences: bool,
}

/// A row of the matrix: the recipe, its configuration, its prose.
#[derive(Clone, Debug)]
pub struct RecipeRow {
    pub id: RecipeId,
    pub setup: Setup,
    /// What the recipe claims (empty: no text yet).
    pub claim: String,
    /// What to use instead.
    pub instead: String,
    /// Per fault class id, sizes that differ from [`setup`](Self::setup).
    pub per_fault: BTreeMap<String, Sizes>,
    /// Acquisitions per client in the cost runs.
    pub cost_acquisitions: u8,
}

impl RecipeRow {
    /// The recipe's configuration under the fault class `fault`.
    pub fn setup_for(&self, fault: &str) -> Setup {
        let mut s = self.setup.clone();
        if let Some(o) = self.per_fault.get(fault) {
            s.check_clients = o.check_clients.unwrap_or(s.check_clients);
            s.check_acquisitions = o.check_acquisitions.unwrap_or(s.check_acquisitions);
            s.sim_clients = o.sim_clients.unwrap_or(s.sim_clients);
            s.sim_acquisitions = o.sim_acquisitions.unwrap_or(s.sim_acquisitions);
            s.seeds = o.seeds.unwrap_or(s.seeds);
        }
        s
    }
}

/// Every recipe of the catalogue, in catalogue order. Fails only on a
/// broken `recipes.toml` (a build-time input) or one naming a recipe the
/// catalogue does not have.
pub fn rows() -> Result<Vec<RecipeRow>, String> {
    let f: File = toml::from_str(TEXT).map_err(|e| format!("zk/compare/recipes.toml: {e}"))?;
    if let Some(unknown) = f.recipe.keys().find(|k| RecipeId::parse(k).is_none()) {
        return Err(format!(
            "zk/compare/recipes.toml: [recipe.{unknown}] is not in the catalogue"
        ));
    }
    for (id, p) in &f.recipe {
        if let Some(fault) = p.faults.keys().find(|k| super::faults::find(k).is_none()) {
            return Err(format!(
                "zk/compare/recipes.toml: [recipe.{id}.faults.{fault}] is not a fault class"
            ));
        }
    }
    Ok(RecipeId::ALL
        .iter()
        .map(|&id| {
            let p = f.recipe.get(id.name());
            let d = &f.default;
            let pick = |v: Option<u8>, def: u8| v.unwrap_or(def);
            RecipeRow {
                id,
                setup: Setup {
                    check_clients: pick(p.and_then(|p| p.check_clients), d.check_clients),
                    check_acquisitions: pick(
                        p.and_then(|p| p.check_acquisitions),
                        d.check_acquisitions,
                    ),
                    sim_clients: pick(p.and_then(|p| p.sim_clients), d.sim_clients),
                    sim_acquisitions: pick(p.and_then(|p| p.sim_acquisitions), d.sim_acquisitions),
                    seeds: p.and_then(|p| p.seeds).unwrap_or(d.seeds),
                    max_states: p.and_then(|p| p.max_states).unwrap_or(d.max_states),
                    abstract_sequences: p
                        .and_then(|p| p.abstract_sequences)
                        .unwrap_or(d.abstract_sequences),
                },
                claim: p.map(|p| p.claim.clone()).unwrap_or_default(),
                instead: p.map(|p| p.instead.clone()).unwrap_or_default(),
                per_fault: p.map(|p| p.faults.clone()).unwrap_or_default(),
                cost_acquisitions: p.and_then(|p| p.cost_acquisitions).unwrap_or(ACQUISITIONS),
            }
        })
        .collect())
}

/// Every row, read once (see [`rows`]).
pub fn all() -> Result<&'static [RecipeRow], String> {
    static ROWS: OnceLock<Result<Vec<RecipeRow>, String>> = OnceLock::new();
    ROWS.get_or_init(rows).as_deref().map_err(Clone::clone)
}

/// The row of the recipe spelled `name`.
pub fn find(name: &str) -> Option<&'static RecipeRow> {
    all().ok()?.iter().find(|r| r.id.name() == name)
}
