//! `locksmith check` on a command backend's scenario (Redis, MySQL,
//! etcd): one [`Checked`] for all of them. A command backend brings only
//! what its configuration says of itself ([`CommandCheck`], in its own
//! folder: `redis/check.rs`, …).

use super::flags::{CheckArgs, Sizes};
use super::output::{budgets, exploration_json, headline_trace, joined, report_text};
use super::Checked;
use crate::scenario::{CommandScenario, CommandSpace};
use locksmith_model::engine::{Judged, Progress, Report, Trace};
use std::ops::ControlFlow;

/// What `check` needs of a command backend's configuration (its checker
/// space) beyond what every backend has.
pub trait CommandCheck: CommandSpace {
    /// Its own settings in `--json` (time, switches), by their keys.
    fn settings_json(&self) -> serde_json::Map<String, serde_json::Value>;
    /// The title line's tail: " × N acquisitions on <backend>: …".
    fn how(&self) -> String;
}

impl<S: CommandCheck> Checked for CommandScenario<S> {
    /// The flags applied (`--por` and `--abstract-sequences` were refused
    /// as the file loaded: no command backend declares them).
    fn apply(&mut self, a: &CheckArgs) -> Result<(), String> {
        let (clients, acquisitions, limits) = self.space.sizes();
        a.apply(Sizes {
            clients,
            acquisitions,
            max_states: &mut limits.max_states,
            max_memory: &mut limits.max_memory,
            jobs: &mut limits.jobs,
        });
        self.space
            .validate_config()
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        Judged::check_with_progress(&self.space, progress)
    }

    fn to_json(&self, r: &Report) -> serde_json::Value {
        to_json(self, r)
    }

    fn to_text(&self, r: &Report) -> String {
        to_text(self, r)
    }

    fn mermaid(&self, t: &Trace) -> String {
        self.space.mermaid(t)
    }
}

/// `check --json` of a command backend's scenario.
pub fn to_json<S: CommandCheck>(sc: &CommandScenario<S>, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let s = &sc.space;
    let mut config = s.settings_json();
    let common = [
        ("scenario", serde_json::json!(sc.name)),
        ("backend", crate::backend::key(S::BACKEND).into()),
        ("recipe", s.recipe_id().into()),
        ("clients", s.clients().into()),
        ("acquisitions", s.acquisitions().into()),
        ("faults", budgets(&s.fault_budgets())),
        ("trace", serde_json::json!(trace.map(|t| &t.steps))),
        ("mermaid", serde_json::json!(trace.map(|t| s.mermaid(t)))),
    ];
    config.extend(common.map(|(k, v)| (k.to_string(), v)));
    joined(config.into(), exploration_json(r, s.limits().jobs))
}

/// `check`'s text report of a command backend's scenario.
pub fn to_text<S: CommandCheck>(sc: &CommandScenario<S>, r: &Report) -> String {
    let s = &sc.space;
    let mut out = crate::title::title(&sc.name, s.recipe_id(), s.clients(), &s.how());
    report_text(&mut out, r);
    out
}
