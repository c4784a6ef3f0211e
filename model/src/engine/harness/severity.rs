//! How bad a violation is: one fixed order, worst first, used by every
//! headline (the checker's report, `--json`, the matrix of `compare`).
//!
//! A write the protected resource accepted out of turn is worse than two
//! clients that merely believe they hold the lock (fencing or a guarded
//! write exists to make the second harmless); either is worse than a
//! client that waits forever or a thread that died; a herd only costs.

use super::Property;
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Severity {
    /// The protected resource accepted a write out of turn.
    #[serde(rename = "safety at the resource")]
    SafetyAtResource,
    /// Clients' beliefs overlap: two hold the lock at once, or one takes
    /// another's lock away.
    #[serde(rename = "safety by belief")]
    SafetyByBelief,
    /// A client never gets the lock, or a thread dies, or the lock is
    /// stuck.
    #[serde(rename = "liveness")]
    Liveness,
    /// Nothing breaks, but every release costs more than it should.
    #[serde(rename = "cost")]
    Cost,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::SafetyAtResource,
        Severity::SafetyByBelief,
        Severity::Liveness,
        Severity::Cost,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Severity::SafetyAtResource => "safety at the resource",
            Severity::SafetyByBelief => "safety by belief",
            Severity::Liveness => "liveness",
            Severity::Cost => "cost",
        }
    }

    /// Safety either way: the reports draw both in one colour.
    pub fn is_safety(self) -> bool {
        self <= Severity::SafetyByBelief
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Property {
    /// The class a violation of this property falls in. Re-entrancy is
    /// liveness: an inner `unlock()` that releases too early lets a second
    /// client in, which mutual exclusion reports by itself; what is left
    /// to re-entrancy is a holder waiting on its own lock or an extra
    /// `unlock()` that does not throw.
    pub fn severity(self) -> Severity {
        match self {
            Property::MutualExclusionAtResource | Property::FencedSafety => {
                Severity::SafetyAtResource
            }
            Property::MutualExclusion | Property::UnlockByNonOwner => Severity::SafetyByBelief,
            Property::StuckLock
            | Property::Deadlock
            | Property::Starvation
            | Property::OrphanedNode
            | Property::ThreadDied
            | Property::Reentrancy => Severity::Liveness,
            Property::Herd => Severity::Cost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A headline picks the first violated property in `Property::ALL`:
    /// that order must never put a milder property before a worse one.
    #[test]
    fn the_headline_order_runs_from_worst_to_mildest() {
        let classes: Vec<Severity> = Property::ALL.iter().map(|p| p.severity()).collect();
        let mut sorted = classes.clone();
        sorted.sort();
        assert_eq!(classes, sorted, "{:?}", Property::ALL);
        for s in Severity::ALL {
            assert!(classes.contains(&s), "no property is {s}");
        }
        assert!(Severity::SafetyByBelief.is_safety() && !Severity::Liveness.is_safety());
    }
}
