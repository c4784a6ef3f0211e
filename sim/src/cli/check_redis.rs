//! `locksmith check` on a Redis scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's, with the Redis trace (each command with
//! its reply, the lock's key after every step, ticks and faults).

use super::check::{
    exploration_json, figures, headline_trace, interrupted, joined, progress_bar, show, CheckArgs,
};
use crate::scenario::RedisScenario;
use locksmith_model::check::redis::trace::mermaid;
use locksmith_model::check::{Report, Verdict};
use serde_json::json;
use std::ops::ControlFlow;

/// `sc` with the flags applied and checked. `--abstract-sequences` is
/// ZooKeeper's: a Redis state has no sequence numbers, nothing to abstract.
pub fn plan(args: &CheckArgs, mut sc: RedisScenario) -> Result<RedisScenario, String> {
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

pub fn run(args: &CheckArgs, sc: &RedisScenario) -> i32 {
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

pub fn to_json(sc: &RedisScenario, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let s = &sc.space;
    let config = json!({
        "scenario": sc.name,
        "backend": "redis",
        "recipe": sc.recipe().id(),
        "clients": s.clients,
        "acquisitions": s.acquisitions,
        "lease": s.lease,
        "critical_section": s.work,
        "pause": s.pause,
        "skew": s.skew,
        "replica": s.replica,
        "fencing": s.fencing,
        "faults": {
            "pauses": s.faults.pauses,
            "crashes": s.faults.crashes,
            "clock_jumps": s.faults.clock_jumps,
            "restarts": s.faults.restarts,
            "failovers": s.faults.failovers,
            "server_clock_jumps": s.faults.server_clock_jumps,
        },
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| mermaid(t, s.clients)),
    });
    joined(config, exploration_json(r, s.limits.jobs))
}

pub fn to_text(sc: &RedisScenario, r: &Report) -> String {
    use std::fmt::Write;
    let s = &sc.space;
    let replica = if s.replica { ", a replica" } else { "" };
    let fenced = match (s.fencing, s.recipe.token_in_reply()) {
        (false, _) => "",
        (true, false) => ", fenced writes (token from INCR)",
        (true, true) => ", fenced writes (token from the lock script)",
    };
    let how = format!(
        " × {} acquisitions on Redis: lease {} ticks, critical section {}, pause {}, clock skew {}{replica}{fenced}",
        s.acquisitions, s.lease, s.work, s.pause, s.skew
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
