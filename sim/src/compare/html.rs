//! `reports/index.html`: one page — the answer, the matrices, the charts
//! inline as SVG — with no script and no network, readable offline; each
//! violated cell links to its trace's own page under `traces/` (the trace
//! as text and its sequence diagram as SVG).

use super::cell_html::{class, esc, mark, COLOURS};
use super::cell_lines::{lines, Line};
use super::cell_markdown::source_text;
use super::Matrix;
use crate::matrix::cell::{CellResult, CellTrace};
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:14px}\
th{background:#f3f3f3}\
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}details{margin:.5em 0}summary{cursor:pointer;font-weight:600}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #ddd}code{font-size:13px}";

fn trace_link(c: &CellResult, t: &CellTrace) -> String {
    format!(
        "<a href=\"{}\">{}</a> ({} {}{})",
        esc(&t.html_page()),
        esc(t.property.name()),
        t.steps,
        if t.seed.is_some() { "entries" } else { "steps" },
        match &c.confirmed {
            Some(s) => format!(
                ", <span title=\"confirmed on {}\">✔ {}</span>",
                esc(s),
                super::confirmed::short(s)
            ),
            None => String::new(),
        }
    )
}

fn cell_html(c: &CellResult) -> String {
    let draw = |l: &Line| match l.trace {
        Some(t) => format!("{} {}", mark(l.verdict), trace_link(c, t)),
        None => format!("{} {}", mark(l.verdict), esc(&l.words)),
    };
    let (first, second) = lines(c);
    let second = second.map_or(String::new(), |b| format!("<br>belief: {}", draw(&b)));
    format!(
        "<td class=\"{}\" title=\"{}\">{}{second}</td>",
        class(c),
        esc(&source_text(c)),
        draw(&first)
    )
}

/// The table of contents: the answer, one section per backend, the costs,
/// every ZooKeeper cell.
fn contents(m: &Matrix) -> String {
    let mut o = String::from(
        "<nav><b>Contents:</b> <a href=\"#answer\">the answer</a> · \
         <a href=\"#zookeeper-locks\">ZooKeeper locks</a>",
    );
    for b in m.backends.iter().filter(|b| !b.cells.is_empty()) {
        let _ = write!(
            o,
            " · <a href=\"#{}-locks\">{} locks</a>",
            b.backend.key, b.backend.name
        );
    }
    if !m.costs.is_empty() {
        o.push_str(" · <a href=\"#costs\">what it costs</a>");
    }
    o.push_str(" · <a href=\"#cells\">every ZooKeeper cell</a></nav>\n");
    o
}

/// The whole page; `charts` are the SVGs in [`super::charts::CHARTS`] order.
pub fn page(m: &Matrix, readme_intro: &str, charts: &[String]) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>locksmith compare</title><style>{STYLE}{COLOURS}</style></head><body>\n\
         <h1>Which lock recipe should I use?</h1>\n<p>{}</p>\n",
        esc(readme_intro)
    );
    o.push_str(&contents(m));
    let _ = writeln!(
        o,
        "<h2 id=\"answer\">The answer</h2>\n{}",
        super::answer::html(m)
    );
    let counts = crate::matrix::cell::Counts::of(&m.cells);
    let _ = writeln!(
        o,
        "<h2 id=\"zookeeper-locks\">ZooKeeper locks</h2><p>{} recipes × {} fault classes: {counts}. Hover a cell for its source. A cell shows the first violated property, worst first, coloured by how bad it is: <span class=\"safety\">safety</span> (what the protected resource accepted, then what the clients believed), <span class=\"liveness\">liveness</span>, <span class=\"cost\">cost</span> (a herd), <span class=\"holds\">holds</span>, <span class=\"incomplete\">incomplete or n/a</span> (n/a: the fault never struck where its column says); a fenced, guarded or listening (curator-listener) cell headlines its resource and gives the clients' belief as its second line.</p>",
        m.recipes.len(),
        m.faults.len()
    );
    o.push_str("<table><tr><th>recipe</th>");
    for f in &m.faults {
        let _ = write!(
            o,
            "<th title=\"{}\">{}<br><i>{}</i></th>",
            esc(f.about),
            esc(f.label),
            f.driver.name()
        );
    }
    o.push_str("</tr>\n");
    for (r, row) in m.recipes.iter().enumerate() {
        let _ = write!(o, "<tr><th>{}</th>", esc(row.id.name()));
        for f in 0..m.faults.len() {
            o.push_str(&cell_html(m.cell(r, f)));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n<h3>Fault classes</h3><ul>\n");
    for f in &m.faults {
        let _ = writeln!(
            o,
            "<li><b>{}</b> ({}): {}</li>",
            esc(f.label),
            f.driver.name(),
            esc(f.about)
        );
    }
    for (f, about) in crate::zk::compare::faults::NOT_MODELLED {
        let _ = writeln!(
            o,
            "<li><b>{}</b>: not modelled yet ({}): {}</li>",
            esc(f),
            crate::zk::compare::faults::NOT_MODELLED_ISSUE,
            esc(about)
        );
    }
    o.push_str("</ul>\n");
    if !charts.is_empty() {
        let _ = writeln!(
            o,
            "<h2 id=\"costs\">What it costs</h2><p>The simulator without faults, {}, {} seeds per point.</p><div class=\"charts\">",
            esc(&crate::zk::compare::costs::acquisitions_text(&m.recipes)),
            crate::zk::compare::costs::SEEDS
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
    o.push_str("<h2 id=\"cells\">Every ZooKeeper cell</h2>\n");
    for (r, row) in m.recipes.iter().enumerate() {
        let _ = writeln!(
            o,
            "<h3>{}</h3><p>{}</p>",
            esc(row.id.name()),
            esc(&row.claim)
        );
        if !row.instead.is_empty() {
            let _ = writeln!(o, "<p><b>Use instead:</b> {}</p>", esc(&row.instead));
        }
        let cells: Vec<(&str, &CellResult)> = (0..m.faults.len())
            .map(|f| (m.faults[f].label, m.cell(r, f)))
            .collect();
        super::tables::recipe_html(&mut o, &cells, &cell_html);
    }
    for b in &m.backends {
        super::backend_pages::html(&mut o, b, &cell_html);
    }
    o.push_str("</body></html>\n");
    o
}
