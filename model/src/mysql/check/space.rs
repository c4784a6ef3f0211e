//! [`MysqlSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::MysqlSpace;
use super::state::{Client, State};
use crate::engine::agent::Agent;
use crate::engine::harness::Property;
use crate::engine::harness::{judge, Phase};
use crate::engine::space::{
    client_mask, hashed, next_by_apply, unreduced, Canonical, GrowthWords, Limits, Next, Space,
    NO_AGENT,
};

/// The properties a MySQL state can violate. Unlock by non-owner is a
/// transition's, read off the mark it leaves in its successor.
/// The resource's two are read off its sticky bits, with fencing on.
const STATE_PROPERTIES: [Property; 5] = [
    Property::MutualExclusion,
    Property::UnlockByNonOwner,
    Property::ThreadDied,
    Property::MutualExclusionAtResource,
    Property::FencedSafety,
];

/// An agent's kind, in the low three bits of a packed agent.
const PROCESS: u8 = 0;
const SERVER: u8 = 1;

impl Space for MysqlSpace {
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
            // The server owes a connection the network dropped its notice
            // (wait_timeout), as it owes a statement its run.
            Action::Serve(c) | Action::ServerNotices(c) => c << 3 | SERVER,
            // The cleanup job runs on its schedule: weak fairness owes it a
            // step, as the reaper's, a periodic job of no client's.
            Action::Cleanup => Agent::REAPER.pack(),
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::DropConnection(_)
            | Action::NetworkDrop(_)
            | Action::Restart => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::DropConnection(c) => Action::DropConnection(f(c)),
            Action::NetworkDrop(c) => Action::NetworkDrop(f(c)),
            Action::ServerNotices(c) => Action::ServerNotices(f(c)),
            Action::Tick | Action::Cleanup | Action::Restart => a,
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

    /// A database lock has no expiry: a row can outlive every holder.
    fn judges_stuck_lock(&self) -> bool {
        true
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<Client>()
            + s.server.table().rows.len() * 96
            + s.server.locks().iter().count() * 64
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        let next = i64::try_from(s.server.table().next_id).unwrap_or(i64::MAX);
        (next, s.server.table().rows.len())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "AUTO_INCREMENT id",
            size: "lock table",
            unit: "rows",
        }
    }

    /// Time is relative and ids are renumbered: nothing grows without
    /// bound.
    fn abstracted(&self) -> bool {
        true
    }
}
