//! A backend's matrix (Redis, MySQL) in the report's pages: its Markdown
//! section (matrix, legend, one table per recipe), its trace pages, its
//! part of the HTML page and of `compare.json` — with the ZooKeeper
//! matrix's marks, cell text, trace and reproduce-command conventions.

use super::cell_html::esc;
use super::cell_markdown::{diagram_section, trace_page_head};
use crate::matrix::backend::{BackendMatrix, Fault, Row};
use crate::matrix::cell::{CellResult, Counts};
use serde::Serialize;
use std::fmt::Write;

pub fn summary_line(m: &BackendMatrix) -> String {
    format!(
        "{} {name} recipes × {} {name} fault classes = {} cells: {}.",
        m.recipes.len(),
        m.faults.len(),
        m.cells.len(),
        Counts::of(&m.cells),
        name = m.backend.name
    )
}

/// A backend's matrix as a GitHub table; links start with `prefix`.
pub fn matrix_table(m: &BackendMatrix, prefix: &str) -> String {
    let heads: Vec<String> = m
        .faults
        .iter()
        .map(|f| format!("{}<br>*check*", f.label))
        .collect();
    let recipes: Vec<String> = m.recipes.iter().map(|r| r.recipe.to_string()).collect();
    super::tables::matrix(&heads, &recipes, |r, f| m.cell(r, f), prefix)
}

/// The section of `reports/README.md`.
pub fn section(o: &mut String, m: &BackendMatrix) {
    if m.cells.is_empty() {
        return;
    }
    let b = m.backend;
    let _ = writeln!(
        o,
        "## {} locks\n\n{}\n\n{}\n",
        b.name,
        b.intro,
        summary_line(m)
    );
    o.push_str(&matrix_table(m, ""));
    let _ = writeln!(
        o,
        "\n| fault class | driver | what strikes |\n|---|---|---|"
    );
    for f in &m.faults {
        let _ = writeln!(o, "| `{}` {} | check | {} |", f.id, f.label, f.about);
    }
    let _ = writeln!(o, "\n{}\n", b.notes);
    for (r, row) in m.recipes.iter().enumerate() {
        recipe_section(o, m, r, row);
    }
}

fn recipe_section(o: &mut String, m: &BackendMatrix, r: usize, row: &Row) {
    let _ = writeln!(o, "### {}\n\n{}\n", row.recipe, row.claim);
    let cells: Vec<(&str, &CellResult)> = (0..m.faults.len())
        .map(|f| (m.faults[f].label, m.cell(r, f)))
        .collect();
    super::tables::recipe_markdown(o, &cells, row.instead);
}

/// The page of a violated cell's shortest trace.
pub fn trace_page(m: &BackendMatrix, c: &CellResult) -> Option<String> {
    let t = c.trace.as_ref()?;
    let fault = m.faults.iter().find(|f| f.id == c.fault)?;
    let p = t.property;
    let mut o = trace_page_head(c, t, fault.label, fault.about);
    let _ = writeln!(
        o,
        "The shortest trace that violates {p}: {} steps, found by breadth-first search of every \
         interleaving of {}.\n",
        t.steps, m.backend.explored
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

/// A backend's part of the HTML page: the matrix, then each recipe's
/// table (the traces go with the ZooKeeper ones, by cell).
pub fn html(o: &mut String, m: &BackendMatrix, cell_html: &dyn Fn(&CellResult) -> String) {
    if m.cells.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "<h2 id=\"{}-locks\">{} locks</h2>\n<p>{}</p>\n<table><tr><th>recipe</th>",
        m.backend.key,
        m.backend.name,
        esc(&summary_line(m))
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
            o.push_str(&cell_html(m.cell(r, f)));
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
        let cells: Vec<(&str, &CellResult)> = (0..m.faults.len())
            .map(|f| (m.faults[f].label, m.cell(r, f)))
            .collect();
        super::tables::recipe_html(o, &cells, cell_html);
    }
}

#[derive(Serialize)]
struct Json<'a> {
    faults: &'a [Fault],
    recipes: &'a [Row],
    summary: Counts,
    cells: &'a [CellResult],
}

/// A backend's part of `compare.json`.
pub fn json(m: &BackendMatrix) -> serde_json::Value {
    let j = Json {
        faults: &m.faults,
        recipes: &m.recipes,
        summary: Counts::of(&m.cells),
        cells: &m.cells,
    };
    serde_json::to_value(&j).unwrap_or(serde_json::Value::Null)
}
