//! The properties locksmith judges: one name and one meaning each, shared by
//! the checker, the simulator, `locksmith real`, scenario files and JSON.
//!
//! Each driver judges a property its own way where it must (the checker's
//! deadlock is "nothing but faults can happen while a client waits", the
//! simulator's is "no progress for a bound"); `docs/properties.md` has the
//! table. A property a driver cannot judge on a run is [`Verdict::NotApplicable`],
//! never `holds`.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Property {
    /// No write of one tenure (a client's one acquisition) reaches the
    /// protected resource between two writes of another tenure.
    MutualExclusionAtResource,
    /// At most one client believes it holds the lock.
    MutualExclusion,
    /// The resource never accepts a write with a fencing token older than
    /// one it already accepted.
    FencedSafety,
    /// Never stuck while a client waits: nothing but faults can happen (the
    /// checker), or no acquisition or release for a bound (simulator, real).
    Deadlock,
    /// A client deletes or overwrites the lock's key while another client's
    /// tenure is current (its own lock operation succeeded at the server and
    /// it has not begun its release) — a designed takeover of an expired key
    /// is not one. Judged by the Redis checker; n/a on ZooKeeper (see
    /// `check::property::not_judged`).
    UnlockByNonOwner,
    /// From this state no client can ever acquire again, though one still
    /// wants the lock: reachability in the explored graph, not "a key
    /// without TTL" (timestamp recipes recover without one). Judged by the
    /// Redis checker; n/a on ZooKeeper (see `check::property::not_judged`).
    StuckLock,
    /// No client waits forever while the others go on: a fair cycle in the
    /// explored graph (the checker), or a client not done within a bound
    /// (the simulator).
    Starvation,
    /// No lock node outlives its owner's grip on it: a sequential node
    /// whose owner's process is alive (so its session lives on) while
    /// nothing the owner holds refers to it — its code will never delete
    /// it, and every client that sorts the children sees it.
    OrphanedNode,
    /// No thread ends on an uncaught exception.
    ThreadDied,
    /// No release (the recipe's own release operation) notifies more than
    /// one waiting client.
    Herd,
    /// A re-entrant lock keeps its holder's lock its own: the holder's
    /// `lock()` again returns without waiting for it, only the outermost
    /// of its `unlock()`s releases it, and one `unlock()` more than it
    /// called `lock()` fails (Curator: `IllegalMonitorStateException: You
    /// do not own the lock`) instead of releasing. Judged where the
    /// scenario's holders re-enter (`reentries > 0`).
    Reentrancy,
}

impl Property {
    /// Every property, in the comparison's fixed order (the order in which
    /// a headline picks the first violated one: worst first, by
    /// [`severity`](Self::severity)): what every driver reports
    /// for every backend — a property a driver does not judge on a run is
    /// n/a there, with [`crate::zk::check::verdict::PropertyResult::reason`] —
    /// and what a scenario file may name.
    pub const ALL: [Property; 11] = [
        Property::MutualExclusionAtResource,
        Property::FencedSafety,
        Property::MutualExclusion,
        Property::UnlockByNonOwner,
        Property::StuckLock,
        Property::Deadlock,
        Property::Starvation,
        Property::OrphanedNode,
        Property::ThreadDied,
        Property::Reentrancy,
        Property::Herd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Property::MutualExclusionAtResource => "mutual exclusion at the resource",
            Property::MutualExclusion => "mutual exclusion",
            Property::FencedSafety => "fenced safety",
            Property::Deadlock => "deadlock",
            Property::Starvation => "starvation",
            Property::ThreadDied => "thread died",
            Property::Herd => "herd",
            Property::OrphanedNode => "orphaned node",
            Property::UnlockByNonOwner => "unlock by non-owner",
            Property::StuckLock => "stuck lock",
            Property::Reentrancy => "re-entrancy",
        }
    }

    /// Parses a name as [`name`](Self::name) writes it (`-` and `_` may
    /// stand for spaces).
    pub fn parse(s: &str) -> Option<Property> {
        // Compared with `-` and `_` read as spaces on both sides: a name
        // may have its own hyphen ("non-owner").
        let plain = |t: &str| t.trim().replace(['-', '_'], " ");
        let s = plain(s);
        Property::ALL.into_iter().find(|p| plain(p.name()) == s)
    }

    /// Every name, for error messages.
    pub fn names() -> String {
        let names: Vec<&str> = Property::ALL.iter().map(|p| p.name()).collect();
        names.join(", ")
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a run says of one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Judged on everything the run covered (exhaustively, for the checker).
    Holds,
    Violated,
    /// A bound stopped the run before the property could be judged.
    Incomplete,
    /// The driver does not judge this property on this run.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Incomplete => "incomplete",
            Verdict::NotApplicable => "n/a",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        [
            Verdict::Holds,
            Verdict::Violated,
            Verdict::Incomplete,
            Verdict::NotApplicable,
        ]
        .into_iter()
        .find(|v| v.name() == s.trim())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scenario files and `--json` name properties by these words: each
    /// reads back as itself (with `-` or `_` for spaces too), and no two
    /// properties share a name.
    #[test]
    fn every_property_reads_back_from_its_name() {
        let mut seen = std::collections::BTreeSet::new();
        for p in Property::ALL {
            assert!(!p.name().is_empty());
            assert!(seen.insert(p.name()), "{p:?}");
            assert_eq!(p.to_string(), p.name());
            assert!(Property::names().contains(p.name()));
            assert_eq!(Property::parse(p.name()), Some(p));
            assert_eq!(Property::parse(&p.name().replace(' ', "-")), Some(p));
            assert_eq!(
                Property::parse(&format!(" {} ", p.name().replace(' ', "_"))),
                Some(p)
            );
        }
        assert_eq!(Property::MutualExclusion.name(), "mutual exclusion");
        assert_eq!(Property::UnlockByNonOwner.name(), "unlock by non-owner");
        assert_eq!(Property::parse("mutual exclusion at"), None);
    }

    #[test]
    fn every_verdict_reads_back_from_its_name() {
        for v in [
            Verdict::Holds,
            Verdict::Violated,
            Verdict::Incomplete,
            Verdict::NotApplicable,
        ] {
            assert_eq!(Verdict::parse(&format!(" {v} ")), Some(v));
        }
        assert_eq!(Verdict::NotApplicable.name(), "n/a");
        assert_eq!(Verdict::parse("hold"), None);
    }
}
