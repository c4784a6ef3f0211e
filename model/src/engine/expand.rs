//! Expanding a batch of one BFS level: every enabled action of every state.
//!
//! Expansion is the costly part of a search (a successor is made, judged
//! and fingerprinted for every transition) and needs nothing but the
//! parents and the visited set, which only grows meanwhile (and what it
//! holds decides the work, not the result), so worker threads do it
//! ([`pipeline`](super::pipeline)). The
//! records come back in (parent, action) order, and the explorer numbers
//! new states as it merges them in that order.

use super::graph::Renumbering;
use super::space::Space;

/// Successors a state has, for sizing a batch's list (about 3.5 in the
/// benchmark's cases).
const SUCCESSORS: usize = 4;

/// One expanded state.
pub struct Parent {
    /// Nothing but faults can happen while a client waits.
    pub stuck: bool,
    /// Some action is enabled (a state at the depth bound that has one makes
    /// the run incomplete).
    pub has_actions: bool,
    /// For the kept graph: who waits.
    pub waiting: u8,
    /// For the stuck-lock analysis ([`super::stuck`]), when the space
    /// judges it: the lock is free in the state.
    pub free: bool,
    /// Only an ample set of its actions was taken ([`crate::zk::check::por`]).
    pub reduced: bool,
    /// How many successors it has in the batch.
    pub count: usize,
}

/// One transition, in the parent's action order.
pub struct Successor {
    pub fingerprint: u64,
    /// The successor's client order (see [`Space::canonical`]).
    pub order: Renumbering,
    /// The agent that acted ([`Space::agent`]).
    pub actor: u8,
    /// The transition violates the herd property.
    pub herd: bool,
    /// The state's id, if it was found before.
    pub known: Option<u32>,
    /// Where the state is in [`Batch::fresh`], if no earlier level and no
    /// earlier successor of this batch found it.
    pub fresh: Option<u32>,
    /// The partial-order reduction left this action out: nothing above is
    /// filled in but `actor` (see [`crate::zk::check::por`]).
    pub not_taken: bool,
}

impl Successor {
    /// An action left out of an ample set: only who would have acted.
    fn not_taken(actor: u8) -> Successor {
        Successor {
            fingerprint: 0,
            order: Renumbering::IDENTITY,
            actor,
            herd: false,
            known: None,
            fresh: None,
            not_taken: true,
        }
    }
}

/// A batch's parents and successors, in order, and the successors' states
/// that were built. The states are apart from the successor records (a
/// state is large, and most successors were found before and carry none):
/// the records stay small, and each state is moved once on its way to the
/// merger.
pub struct Batch<S> {
    pub parents: Vec<Parent>,
    pub successors: Vec<Successor>,
    /// Each with the state properties it violates (a bit per
    /// [`Space::state_properties`] entry); taken by the merger.
    pub fresh: Vec<Option<(S, u8)>>,
}

/// Expands `states` (successors only if `expand`; states at the depth
/// bound are judged but not expanded).
/// `known` gives the id of a state found before (by an earlier level, or an
/// earlier batch of this one); `earlier` says whether it was found before
/// the level began (at most as deep as the states expanded: an edge
/// to one may close a cycle, which the partial-order reduction's proviso
/// must see).
pub fn expand<X: Space>(
    space: &X,
    known: &dyn Fn(u64) -> Option<u32>,
    earlier: &dyn Fn(u64) -> bool,
    states: &[X::State],
    expand: bool,
) -> Batch<X::State> {
    // Sized for a few successors a state: a successor record holds a whole
    // state, and growing the list copies every record made so far.
    let mut out = Batch {
        parents: Vec::with_capacity(states.len()),
        successors: Vec::with_capacity(if expand { states.len() * SUCCESSORS } else { 0 }),
        fresh: Vec::with_capacity(if expand { states.len() } else { 0 }),
    };
    let mut seen = Seen::with_room(if expand { states.len() * SUCCESSORS } else { 0 });
    let mut actions = Vec::new();
    let lookup = Lookup { known, earlier };
    for s in states {
        expand_one(space, &lookup, &mut seen, &mut actions, s, expand, &mut out);
    }
    out
}

/// The fingerprints a batch's successors reached so far: an open-addressing
/// set of the fingerprints themselves (uniform already), sized for the batch.
struct Seen {
    slots: Vec<u64>,
    len: usize,
}

