//! `locksmith check` on a MySQL scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's and Redis's, with the MySQL trace (each
//! statement with its reply or its lock wait, the lock row after every
//! step, ticks and faults).

use super::check_backend::{report_text, BackendScenario};
use super::check_output::{budgets, exploration_json, headline_trace, joined};
use crate::scenario::MysqlScenario;
use locksmith_model::engine::explore::Progress;
use locksmith_model::engine::judged::Judged;
use locksmith_model::engine::space::Limits;
use locksmith_model::mysql::check::trace::mermaid;
use locksmith_model::zk::check::Report;
use serde_json::json;
use std::ops::ControlFlow;
use std::path::Path;

impl BackendScenario for MysqlScenario {
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
        "faults": budgets(&s.faults.by_key()),
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| mermaid(t, s.clients)),
    });
    joined(config, exploration_json(r, s.limits.jobs))
}

pub fn to_text(sc: &MysqlScenario, r: &Report) -> String {
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
    report_text(&mut out, r);
    out
}
