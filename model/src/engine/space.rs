//! The seam between the explorer and what it explores: a [`Space`] is a
//! system of one backend (ZooKeeper's [`System`](crate::zk::check::system::System),
//! Redis's next) as the breadth-first
//! search, the starvation analysis and the trace replay see it — an initial
//! state, the enabled actions in a deterministic order, the successor an
//! action makes, a fingerprint under the symmetry reduction, and the
//! properties a state or a transition breaks. Everything else about the
//! backend (its server model, its clients, its faults) stays behind it, so
//! a new backend brings a `Space` and reuses the search, its bounds, its
//! parallel levels and its shortest-trace guarantee unchanged.

use super::graph::Renumbering;
pub use super::growth::GrowthWords;
use crate::engine::harness::Property;
use std::fmt;

/// The bounds and switches of one run, whatever the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_states: usize,
    pub max_memory: usize,
    pub max_depth: usize,
    pub max_time: Option<std::time::Duration>,
    /// Keep the state graph for the cycle and reachability analyses.
    pub starvation: bool,
    pub jobs: usize,
}

/// A state's identity for the explorer: its fingerprint under the
/// symmetry reduction, and the order its clients sort in (canonical
/// position `j` holds client `order.old(j)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    pub fingerprint: u64,
    pub order: Renumbering,
}

/// One transition as the explorer keeps it.
pub struct Next<S> {
    pub canonical: Canonical,
    /// The agent that acted, packed ([`NO_AGENT`] for a fault).
    pub actor: u8,
    /// The transition itself violates a property (the herd).
    pub herd: bool,
    /// The successor with the state properties it violates (a bit per
    /// [`Space::state_properties`] entry), when the explorer asked for it.
    pub fresh: Option<(S, u8)>,
}

/// The packed agent of an action nobody is owed (a fault).
pub const NO_AGENT: u8 = u8::MAX;

/// The most clients the checker explores, on any backend: its graph keeps
/// a byte of per-client bits per state, a client one bit of the explorer's
/// `u8` masks.
pub const MAX_CLIENTS: u8 = 8;

pub trait Space: Sync {
    /// A state as the explorer keeps it.
    type State: Send + Sync + 'static;
    type Action: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync;

    fn limits(&self) -> Limits;
    fn initial(&self) -> Self::State;
    /// The enabled actions of `s`, in a deterministic order (a path is
    /// recorded as ordinals into this list).
    fn actions(&self, s: &Self::State, out: &mut Vec<Self::Action>);
    /// The actions of `actions` (the enabled actions of `s`, in order) that
    /// make an ample set, a bit per position; `0` when there is none and
    /// every action is taken ([`crate::zk::check::por`]). Only a space that keeps
    /// partial-order reduction on answers anything but `0`.
    fn ample(&self, _s: &Self::State, _actions: &[Self::Action]) -> u64 {
        0
    }
    /// Takes `a` in `s` (for replays).
    fn apply(&self, s: &mut Self::State, a: Self::Action);
    /// The successor `a` makes from `s`; its state only if `wanted` says so
    /// of its fingerprint (a state found before is not built twice).
    fn next(
        &self,
        s: &Self::State,
        a: Self::Action,
        wanted: &mut dyn FnMut(u64) -> bool,
    ) -> Next<Self::State>;
    /// New states the explorer keeps (a batch's), made to share their parts
    /// with equal parts of the states kept before (called by the one
    /// merging thread, once a batch: a lock taken for every state was a
    /// tenth of the merge's time, waiting for the stores before it).
    fn keep(&self, _states: &mut [Self::State]) {}
    fn canonical(&self, s: &Self::State) -> Canonical;
    /// The state's fingerprint with every client keeping its number: two
    /// states with equal fingerprints are the same state, not permutations.
    fn exact_fingerprint(&self, s: &Self::State) -> u64;

