//! The tables every matrix's pages draw alike (ZooKeeper's and each
//! command backend's): the matrix in Markdown, and a recipe's cells — in
//! Markdown, what breaks it, what it holds under and what to use instead,
//! then one row per fault class; in HTML, the same table.

use super::cell::CellResult;
use super::cell_html::{cell_td, esc, property_td};
use super::cell_markdown::{cell_text, mark, short, source_text};
use locksmith_model::engine::harness::{Property, Verdict};
use std::fmt::Write;

/// A matrix as a GitHub table: a column per fault class (`heads`), a row
/// per recipe (`recipes`), `cell(recipe, fault)` in each; links start with
/// `prefix`.
pub fn matrix<'a>(
    heads: &[String],
    recipes: &[String],
    cell: impl Fn(usize, usize) -> &'a CellResult,
    prefix: &str,
) -> String {
    let mut out = String::from("| recipe |");
    for h in heads {
        let _ = write!(out, " {h} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(heads.len()));
    out.push('\n');
    for (r, recipe) in recipes.iter().enumerate() {
        let _ = write!(out, "| **{recipe}** |");
        for f in 0..heads.len() {
            let _ = write!(out, " {} |", cell_text(cell(r, f), prefix));
        }
        out.push('\n');
    }
    out
}

/// The labels of the cells whose verdict is `v`, each with what `named`
/// adds to it.
fn labels(
    cells: &[(&str, &CellResult)],
    v: Verdict,
    named: impl Fn(&str, &CellResult) -> String,
) -> Vec<String> {
    cells
        .iter()
        .filter(|(_, c)| c.verdict == v)
        .map(|(l, c)| named(l, c))
        .collect()
}

/// The recipe's Markdown after its claim: its cells (fault label, cell),
/// and what to use instead (empty: nothing better).
pub fn recipe_markdown(o: &mut String, cells: &[(&str, &CellResult)], instead: &str) {
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "nothing".to_string()
        } else {
            v.join("; ")
        }
    };
    let broken = labels(cells, Verdict::Violated, |l, c| {
        format!("{l} ({})", c.property.map_or("?", |p| p.name()))
    });
    let holds = labels(cells, Verdict::Holds, |l, _| l.to_string());
    let unknown = labels(cells, Verdict::Incomplete, |l, _| l.to_string());
    let _ = writeln!(o, "- **What breaks it** (this run): {}.", list(broken));
    let _ = writeln!(o, "- **Holds** under: {}.", list(holds));
    if !unknown.is_empty() {
        let _ = writeln!(
            o,
            "**Incomplete** (a bound was hit): {}.",
            unknown.join("; ")
        );
    }
    if !instead.is_empty() {
        let _ = writeln!(o, "- **Use instead:** {instead}");
    }
    o.push('\n');
    let _ = write!(o, "| fault | verdict |");
    for p in Property::ALL {
        let _ = write!(o, " {} |", short(p));
    }
    let _ = writeln!(o, " source | reproduce |");
    let _ = writeln!(o, "|---|---|{}---|---|", "---|".repeat(Property::ALL.len()));
    for (label, c) in cells {
        let _ = write!(o, "| {label} | {} |", cell_text(c, ""));
        for p in &c.properties {
            let _ = write!(o, " {} |", mark(p.property, p.verdict));
        }
        let _ = writeln!(o, " {} | `{}` |", source_text(c), c.command);
    }
    o.push('\n');
}

/// The recipe's HTML table of its cells (fault label, cell).
pub fn recipe_html(o: &mut String, cells: &[(&str, &CellResult)]) {
    o.push_str("<table><tr><th>fault</th><th>verdict</th>");
    for p in Property::ALL {
        let _ = write!(o, "<th title=\"{}\">{}</th>", esc(p.name()), short(p));
    }
    o.push_str("<th>source</th><th>reproduce</th></tr>\n");
    for (label, c) in cells {
        let _ = write!(o, "<tr><td>{}</td>{}", esc(label), cell_td(c));
        for p in &c.properties {
            o.push_str(&property_td(p));
        }
        let _ = writeln!(
            o,
            "<td>{}</td><td><code>{}</code></td></tr>",
            esc(&source_text(c)),
            esc(&c.command)
        );
    }
    o.push_str("</table>\n");
}
