//! [`EtcdSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::EtcdSpace;
use super::state::{Channel, Client, State};
use crate::engine::harness::Property;
use crate::engine::harness::{judge, Phase};
use crate::engine::space::{
    client_mask, hashed, next_by_apply, unreduced, Canonical, GrowthWords, Limits, Next, Space,
    NO_AGENT,
};
use crate::etcd::Request;

/// The properties an etcd state can violate. Unlock by non-owner is a
/// transition's, read off the mark it leaves in its successor.
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

impl Space for EtcdSpace {
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

    /// A release that wakes more than one waiter is a herd: the
    /// transition violates it (as ZooKeeper's checker judges it).
    fn next(&self, s: &State, a: Action, wanted: &mut dyn FnMut(u64) -> bool) -> Next<State> {
        let mut next = next_by_apply(self, s, a, wanted);
        next.herd = self.herd(s, a);
        next
    }

    /// No symmetry reduction: a client's number is in its leases' ids,
    /// and so in the server's keys.
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
            // The network owes a held-up request its arrival, as the
            // server owes a sent one its serving.
            Action::Serve(c) | Action::LateUnlock(c) => c << 3 | SERVER,
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::Revoke(_)
            | Action::WaiterExpires(_)
            | Action::Compact
            | Action::DelayUnlock(_)
            | Action::Partition(_) => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::Revoke(c) => Action::Revoke(f(c)),
            Action::WaiterExpires(c) => Action::WaiterExpires(f(c)),
            Action::DelayUnlock(c) => Action::DelayUnlock(f(c)),
            Action::LateUnlock(c) => Action::LateUnlock(f(c)),
            Action::Partition(c) => Action::Partition(f(c)),
            Action::Tick | Action::Compact => a,
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

    /// A key can outlive its holder until its lease runs out: whether the
    /// lock always frees itself is worth asking.
    fn judges_stuck_lock(&self) -> bool {
        true
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<Client>()
            + s.server.with_prefix("").count() * 96
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        (s.server.revision(), s.server.with_prefix("").count())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "revision",
            size: "store",
            unit: "keys",
        }
    }

    /// Revisions are kept as they are: every write makes a new one, so
    /// states that differ only in revisions are told apart.
    fn abstracted(&self) -> bool {
        false
    }
}

impl EtcdSpace {
    /// `a`, taken in `s`, is a client's release (its unlock's delete,
    /// served) that fires the watches of two or more clients waiting in
    /// `lock()`.
    pub fn herd(&self, s: &State, a: Action) -> bool {
        let Action::Serve(c) = a else {
            return false;
        };
        let releases = matches!(
            &s.clients[c as usize].channel,
            Channel::Sent(Request::Delete { .. })
        );
        if !releases {
            return false;
        }
        let mut t = s.clone();
        self.take(&mut t, a);
        let woken = (0..s.clients.len())
            .filter(|&d| d != c as usize)
            .filter(|&d| {
                let (b, n) = (&s.clients[d], &t.clients[d]);
                b.channel == Channel::Watching
                    && n.channel != Channel::Watching
                    && b.phase.locking()
            })
            .count();
        judge::herd(woken)
    }
}
