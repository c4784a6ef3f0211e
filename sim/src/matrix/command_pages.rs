//! A command backend's matrix (Redis, MySQL, etcd) in the report's pages:
//! its Markdown section (matrix, legend, one table per recipe), its trace
//! pages, its part of the HTML page and of `compare.json` under its key —
//! every cell judged by its checker, with ZooKeeper's marks, cell text,
//! trace and reproduce-command conventions. A backend gives its prose
//! ([`CommandPages`]); the drawing is the same for all.

use super::axes::{Fault, Row};
use super::backend::{BackendMatrix, Pages};
use super::cell::{CellResult, Counts};
use super::cell_html::{cell_td, esc};
use super::cell_markdown::{diagram_section, trace_page_head};
use super::tables;
use serde::Serialize;
use std::fmt::Write;

/// A command backend's prose in the report.
pub struct CommandPages {
    /// The section's opening paragraph.
    pub intro: &'static str,
    /// The paragraph after the legend: what the properties mean here.
    pub notes: &'static str,
    /// What a trace page says the search went through.
    pub explored: &'static str,
}

impl Pages for CommandPages {
    fn summary(&self, m: &BackendMatrix) -> String {
        format!(
            "{} {name} recipes × {} {name} fault classes = {} cells: {}.",
            m.recipes.len(),
            m.faults.len(),
            m.cells.len(),
            Counts::of(&m.cells),
            name = m.backend.name
        )
    }

    fn markdown(&self, o: &mut String, m: &BackendMatrix) {
        if m.cells.is_empty() {
            return;
        }
        let b = m.backend;
        let _ = writeln!(
            o,
            "## {} locks\n\n{}\n\n{}\n",
            b.name,
            self.intro,
            self.summary(m)
        );
        o.push_str(&matrix_table(m, ""));
        let _ = writeln!(
            o,
            "\n| fault class | driver | what strikes |\n|---|---|---|"
        );
        for f in &m.faults {
            let _ = writeln!(o, "| `{}` {} | check | {} |", f.id, f.label, f.about);
        }
        let _ = writeln!(o, "\n{}\n", self.notes);
        for (r, row) in m.recipes.iter().enumerate() {
            recipe_section(o, m, r, row);
        }
    }

    fn trace_page(&self, m: &BackendMatrix, c: &CellResult) -> Option<String> {
        let t = c.trace.as_ref()?;
        let fault = m.faults.iter().find(|f| f.id == c.fault)?;
        let p = t.property;
        let mut o = trace_page_head(c, t, fault.label, fault.about);
        let _ = writeln!(
            o,
            "The shortest trace that violates {p}: {} steps, found by breadth-first search of every \
             interleaving of {}.\n",
            t.steps, self.explored
        );
        let _ = writeln!(
            o,
            "Reproduce the cell and print this trace: `{}`  ",
            c.command
        );
        let _ = writeln!(
            o,
            "Scenario: [{}](../{}) · [back to the matrix](../README.md#{}-locks)\n",
            c.scenario, c.scenario, m.backend.key
        );
        let _ = writeln!(o, "## Trace\n\n```text\n{}```\n", t.text);
        o.push_str(&diagram_section(t));
        Some(o)
    }

    fn contents(&self, m: &BackendMatrix) -> (Option<String>, Vec<String>) {
        let link = (!m.cells.is_empty()).then(|| {
            format!(
                "<a href=\"#{}-locks\">{} locks</a>",
                m.backend.key, m.backend.name
            )
        });
        (link, Vec::new())
    }

    /// The matrix, then each recipe's table (the traces go with every
    /// other backend's, by cell).
    fn html(&self, o: &mut String, m: &BackendMatrix, _charts: &[String]) {
        if m.cells.is_empty() {
            return;
        }
        let _ = writeln!(
            o,
            "<h2 id=\"{}-locks\">{} locks</h2>\n<p>{}</p>\n<table><tr><th>recipe</th>",
            m.backend.key,
            m.backend.name,
            esc(&self.summary(m))
        );
        for f in &m.faults {
            let _ = write!(
                o,
                "<th title=\"{}\">{}<br><i>check</i></th>",
                esc(f.about),
                esc(f.label)
            );
        }
        o.push_str("</tr>\n");
        for (r, row) in m.recipes.iter().enumerate() {
            let _ = write!(o, "<tr><th>{}</th>", esc(row.recipe));
            for f in 0..m.faults.len() {
                o.push_str(&cell_td(m.cell(r, f)));
            }
            o.push_str("</tr>\n");
        }
        o.push_str("</table>\n<ul>\n");
        for f in &m.faults {
            let _ = writeln!(o, "<li><b>{}</b>: {}</li>", esc(f.label), esc(f.about));
        }
        o.push_str("</ul>\n");
        for (r, row) in m.recipes.iter().enumerate() {
            let _ = writeln!(o, "<h3>{}</h3><p>{}</p>", esc(row.recipe), esc(row.claim));
            tables::recipe_html(o, &row_cells(m, r));
        }
    }

    /// Under its key: its fault classes, recipes, counts and cells.
    fn json(&self, m: &BackendMatrix, top: &mut serde_json::Map<String, serde_json::Value>) {
        let j = Json {
            faults: &m.faults,
            recipes: &m.recipes,
            summary: Counts::of(&m.cells),
            cells: &m.cells,
        };
        let v = serde_json::to_value(&j).unwrap_or(serde_json::Value::Null);
        top.insert(m.backend.key.into(), v);
    }
}

/// The matrix as a GitHub table; links start with `prefix`.
fn matrix_table(m: &BackendMatrix, prefix: &str) -> String {
    let heads: Vec<String> = m
        .faults
        .iter()
        .map(|f| format!("{}<br>*check*", f.label))
        .collect();
    let recipes: Vec<String> = m.recipes.iter().map(|r| r.recipe.to_string()).collect();
    tables::matrix(&heads, &recipes, |r, f| m.cell(r, f), prefix)
}

/// Row `r`'s cells, each with its column's label.
fn row_cells(m: &BackendMatrix, r: usize) -> Vec<(&str, &CellResult)> {
    (0..m.faults.len())
        .map(|f| (m.faults[f].label, m.cell(r, f)))
        .collect()
}

fn recipe_section(o: &mut String, m: &BackendMatrix, r: usize, row: &Row) {
    let _ = writeln!(o, "### {}\n\n{}\n", row.recipe, row.claim);
    tables::recipe_markdown(o, &row_cells(m, r), row.instead);
}

#[derive(Serialize)]
struct Json<'a> {
    faults: &'a [Fault],
    recipes: &'a [Row],
    summary: Counts,
    cells: &'a [CellResult],
}
