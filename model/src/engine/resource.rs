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
//! [`writes`]: crate::engine::harness::writes

use crate::engine::harness::{Property, Writes};

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

/// A system with the protected resource: where each client's [`Section`]
/// and the [`Resource`] are kept. ZooKeeper's `System` and Redis's and MySQL's states
/// both are one, so the two checkers judge the resource by the same code.
pub trait Sections {
    fn clients(&self) -> usize;
    fn section(&self, c: usize) -> Section;
    /// Sets client `c`'s section (a backend may skip an unchanged one).
    fn set_section(&mut self, c: usize, s: Section);
    fn resource(&self) -> Option<Resource>;
    fn set_resource(&mut self, r: Resource);
}

/// Client `c`'s `lock()` returned: a new tenure, newer than every other,
/// with the token it was given ([`created`]) as its token.
pub fn tenure_begins(h: &mut impl Sections, c: usize) {
    let Some(r) = h.resource() else {
        return;
    };
    let newest = tenures(h).fold(r.newest_tenure, u8::max);
    let created = h.section(c).created;
    h.set_section(
        c,
        Section {
            tenure: newest.saturating_add(1),
            created: 0,
            token: created,
            wrote: false,
            interrupted: false,
        },
    );
    normalize(h);
}

/// Client `c`'s tenure can write no more (it left its critical section,
/// or its process is gone).
pub fn tenure_ends(h: &mut impl Sections, c: usize) {
    let mine = h.section(c);
    if h.resource().is_none() || mine.tenure == 0 {
        return;
    }
    h.set_section(
        c,
        Section {
            created: mine.created,
            ..Section::default()
        },
    );
    normalize(h);
}

/// Fencing: client `c` was handed `token` for the tenure it is about to
/// begin (ZooKeeper: its lock node's `czxid`; Redis: an `INCR`'s reply).
pub fn created(h: &mut impl Sections, c: usize, token: i64) {
    if matches!(h.resource(), Some(r) if r.writes == Writes::Fenced) {
        let s = h.section(c);
        h.set_section(
            c,
            Section {
                created: token,
                ..s
            },
        );
    }
}

/// Fencing: client `c`'s open tenure gets its token only now (Redis: the
/// tenure began when the lock was taken at the server, the token comes
/// with a later `INCR`'s reply).
pub fn token(h: &mut impl Sections, c: usize, token: i64) {
    let s = h.section(c);
    if s.tenure != 0 {
        h.set_section(c, Section { token, ..s });
    }
}

/// Client `c`'s write reaches the resource: with fencing, the token
/// decides. Returns whether it was accepted, for the trace.
pub fn write(h: &mut impl Sections, c: usize) -> bool {
    let Some(mut r) = h.resource() else {
        return false;
    };
    let mine = h.section(c);
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
        for d in 0..h.clients() {
            let s = h.section(d);
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
                h.set_section(d, now);
            }
        }
    }
    h.set_resource(r);
    normalize(h);
    accepted
}

/// Ranks of the open tenures.
fn tenures(h: &impl Sections) -> impl Iterator<Item = u8> + '_ {
    (0..h.clients())
        .map(|c| h.section(c).tenure)
        .filter(|&t| t != 0)
}

/// Keeps only the order of tenures: the newest writer is forgotten once
/// no open tenure is older, and ranks are renumbered from 1.
fn normalize(h: &mut impl Sections) {
    let Some(mut r) = h.resource() else {
        return;
    };
    if !tenures(h).any(|t| t < r.newest_tenure) {
        r.newest_tenure = 0;
    }
    let mut ranks: Vec<u8> = tenures(h).collect();
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
    for c in 0..h.clients() {
        let s = h.section(c);
        let t = rank(s.tenure);
        if t != s.tenure {
            h.set_section(c, Section { tenure: t, ..s });
        }
    }
    h.set_resource(r);
}

/// What the trace says of a write.
pub fn describe(s: &Section, accepted: bool, writes: Writes) -> String {
    match (writes, accepted) {
        (Writes::Fenced, true) => format!(" → the resource accepts token {}", s.token),
        (Writes::Fenced, false) => format!(
            " → the resource rejects token {}: it has accepted a higher one",
            s.token
        ),
        _ => " → the resource is written".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two clients' sections and the resource, kept as a backend keeps
    /// them.
    struct Two {
        sections: [Section; 2],
        resource: Option<Resource>,
    }

    impl Sections for Two {
        fn clients(&self) -> usize {
            2
        }
        fn section(&self, c: usize) -> Section {
            self.sections[c]
        }
        fn set_section(&mut self, c: usize, s: Section) {
            self.sections[c] = s;
        }
        fn resource(&self) -> Option<Resource> {
            self.resource
        }
        fn set_resource(&mut self, r: Resource) {
            self.resource = Some(r);
        }
    }

    /// `interrupted` keeps its meaning after every write: another tenure
    /// wrote since this tenure's last accepted write. c1's closing write
    /// after c2's opening one breaks mutual exclusion at the resource, and
    /// from then on it is c2 that was interrupted, not c1 — so the next
    /// violation is c2's next write, and states that differ only in a
    /// stale mark are one state.
    #[test]
    fn a_write_marks_the_other_tenures_and_clears_its_own() {
        let mut h = Two {
            sections: [Section::default(); 2],
            resource: Some(Resource::new(Writes::Guarded)),
        };
        let at_resource = |h: &Two| {
            h.resource
                .is_some_and(|r| r.violates(Property::MutualExclusionAtResource))
        };
        tenure_begins(&mut h, 0);
        assert!(write(&mut h, 0));
        tenure_begins(&mut h, 1);
        assert!(write(&mut h, 1));
        assert!(h.sections[0].interrupted && !h.sections[1].interrupted);
        assert!(!at_resource(&h), "each tenure has written once");
        assert!(write(&mut h, 0));
        assert!(at_resource(&h), "c1 wrote again after c2 had written");
        assert!(!h.sections[0].interrupted, "{:?}", h.sections[0]);
        assert!(h.sections[1].interrupted, "{:?}", h.sections[1]);
    }

    /// A fenced resource takes c2's token 9, then refuses c1's older 5 —
    /// and the trace says which, token and all.
    #[test]
    fn a_fenced_write_below_the_highest_token_is_refused_and_says_so() {
        let mut h = Two {
            sections: [Section::default(); 2],
            resource: Some(Resource::new(Writes::Fenced)),
        };
        created(&mut h, 0, 5);
        tenure_begins(&mut h, 0);
        created(&mut h, 1, 9);
        tenure_begins(&mut h, 1);
        assert!(write(&mut h, 1));
        assert_eq!(
            describe(&h.sections[1], true, Writes::Fenced),
            " → the resource accepts token 9"
        );
        assert!(!write(&mut h, 0));
        assert_eq!(
            describe(&h.sections[0], false, Writes::Fenced),
            " → the resource rejects token 5: it has accepted a higher one"
        );
        assert_eq!(
            describe(&h.sections[0], true, Writes::Guarded),
            " → the resource is written"
        );
    }
}
