//! The definitions of the properties that every driver judges alike, written
//! once over lock events and phases. Drivers call these; none re-states them.

use super::phase::Phase;
use super::property::Property;
use std::collections::BTreeMap;

/// Mutual exclusion (by belief) fails when two clients hold at once.
pub fn two_holders(phases: impl IntoIterator<Item = Phase>) -> bool {
    phases.into_iter().filter(|p| p.holds()).count() >= 2
}

/// A release is a herd when it notified more than one waiting client.
pub fn herd(woken_waiters: usize) -> bool {
    woken_waiters >= 2
}

/// FIFO fairness, a figure rather than a property (seed 001 claims its
/// lock is fair): an acquisition is out of order when another client still
/// waiting arrived before the acquirer — called `lock()`, for the first
/// time since its last acquisition, earlier. `arrived` is the acquirer's
/// arrival, `waiting` the arrivals of the others still waiting.
pub fn out_of_order<T: Ord>(arrived: T, waiting: impl IntoIterator<Item = T>) -> bool {
    waiting.into_iter().any(|t| t < arrived)
}

/// The first violation of each property a run saw, with how it happened:
/// what the simulator and the real driver keep (the checker keeps a trace).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations {
    first: BTreeMap<Property, String>,
}

impl Violations {
    /// Records `p` unless it was already violated; returns whether it is new.
    pub fn record(&mut self, p: Property, why: String) -> bool {
        if self.first.contains_key(&p) {
            return false;
        }
        self.first.insert(p, why);
        true
    }

    pub fn get(&self, p: Property) -> Option<&str> {
        self.first.get(&p).map(String::as_str)
    }

    pub fn contains(&self, p: Property) -> bool {
        self.first.contains_key(&p)
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// The headline: the first violated property in [`Property::ALL`]'s order.
    pub fn headline(&self) -> Option<(Property, &str)> {
        Property::ALL
            .into_iter()
            .find_map(|p| self.get(p).map(|why| (p, why)))
    }

    pub fn iter(&self) -> impl Iterator<Item = (Property, &str)> {
        self.first.iter().map(|(p, w)| (*p, w.as_str()))
    }
}
