//! ZooKeeper's matrix in `locksmith compare`: its fault classes, each
//! judged by the checker or the simulator ([`faults`]), its recipes' sizes
//! and prose ([`recipes`], from `recipes.toml`), one cell's configuration
//! ([`cell_config`]) and run ([`cell`]), what each recipe costs without
//! faults ([`costs`]), its record of cells confirmed on a real server
//! ([`CONFIRMED`]) and its pages ([`pages`]) — as the [`ZOOKEEPER`]
//! backend the report lists first (`crate::backends`).

pub mod cell;
pub mod cell_config;
pub mod costs;
pub mod faults;
pub mod pages;
pub mod recipes;

use crate::matrix::axes::{Fault, Row};
use crate::matrix::backend::Backend;
use crate::matrix::cell::CellResult;
use crate::matrix::confirmed::Committed;
use crate::matrix::costs::CostSeries;

/// ZooKeeper's matrix.
pub static ZOOKEEPER: Backend = Backend {
    name: "ZooKeeper",
    key: "zookeeper",
    rows,
    faults: columns,
    run,
    costs: Some(cost_series),
    never_produced: faults::NEVER_BY_THE_SERVER,
    record: Some(&CONFIRMED),
    pages: &pages::ZkPages,
};

/// Its cells confirmed on a real ZooKeeper, the report's "✔ ZK" marks
/// (`confirmed.toml`, written and checked by `sim/tests/confirm.rs`).
pub static CONFIRMED: Committed = Committed::new(
    include_str!("confirmed.toml"),
    "sim/src/zk/compare/confirmed.toml",
);

/// Every recipe of the catalogue, as `recipes.toml` sizes it.
fn rows() -> Result<Vec<Row>, String> {
    Ok(recipes::all()?
        .iter()
        .map(|r| Row {
            recipe: r.id.name(),
            clients: r.setup.check_clients,
            claim: &r.claim,
            instead: &r.instead,
        })
        .collect())
}

/// Every fault class, in column order.
fn columns() -> Vec<Fault> {
    faults::FAULTS
        .iter()
        .map(|f| Fault {
            id: f.id,
            label: f.label,
            about: f.about,
        })
        .collect()
}

/// The row `recipe`, or why there is none.
fn row(recipe: &str) -> Result<&'static recipes::RecipeRow, String> {
    recipes::find(recipe).ok_or_else(|| format!("no ZooKeeper recipe `{recipe}`"))
}

/// Runs the cell `recipe` × `fault`.
fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let class = faults::find(fault).ok_or_else(|| format!("no ZooKeeper fault class `{fault}`"))?;
    cell::run(row(recipe)?, class, out)
}

/// Runs `recipe`'s cost series.
fn cost_series(recipe: &str, out: &str) -> Result<CostSeries, String> {
    costs::run(row(recipe)?, out)
}
