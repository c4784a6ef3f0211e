//! ZooKeeper's report of an exploration ([`Report::from_exploration`]):
//! the engine's rule for every backend ([`Report::of_backend`]), with
//! ZooKeeper's reasons, traces and symmetry, and what a report is asked.

use super::config::CheckConfig;
use super::property;
use super::system::Action;
use super::trace::render;
use crate::engine::explore::Exploration;
use crate::engine::harness::Property;
use crate::engine::trace::Trace;
use crate::engine::verdict::{BackendJudging, Report, Verdict};

impl Report {
    /// ZooKeeper's report of an exploration: the engine's rule, with its
    /// own reasons for what it does not judge, its own trace rendering,
    /// and its symmetry reduction's.
    pub fn from_exploration(cfg: &CheckConfig, x: &Exploration<Action>) -> Report {
        Report::of_backend(
            x,
            &BackendJudging {
                clients: cfg.clients,
                graph: cfg.starvation,
                symmetry: cfg.symmetry,
                not_judged: &|p| property::not_judged_in(p, cfg),
                render: &|cx| Some(render(cfg, cx)),
            },
        )
    }

    /// The shortest trace that violates `p`, if one was found.
    pub fn trace_of(&self, p: Property) -> Option<&Trace> {
        self.properties
            .iter()
            .find(|r| r.property == p)
            .and_then(|r| r.trace.as_ref())
    }

    pub fn of(&self, p: Property) -> Verdict {
        self.properties
            .iter()
            .find(|r| r.property == p)
            .map(|r| r.verdict)
            .unwrap_or(Verdict::Incomplete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ZooKeeper's report names each client by its own bit without
    /// symmetry, 1-based; with it, every client or none.
    #[test]
    fn a_zookeeper_run_names_the_clients_that_never_acquired() {
        let mut x: Exploration<Action> = Exploration::nothing();
        x.bound = None;
        let mut cfg = CheckConfig::new(crate::zk::recipes::RecipeId::FixedWait, 3, 1);
        for (symmetry, acquired, named) in [
            (false, 0b101, vec![2]),
            (false, 0b011, vec![3]),
            (false, 0b111, vec![]),
            (true, 0b000, vec![1, 2, 3]),
            (true, 0b100, vec![]),
        ] {
            cfg.symmetry = symmetry;
            x.acquired = acquired;
            let report = Report::from_exploration(&cfg, &x);
            assert_eq!(report.never_acquired, named, "{symmetry} {acquired:b}");
            assert_eq!(
                report.verdict == Verdict::Holds,
                named.is_empty(),
                "{symmetry} {acquired:b}"
            );
        }
    }
}
