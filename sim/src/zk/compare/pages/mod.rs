//! ZooKeeper's matrix in the report's pages — the report's first matrix:
//! its table, legend, costs and recipes open `reports/README.md` ("The
//! matrix") after the answer ([`markdown`]), its section, charts and
//! every cell open `index.html` ([`html`]), and its fault classes, recipes,
//! cells and costs are `compare.json`'s top level ([`json`]). Unlike a
//! command backend's, its columns are judged by the checker or the
//! simulator, and its rows carry sizes and cost series.

mod html;
mod json;
mod markdown;

use super::faults::{self, FaultClass};
use super::recipes::{self, RecipeRow};
use crate::matrix::backend::{BackendMatrix, Pages};
use crate::matrix::cell::{CellResult, Counts};

/// How the report draws ZooKeeper's matrix.
pub struct ZkPages;

impl Pages for ZkPages {
    fn summary(&self, m: &BackendMatrix) -> String {
        format!(
            "{} recipes × {} fault classes = {} cells: {}.",
            m.recipes.len(),
            m.faults.len(),
            m.cells.len(),
            Counts::of(&m.cells)
        )
    }

    fn markdown(&self, o: &mut String, m: &BackendMatrix) {
        if let Some(v) = View::of(m) {
            markdown::section(o, &v, &self.summary(m));
        }
    }

    fn trace_page(&self, m: &BackendMatrix, c: &CellResult) -> Option<String> {
        markdown::trace_page(&View::of(m)?, c)
    }

    fn contents(&self, m: &BackendMatrix) -> (Option<String>, Vec<String>) {
        let mut further = Vec::new();
        if !m.costs.is_empty() {
            further.push("<a href=\"#costs\">what it costs</a>".to_string());
        }
        further.push("<a href=\"#cells\">every ZooKeeper cell</a>".to_string());
        let link = "<a href=\"#zookeeper-locks\">ZooKeeper locks</a>".to_string();
        (Some(link), further)
    }

    fn html(&self, o: &mut String, m: &BackendMatrix, charts: &[String]) {
        if let Some(v) = View::of(m) {
            html::section(o, &v, charts);
        }
    }

    fn json(&self, m: &BackendMatrix, top: &mut serde_json::Map<String, serde_json::Value>) {
        if let Some(v) = View::of(m) {
            json::into(&v, top);
        }
    }

    /// As wide as it always was: a longer recipe name runs on.
    fn terminal_width(&self, _: &BackendMatrix) -> usize {
        15
    }
}

/// ZooKeeper's judged matrix with its registry's rows and columns beside
/// its own (the sizes, cost acquisitions and drivers its pages show).
struct View<'a> {
    m: &'a BackendMatrix,
    rows: Vec<&'static RecipeRow>,
    faults: Vec<&'static FaultClass>,
}

impl<'a> View<'a> {
    /// `None` if a row or column is not ZooKeeper's.
    fn of(m: &'a BackendMatrix) -> Option<View<'a>> {
        Some(View {
            m,
            rows: m
                .recipes
                .iter()
                .map(|r| recipes::find(r.recipe))
                .collect::<Option<_>>()?,
            faults: m
                .faults
                .iter()
                .map(|f| faults::find(f.id))
                .collect::<Option<_>>()?,
        })
    }

    /// Row `r`'s cells, each with its column's label.
    fn row_cells(&self, r: usize) -> Vec<(&'static str, &'a CellResult)> {
        (0..self.faults.len())
            .map(|f| (self.faults[f].label, self.m.cell(r, f)))
            .collect()
    }
}
