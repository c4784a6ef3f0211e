//! Every command backend as an engine [`Space`]: clients that send one
//! request at a time to one server, judged by their phases, with a
//! protected resource and no symmetry reduction (a client's number is in
//! the server's keys, rows or leases). A backend answers only what is its
//! own ([`Explored`]): who is owed its own actions, when its lock is free,
//! its sizes and growth, and whether a transition is a herd.

use super::action::CommandAction;
use super::backend::StateOf;
use super::step::{self, Steps};
use crate::engine::harness::{judge, Phase, Property};
use crate::engine::space::{
    client_mask, hashed, next_by_apply, unreduced, Canonical, GrowthWords, Limits, Next, Space,
    NO_AGENT,
};

/// The properties a command backend's state can violate. Unlock by
/// non-owner is a transition's, read off the mark it leaves in its
/// successor; the resource's two are read off its sticky bits, with
/// fencing on.
pub const STATE_PROPERTIES: [Property; 5] = [
    Property::MutualExclusion,
    Property::UnlockByNonOwner,
    Property::ThreadDied,
    Property::MutualExclusionAtResource,
    Property::FencedSafety,
];

/// An agent's kind, in the low three bits of a packed agent: the client's
/// process, and the server handling its connection.
pub const PROCESS: u8 = 0;
pub const SERVER: u8 = 1;

/// What the search asks of a command backend's own.
pub trait Explored: Steps {
    /// The agent owed one of the backend's own actions (weak fairness),
    /// packed, or [`NO_AGENT`].
    fn own_agent(&self, a: <Self::Action as CommandAction>::Own) -> u8;
    /// What the backend calls its growth marks ([`Space::growth_words`]).
    const GROWTH_WORDS: GrowthWords;
    /// States that differ only in ids the recipe never reads are one
    /// state already ([`Space::abstracted`]).
    const ABSTRACTED: bool;
    /// The lock is free in `s`: a client that called `lock()` now would
    /// get it ([`Space::acquirable`]).
    fn lock_free(&self, s: &StateOf<Self>) -> bool;
    /// Bytes the server of `s` holds, roughly.
    fn server_bytes(&self, s: &StateOf<Self>) -> usize;
    /// The largest id the server handed out, and the server's size
    /// ([`Space::growth_marks`]).
    fn server_growth(&self, s: &StateOf<Self>) -> (i64, usize);
    /// `a`, taken in `s`, is a release that wakes two or more waiters.
    fn herd(&self, _s: &StateOf<Self>, _a: Self::Action) -> bool {
        false
    }
}

impl<B: Explored> Space for B {
    type State = StateOf<B>;
    type Action = B::Action;

    fn limits(&self) -> Limits {
        self.harness().limits
    }

    fn initial(&self) -> Self::State {
        step::initial(self)
    }

    fn actions(&self, s: &Self::State, out: &mut Vec<B::Action>) {
        self.enabled(s, out);
    }

    fn apply(&self, s: &mut Self::State, a: B::Action) {
        step::take(self, s, a);
    }

    /// A release that wakes more than one waiter is a herd: the
    /// transition violates it (as ZooKeeper's checker judges it).
    fn next(
        &self,
        s: &Self::State,
        a: B::Action,
        wanted: &mut dyn FnMut(u64) -> bool,
    ) -> Next<Self::State> {
        let mut next = next_by_apply(self, s, a, wanted);
        next.herd = self.herd(s, a);
        next
    }

    /// No symmetry reduction: every client keeps its number.
    fn canonical(&self, s: &Self::State) -> Canonical {
        unreduced(s, self.harness().clients)
    }

    fn exact_fingerprint(&self, s: &Self::State) -> u64 {
        hashed(s)
    }

    fn is_fault(&self, a: B::Action) -> bool {
        a.is_fault()
    }

    fn agent(&self, a: B::Action) -> u8 {
        use super::action::Shared;
        match a.split() {
            Ok(Shared::Step(c) | Shared::Think(c)) => c << 3 | PROCESS,
            Ok(Shared::Serve(c)) => c << 3 | SERVER,
            Ok(Shared::Tick | Shared::Pause(_) | Shared::Crash(_)) => NO_AGENT,
            Err(own) => self.own_agent(own),
        }
    }

    fn relabel(&self, a: B::Action, f: &dyn Fn(u8) -> u8) -> B::Action {
        a.relabel(f)
    }

    fn state_properties(&self) -> &'static [Property] {
        &STATE_PROPERTIES
    }

    fn violated_in(&self, p: Property, s: &Self::State) -> bool {
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

    fn stuck(&self, s: &Self::State, progress: bool) -> bool {
        !progress && self.waiting(s) != 0
    }

    fn waiting(&self, s: &Self::State) -> u8 {
        client_mask(&s.clients, |c| c.alive() && c.phase.locking())
    }

    fn holders(&self, s: &Self::State) -> u8 {
        client_mask(&s.clients, |c| c.phase.holds())
    }

    /// A command backend's lock can outlive every holder (a key nobody's
    /// code deletes and no TTL ends, a row, a lease not yet run out):
    /// whether it always frees itself is worth asking.
    fn judges_stuck_lock(&self) -> bool {
        true
    }

    fn acquirable(&self, s: &Self::State) -> bool {
        self.lock_free(s)
    }

    fn state_bytes(&self, s: &Self::State) -> usize {
        std::mem::size_of::<Self::State>()
            + s.clients.len() * std::mem::size_of::<super::backend::ClientOf<B>>()
            + self.server_bytes(s)
    }

    fn growth_marks(&self, s: &Self::State) -> (i64, usize) {
        self.server_growth(s)
    }

    fn growth_words(&self) -> GrowthWords {
        B::GROWTH_WORDS
    }

    fn abstracted(&self) -> bool {
        B::ABSTRACTED
    }
}
