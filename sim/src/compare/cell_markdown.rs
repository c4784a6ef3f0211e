//! How one cell reads in the report's Markdown: its mark, its property's
//! short name, its link to its trace page, where its verdict came from, and
//! a trace diagram cut to what GitHub renders.

use super::cell::{CellResult, Source};
use locksmith_model::engine::harness::{Property, Verdict};

/// A verdict as one mark.
pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "✅",
        Verdict::Violated => "❌",
        Verdict::Incomplete => "⚠️",
        Verdict::NotApplicable => "–",
    }
}

/// A short name for a property, for narrow columns.
pub fn short(p: Property) -> &'static str {
    match p {
        Property::MutualExclusionAtResource => "ME@res",
        Property::MutualExclusion => "ME",
        Property::FencedSafety => "fenced",
        Property::Deadlock => "deadlock",
        Property::Starvation => "starv.",
        Property::ThreadDied => "died",
        Property::Herd => "herd",
        Property::OrphanedNode => "orphan",
        Property::UnlockByNonOwner => "non-owner",
        Property::StuckLock => "stuck",
        Property::Reentrancy => "re-entry",
    }
}

/// A cell as the matrix shows it; links start with `prefix`.
pub fn cell_text(c: &CellResult, prefix: &str) -> String {
    match (c.verdict, c.property) {
        (Verdict::Violated, Some(p)) => match &c.trace {
            Some(t) => format!(
                "❌ [{p}]({prefix}{}) ({} {}{})",
                t.page,
                t.steps,
                if t.seed.is_some() { "entries" } else { "steps" },
                c.confirmed.as_deref().map_or(String::new(), |s| format!(
                    ", ✔ {}",
                    super::confirmed::short(s)
                ))
            ),
            None => format!("❌ {p}"),
        },
        (Verdict::Incomplete, Some(p)) => format!("⚠️ incomplete: {p}"),
        (v, _) => format!("{} {v}", mark(v)),
    }
}

/// Where a cell's verdict came from, in words.
pub fn source_text(c: &CellResult) -> String {
    match &c.source {
        Source::Check {
            clients,
            acquisitions,
            states,
            bound,
            ..
        } => {
            let b = bound
                .as_ref()
                .map(|b| format!(", bound hit: {b}"))
                .unwrap_or_default();
            format!("check {clients}×{acquisitions}, {states} states{b}")
        }
        Source::Sim {
            clients,
            acquisitions,
            seeds,
            failing_seeds,
        } => format!(
            "sim {clients}×{acquisitions}, {seeds} seeds, {} failing",
            failing_seeds.len()
        ),
    }
}

/// The most Mermaid source a page carries: GitHub refuses to render more
/// than 50,000 characters.
pub const MERMAID_MAX: usize = 45_000;

/// `mermaid` cut at a line so that it fits [`MERMAID_MAX`], and how many
/// lines were kept if it was cut.
pub fn fit_mermaid(mermaid: &str) -> (String, Option<usize>) {
    if mermaid.len() <= MERMAID_MAX {
        return (mermaid.to_string(), None);
    }
    let mut out = String::new();
    let mut lines = 0;
    for line in mermaid.split_inclusive('\n') {
        if out.len() + line.len() > MERMAID_MAX {
            break;
        }
        out.push_str(line);
        lines += 1;
    }
    (out, Some(lines))
}
