//! One cell of the Redis matrix: a Redis recipe under one Redis fault
//! class, written as a Redis scenario file and judged by loading that very
//! file as `locksmith check` loads it — so the command beside the cell
//! reproduces it.

use super::cell::{blank, headline, CellResult, CellTrace, PropertyVerdict, Source};
use super::redis_faults::{space, RedisFaultClass, RedisRow};
use crate::scenario::RedisScenario;
use locksmith_model::check::redis::trace::mermaid;
use locksmith_model::check::redis::RedisSpace;
use locksmith_model::harness::Verdict;
use std::path::Path;
use std::time::Instant;

/// The cell's name, as file names and `--json` spell it.
pub fn cell_id(row: &RedisRow, fault: &RedisFaultClass) -> String {
    format!("{}--{}", row.recipe.id(), fault.id)
}

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &RedisSpace, fault: &RedisFaultClass) -> String {
    let mut out = format!(
        "# {} × {}: a cell of `locksmith compare`, generated; do not edit\n\
         # (regenerate with `cargo run --release -- compare`).\n\
         description = {}\nrecipe = \"{}\"\nclients = {}\nacquisitions = {}\n",
        s.recipe.id(),
        fault.label,
        toml::Value::String(fault.about.to_string()),
        s.recipe.id(),
        s.clients,
        s.acquisitions
    );
    if s.fencing {
        out.push_str("fencing = true\n");
    }
    out.push_str(&format!(
        "\n[redis]\nlease = {}\ncritical_section = {}\npause = {}\nskew = {}\n",
        s.lease, s.work, s.pause, s.skew
    ));
    if s.replica {
        out.push_str("replica = true\n");
    }
    let f = &s.faults;
    let budgets = [
        ("pauses", f.pauses),
        ("crashes", f.crashes),
        ("clock_jumps", f.clock_jumps),
        ("restarts", f.restarts),
        ("failovers", f.failovers),
        ("server_clock_jumps", f.server_clock_jumps),
    ];
    if budgets.iter().any(|(_, n)| *n > 0) {
        out.push_str("\n[faults]\n");
        for (k, n) in budgets.iter().filter(|(_, n)| *n > 0) {
            out.push_str(&format!("{k} = {n}\n"));
        }
    }
    out.push_str(&format!(
        "\n[check]\nmax_states = {}\n",
        s.limits.max_states
    ));
    out
}

/// Runs the cell `row` × `fault`; `out` is the report folder as the
/// commands name it.
pub fn run(row: &RedisRow, fault: &RedisFaultClass, out: &str) -> Result<CellResult, String> {
    let started = Instant::now();
    let id = cell_id(row, fault);
    let mut s = space(row);
    (fault.apply)(&mut s);
    let text = to_toml(&s, fault);
    let scenario = format!("scenarios/{id}.toml");
    let path = format!("{out}/{scenario}");
    let sc = RedisScenario::parse(Path::new(&path), &text).map_err(|e| e.to_string())?;
    let report = sc.space.check_with_progress(&mut |_| {
        if crate::interrupt::requested() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    let command = format!("cargo run --release -- check {path}");
    let mut r = blank(
        Source::Check {
            clients: sc.space.clients,
            acquisitions: sc.space.acquisitions,
            states: report.states,
            transitions: report.transitions,
            depth: report.depth,
            bound: report.bound.clone(),
        },
        command.clone(),
    );
    r.properties = report
        .properties
        .iter()
        .map(|p| PropertyVerdict {
            property: p.property,
            verdict: p.verdict,
        })
        .collect();
    (r.verdict, r.property) = headline(&r.properties);
    if r.verdict == Verdict::Violated {
        if let Some(t) = r.property.and_then(|p| report.trace_of(p)) {
            r.trace = Some(CellTrace {
                steps: t.steps.len(),
                seed: None,
                why: None,
                page: format!("traces/{id}.md"),
                command,
                text: t.text(),
                mermaid: mermaid(t, sc.space.clients),
                fingerprint: String::new(),
            });
        }
    }
    r.recipe = row.recipe.id().into();
    r.fault = fault.id.into();
    r.scenario = scenario;
    r.scenario_text = text;
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
}
