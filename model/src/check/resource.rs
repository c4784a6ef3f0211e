//! The protected resource as part of the checked system (scenario settings
//! `fencing = true`, `guarded = true`; see [`writes`]): what the lock is
//! for, judged by what reaches it.
//!
//! Every critical section makes two writes. A **tenure** is one
//! acquisition: it begins when `lock()` returns and ends when the holder
//! leaves its critical section (or its process goes); no write of it can
//! come later — a fenced write is a step of the holder, a guarded one a
//! call it waits for, and a dropped connection never applies a request it
//! did not serve.
//!
//! - **Mutual exclusion at the resource**: no accepted write of one tenure
//!   between two accepted writes of another. Judged at the second write:
//!   a guarded holder's next write may be refused, so an overlap is only
//!   certain once it is accepted.
//! - **Fenced safety** (fencing only; `n/a` under guarded writes, where
//!   ZooKeeper's check, not a token, decides): the resource never accepts
//!   a write of an older tenure after a newer tenure has written (accepted
//!   or rejected — a newer holder locked out by its token is the same
//!   failure). "Older" is the lock's own order, acquisitions numbered as
//!   `lock()` returns; the token is the mechanism that must follow it.
//!
//! A fenced write's token is the `czxid` of the last ephemeral node the
//! holder created — its lock node, as the create's `Stat` told it — and
//! the resource rejects a token lower than the highest it accepted.
//!
//! **State.** What belongs to one client ([`Section`]) is kept with its
//! peer, so the symmetry reduction renumbers it with the client; the rest
//! ([`Resource`]) is global. Tenures are kept as ranks among the tenures
//! still able to write and the newest one that wrote (only their order is
//! ever read), and the newest writer is forgotten once no open tenure is
//! older: states that differ only in how many acquisitions came before are
//! one state. A violation is remembered (sticky bits), so the state after
//! the write that broke a property is the state that violates it.
//!
//! [`writes`]: crate::harness::writes

use super::system::{Peer, System};
use crate::harness::{Property, Writes};

/// One client's side of the resource: its current tenure, if it can still
/// write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Section {
    /// The tenure's rank (0: no open tenure).
    pub tenure: u8,
    /// Fencing: the `czxid` of the last ephemeral node the client created
    /// (its lock node's), until `lock()` returns and it becomes the token.
    pub created: i64,
    /// Fencing: the open tenure's token.
    pub token: i64,
    /// A write of the tenure was accepted.
    pub wrote: bool,
    /// Another tenure's write was accepted since this tenure's last
    /// accepted write.
    pub interrupted: bool,
}

/// The resource's own state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resource {
    pub writes: Writes,
    /// Fencing: the highest token accepted (0: none yet).
    pub newest_token: i64,
    /// Fencing: the rank of the newest tenure that wrote (0: none that an
    /// open tenure is older than).
    pub newest_tenure: u8,
    /// Properties broken so far: bit 0 mutual exclusion at the resource,
    /// bit 1 fenced safety.
    pub broken: u8,
}

const AT_RESOURCE: u8 = 1;
const FENCED: u8 = 2;

impl Resource {
    pub fn new(writes: Writes) -> Resource {
        Resource {
            writes,
            newest_token: 0,
            newest_tenure: 0,
            broken: 0,
        }
    }

    pub fn violates(&self, p: Property) -> bool {
        match p {
            Property::MutualExclusionAtResource => self.broken & AT_RESOURCE != 0,
            Property::FencedSafety => self.broken & FENCED != 0,
            _ => false,
        }
    }
}

/// Whether the checker judges `p` with the resource set to `writes`.
pub fn judges(p: Property, writes: Writes) -> bool {
    match p {
        Property::MutualExclusionAtResource => writes.is_on(),
        Property::FencedSafety => writes == Writes::Fenced,
        _ => false,
    }
}

