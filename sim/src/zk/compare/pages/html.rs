//! ZooKeeper's part of `index.html`: its matrix with each column's driver,
//! its fault classes, the cost charts, and every cell by recipe.

use super::View;
use crate::matrix::cell::Counts;
use crate::matrix::cell_html::{cell_td, esc};
use crate::matrix::tables;
use crate::zk::compare::costs::{acquisitions_text, SEEDS};
use crate::zk::compare::faults::{NOT_MODELLED, NOT_MODELLED_ISSUE};
use std::fmt::Write;

/// The section; `charts` are the cost charts' SVGs.
pub(super) fn section(o: &mut String, v: &View, charts: &[String]) {
    matrix(o, v);
    costs(o, v, charts);
    o.push_str("<h2 id=\"cells\">Every ZooKeeper cell</h2>\n");
    for (r, row) in v.rows.iter().enumerate() {
        let _ = writeln!(
            o,
            "<h3>{}</h3><p>{}</p>",
            esc(row.id.name()),
            esc(&row.claim)
        );
        if !row.instead.is_empty() {
            let _ = writeln!(o, "<p><b>Use instead:</b> {}</p>", esc(&row.instead));
        }
        tables::recipe_html(o, &v.row_cells(r));
    }
}

/// The matrix and its fault classes.
fn matrix(o: &mut String, v: &View) {
    let counts = Counts::of(&v.m.cells);
    let _ = writeln!(
        o,
        "<h2 id=\"zookeeper-locks\">ZooKeeper locks</h2><p>{} recipes × {} fault classes: {counts}. Hover a cell for its source. A cell shows the first violated property, worst first, coloured by how bad it is: <span class=\"safety\">safety</span> (what the protected resource accepted, then what the clients believed), <span class=\"liveness\">liveness</span>, <span class=\"cost\">cost</span> (a herd), <span class=\"holds\">holds</span>, <span class=\"incomplete\">incomplete or n/a</span> (n/a: the fault never struck where its column says); a fenced, guarded or listening (curator-listener) cell headlines its resource and gives the clients' belief as its second line.</p>",
        v.rows.len(),
        v.faults.len()
    );
    o.push_str("<table><tr><th>recipe</th>");
    for f in &v.faults {
        let _ = write!(
            o,
            "<th title=\"{}\">{}<br><i>{}</i></th>",
            esc(f.about),
            esc(f.label),
            f.driver.name()
        );
    }
    o.push_str("</tr>\n");
    for (r, row) in v.rows.iter().enumerate() {
        let _ = write!(o, "<tr><th>{}</th>", esc(row.id.name()));
        for f in 0..v.faults.len() {
            o.push_str(&cell_td(v.m.cell(r, f)));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n<h3>Fault classes</h3><ul>\n");
    for f in &v.faults {
        let _ = writeln!(
            o,
            "<li><b>{}</b> ({}): {}</li>",
            esc(f.label),
            f.driver.name(),
            esc(f.about)
        );
    }
    for (f, about) in NOT_MODELLED {
        let _ = writeln!(
            o,
            "<li><b>{}</b>: not modelled yet ({}): {}</li>",
            esc(f),
            NOT_MODELLED_ISSUE,
            esc(about)
        );
    }
    o.push_str("</ul>\n");
}

/// The cost charts, inline.
fn costs(o: &mut String, v: &View, charts: &[String]) {
    if charts.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "<h2 id=\"costs\">What it costs</h2><p>The simulator without faults, {}, {} seeds per point.</p><div class=\"charts\">",
        esc(&acquisitions_text(&v.rows)),
        SEEDS
    );
    for svg in charts {
        let svg = svg.trim_start_matches(|c| c != '<');
        let svg = svg.strip_prefix("<?xml").map_or(svg, |rest| {
            rest.split_once("?>").map_or(rest, |(_, after)| after)
        });
        o.push_str(svg.trim());
        o.push('\n');
    }
    o.push_str("</div>\n");
}
