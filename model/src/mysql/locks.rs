//! InnoDB's row locks on the unique key, as one queue in creation order
//! (InnoDB's per-page queues, for a table that fits a page).
//!
//! Kinds, and what waits for what (InnoDB's `lock_rec_has_to_wait`, for
//! the locks these statements take):
//!
//! - [`LockKind::X`] on a record: `FOR UPDATE`, `UPDATE` and `DELETE` of
//!   an existing row, and the implicit lock on a row a transaction
//!   inserted. Waits for another's X or S.
//! - [`LockKind::S`] on a record: an `INSERT`'s duplicate check of a
//!   record that is there (in REPEATABLE READ a next-key lock). Waits for
//!   another's X.
//! - [`LockKind::Gap`]: `FOR UPDATE`, `UPDATE` or `DELETE` of a name that
//!   has no record. Never waits, and gap locks never conflict with each
//!   other: two transactions can hold the same gap.
//! - [`LockKind::InsertIntention`]: an `INSERT` into a gap. Waits for
//!   another's gap lock; created only when it has to wait (as in InnoDB).
//!
//! A request waits for every conflicting lock before it in the queue,
//! granted or waiting, so waiters are served first come, first served;
//! and for a conflicting lock granted after it (only a gap lock can be:
//! it never waits, and an insert waiting on the gap waits for it too).

use super::{ConnId, Name};
use serde::Serialize;

/// Shared or exclusive (only a gap lock's mode is kept apart: it changes
/// nothing but the lock's weight in a deadlock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Mode {
    S,
    X,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum LockKind {
    X,
    S,
    Gap(Mode),
    InsertIntention,
}

