//! The protected resource: what the lock is for. A holder writes to it when
//! its critical section begins and again when it ends; the resource judges
//! mutual exclusion by what actually reached it, not by what the clients
//! believed: two holders' sections overlap when one's opening write arrives
//! while another's section is open.
//!
//! With fencing every write carries the holder's token; the resource rejects
//! a token older than the newest it has accepted, and accepting a newer
//! token closes the sections of older ones (the resource has moved on).
//!
//! Fenced safety (judged with fencing on): the resource never accepts a
//! write of an older acquisition than one whose write it already accepted.
//! "Older" is the lock's own order — each write carries the number of the
//! acquisition it belongs to (its *tenure*, numbered by the driver as
//! `lock()` returns) — not the token's: the token is the mechanism, the
//! tenure the truth it must follow. A recipe whose lock node has no
//! sequence number sends no token, so nothing stops a paused holder's late
//! write; a token that orders acquisitions against the lock's order lets a
//! stale write through too. Either breaks fenced safety.

use super::property::Property;
use std::collections::BTreeMap;

/// One write to the resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Write {
    pub client: usize,
    /// Which acquisition of the run the write belongs to: 1 for the first
    /// `lock()` to return, and so on.
    pub tenure: u64,
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
    /// Accepted, and it broke these properties.
    Violation(Vec<(Property, String)>),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    /// Open critical sections: client → token.
    inside: BTreeMap<usize, Option<u64>>,
    newest: Option<u64>,
    /// Fencing is on: fenced safety is judged.
    fencing: bool,
    /// The newest tenure that has written.
    newest_tenure: Option<u64>,
}

impl Resource {
    /// A resource that judges fenced safety when `fencing` is on.
    pub fn new(fencing: bool) -> Resource {
        Resource {
            fencing,
            ..Resource::default()
        }
    }

    pub fn apply(&mut self, w: Write) -> Outcome {
        let mut broken = Vec::new();
        if let Some(v) = self.fenced_safety(w) {
            broken.push(v);
        }
        match self.sections(w) {
            Outcome::Violation(more) => broken.extend(more),
            Outcome::Stale { newest } => return Outcome::Stale { newest },
            Outcome::Accepted => {}
        }
        // In no particular order: a driver records each property's first
        // violation and picks the headline by `Property::ALL`.
        if broken.is_empty() {
            Outcome::Accepted
        } else {
            Outcome::Violation(broken)
        }
    }

    /// Client `c`'s process is gone: its open section, if any, ends with
    /// it. No closing write will ever come, and mutual exclusion at the
    /// resource asks that no write of one tenure fall *between two* writes
    /// of another: a dead holder's last write is its last.
    pub fn writer_gone(&mut self, c: usize) {
        self.inside.remove(&c);
    }

    /// Fenced safety: a write the token check will accept must not be of
    /// an older acquisition than one that has written already (accepted or
    /// not: a newer holder locked out by its token is the same failure).
    fn fenced_safety(&mut self, w: Write) -> Option<(Property, String)> {
        if !self.fencing {
            return None;
        }
        let newest = self.newest_tenure.unwrap_or(0);
        self.newest_tenure = Some(newest.max(w.tenure));
        let stale_token = matches!((w.token, self.newest), (Some(t), Some(n)) if t < n);
        (w.tenure < newest && !stale_token).then(|| {
            let why = match w.token {
                None => "it carries no fencing token".to_string(),
                Some(t) => format!("its token {t} did not fence it"),
            };
            (
                Property::FencedSafety,
                format!(
                    "the resource accepted c{}'s {} write of acquisition #{} after a write of acquisition #{newest}: {why}",
                    w.client + 1,
                    if w.begin { "begin" } else { "end" },
                    w.tenure
                ),
            )
        })
    }

    /// The token check and mutual exclusion at the resource.
    fn sections(&mut self, w: Write) -> Outcome {
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
            Some(o) => Outcome::Violation(vec![(
                Property::MutualExclusionAtResource,
                format!(
                    "the resource saw c{} begin a write while c{}'s critical section was open",
                    c + 1,
                    o + 1
                ),
            )]),
            None => Outcome::Accepted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(client: usize, tenure: u64, token: Option<u64>, begin: bool) -> Write {
        Write {
            client,
            tenure,
            token,
            begin,
        }
    }

    fn broken(o: &Outcome) -> Vec<Property> {
        match o {
            Outcome::Violation(v) => v.iter().map(|(p, _)| *p).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_crashed_holders_open_section_ends_with_it() {
        let mut r = Resource::new(false);
        assert_eq!(r.apply(write(0, 1, None, true)), Outcome::Accepted);
        // Without the crash, a second holder's begin write overlaps.
        let mut alive = r.clone();
        assert_eq!(
            broken(&alive.apply(write(1, 2, None, true))),
            vec![Property::MutualExclusionAtResource]
        );
        r.writer_gone(0);
        assert_eq!(r.apply(write(1, 2, None, true)), Outcome::Accepted);
    }

    #[test]
    fn a_late_write_of_an_older_acquisition_without_a_token_breaks_fenced_safety() {
        let mut r = Resource::new(true);
        assert_eq!(r.apply(write(0, 1, None, true)), Outcome::Accepted);
        // c1 pauses; c2 acquires, writes, finishes.
        assert_eq!(
            r.apply(write(1, 2, None, true)),
            Outcome::Violation(vec![(
                Property::MutualExclusionAtResource,
                "the resource saw c2 begin a write while c1's critical section was open".into()
            )])
        );
        assert_eq!(r.apply(write(1, 2, None, false)), Outcome::Accepted);
        // c1 wakes up and closes its section: accepted, from the past.
        assert_eq!(
            broken(&r.apply(write(0, 1, None, false))),
            [Property::FencedSafety]
        );
    }

    #[test]
    fn a_token_that_follows_the_lock_fences_the_late_write() {
        let mut r = Resource::new(true);
        assert_eq!(r.apply(write(0, 1, Some(5), true)), Outcome::Accepted);
        assert_eq!(r.apply(write(1, 2, Some(6), true)), Outcome::Accepted);
        assert_eq!(
            r.apply(write(0, 1, Some(5), false)),
            Outcome::Stale { newest: 6 }
        );
    }

    #[test]
    fn a_token_against_the_lock_order_breaks_fenced_safety() {
        let mut r = Resource::new(true);
        assert_eq!(r.apply(write(1, 2, Some(3), true)), Outcome::Accepted);
        assert_eq!(
            broken(&r.apply(write(0, 1, Some(5), true))),
            [Property::FencedSafety]
        );
        // The newer holder locked out by its older token, the stale one let
        // in: the same failure.
        let mut r = Resource::new(true);
        assert_eq!(r.apply(write(0, 1, Some(5), true)), Outcome::Accepted);
        assert_eq!(
            r.apply(write(1, 2, Some(3), true)),
            Outcome::Stale { newest: 5 }
        );
        assert_eq!(
            broken(&r.apply(write(0, 1, Some(5), false))),
            [Property::FencedSafety]
        );
    }

    #[test]
    fn without_fencing_it_is_not_judged() {
        let mut r = Resource::new(false);
        assert_eq!(r.apply(write(1, 2, None, true)), Outcome::Accepted);
        assert_eq!(r.apply(write(1, 2, None, false)), Outcome::Accepted);
        assert_eq!(r.apply(write(0, 1, None, false)), Outcome::Accepted);
    }
}
