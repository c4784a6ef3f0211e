//! `locksmith check` on a Redis scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's, with the Redis trace (each command with
//! its reply, the lock's key after every step, ticks and faults).

use super::check_backend::{report_text, BackendScenario};
use super::check_output::{budgets, exploration_json, headline_trace, joined};
use crate::scenario::RedisScenario;
use locksmith_model::engine::explore::Progress;
use locksmith_model::engine::judged::Judged;
use locksmith_model::engine::space::Limits;
use locksmith_model::redis::check::trace::mermaid;
use locksmith_model::zk::check::Report;
use serde_json::json;
use std::ops::ControlFlow;
use std::path::Path;

impl BackendScenario for RedisScenario {
    fn path(&self) -> &Path {
        &self.path
    }

    fn sizes(&mut self) -> (&mut u8, &mut u8, &mut Limits) {
        let s = &mut self.space;
        (&mut s.clients, &mut s.acquisitions, &mut s.limits)
    }

    fn validate(&self) -> Result<(), String> {
        self.space.validate()
    }

    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        self.space.check_with_progress(progress)
    }

    fn to_json(&self, r: &Report) -> serde_json::Value {
        to_json(self, r)
    }

    fn to_text(&self, r: &Report) -> String {
        to_text(self, r)
    }

    fn mermaid(&self, t: &locksmith_model::engine::trace::Trace) -> String {
        mermaid(t, self.space.clients)
    }
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
        "faults": budgets(&s.faults.by_key()),
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| mermaid(t, s.clients)),
    });
    joined(config, exploration_json(r, s.limits.jobs))
}

pub fn to_text(sc: &RedisScenario, r: &Report) -> String {
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
    report_text(&mut out, r);
    out
}
