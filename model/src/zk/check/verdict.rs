//! ZooKeeper's report of an exploration ([`Report::from_exploration`]):
//! every property judged as its checker judges it, and a `holds` only when
//! every client acquired the lock on some explored path.

use super::config::CheckConfig;
use super::property;
use super::system::Action;
use super::trace::render;
use crate::engine::explore::{Bound, Exploration};
use crate::engine::harness::Property;
use crate::engine::trace::Trace;
use crate::engine::verdict::{PropertyResult, Report, Verdict};

impl Report {
    pub fn from_exploration(cfg: &CheckConfig, x: &Exploration<Action>) -> Report {
        let never_acquired = never_acquired(cfg, x);
        let mut properties = Vec::new();
        for p in Property::ALL {
            let reason = property::not_judged_in(p, cfg);
            let (verdict, trace) = match x.found.get(&p) {
                _ if reason.is_some() => (Verdict::NotApplicable, None),
                Some(cx) => (Verdict::Violated, Some(render(cfg, cx))),
                None if x.bound.is_none()
                    && never_acquired.is_empty()
                    && (p != Property::Starvation || cfg.starvation) =>
                {
                    (Verdict::Holds, None)
                }
                None => (Verdict::Incomplete, None),
            };
            properties.push(PropertyResult {
                property: p,
                verdict,
                trace,
                reason,
            });
        }
        let violated = properties.iter().find(|r| r.verdict == Verdict::Violated);
        let incomplete = properties.iter().find(|r| r.verdict == Verdict::Incomplete);
        let (verdict, property) = match (violated, incomplete) {
            (Some(v), _) => (Verdict::Violated, Some(v.property)),
            (None, Some(i)) => (Verdict::Incomplete, Some(i.property)),
            (None, None) => (Verdict::Holds, None),
        };
        Report {
            verdict,
            property,
            states: x.states,
            transitions: x.transitions,
            depth: x.depth,
            elapsed_ms: x.elapsed_ms,
            peak_bytes: x.peak_bytes,
            bound: x.bound.map(|b: Bound| b.to_string()),
            growth: x.growth.clone(),
            never_acquired,
            properties,
            reduced: x.reduced,
        }
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

/// The clients (1-based) that held the lock in no state of an exhaustive
/// run. Under symmetry the explored states are canonical, clients renamed:
/// one client holding somewhere means every client does in the renamed
/// states (the clients are interchangeable, which is what lets symmetry
/// reduce), so only "nobody ever" is left to report.
fn never_acquired(cfg: &CheckConfig, x: &Exploration<Action>) -> Vec<u8> {
    if x.bound.is_some() {
        return Vec::new();
    }
    let held = |c: u8| x.acquired & (1 << c) != 0;
    if cfg.symmetry {
        if x.acquired == 0 {
            return (1..=cfg.clients).collect();
        }
        return Vec::new();
    }
    (0..cfg.clients)
        .filter(|&c| !held(c))
        .map(|c| c + 1)
        .collect()
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
