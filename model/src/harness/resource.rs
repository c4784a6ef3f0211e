//! The protected resource: what the lock is for. A holder writes to it when
//! its critical section begins and again when it ends; the resource judges
//! mutual exclusion by what actually reached it, not by what the clients
//! believed: two holders' sections overlap when one's opening write arrives
//! while another's section is open.
//!
//! With fencing every write carries the holder's token; the resource rejects
//! a token older than the newest it has accepted, and accepting a newer
//! token closes the sections of older ones (the resource has moved on).
//! Fenced safety: no accepted write ever carries an older token than one
//! accepted before — which the rejection guarantees, so a violation here
//! means the token itself was wrong.

use super::property::Property;
use std::collections::BTreeMap;

/// One write to the resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Write {
    pub client: usize,
    /// The fencing token, if the holder sends one.
    pub token: Option<u64>,
    /// The write that opens the critical section (`false`: closes it).
    pub begin: bool,
}

/// What the resource did with a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Accepted,
    /// Rejected: the token is older than `newest`.
    Stale {
        newest: u64,
    },
    /// Accepted, and it broke a property.
    Violation(Property, String),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    /// Open critical sections: client → token.
    inside: BTreeMap<usize, Option<u64>>,
    newest: Option<u64>,
}

impl Resource {
    pub fn apply(&mut self, w: Write) -> Outcome {
        let c = w.client;
        if let Some(tok) = w.token {
            if let Some(newest) = self.newest {
                if tok < newest {
                    self.inside.remove(&c);
                    return Outcome::Stale { newest };
                }
            }
            self.newest = Some(tok);
            self.inside
                .retain(|_, old| !matches!(old, Some(o) if *o < tok));
        }
        if !w.begin {
            self.inside.remove(&c);
            return Outcome::Accepted;
        }
        let other = self.inside.keys().copied().find(|&o| o != c);
        self.inside.insert(c, w.token);
        match other {
            Some(o) => Outcome::Violation(
                Property::MutualExclusionAtResource,
                format!(
                    "the resource saw c{} begin a write while c{}'s critical section was open",
                    c + 1,
                    o + 1
                ),
            ),
            None => Outcome::Accepted,
        }
    }
}
