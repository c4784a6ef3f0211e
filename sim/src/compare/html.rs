//! `reports/index.html`: one page — the answer, the matrices, the charts
//! inline as SVG — with no script and no network, readable offline; each
//! violated cell links to its trace's own page under `traces/` (the trace
//! as text and its sequence diagram as SVG).

use super::Matrix;
use crate::matrix::cell_html::{esc, COLOURS};
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:14px}\
th{background:#f3f3f3}\
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}details{margin:.5em 0}summary{cursor:pointer;font-weight:600}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #ddd}code{font-size:13px}";

/// The table of contents: the answer, each backend's section, then each
/// one's further parts.
fn contents(m: &Matrix) -> String {
    let mut o = String::from("<nav><b>Contents:</b> <a href=\"#answer\">the answer</a>");
    let links: Vec<(Option<String>, Vec<String>)> = m
        .matrices
        .iter()
        .map(|b| b.backend.pages.contents(b))
        .collect();
    let sections = links.iter().filter_map(|(first, _)| first.as_ref());
    let further = links.iter().flat_map(|(_, rest)| rest);
    for link in sections.chain(further) {
        let _ = write!(o, " · {link}");
    }
    o.push_str("</nav>\n");
    o
}

/// The whole page; `charts` are the SVGs in
/// [`crate::matrix::charts::CHARTS`] order.
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
    for b in &m.matrices {
        b.backend.pages.html(&mut o, b, charts);
    }
    o.push_str("</body></html>\n");
    o
}
