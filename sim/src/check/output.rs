//! What `locksmith check` shows of any backend's exploration: the progress
//! line while it runs, the verdicts and figures after, their `--json` part.

use locksmith_model::engine::harness::{Severity, Verdict};
use locksmith_model::engine::{Bound, Progress};
use locksmith_model::engine::{Report, Trace};
use serde_json::json;
use std::ops::ControlFlow;

/// The run stopped on Ctrl-C.
pub fn interrupted(r: &Report) -> bool {
    r.bound.as_deref() == Some(&Bound::Interrupted.to_string())
}

/// The exploration's progress line on stderr.
fn progress_bar() -> crate::progress::Progress {
    crate::progress::Progress::spinner()
}

/// Runs `check` with its progress line on stderr, breaking it when the
/// user presses Ctrl-C.
pub fn with_progress(
    check: impl FnOnce(&mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report,
) -> Report {
    crate::interrupt::install();
    let bar = progress_bar();
    let report = check(&mut |p| {
        show(&bar, p);
        if crate::interrupt::requested() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    bar.finish_and_clear();
    report
}

/// Runs under a second stay quiet.
fn show(bar: &crate::progress::Progress, p: Progress) {
    let secs = p.elapsed.as_secs_f64();
    if secs < 1.0 {
        return;
    }
    bar.set_message(format!(
        "{} states, {:.0} states/s, depth {}, tables ≈ {:.0} MB",
        p.states,
        p.states as f64 / secs,
        p.depth,
        p.table_bytes as f64 / 1e6
    ));
}

/// The trace of the property the overall verdict is about.
pub fn headline_trace(r: &Report) -> Option<&locksmith_model::engine::Trace> {
    let p = r.property?;
    r.properties
        .iter()
        .find(|x| x.property == p)?
        .trace
        .as_ref()
}

/// How bad the headline violation is (none unless violated).
fn severity(r: &Report) -> Option<Severity> {
    r.property
        .filter(|_| r.verdict == Verdict::Violated)
        .map(|p| p.severity())
}

/// The exploration's part of `--json` — verdicts, figures, bounds — the
/// same fields for every backend; each backend adds its configuration and
/// its trace.
pub fn exploration_json(r: &Report, jobs: usize) -> serde_json::Value {
    json!({
        "verdict": r.verdict.name(),
        "property": r.property.map(|p| p.name()),
        "severity": severity(r).map(|s| s.name()),
        "states": r.states,
        "transitions": r.transitions,
        "depth": r.depth,
        "jobs": jobs,
        "elapsed_ms": r.elapsed_ms,
        "states_per_second": r.states as f64 / (r.elapsed_ms.max(1) as f64 / 1e3),
        "peak_bytes": r.peak_bytes,
        "bytes_per_state": r.peak_bytes / r.states.max(1),
        "peak_memory_bytes": crate::machine::peak_memory_bytes(),
        "bound": r.bound,
        "growth": r.growth,
        "never_acquired": r.never_acquired,
        "properties": r.properties.iter().map(|p| json!({
            "property": p.property.name(),
            "verdict": p.verdict.name(),
            "trace_steps": p.trace.as_ref().map(|t| t.steps.len()),
            "reason": p.reason,
        })).collect::<Vec<_>>(),
    })
}

/// `value`'s fields followed by `more`'s (both JSON objects).
pub fn joined(mut value: serde_json::Value, more: serde_json::Value) -> serde_json::Value {
    if let (Some(a), serde_json::Value::Object(b)) = (value.as_object_mut(), more) {
        a.extend(b);
    }
    value
}

/// The verdict, every property's, the figures, and why a run that is not
/// exhaustive or not vacuous-free says nothing holds — for any backend.
pub fn figures(out: &mut String, r: &Report) {
    use std::fmt::Write;
    let about = match (r.property, severity(r)) {
        (Some(p), Some(s)) => format!("{}: {p} ({s})", r.verdict),
        (Some(p), None) => format!("{}: {p}", r.verdict),
        (None, _) => r.verdict.to_string(),
    };
    let _ = writeln!(out, "verdict: {about}");
    for p in &r.properties {
        let steps = match (&p.trace, p.reason) {
            // A reduced state's left-out steps may hide a shorter path.
            (Some(t), _) if r.reduced > 0 => format!(" (trace: {} steps)", t.steps.len()),
            (Some(t), _) => format!(" (shortest trace: {} steps)", t.steps.len()),
            (None, Some(why)) => format!(" ({why})"),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "  {:<33} {}{}", p.property.name(), p.verdict, steps);
    }
    let _ = writeln!(
        out,
        "explored {} states, {} transitions, depth {}, in {} ms ({:.0} states/s; checker tables ≈ {:.1} MB, {} bytes/state; peak memory {:.0} MB)",
        r.states,
        r.transitions,
        r.depth,
        r.elapsed_ms,
        r.states as f64 / (r.elapsed_ms.max(1) as f64 / 1e3),
        r.peak_bytes as f64 / 1e6,
        r.peak_bytes / r.states.max(1),
        crate::machine::peak_memory_bytes().unwrap_or(0) as f64 / 1e6
    );
    if interrupted(r) {
        let _ = writeln!(
            out,
            "interrupted ({}) after {} states — the run stopped early; properties not violated so far are incomplete, not holding",
            crate::interrupt::what(),
            r.states
        );
    } else if let Some(b) = &r.bound {
        let _ = writeln!(
            out,
            "bound hit: {b} — the run stopped early; properties not violated so far are incomplete, not holding"
        );
        if let Some(why) = &r.growth {
            let _ = writeln!(out, "still growing: {why}");
        }
    }
    if !r.never_acquired.is_empty() {
        let who: Vec<String> = r.never_acquired.iter().map(|c| format!("c{c}")).collect();
        let _ = writeln!(
            out,
            "vacuous: {} never acquired the lock on any explored path — the properties nothing broke say nothing about this lock: incomplete, not holding",
            who.join(", ")
        );
    }
}

/// A backend's fault budgets by their `[faults]` keys, as `--json` shows
/// them.
pub fn budgets(by_key: &[(&str, u8)]) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = by_key
        .iter()
        .map(|&(k, n)| (k.to_string(), n.into()))
        .collect();
    map.into()
}

/// The figures after the title line, then the headline's shortest trace.
pub fn report_text(out: &mut String, r: &Report) {
    use std::fmt::Write;
    figures(out, r);
    if r.verdict == Verdict::Violated {
        if let Some(t) = headline_trace(r) {
            let _ = writeln!(out, "\nshortest trace ({} steps):", t.steps.len());
            out.push_str(&t.text());
        }
    }
}

/// `--mermaid`: the headline's trace as a Mermaid block (`mermaid` draws
/// it), or nothing when there is none.
pub fn mermaid_text(r: &Report, mermaid: &dyn Fn(&Trace) -> String) -> String {
    match headline_trace(r).filter(|_| r.verdict == Verdict::Violated) {
        Some(t) => format!("\nmermaid:\n```mermaid\n{}```\n", mermaid(t)),
        None => String::new(),
    }
}
