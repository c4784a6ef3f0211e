//! `locksmith check` on a MySQL scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's and Redis's, with the MySQL trace (each
//! statement with its reply or its lock wait, the lock row after every
//! step, ticks and faults).

use super::check::{
    exploration_json, figures, headline_trace, interrupted, joined, progress_bar, show, CheckArgs,
};
use crate::scenario::MysqlScenario;
use locksmith_model::check::sql::trace::mermaid;
use locksmith_model::check::{Report, Verdict};
use serde_json::json;
use std::ops::ControlFlow;

/// `sc` with the flags applied and checked. `--abstract-sequences` is
/// ZooKeeper's: a MySQL state has no sequence numbers, nothing to abstract.
pub fn plan(args: &CheckArgs, mut sc: MysqlScenario) -> Result<MysqlScenario, String> {
    let space = &mut sc.space;
    if let Some(n) = args.clients {
        space.clients = n;
    }
    if let Some(k) = args.acquisitions {
        space.acquisitions = k;
    }
    if let Some(s) = args.max_states {
        space.limits.max_states = usize::try_from(s).unwrap_or(usize::MAX);
    }
    if let Some(mb) = args.max_memory_mb {
        let mb = usize::try_from(mb).unwrap_or(usize::MAX);
        space.limits.max_memory = mb.saturating_mul(1 << 20);
    }
    space.limits.jobs = args.jobs.map_or_else(super::cores, usize::from);
    space
        .validate()
        .map_err(|e| format!("{}: {e}", sc.path.display()))?;
    Ok(sc)
}

pub fn run(args: &CheckArgs, sc: &MysqlScenario) -> i32 {
    crate::interrupt::install();
    let bar = progress_bar();
    let report = sc.space.check_with_progress(&mut |p| {
        show(&bar, p);
        if crate::interrupt::requested() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    bar.finish_and_clear();
    if args.json {
        println!("{}", to_json(sc, &report));
    } else {
        print!("{}", to_text(sc, &report));
    }
    if interrupted(&report) {
        return crate::interrupt::EXIT;
    }
    super::exit_code(report.verdict)
}

pub fn to_json(sc: &MysqlScenario, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let s = &sc.space;
    let config = json!({
        "scenario": sc.name,
        "backend": "mysql",
        "recipe": sc.recipe().id(),
        "clients": s.clients,
        "acquisitions": s.acquisitions,
        "critical_section": s.work,
        "pause": s.pause,
        "lock_wait_timeout": s.lock_wait_timeout,
        "found_rows": s.found_rows,
        "cleanup_after": s.cleanup_after,
        "lock_row": s.lock_row,
        "faults": {
            "pauses": s.faults.pauses,
            "crashes": s.faults.crashes,
            "connection_drops": s.faults.connection_drops,
            "network_drops": s.faults.network_drops,
            "restarts": s.faults.restarts,
        },
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| mermaid(t, s.clients)),
    });
    joined(config, exploration_json(r, s.limits.jobs))
}

pub fn to_text(sc: &MysqlScenario, r: &Report) -> String {
    use std::fmt::Write;
    let s = &sc.space;
    let found_rows = if s.found_rows {
        ", CLIENT_FOUND_ROWS"
    } else {
        ""
    };
    let cleanup = s
        .cleanup_after
        .map_or(String::new(), |t| format!(", a cleanup job after {t}"));
    let how = format!(
        " × {} acquisitions on MySQL: critical section {} ticks, pause {}, lock wait timeout {}{found_rows}{cleanup}",
        s.acquisitions, s.work, s.pause, s.lock_wait_timeout
    );
    let mut out = super::title(&sc.name, sc.recipe(), s.clients, &how);
    figures(&mut out, r);
    if r.verdict == Verdict::Violated {
        if let Some(t) = headline_trace(r) {
            let _ = writeln!(out, "\nshortest trace ({} steps):", t.steps.len());
            out.push_str(&t.text());
            let _ = writeln!(out, "\nmermaid:\n```mermaid\n{}```", mermaid(t, s.clients));
        }
    }
    out
}
