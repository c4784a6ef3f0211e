//! What a backend's matrix is, whatever the backend: its names and prose,
//! its rows (recipes) and columns (fault classes), how one cell is judged,
//! and, once judged, its cells. A backend declares one [`Backend`] in its
//! own folder (`crate::redis::compare`, ...); the report
//! (`crate::compare`) runs and draws every one alike.

use super::cell::CellResult;
use serde::Serialize;

/// A backend's matrix: what it is called, what it says, what it runs.
pub struct Backend {
    /// As headings read ("Redis").
    pub name: &'static str,
    /// `compare.json`'s key and the section's anchor (`<key>-locks`).
    pub key: &'static str,
    /// The section's opening paragraph.
    pub intro: &'static str,
    /// The paragraph after the legend: what the properties mean here.
    pub notes: &'static str,
    /// What a trace page says the search went through.
    pub explored: &'static str,
    /// The rows, in order.
    pub rows: fn() -> Vec<Row>,
    /// The columns, in order.
    pub faults: fn() -> Vec<Fault>,
    /// Judges the cell (recipe id, fault id); `out` is the report folder
    /// as the commands name it.
    pub run: fn(&str, &str, &str) -> Result<CellResult, String>,
}

/// One row: a recipe.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub recipe: &'static str,
    /// Clients in every cell of the row.
    pub clients: u8,
    /// Where the recipe comes from and what it claims.
    pub claim: &'static str,
    /// What to use instead (empty: nothing better here).
    pub instead: &'static str,
}

/// Which driver judges a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// The exhaustive checker (`locksmith check`): every interleaving of a
    /// small configuration, shortest traces.
    Check,
    /// The deterministic simulator (`locksmith sim`): real timers, many
    /// seeds; "holds" means no seed violated it.
    Sim,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::Check => "check",
            Driver::Sim => "sim",
        }
    }
}

/// One column: a fault class.
#[derive(Clone, Debug, Serialize)]
pub struct Fault {
    /// As `--faults` and file names spell it.
    pub id: &'static str,
    /// As the column header reads.
    pub label: &'static str,
    /// The legend's sentence: what strikes, when, how often.
    pub about: &'static str,
}

/// A backend's recipes × its fault classes, judged.
pub struct BackendMatrix {
    pub backend: &'static Backend,
    pub recipes: Vec<Row>,
    pub faults: Vec<Fault>,
    /// Row-major, as the ZooKeeper matrix's cells.
    pub cells: Vec<CellResult>,
}

impl BackendMatrix {
    pub fn cell(&self, recipe: usize, fault: usize) -> &CellResult {
        &self.cells[recipe * self.faults.len() + fault]
    }
}

/// The cell's name, as file names and `--json` spell it.
pub fn cell_id(recipe: &str, fault: &str) -> String {
    format!("{recipe}--{fault}")
}
