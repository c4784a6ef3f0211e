//! Each recipe's comparison configuration and the prose of its paragraph,
//! read from `recipes.toml` beside this file (compiled in). Every recipe of
//! the catalogue ([`RecipeId::ALL`]) gets a row of the matrix: one missing
//! from the file runs with its `[default]` table.

use locksmith_model::recipe::RecipeId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    #[serde(default)]
    claim: String,
    #[serde(default)]
    instead: String,
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
}

/// Every recipe of the catalogue, in catalogue order. Fails only on a
/// broken `recipes.toml` (a build-time input) or one naming a recipe the
/// catalogue does not have.
pub fn rows() -> Result<Vec<RecipeRow>, String> {
    let f: File = toml::from_str(TEXT).map_err(|e| format!("compare/recipes.toml: {e}"))?;
    if let Some(unknown) = f.recipe.keys().find(|k| RecipeId::parse(k).is_none()) {
        return Err(format!(
            "compare/recipes.toml: [recipe.{unknown}] is not in the catalogue"
        ));
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
                },
                claim: p.map(|p| p.claim.clone()).unwrap_or_default(),
                instead: p.map(|p| p.instead.clone()).unwrap_or_default(),
            }
        })
        .collect())
}
