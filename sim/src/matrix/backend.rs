//! What a backend's matrix is, whatever the backend: its names, its rows
//! (recipes) and columns (fault classes), how one cell is judged, what
//! else it measures and how the report draws it ([`Pages`]) — and, once
//! judged, its cells ([`BackendMatrix`]). A backend declares one
//! [`Backend`] in its own folder (`crate::zk::compare`,
//! `crate::redis::compare`, ...); `crate::backends::MATRICES` lists them
//! and the report (`crate::compare`) runs and draws every one alike. The
//! three name each other, so they share this file.
//!
//! The report writes each page's frame — the answer, the table of
//! contents, the files — and asks each backend's [`Pages`] for the rest,
//! in `MATRICES`' order. The command backends share one drawing
//! (`super::command_pages`); ZooKeeper's, with its simulator columns and
//! cost charts, is its own (`crate::zk::compare::pages`).

use super::axes::{Fault, Row};
use super::cell::CellResult;
use super::confirmed::Committed;
use super::costs::CostSeries;

/// A backend's matrix: what it is called, what it runs, how it is drawn.
pub struct Backend {
    /// As headings read ("Redis").
    pub name: &'static str,
    /// `compare.json`'s key and the section's anchor (`<key>-locks`).
    pub key: &'static str,
    /// The rows, in order (an error: the backend's registry is broken).
    pub rows: fn() -> Result<Vec<Row>, String>,
    /// The columns, in order.
    pub faults: fn() -> Vec<Fault>,
    /// Judges the cell (recipe id, fault id); `out` is the report folder
    /// as the commands name it.
    pub run: fn(&str, &str, &str) -> Result<CellResult, String>,
    /// What a row costs without faults, if the backend measures it: a
    /// series beside the row's cells.
    pub costs: Option<RunCosts>,
    /// Columns of faults the backend's server never produces (shown to say
    /// which recipes rely on what they break): the answer leaves them out.
    pub never_produced: &'static [&'static str],
    /// The committed record of its cells confirmed on a real server, if it
    /// keeps one.
    pub record: Option<&'static Committed>,
    /// How the report draws its matrix.
    pub pages: &'static dyn Pages,
}

/// Runs a row's cost series (recipe id, `out` the report folder as the
/// commands name it).
pub type RunCosts = fn(&str, &str) -> Result<CostSeries, String>;

/// A backend's recipes × its fault classes, judged, with its rows' cost
/// series (if it measures them).
pub struct BackendMatrix {
    pub backend: &'static Backend,
    pub recipes: Vec<Row>,
    pub faults: Vec<Fault>,
    /// Row-major: recipe by recipe, fault by fault.
    pub cells: Vec<CellResult>,
    /// Per row, in the rows' order.
    pub costs: Vec<CostSeries>,
}

impl BackendMatrix {
    pub fn cell(&self, recipe: usize, fault: usize) -> &CellResult {
        &self.cells[recipe * self.faults.len() + fault]
    }
}

/// A backend's part of each page of the report.
pub trait Pages: Sync {
    /// Its counts in one sentence (`… fault classes = N cells: …`).
    fn summary(&self, m: &BackendMatrix) -> String;

    /// Its part of `reports/README.md`.
    fn markdown(&self, o: &mut String, m: &BackendMatrix);

    /// The page of one of its cells' shortest trace (`None`: no trace).
    fn trace_page(&self, m: &BackendMatrix, c: &CellResult) -> Option<String>;

    /// Its links in `index.html`'s table of contents: to its section (if
    /// drawn), and to its further parts, which the table lists after
    /// every backend's section.
    fn contents(&self, m: &BackendMatrix) -> (Option<String>, Vec<String>);

    /// Its part of `index.html`; `charts` are the cost charts' SVGs.
    fn html(&self, o: &mut String, m: &BackendMatrix, charts: &[String]);

    /// Its part of `compare.json`, put into the top-level object.
    fn json(&self, m: &BackendMatrix, top: &mut serde_json::Map<String, serde_json::Value>);

    /// How wide its recipe column is in the terminal.
    fn terminal_width(&self, m: &BackendMatrix) -> usize {
        m.recipes.iter().map(|r| r.recipe.len()).max().unwrap_or(0) + 1
    }
}
