//! How text, a verdict and a cell read in the report's HTML.

use super::cell::{CellResult, CellTrace, PropertyVerdict};
use super::cell_lines::{lines, Line};
use super::cell_markdown::source_text;
use locksmith_model::engine::harness::{Severity, Verdict};

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

/// A verdict as one mark: plain symbols every font has (no emoji, which a
/// machine without an emoji font draws as boxes).
pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "✓",
        Verdict::Violated => "✗",
        Verdict::Incomplete => "?",
        Verdict::NotApplicable => "–",
    }
}

/// The class that colours a cell: its headline's severity (`safety`,
/// `liveness`, `cost`), else its verdict (`holds`, `incomplete`).
pub fn class(c: &CellResult) -> &'static str {
    match (c.severity, c.verdict) {
        (Some(s), _) => severity_class(s),
        (None, Verdict::NotApplicable) => "incomplete",
        (None, v) => v.name(),
    }
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::SafetyAtResource | Severity::SafetyByBelief => "safety",
        Severity::Liveness => "liveness",
        Severity::Cost => "cost",
    }
}

/// One property's verdict as a table cell, coloured as a headline of it
/// would be.
pub fn property_td(p: &PropertyVerdict) -> String {
    match p.verdict {
        Verdict::Violated => format!(
            "<td class=\"{}\">{}</td>",
            severity_class(p.property.severity()),
            mark(p.verdict)
        ),
        v => format!("<td>{}</td>", mark(v)),
    }
}

/// The style sheet's colours for [`class`].
pub const COLOURS: &str = ".holds{background:#e3f4e3}.safety{background:#f8d4d4}\
.liveness{background:#fde3c4}.cost{background:#fbf3b8}.incomplete{background:#e6e6e6}";

/// A link to the cell's trace page: the property, its length, where
/// confirmed.
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

/// A matrix cell as a table cell: its lines, each with its mark and its
/// trace's link; hovering shows where its verdict came from.
pub fn cell_td(c: &CellResult) -> String {
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
