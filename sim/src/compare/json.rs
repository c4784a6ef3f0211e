//! `reports/compare.json`, and what `--json` prints: the matrix for
//! machines, with the same names as every other `--json` (property names,
//! verdicts `holds` / `violated` / `incomplete` / `n/a`).

use super::Matrix;
use crate::matrix::backend::Driver;
use crate::matrix::cell::{CellResult, Counts};
use crate::zk::compare::costs::CostPoint;
use crate::zk::compare::faults::{NOT_MODELLED, NOT_MODELLED_ISSUE};
use crate::zk::compare::recipes::{Setup, Sizes};
use locksmith_model::engine::harness::Property;
use serde::Serialize;

#[derive(Serialize)]
struct Fault {
    id: &'static str,
    label: &'static str,
    driver: Driver,
    about: &'static str,
}

#[derive(Serialize)]
struct NotModelled {
    fault: &'static str,
    about: &'static str,
    status: String,
}

#[derive(Serialize)]
struct Recipe<'a> {
    id: &'static str,
    origin: &'static str,
    setup: &'a Setup,
    /// Sizes that differ under some fault classes.
    per_fault: &'a std::collections::BTreeMap<String, Sizes>,
}

#[derive(Serialize)]
struct Json<'a> {
    regenerate: &'static str,
    /// The headline order.
    properties: Vec<&'static str>,
    faults: Vec<Fault>,
    not_modelled: Vec<NotModelled>,
    recipes: Vec<Recipe<'a>>,
    summary: Counts,
    cells: &'a [CellResult],
    costs: Vec<&'a CostPoint>,
    /// The other backends' matrices, each under its key (`redis`,
    /// `mysql`): its own fault classes, recipes and cells.
    #[serde(flatten)]
    backends: std::collections::BTreeMap<&'static str, serde_json::Value>,
}

/// The matrix as one JSON value.
pub fn value(m: &Matrix) -> serde_json::Value {
    let j = Json {
        regenerate: "cargo run --release -- compare",
        properties: Property::ALL.iter().map(|p| p.name()).collect(),
        faults: m
            .faults
            .iter()
            .map(|f| Fault {
                id: f.id,
                label: f.label,
                driver: f.driver,
                about: f.about,
            })
            .collect(),
        not_modelled: NOT_MODELLED
            .iter()
            .map(|(fault, about)| NotModelled {
                fault,
                about,
                status: format!("not modelled yet ({NOT_MODELLED_ISSUE})"),
            })
            .collect(),
        recipes: m
            .recipes
            .iter()
            .map(|r| Recipe {
                id: r.id.name(),
                origin: r.id.origin(),
                setup: &r.setup,
                per_fault: &r.per_fault,
            })
            .collect(),
        summary: Counts::of(&m.cells),
        cells: &m.cells,
        costs: m.costs.iter().flat_map(|(_, ps)| ps.iter()).collect(),
        backends: m
            .backends
            .iter()
            .map(|b| (b.backend.key, super::backend_pages::json(b)))
            .collect(),
    };
    serde_json::to_value(&j).unwrap_or(serde_json::Value::Null)
}

/// `compare.json`'s text: pretty, with a final newline.
pub fn text(m: &Matrix) -> String {
    let mut s = serde_json::to_string_pretty(&value(m)).unwrap_or_default();
    s.push('\n');
    s
}
