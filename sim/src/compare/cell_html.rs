//! How text and a verdict read in the report's HTML.

use crate::matrix::cell::{CellResult, PropertyVerdict};
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