impl Seen {
    fn with_room(n: usize) -> Seen {
        Seen {
            slots: vec![0; (2 * n).next_power_of_two().max(8)],
            len: 0,
        }
    }

    /// Adds `fingerprint`; whether it was not there yet. A set three
    /// quarters full takes no more and answers yes: such a successor may
    /// be built twice, and is merged once all the same.
    fn insert(&mut self, fingerprint: u64) -> bool {
        let k = fingerprint.max(1);
        let mask = self.slots.len() - 1;
        let mut i = k as usize & mask;
        loop {
            match self.slots[i] {
                0 if 4 * self.len >= 3 * self.slots.len() => return true,
                0 => {
                    self.slots[i] = k;
                    self.len += 1;
                    return true;
                }
                f if f == k => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// What a batch's expansion asks of the visited set.
struct Lookup<'a> {
    known: &'a dyn Fn(u64) -> Option<u32>,
    earlier: &'a dyn Fn(u64) -> bool,
}

/// Judges `state` and, if `expand`, makes and fingerprints its successors:
/// every one, or those of an ample set when the space offers one and none
/// of them leads back to an earlier level (the cycle proviso: every cycle
/// of the reduced graph closes through such an edge, so each has a state
/// whose every action was taken). A successor left out keeps its place in
/// the action order, marked as not taken.
fn expand_one<X: Space>(
    space: &X,
    lookup: &Lookup,
    seen: &mut Seen,
    actions: &mut Vec<X::Action>,
    state: &X::State,
    expand: bool,
    out: &mut Batch<X::State>,
) {
    actions.clear();
    space.actions(state, actions);
    let progress = actions.iter().any(|&a| !space.is_fault(a));
    let waiting = space.waiting(state);
    let free = space.judges_stuck_lock() && space.acquirable(state);
    let first = out.successors.len();
    let mut reduced = false;
    if expand {
        let ample = space.ample(state, actions);
        reduced = ample != 0;
        let mut back = false;
        for (k, &a) in actions.iter().enumerate() {
            if reduced && ample >> k & 1 == 0 {
                out.successors.push(Successor::not_taken(space.agent(a)));
                continue;
            }
            let succ = successor(space, lookup, seen, state, a, &mut out.fresh);
            back |= (lookup.earlier)(succ.fingerprint);
            out.successors.push(succ);
        }
        if reduced && back {
            reduced = false;
            for (k, &a) in actions.iter().enumerate() {
                if ample >> k & 1 == 0 {
                    out.successors[first + k] =
                        successor(space, lookup, seen, state, a, &mut out.fresh);
                }
            }
        }
    }
    out.parents.push(Parent {
        stuck: space.stuck(state, progress),
        has_actions: !actions.is_empty(),
        waiting,
        free,
        reduced,
        count: out.successors.len() - first,
    });
}

/// The transition `a` makes from `state`, fingerprinted, its state built
/// (and put in `fresh`) only if no earlier level and no earlier parent of
/// the batch reached it.
fn successor<X: Space>(
    space: &X,
    lookup: &Lookup,
    seen: &mut Seen,
    state: &X::State,
    a: X::Action,
    fresh: &mut Vec<Option<(X::State, u8)>>,
) -> Successor {
    let mut known = None;
    let next = space.next(state, a, &mut |fingerprint| {
        known = (lookup.known)(fingerprint);
        // A state an earlier parent of the batch reached already is
        // merged after that one, which carries it: drop it now, while it
        // is still in the cache.
        known.is_none() && seen.insert(fingerprint)
    });
    Successor {
        fingerprint: next.canonical.fingerprint,
        order: next.canonical.order,
        actor: next.actor,
        herd: next.herd,
        known,
        fresh: next.fresh.map(|f| {
            fresh.push(Some(f));
            (fresh.len() - 1) as u32
        }),
        not_taken: false,
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;

    /// A batch builds a successor it has met already only once its set is
    /// three quarters full: from then on every fingerprint is let through
    /// (and merged with its twin later), none kept.
    #[test]
    fn a_repeat_is_turned_away_while_the_set_has_room() {
        let mut seen = Seen::with_room(4);
        assert_eq!(seen.slots.len(), 8);
        for f in 1..=6 {
            assert!(seen.insert(f), "{f} is new");
            assert!(!seen.insert(f), "{f} again");
        }
        assert!(seen.insert(7));
        assert!(seen.insert(7), "six of eight slots taken: let through");
        assert!(!seen.insert(1));
        assert_eq!(seen.len, 6);
    }
}
