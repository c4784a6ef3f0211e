//! Verdicts: every property ends as holds (the whole reachable graph was
//! explored and nothing broke it), violated (with a shortest trace), or
//! incomplete (a bound stopped the run first — never reported as holds).
//!
//! A `holds` also says that every client acquired the lock on some
//! explored path: a harness in which a client never gets the lock would
//! make every property hold for nothing. An exhaustive run in which some
//! client never held the lock reports the properties nothing broke as
//! incomplete, naming those clients ([`Report::never_acquired`]); its
//! violations stand.

use crate::engine::explore::Exploration;
use crate::engine::harness::Property;
use crate::engine::path::Counterexample;
use crate::engine::trace::Trace;
use serde::Serialize;

pub use crate::engine::harness::Verdict;

#[derive(Clone, Debug, Serialize)]
pub struct PropertyResult {
    pub property: Property,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
    /// Why the driver does not judge the property on this run (`n/a`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// The outcome of one check.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The overall verdict: violated if any property is, else incomplete if
    /// any is, else holds.
    pub verdict: Verdict,
    /// The property the overall verdict is about (the first violated one, in
    /// [`Property::ALL`]'s order).
    pub property: Option<Property>,
    pub states: usize,
    pub transitions: usize,
    pub depth: usize,
    pub elapsed_ms: u128,
    pub peak_bytes: usize,
    /// The bound that ended the run, if one did.
    pub bound: Option<String>,
    /// With a bound: why the space was still growing when it was hit.
    pub growth: Option<String>,
    /// Clients (1-based) that hold the lock in no explored state of an
    /// exhaustive run: the properties nothing broke are then incomplete,
    /// not holds.
    pub never_acquired: Vec<u8>,
    pub properties: Vec<PropertyResult>,
    /// States of which the partial-order reduction took only an ample set
    /// (0 with it off).
    pub reduced: usize,
}

/// How a backend judges its explorations, for [`Report::of_backend`].
pub struct BackendJudging<'a, A> {
    pub clients: u8,
    /// The kept graph was kept: starvation and stuck lock are read off it,
    /// and are incomplete without it.
    pub graph: bool,
    /// Its states were reduced by symmetry, clients renamed: one client
    /// holding somewhere means every client does in the renamed states
    /// (the clients are interchangeable, which is what lets symmetry
    /// reduce), so only "nobody ever" is left to report.
    pub symmetry: bool,
    /// Why the backend does not judge a property (n/a), or `None`.
    pub not_judged: &'a dyn Fn(Property) -> Option<&'static str>,
    pub render: &'a dyn Fn(&Counterexample<A>) -> Option<Trace>,
}

impl Report {
    /// A backend's report of an exploration: every property of
    /// [`Property::ALL`], n/a with its reason where the backend does not
    /// judge it, holds only where the exploration was exhaustive and every
    /// client held the lock on some explored path (as for ZooKeeper).
    pub fn of_backend<A>(x: &Exploration<A>, j: &BackendJudging<'_, A>) -> Report {
        let never_acquired: Vec<u8> = match (x.bound.is_some(), j.symmetry) {
            (true, _) => Vec::new(),
            (false, true) if x.acquired == 0 => (1..=j.clients).collect(),
            (false, true) => Vec::new(),
            (false, false) => (0..j.clients)
                .filter(|c| x.acquired & (1 << c) == 0)
                .map(|c| c + 1)
                .collect(),
        };
        let needs_graph = |p| matches!(p, Property::Starvation | Property::StuckLock);
        let properties: Vec<PropertyResult> = Property::ALL
            .into_iter()
            .map(|p| {
                let reason = (j.not_judged)(p);
                let (verdict, trace) = match x.found.get(&p) {
                    _ if reason.is_some() => (Verdict::NotApplicable, None),
                    Some(cx) => (Verdict::Violated, (j.render)(cx)),
                    None if x.bound.is_none()
                        && never_acquired.is_empty()
                        && (!needs_graph(p) || j.graph) =>
                    {
                        (Verdict::Holds, None)
                    }
                    None => (Verdict::Incomplete, None),
                };
                PropertyResult {
                    property: p,
                    verdict,
                    trace,
                    reason,
                }
            })
            .collect();
        let first = |v: Verdict| properties.iter().find(|r| r.verdict == v);
        let (verdict, property) = match (first(Verdict::Violated), first(Verdict::Incomplete)) {
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
            bound: x.bound.map(|b| b.to_string()),
            growth: x.growth.clone(),
            never_acquired,
            properties,
            reduced: x.reduced,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Redis or SQL run in which client 2 never held the lock names it,
    /// 1-based as everywhere, and holds nothing.
    #[test]
    fn a_backend_names_the_client_that_never_acquired() {
        let mut x: Exploration<()> = Exploration::nothing();
        x.bound = None;
        x.acquired = 0b01;
        let report = Report::of_backend(
            &x,
            &BackendJudging {
                clients: 2,
                graph: true,
                symmetry: false,
                not_judged: &|_| None,
                render: &|_| None,
            },
        );
        assert_eq!(report.never_acquired, [2]);
        assert_ne!(report.verdict, Verdict::Holds);
    }
}