    fn is_fault(&self, a: Self::Action) -> bool;
    /// The agent that takes `a`, packed (client in the high five bits), or
    /// [`NO_AGENT`].
    fn agent(&self, a: Self::Action) -> u8;
    /// `a` with its client renamed by `f`.
    fn relabel(&self, a: Self::Action, f: &dyn Fn(u8) -> u8) -> Self::Action;

    /// The properties a single state can violate (at most eight).
    fn state_properties(&self) -> &'static [Property];
    fn violations(&self, s: &Self::State) -> u8 {
        self.state_properties()
            .iter()
            .enumerate()
            .filter(|(_, &p)| self.violated_in(p, s))
            .fold(0, |bits, (i, _)| bits | 1 << i)
    }
    fn violated_in(&self, p: Property, s: &Self::State) -> bool;
    /// Deadlock: a client waits and, besides faults, nothing can happen
    /// (`progress`: some non-fault action is enabled).
    fn stuck(&self, s: &Self::State, progress: bool) -> bool;
    /// Who waits for the lock (bit c: client c).
    fn waiting(&self, s: &Self::State) -> u8;
    /// Who believes it holds the lock (bit c: client c).
    fn holders(&self, s: &Self::State) -> u8;
    /// Whether the search judges stuck lock (reachability in the kept
    /// graph): a backend whose lock can outlive every holder says so.
    fn judges_stuck_lock(&self) -> bool {
        false
    }
    /// The lock is free in `s`: a client that called `lock()` now would
    /// get it. Read only when [`Space::judges_stuck_lock`].
    fn acquirable(&self, _s: &Self::State) -> bool {
        false
    }

    /// Bytes a queued state holds of its own, roughly.
    fn state_bytes(&self, s: &Self::State) -> usize;
    /// Bytes held by the parts [`Space::keep`] shares between states,
    /// roughly.
    fn kept_bytes(&self) -> usize {
        0
    }
    /// The counters that tell a space without end from a wide one: the
    /// largest id the server handed out, and the server's size.
    fn growth_marks(&self, s: &Self::State) -> (i64, usize);
    /// What the backend calls those two counters, for a bound's
    /// explanation ([`Growth::explain`](super::growth::Growth::explain)).
    fn growth_words(&self) -> GrowthWords;
    /// States that differ only in ids the recipe never reads are one
    /// state already (so a rising counter means what the recipe reads).
    fn abstracted(&self) -> bool;
}

/// [`Space::next`] for a space whose successor is a clone of the state
/// with the action applied ([`Space::apply`]), judged only when it is new:
/// what a backend without memoized steps writes (Redis, MySQL).
pub fn next_by_apply<X: Space>(
    space: &X,
    s: &X::State,
    a: X::Action,
    wanted: &mut dyn FnMut(u64) -> bool,
) -> Next<X::State>
where
    X::State: Clone,
{
    let mut t = s.clone();
    space.apply(&mut t, a);
    let canonical = space.canonical(&t);
    let fresh = wanted(canonical.fingerprint).then(|| {
        let v = space.violations(&t);
        (t, v)
    });
    Next {
        canonical,
        actor: space.agent(a),
        herd: false,
        fresh,
    }
}

/// A state's identity in a space without symmetry reduction (Redis, MySQL,
/// etcd): its whole value hashed, every client keeping its number.
pub fn unreduced<S: std::hash::Hash>(s: &S, clients: u8) -> Canonical {
    let order: Vec<u8> = (0..clients).collect();
    Canonical {
        fingerprint: hashed(s),
        order: Renumbering::of(&order),
    }
}

/// A state's fingerprint: its whole value hashed.
pub fn hashed<S: std::hash::Hash>(s: &S) -> u64 {
    use std::hash::Hasher;
    let mut h = super::fingerprint::FoldHasher::default();
    s.hash(&mut h);
    h.finish()
}

/// The clients `f` picks, one bit each (bit `i`: the `i`th client).
pub fn client_mask<C>(clients: &[C], f: impl Fn(&C) -> bool) -> u8 {
    (0u8..)
        .zip(clients)
        .filter(|(_, c)| f(c))
        .fold(0, |m, (i, _)| m | 1 << i)
}
