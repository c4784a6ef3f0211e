//! What the command backends' spaces share (Redis, MySQL, etcd): clients
//! that send one command at a time to one server, judged by their phases,
//! with a protected resource and no symmetry reduction (a client's number
//! is in the server's keys, rows or leases). A backend's `Space` impl takes
//! these methods from [`command_space_methods!`] and writes only its own:
//! agents, relabelling, when its lock is free, its sizes and growth; its
//! state's critical sections come from [`command_sections!`].

use super::harness::Property;

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

/// The `Space` methods every command backend writes alike, for a space
/// with `limits` and `clients` fields, `initial_state`, `enabled` and
/// `take` methods, over a `State` with `clients` (each with a `phase` and
/// `alive()`), `foreign_unlock` and `resource`, and an `Action` with
/// `is_fault()`. `command_space_methods!(herd)` judges each transition's
/// herd by the space's own `herd(s, a)`.
macro_rules! command_space_methods {
    () => {
        $crate::engine::command_space::command_space_methods!(@shared);

        fn next(
            &self,
            s: &State,
            a: Action,
            wanted: &mut dyn FnMut(u64) -> bool,
        ) -> $crate::engine::space::Next<State> {
            $crate::engine::space::next_by_apply(self, s, a, wanted)
        }
    };
    (herd) => {
        $crate::engine::command_space::command_space_methods!(@shared);

        /// A release that wakes more than one waiter is a herd: the
        /// transition violates it (as ZooKeeper's checker judges it).
        fn next(
            &self,
            s: &State,
            a: Action,
            wanted: &mut dyn FnMut(u64) -> bool,
        ) -> $crate::engine::space::Next<State> {
            let mut next = $crate::engine::space::next_by_apply(self, s, a, wanted);
            next.herd = self.herd(s, a);
            next
        }
    };
    (@shared) => {
        fn limits(&self) -> $crate::engine::space::Limits {
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

        /// No symmetry reduction: every client keeps its number.
        fn canonical(&self, s: &State) -> $crate::engine::space::Canonical {
            $crate::engine::space::unreduced(s, self.clients)
        }

        fn exact_fingerprint(&self, s: &State) -> u64 {
            $crate::engine::space::hashed(s)
        }

        fn is_fault(&self, a: Action) -> bool {
            a.is_fault()
        }

        fn state_properties(&self) -> &'static [$crate::engine::harness::Property] {
            &$crate::engine::command_space::STATE_PROPERTIES
        }

        fn violated_in(&self, p: $crate::engine::harness::Property, s: &State) -> bool {
            use $crate::engine::harness::{judge, Phase, Property};
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
            $crate::engine::space::client_mask(&s.clients, |c| c.alive() && c.phase.locking())
        }

        fn holders(&self, s: &State) -> u8 {
            $crate::engine::space::client_mask(&s.clients, |c| c.phase.holds())
        }

        /// A command backend's lock can outlive every holder (a key nobody's
        /// code deletes and no TTL ends, a row, a lease not yet run out):
        /// whether it always frees itself is worth asking.
        fn judges_stuck_lock(&self) -> bool {
            true
        }
    };
}

pub(crate) use command_space_methods;

/// The protected resource's bookkeeping ([`Sections`](super::resource::Sections))
/// for a command backend's `State`: its `clients` each carry a `section`,
/// and the state its `resource`.
macro_rules! command_sections {
    ($state:ty) => {
        impl $crate::engine::resource::Sections for $state {
            fn clients(&self) -> usize {
                self.clients.len()
            }

            fn section(&self, c: usize) -> $crate::engine::resource::Section {
                self.clients[c].section
            }

            fn set_section(&mut self, c: usize, s: $crate::engine::resource::Section) {
                self.clients[c].section = s;
            }

            fn resource(&self) -> Option<$crate::engine::resource::Resource> {
                self.resource
            }

            fn set_resource(&mut self, r: $crate::engine::resource::Resource) {
                self.resource = Some(r);
            }
        }
    };
}

pub(crate) use command_sections;
