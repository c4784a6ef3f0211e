//! [`RedisSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::RedisSpace;
use super::state::{Client, State};
use crate::engine::harness::Property;
use crate::engine::harness::{judge, Phase};
use crate::engine::space::{
    client_mask, hashed, next_by_apply, unreduced, Canonical, GrowthWords, Limits, Next, Space,
    NO_AGENT,
};

/// The properties a Redis state can violate.
/// Unlock by non-owner is a transition's, read off the mark the
/// transition leaves in its successor.
/// The resource's two are read off its sticky bits, with fencing on.
const STATE_PROPERTIES: [Property; 5] = [
    Property::MutualExclusion,
    Property::UnlockByNonOwner,
    Property::ThreadDied,
    Property::MutualExclusionAtResource,
    Property::FencedSafety,
];

/// An agent's kind, in the low three bits of a packed agent: the client's
/// process, and the server handling its connection.
const PROCESS: u8 = 0;
const SERVER: u8 = 1;

impl Space for RedisSpace {
    type State = State;
    type Action = Action;

    fn limits(&self) -> Limits {
        self.limits
    }

    fn initial(&self) -> State {
        self.initial_state()
    }

    fn actions(&self, s: &State, out: &mut Vec<Action>) {
        self.enabled(s, out);
    }

    fn apply(&self, s: &mut State, a: Action) {
        self.take(s, a);
    }

    fn next(&self, s: &State, a: Action, wanted: &mut dyn FnMut(u64) -> bool) -> Next<State> {
        next_by_apply(self, s, a, wanted)
    }

    /// No symmetry reduction: every client keeps its number.
    fn canonical(&self, s: &State) -> Canonical {
        unreduced(s, self.clients)
    }

    fn exact_fingerprint(&self, s: &State) -> u64 {
        hashed(s)
    }

    fn is_fault(&self, a: Action) -> bool {
        a.is_fault()
    }

    fn agent(&self, a: Action) -> u8 {
        match a {
            Action::Step(c) | Action::Think(c) => c << 3 | PROCESS,
            Action::Serve(c) => c << 3 | SERVER,
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::ClockAhead(_)
            | Action::ClockBack(_)
            | Action::ServerClockAhead
            | Action::ServerClockBack
            | Action::Replicate
            | Action::Restart
            | Action::Failover => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::ClockAhead(c) => Action::ClockAhead(f(c)),
            Action::ClockBack(c) => Action::ClockBack(f(c)),
            Action::Tick
            | Action::ServerClockAhead
            | Action::ServerClockBack
            | Action::Replicate
            | Action::Restart
            | Action::Failover => a,
        }
    }

    fn state_properties(&self) -> &'static [Property] {
        &STATE_PROPERTIES
    }

    fn violated_in(&self, p: Property, s: &State) -> bool {
        match p {
            Property::MutualExclusion => judge::two_holders(s.clients.iter().map(|c| c.phase)),
            Property::UnlockByNonOwner => s.foreign_unlock,
            Property::ThreadDied => s.clients.iter().any(|c| c.phase == Phase::Died),
            Property::MutualExclusionAtResource | Property::FencedSafety => {
                s.resource.is_some_and(|r| r.violates(p))
            }
            _ => false,
        }
    }

    fn stuck(&self, s: &State, progress: bool) -> bool {
        !progress && self.waiting(s) != 0
    }

    fn waiting(&self, s: &State) -> u8 {
        client_mask(&s.clients, |c: &Client| c.alive() && c.phase.locking())
    }

    fn holders(&self, s: &State) -> u8 {
        client_mask(&s.clients, |c: &Client| c.phase.holds())
    }

    /// A lease lock can outlive every holder: a key nobody's code deletes
    /// and no TTL ends.
    fn judges_stuck_lock(&self) -> bool {
        true
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server, i64::from(self.lease))
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<super::state::Client>()
            + s.server.keys().len() * 96
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        (0, s.server.keys().len())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "id",
            size: "keyspace",
            unit: "keys",
        }
    }

    /// Nothing in a state grows without bound: no counter, no id.
    fn abstracted(&self) -> bool {
        true
    }
}
