//! How one cell reads in the report's Markdown: its mark, its property's
//! short name, its link to its trace page, where its verdict came from, and
//! a trace diagram cut to what GitHub renders.

use super::cell::{CellResult, CellTrace, Source};
use super::cell_lines::{lines, Line};
use locksmith_model::engine::harness::{Property, Severity, Verdict};

/// A property's verdict as one mark, coloured by how bad its violation
/// is: red for safety, orange for liveness, yellow for cost.
pub fn mark(p: Property, v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "✅",
        Verdict::Violated => severity_mark(p.severity()),
        Verdict::Incomplete => "⚠️",
        Verdict::NotApplicable => "–",
    }
}

/// A verdict's mark where no property colours it (holds, incomplete, n/a).
fn verdict_mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "✅",
        Verdict::Violated => "🔴",
        Verdict::Incomplete => "⚠️",
        Verdict::NotApplicable => "–",
    }
}

/// A violation's colour.
pub fn severity_mark(s: Severity) -> &'static str {
    match s {
        Severity::SafetyAtResource | Severity::SafetyByBelief => "🔴",
        Severity::Liveness => "🟠",
        Severity::Cost => "🟡",
    }
}

/// The legend's sentence on marks and colours.
pub const COLOURS: &str = "🔴 safety (first what reached the protected resource, then what the \
     clients believed), 🟠 liveness (deadlock, starvation, stuck lock, orphaned node, thread \
     died, re-entrancy), 🟡 cost (herd), ⚠️ incomplete (a bound stopped the run, never shown as \
     holds), – n/a (the fault never struck where its column says: no explored path spent the \
     checker's budget, or in no seed did a holder's session expire inside its critical section, \
     nor its listener make it leave — never shown as holds); a fenced, guarded or listening \
     (curator-listener) cell headlines what its resource accepted and gives the clients' belief \
     (mutual exclusion, unlock by non-owner) as its second line, since two clients that believe they hold the lock \
     are what fencing exists to make harmless.";

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

/// A link to the cell's trace: the property, its length, where confirmed.
fn trace_link(c: &CellResult, t: &CellTrace, prefix: &str) -> String {
    format!(
        "[{}]({prefix}{}) ({} {}{})",
        t.property,
        t.page,
        t.steps,
        if t.seed.is_some() { "entries" } else { "steps" },
        c.confirmed.as_deref().map_or(String::new(), |s| format!(
            ", ✔ {}",
            super::confirmed::short(s)
        ))
    )
}

/// A cell as the matrix shows it; links start with `prefix`.
pub fn cell_text(c: &CellResult, prefix: &str) -> String {
    let draw = |l: &Line| {
        let m = match l.property {
            Some(p) => mark(p, l.verdict),
            None => verdict_mark(l.verdict),
        };
        match l.trace {
            Some(t) => format!("{m} {}", trace_link(c, t, prefix)),
            None => format!("{m} {}", l.words),
        }
    };
    let (first, second) = lines(c);
    match second {
        Some(b) => format!("{}<br>belief: {}", draw(&first), draw(&b)),
        None => draw(&first),
    }
}

/// A trace page's first line: the violation it shows and how bad it is;
/// for a belief-only one, what the resource saw.
pub fn trace_headline(c: &CellResult, t: &CellTrace) -> String {
    let p = t.property;
    if c.verdict == Verdict::Violated && c.property == Some(p) {
        return format!("**violated: {p}** ({}) — {}.", p.severity(), source_text(c));
    }
    let resource = match (c.verdict, c.property) {
        (Verdict::Holds, _) => "holds (it accepted no write out of turn)".to_string(),
        (v, Some(q)) => format!("{v}: {q}"),
        (v, None) => v.to_string(),
    };
    format!(
        "**violated by belief: {p}** ({}); at the resource: {resource} — {}.",
        p.severity(),
        source_text(c)
    )
}

/// A trace page's head, every matrix's alike: the cell's recipe × its
/// fault's `label`, the headline, what the fault (`about`) does.
pub fn trace_page_head(c: &CellResult, t: &CellTrace, label: &str, about: &str) -> String {
    format!(
        "# {} × {label}\n\n{}\n\nFault: {about}.\n\n",
        c.recipe,
        trace_headline(c, t)
    )
}

/// Where a cell's verdict came from, in words.
pub fn source_text(c: &CellResult) -> String {
    match &c.source {
        Source::Check {
            clients,
            acquisitions,
            states,
            bound,
            fault_struck,
            ..
        } => {
            let b = bound
                .as_ref()
                .map(|b| format!(", bound hit: {b}"))
                .unwrap_or_default();
            let f = match fault_struck {
                Some(false) => ", no explored path spent the fault budget",
                _ => "",
            };
            format!("check {clients}×{acquisitions}, {states} states{b}{f}")
        }
        Source::Sim {
            clients,
            acquisitions,
            seeds,
            failing_seeds,
            struck_seeds,
        } => format!(
            "sim {clients}×{acquisitions}, {seeds} seeds, {} failing{}",
            failing_seeds.len(),
            struck_seeds.map_or(String::new(), |n| format!(
                ", a holder's session expired inside its critical section (or its listener made it leave) in {n}"
            ))
        ),
    }
}

/// A trace page's sequence diagram: the picture beside it
/// (`traces/<cell>.svg`, drawn by `crate::compare::sequence_svg`), which GitHub
/// and any browser show as an image, with no script.
pub fn diagram_section(t: &CellTrace) -> String {
    let svg = t.svg_page();
    let name = svg.rsplit('/').next().unwrap_or(&svg);
    format!("## Sequence diagram\n\n![the sequence diagram of this trace]({name})\n")
}