impl LockKind {
    /// Whether a request of `req` by one transaction waits for `self`
    /// held (or requested earlier) by another.
    pub fn blocks(self, req: LockKind) -> bool {
        matches!(
            (self, req),
            (LockKind::X | LockKind::S, LockKind::X)
                | (LockKind::X, LockKind::S)
                | (LockKind::Gap(_), LockKind::InsertIntention)
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Lock {
    pub conn: ConnId,
    pub name: Name,
    pub kind: LockKind,
    pub waiting: bool,
    /// An inserter's lock that InnoDB keeps implicit (no lock object)
    /// until another transaction runs into it.
    pub implicit: bool,
    /// An implicit lock another transaction made explicit. InnoDB creates
    /// it as X "rec but not gap", unlike the statements' own next-key X
    /// locks on the unique key, so it covers none of their requests and
    /// is a lock object of its own in a deadlock's weight.
    pub converted: bool,
    /// An X lock that also holds the clustered (primary key) record.
    pub clustered: bool,
}

/// Every row lock, in creation order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Locks {
    list: Vec<Lock>,
}

impl Locks {
    pub fn iter(&self) -> impl Iterator<Item = &Lock> {
        self.list.iter()
    }

    /// Whether `conn` already holds a granted explicit lock that covers
    /// `kind` (InnoDB's `lock_rec_has_expl`: an inserter's implicit lock
    /// does not count, nor does it once converted, so it takes explicit
    /// locks on its own row).
    pub fn holds(&self, conn: ConnId, name: &Name, kind: LockKind) -> bool {
        self.list.iter().any(|l| {
            l.conn == conn
                && !l.waiting
                && !l.implicit
                && !l.converted
                && &l.name == name
                && match kind {
                    LockKind::S => matches!(l.kind, LockKind::S | LockKind::X),
                    k => l.kind == k,
                }
        })
    }

    /// The first lock that a request of `kind` on `name` by `conn`, queued
    /// at position `pos`, waits for: a conflicting request ahead of it, or
    /// a conflicting granted lock anywhere. (A gap lock is granted even
    /// behind a waiting insert, and the insert then waits for it too, as
    /// MariaDB 10.11 does: the conformance test found it.)
    fn blocker_before(
        &self,
        conn: ConnId,
        name: &Name,
        kind: LockKind,
        pos: usize,
    ) -> Option<usize> {
        self.list.iter().enumerate().position(|(i, l)| {
            (i < pos || !l.waiting) && l.conn != conn && &l.name == name && l.kind.blocks(kind)
        })
    }

    /// Whether `conn` inserted `name`'s record in its open transaction:
    /// the clustered record then carries its transaction id, an implicit
    /// lock that InnoDB takes as held, so it locks only the unique key's
    /// record (`lock_clust_rec_read_check_and_lock`, measured on 10.11).
    fn inserted(&self, conn: ConnId, name: &Name) -> bool {
        self.list
            .iter()
            .any(|l| l.conn == conn && &l.name == name && (l.implicit || l.converted))
    }

    /// Requests a lock: true if `conn` holds it now, false if a waiting
    /// request was queued. A conflicting implicit lock becomes explicit.
    pub fn request(&mut self, conn: ConnId, name: &Name, kind: LockKind, clustered: bool) -> bool {
        let clustered = clustered && !self.inserted(conn, name);
        if self.holds(conn, name, kind) {
            if clustered {
                for l in &mut self.list {
                    if l.conn == conn
                        && &l.name == name
                        && l.kind == LockKind::X
                        && !l.waiting
                        && !l.converted
                    {
                        l.clustered = true;
                    }
                }
            }
            return true;
        }
        let converted = self
            .list
            .iter()
            .any(|l| l.conn == conn && &l.name == name && l.converted);
        if let (true, LockKind::X | LockKind::S) = (converted, kind) {
            // The converted lock already covers the record: InnoDB adds
            // only the gap before it, which never waits (measured on 10.11:
            // not even behind another's request waiting on the record).
            let gap = LockKind::Gap(if kind == LockKind::X {
                Mode::X
            } else {
                Mode::S
            });
            if !self.holds(conn, name, gap) {
                self.list.push(Lock {
                    conn,
                    name: name.clone(),
                    kind: gap,
                    waiting: false,
                    implicit: false,
                    converted: false,
                    clustered: false,
                });
            }
            return true;
        }
        let blocked = self.blocker_before(conn, name, kind, self.list.len());
        // InnoDB converts only an implicit lock its owner does not already
        // cover with an explicit X (`lock_rec_convert_impl_to_expl_for_trx`).
        let owners: Vec<ConnId> = self
            .list
            .iter()
            .filter(|l| l.implicit && l.conn != conn && &l.name == name && l.kind.blocks(kind))
            .map(|l| l.conn)
            .filter(|&owner| !self.holds(owner, name, LockKind::X))
            .collect();
        for l in &mut self.list {
            if l.implicit && owners.contains(&l.conn) && &l.name == name {
                l.implicit = false;
                l.converted = true;
            }
        }
        if blocked.is_none() && kind == LockKind::InsertIntention {
            // InnoDB creates no lock object for an insert that need not wait.
            return true;
        }
        self.list.push(Lock {
            conn,
            name: name.clone(),
            kind,
            waiting: blocked.is_some(),
            implicit: false,
            converted: false,
            clustered: clustered && blocked.is_none(),
        });
        blocked.is_none()
    }

    /// The implicit X lock of a row `conn` just inserted.
    pub fn insert_implicit(&mut self, conn: ConnId, name: &Name) {
        let has = self
            .list
            .iter()
            .any(|l| l.conn == conn && &l.name == name && l.kind == LockKind::X && !l.waiting);
        if !has {
            self.list.push(Lock {
                conn,
                name: name.clone(),
                kind: LockKind::X,
                waiting: false,
                implicit: true,
                converted: false,
                clustered: false,
            });
        }
    }

    /// Position of `conn`'s waiting request, if it has one.
    pub fn waiting_of(&self, conn: ConnId) -> Option<usize> {
        self.list.iter().position(|l| l.conn == conn && l.waiting)
    }

    /// The transaction `conn`'s waiting request waits for (InnoDB's
    /// `wait_trx`: the first conflicting lock ahead of it).
    pub fn waits_for(&self, conn: ConnId) -> Option<ConnId> {
        let pos = self.waiting_of(conn)?;
        let l = &self.list[pos];
        self.blocker_before(conn, &l.name, l.kind, pos)
            .map(|i| self.list[i].conn)
    }

    /// Grants `conn`'s waiting request if nothing ahead of it conflicts
    /// any more; true if granted.
    pub fn try_grant(&mut self, conn: ConnId) -> bool {
        let Some(pos) = self.waiting_of(conn) else {
            return false;
        };
        let l = &self.list[pos];
        if self.blocker_before(conn, &l.name, l.kind, pos).is_some() {
            return false;
        }
        self.list[pos].waiting = false;
        true
    }

    /// Drops `conn`'s waiting request (its statement timed out or its
    /// transaction was rolled back).
    pub fn cancel_wait(&mut self, conn: ConnId) {
        self.list.retain(|l| !(l.conn == conn && l.waiting));
    }

    /// Releases every lock of `conn` (its transaction ended).
    pub fn release_all(&mut self, conn: ConnId) {
        self.list.retain(|l| l.conn != conn);
    }

    /// `name`'s record is gone from the index (a committed DELETE purged, a
    /// rolled-back INSERT removed): the locks on it are inherited by the
    /// gap it leaves (InnoDB's `lock_rec_inherit_to_gap`), and a request
    /// waiting on it is let go to look again. Returns the connections
    /// whose waiting request was let go.
    pub fn record_gone(&mut self, name: &Name) -> Vec<ConnId> {
        let mut woken = Vec::new();
        for l in &mut self.list {
            if &l.name != name {
                continue;
            }
            let mode = match l.kind {
                LockKind::X => Mode::X,
                LockKind::S => Mode::S,
                _ => continue,
            };
            l.kind = LockKind::Gap(mode);
            l.implicit = false;
            l.converted = false;
            l.clustered = false;
            if l.waiting {
                l.waiting = false;
                woken.push(l.conn);
            }
        }
        // One gap lock per mode and holder is enough.
        let mut seen: Vec<(ConnId, Name, LockKind)> = Vec::new();
        self.list.retain(|l| {
            let key = (l.conn, l.name.clone(), l.kind);
            if l.waiting || seen.contains(&key) {
                return l.waiting;
            }
            seen.push(key);
            true
        });
        woken
    }

    /// How many record lock objects `conn` has in InnoDB (part of its
    /// deadlock weight): one per index and lock type for the granted
    /// record locks (the table's records share a page; a converted
    /// implicit lock is a type of its own), and one per waiting request.
    pub fn objects(&self, conn: ConnId) -> u64 {
        let mut kinds: Vec<(bool, LockKind, bool)> = Vec::new();
        let mut n = 0;
        for l in self.list.iter().filter(|l| l.conn == conn) {
            if l.waiting {
                n += 1;
                continue;
            }
            if l.implicit {
                continue;
            }
            for key in [(false, l.kind, l.converted), (true, l.kind, l.converted)] {
                if (!key.0 || l.clustered) && !kinds.contains(&key) {
                    kinds.push(key);
                }
            }
        }
        n + kinds.len() as u64
    }
}
