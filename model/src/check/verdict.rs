//! Verdicts: every property ends as holds (the whole reachable graph was
//! explored and nothing broke it), violated (with a shortest trace), or
//! incomplete (a bound stopped the run first — never reported as holds).

use super::config::CheckConfig;
use super::explore::{Bound, Exploration};
use super::property::{self, Property};
use super::trace::{render, Trace};
use serde::Serialize;

pub use crate::harness::Verdict;

#[derive(Clone, Debug, Serialize)]
pub struct PropertyResult {
    pub property: Property,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
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
    pub properties: Vec<PropertyResult>,
}

impl Report {
    pub fn from_exploration(cfg: &CheckConfig, x: &Exploration) -> Report {
        let mut properties = Vec::new();
        for p in Property::ALL {
            let (verdict, trace) = match x.found.get(&p) {
                _ if !property::judged(p) => (Verdict::NotApplicable, None),
                Some(cx) => (Verdict::Violated, Some(render(cfg, cx))),
                None if x.bound.is_none() && (p != Property::Starvation || cfg.starvation) => {
                    (Verdict::Holds, None)
                }
                None => (Verdict::Incomplete, None),
            };
            properties.push(PropertyResult {
                property: p,
                verdict,
                trace,
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
            properties,
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