impl System<'_> {
    /// Client `c`'s `lock()` returned: a new tenure, newer than every
    /// other, with its lock node's `czxid` as the token.
    pub(super) fn tenure_begins(&mut self, c: usize) {
        if self.resource.is_none() {
            return;
        }
        let newest_writer = self.resource.map_or(0, |r| r.newest_tenure);
        let newest = self.tenures().fold(newest_writer, u8::max);
        let p = self.peers[c].get_mut();
        p.section = Section {
            tenure: newest.saturating_add(1),
            created: 0,
            token: p.section.created,
            wrote: false,
            interrupted: false,
        };
        self.normalize();
    }

    /// Client `c`'s tenure can write no more (it left its critical
    /// section, or its process is gone).
    pub(super) fn tenure_ends(&mut self, c: usize) {
        if self.resource.is_none() || self.peers[c].section.tenure == 0 {
            return;
        }
        let p = self.peers[c].get_mut();
        p.section = Section {
            created: p.section.created,
            ..Section::default()
        };
        self.normalize();
    }

    /// Fencing: client `c`'s session created an ephemeral node with this
    /// `czxid` (the create's `Stat`, which the client keeps).
    pub(super) fn created(&mut self, c: usize, czxid: i64) {
        if matches!(self.resource, Some(r) if r.writes == Writes::Fenced) {
            self.peers[c].get_mut().section.created = czxid;
        }
    }

    /// Client `c`'s write reaches the resource: with fencing, the token
    /// decides; a guarded write reaches it only when ZooKeeper applied it.
    /// Returns whether it was accepted, for the trace.
    pub(super) fn write(&mut self, c: usize) -> bool {
        let Some(mut r) = self.resource else {
            return false;
        };
        let mine = self.peers[c].section;
        let accepted = r.writes != Writes::Fenced || mine.token >= r.newest_token;
        if r.writes == Writes::Fenced {
            if accepted && mine.tenure < r.newest_tenure {
                r.broken |= FENCED;
            }
            r.newest_tenure = r.newest_tenure.max(mine.tenure);
            if accepted {
                r.newest_token = mine.token;
            }
        }
        if accepted {
            if mine.wrote && mine.interrupted {
                r.broken |= AT_RESOURCE;
            }
            for (d, p) in self.peers.iter_mut().enumerate() {
                let s = p.section;
                let now = if d == c {
                    Section {
                        wrote: true,
                        interrupted: false,
                        ..s
                    }
                } else if s.wrote && !s.interrupted {
                    Section {
                        interrupted: true,
                        ..s
                    }
                } else {
                    continue;
                };
                if now != s {
                    p.get_mut().section = now;
                }
            }
        }
        self.resource = Some(r);
        self.normalize();
        accepted
    }

    /// Ranks of the open tenures.
    fn tenures(&self) -> impl Iterator<Item = u8> + '_ {
        self.peers
            .iter()
            .map(|p| p.section.tenure)
            .filter(|&t| t != 0)
    }

    /// Keeps only the order of tenures: the newest writer is forgotten
    /// once no open tenure is older, and ranks are renumbered from 1.
    fn normalize(&mut self) {
        let Some(mut r) = self.resource else {
            return;
        };
        if !self.tenures().any(|t| t < r.newest_tenure) {
            r.newest_tenure = 0;
        }
        let mut ranks: Vec<u8> = self.tenures().collect();
        ranks.push(r.newest_tenure);
        ranks.sort_unstable();
        ranks.dedup();
        // 0 stays 0: it is first whenever it is there.
        let zero = usize::from(ranks.first() != Some(&0));
        let rank = |t: u8| match ranks.binary_search(&t) {
            Ok(i) if t != 0 => (i + zero) as u8,
            _ => 0,
        };
        r.newest_tenure = rank(r.newest_tenure);
        for p in self.peers.iter_mut() {
            let t = rank(p.section.tenure);
            if t != p.section.tenure {
                p.get_mut().section.tenure = t;
            }
        }
        self.resource = Some(r);
    }
}

/// What the trace says of a write.
pub fn describe(p: &Peer, accepted: bool, writes: Writes) -> String {
    match (writes, accepted) {
        (Writes::Fenced, true) => format!(" → the resource accepts token {}", p.section.token),
        (Writes::Fenced, false) => format!(
            " → the resource rejects token {}: it has accepted a higher one",
            p.section.token
        ),
        _ => " → the resource is written".into(),
    }
}
