//! Expanding a batch of one BFS level: every enabled action of every state.
//!
//! Expansion is the costly part of a search (a successor is made, judged
//! and fingerprinted for every transition) and needs nothing but the
//! parents and the visited set of earlier levels, which no one changes
//! meanwhile, so worker threads do it ([`pipeline`](super::pipeline)). The
//! records come back in (parent, action) order, and the explorer numbers
//! new states as it merges them in that order.

use super::config::CheckConfig;
use super::graph::{Graph, Renumbering};
use super::property;
use super::symmetry::canonical;
use super::system::{Agent, System};

/// Parents whose successors are checked against each other before they are
/// merged.
const SEEN_PARENTS: usize = 16;

/// One expanded state.
pub struct Parent {
    /// Nothing but faults can happen while a client waits.
    pub stuck: bool,
    /// Some action is enabled (a state at the depth bound that has one makes
    /// the run incomplete).
    pub has_actions: bool,
    /// For the kept graph: who waits.
    pub waiting: u8,
    /// Its successors: `successors[first..first + count]` of the batch.
    pub first: usize,
    pub count: usize,
}

/// One transition, in the parent's action order.
pub struct Successor {
    pub fingerprint: u64,
    /// The successor's client order (see [`canonical`]).
    pub order: Renumbering,
    /// The agent that acted ([`Agent::pack`]).
    pub actor: u8,
    /// The transition violates the herd property.
    pub herd: bool,
    /// The state's id, if it was found before.
    pub known: Option<u32>,
    /// The state, if no earlier level and no earlier successor of this
    /// batch found it, with the state properties it violates (a bit per
    /// [`property::STATE_PROPERTIES`] entry).
    pub fresh: Option<(System<'static>, u8)>,
}

/// A batch's parents and successors, in order.
#[derive(Default)]
pub struct Batch {
    pub parents: Vec<Parent>,
    pub successors: Vec<Successor>,
}

/// Expands `states` (successors only if `expand`; states at the depth
/// bound are judged but not expanded).
/// `known` gives the id of a state found before (by an earlier level, or an
/// earlier batch when there is one thread).
pub fn expand(
    cfg: &CheckConfig,
    known: &dyn Fn(u64) -> Option<u32>,
    states: &[System],
    expand: bool,
) -> Batch {
    let mut out = Batch::default();
    let mut seen = Vec::new();
    for (i, s) in states.iter().enumerate() {
        // Neighbouring parents reach the same successors most often; a
        // short list of what they reached is cheaper to search than a set.
        if i % SEEN_PARENTS == 0 {
            seen.clear();
        }
        expand_one(cfg, known, &mut seen, s, expand, &mut out);
    }
    out
}

/// Judges `state` and, if `expand`, makes and fingerprints its successors.
fn expand_one(
    cfg: &CheckConfig,
    known_id: &dyn Fn(u64) -> Option<u32>,
    seen: &mut Vec<u64>,
    state: &System,
    expand: bool,
    out: &mut Batch,
) {
    let mut actions = Vec::new();
    state.actions(&mut actions);
    let progress = actions.iter().any(|a| !a.is_fault());
    let waiting = Graph::waiting(state);
    let first = out.successors.len();
    if expand {
        for &a in &actions {
            let mut next = state.lend();
            let fx = next.apply(a, false);
            if cfg.abstract_sequences {
                super::sequences::abstract_state(&mut next);
            }
            let canon = canonical(&next, cfg.symmetry);
            let known = known_id(canon.fingerprint);
            // A state a neighbouring parent reached already is
            // merged after that one, which carries it: drop it now, while
            // it is still in the cache.
            let first_here = known.is_none() && !seen.contains(&canon.fingerprint);
            if first_here {
                seen.push(canon.fingerprint);
            }
            let fresh = first_here.then(|| {
                let violated = property::STATE_PROPERTIES
                    .iter()
                    .enumerate()
                    .filter(|(_, &p)| property::violated_in(p, &next))
                    .fold(0u8, |bits, (i, _)| bits | 1 << i);
                (next.into_held(), violated)
            });
            out.successors.push(Successor {
                fingerprint: canon.fingerprint,
                order: canon.order,
                actor: a.agent().map_or(Agent::NONE, Agent::pack),
                herd: property::herd(state, &fx),
                known,
                fresh,
            });
        }
    }
    out.parents.push(Parent {
        stuck: property::stuck(state, progress),
        has_actions: !actions.is_empty(),
        waiting,
        first,
        count: out.successors.len() - first,
    });
}
