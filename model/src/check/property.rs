//! The properties a check judges, and how each is read off a state or a
//! transition.

use super::system::{Effect, System};
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Property {
    /// At most one client believes it holds the lock.
    MutualExclusion,
    /// Never a state with nothing left to happen (no thread can run, no
    /// message is in flight; faults are not counted on to rescue anyone)
    /// while a client still waits for the lock.
    Deadlock,
    /// No reachable cycle in which a waiting client never acquires (and is
    /// not merely never scheduled).
    Starvation,
    /// No release (a deleting transaction) notifies more than one waiter.
    Herd,
}

impl Property {
    pub const ALL: [Property; 4] = [
        Property::MutualExclusion,
        Property::Deadlock,
        Property::Starvation,
        Property::Herd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Property::MutualExclusion => "mutual exclusion",
            Property::Deadlock => "deadlock",
            Property::Starvation => "starvation",
            Property::Herd => "herd",
        }
    }

    pub fn parse(s: &str) -> Option<Property> {
        let s = s.trim().replace(['-', '_'], " ");
        Property::ALL.into_iter().find(|p| p.name() == s)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Mutual exclusion fails in this state.
pub fn two_holders(s: &System) -> bool {
    s.peers.iter().filter(|p| p.client.holds).count() >= 2
}

/// Deadlock: given the state's enabled non-fault actions.
pub fn stuck(s: &System, progress_possible: bool) -> bool {
    !progress_possible && s.peers.iter().any(|p| p.client.is_waiting())
}

/// Herd: the transition `fx`, taken from `before`, woke more than one waiter.
pub fn herd(before: &System, fx: &Effect) -> bool {
    fx.deleted
        && fx
            .woken
            .iter()
            .filter(|s| {
                before
                    .peers
                    .iter()
                    .any(|p| p.session == **s && p.client.is_waiting())
            })
            .count()
            >= 2
}
