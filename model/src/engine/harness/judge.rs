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

/// FIFO fairness, a figure rather than a property (source 001 claims its
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Out of order: someone still waiting arrived strictly earlier. A tie
    /// (the same arrival) and a later arrival are not.
    #[test]
    fn an_acquisition_is_out_of_order_only_past_an_earlier_waiter() {
        assert!(!out_of_order(5, []));
        assert!(!out_of_order(5, [7, 9]));
        assert!(!out_of_order(5, [5]));
        assert!(out_of_order(5, [7, 3]));
    }

    /// Each property keeps its first violation; the headline follows
    /// [`Property::ALL`]'s order, not the order they were seen in.
    #[test]
    fn the_first_violation_of_each_property_is_kept_and_the_headline_is_the_gravest() {
        let mut v = Violations::default();
        assert!(v.is_empty() && v.headline().is_none());
        assert!(v.record(Property::Herd, "a release woke 2".into()));
        assert!(v.record(Property::MutualExclusion, "c1 and c2 hold".into()));
        assert!(!v.record(Property::Herd, "a release woke 3".into()));
        assert!(!v.is_empty());
        assert!(v.contains(Property::Herd) && !v.contains(Property::Deadlock));
        assert_eq!(v.get(Property::Herd), Some("a release woke 2"));
        assert_eq!(v.get(Property::Deadlock), None);
        assert_eq!(
            v.headline(),
            Some((Property::MutualExclusion, "c1 and c2 hold"))
        );
        let all: Vec<(Property, &str)> = v.iter().collect();
        assert_eq!(all.len(), 2);
        assert!(all.contains(&(Property::Herd, "a release woke 2")));
    }
}
