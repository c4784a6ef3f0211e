//! The etcd locks, one file each, as sans-IO state machines over
//! [`crate::etcd`]'s requests and replies: a client's step reads the reply
//! its last request got (if any), and says which request it sends next
//! and what the step means to the harness ([`StepKind`]). Time, pauses,
//! the critical section's length and the rounds of the harness loop are
//! the driver's, not the recipe's.
//!
//! | id | file |
//! |---|---|
//! | etcd-mutex | [`mutex`] (etcd 3.4's `concurrency.Mutex`) |
//! | etcd-mutex-3.5 | [`mutex`] (with 3.5's check of its own key) |
//! | etcd-txn-lease | [`txn_lease`] |
//!
//! Every recipe runs on a session ([`session`]): a lease the client keeps
//! alive, opened before its first `lock()` and again when the last one
//! ended (`Session.Done()`).

pub(crate) mod mutex;
pub(crate) mod session;
pub(crate) mod txn_lease;

use crate::engine::harness::AwaitsReply;
use crate::engine::harness::StepKind;
use crate::etcd::{EtcdServer, LeaseId, Reply, Request};
use serde::Serialize;
use std::fmt;

/// The lock's name: the `Mutex`'s prefix (`NewMutex(s, "lock")` keeps
/// `"lock/"`), and the transaction lock's key.
pub const LOCK: &str = "lock";

/// An etcd recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum EtcdRecipe {
    /// `clientv3/concurrency.Mutex` as etcd 3.4 ships it.
    Mutex,
    /// The same `Mutex` with etcd 3.5's check after the wait.
    Mutex35,
    /// Put-if-absent in a transaction with a lease, watch, retry.
    TxnLease,
}

impl EtcdRecipe {
    pub const ALL: [EtcdRecipe; 3] = [EtcdRecipe::Mutex, EtcdRecipe::Mutex35, EtcdRecipe::TxnLease];

    /// The recipe's id (as scenario files and the comparison name it).
    pub fn id(self) -> &'static str {
        match self {
            EtcdRecipe::Mutex => "etcd-mutex",
            EtcdRecipe::Mutex35 => "etcd-mutex-3.5",
            EtcdRecipe::TxnLease => "etcd-txn-lease",
        }
    }

    pub fn parse(id: &str) -> Option<EtcdRecipe> {
        EtcdRecipe::ALL.into_iter().find(|r| r.id() == id.trim())
    }

    /// Where the recipe comes from, in a line (as its file cites it).
    pub fn origin(self) -> &'static str {
        match self {
            EtcdRecipe::Mutex => {
                "etcd v3.4.23, clientv3/concurrency/mutex.go lines 42–88 and key.go lines 26–65 (etcdctl lock and the v3lock service run the same Mutex)"
            }
            EtcdRecipe::Mutex35 => {
                "etcd v3.5.0, client/v3/concurrency/mutex.go lines 71–105: the 3.4 Mutex with Get(myKey) after waitDeletes (etcd-io/etcd#11456)"
            }
            EtcdRecipe::TxnLease => {
                "no seed text: the lock a user writes from etcd's API without concurrency.Mutex — a Txn that puts the key with a lease if its create revision is 0, Watch(key), retry on DELETE"
            }
        }
    }

    /// What the recipe claims, in a sentence from its file's doc comment.
    pub fn claim(self) -> &'static str {
        match self {
            EtcdRecipe::Mutex | EtcdRecipe::Mutex35 => {
                "the waiter whose key has the lowest create revision holds the lock, each waiter wakes only when the key before its own is deleted, and a dead holder's lease frees the lock"
            }
            EtcdRecipe::TxnLease => {
                "only the client whose put found no key holds the lock, and a dead holder's lease frees it"
            }
        }
    }

    /// A client calling `lock()` on `server` now would get the lock at
    /// once (the stuck-lock analysis asks this of every state).
    pub fn acquirable(self, server: &EtcdServer) -> bool {
        match self {
            EtcdRecipe::Mutex | EtcdRecipe::Mutex35 => {
                server.with_prefix(&mutex::prefix()).next().is_none()
            }
            EtcdRecipe::TxnLease => server.get(LOCK).is_none(),
        }
    }

    /// Where a client of this recipe starts.
    pub fn start(self) -> Locals {
        Locals {
            at: At::Begin,
            session: None,
            opened: 0,
            my_rev: -1,
        }
    }

    /// The request that begins `lock()` once the session is open.
    fn lock_request(self, l: &Locals) -> Request {
        match self {
            EtcdRecipe::Mutex | EtcdRecipe::Mutex35 => mutex::lock_txn(l),
            EtcdRecipe::TxnLease => txn_lease::lock_txn(l),
        }
    }

    /// One step of `me` at `l`, reading `reply` (the reply to its last
    /// request, if one came since).
    pub fn step(self, l: &mut Locals, reply: Option<&Reply>, me: &Me) -> Outcome {
        match l.at {
            At::Begin | At::AwaitUnlock | At::AwaitGrant => {
                session::step(l, reply, me, |l| self.lock_request(l))
            }
            _ => match self {
                EtcdRecipe::Mutex => mutex::step(l, reply, mutex::Version::V3_4),
                EtcdRecipe::Mutex35 => mutex::step(l, reply, mutex::Version::V3_5),
                EtcdRecipe::TxnLease => txn_lease::step(l, reply),
            },
        }
    }

    /// `reply`, waiting to be read at `l`, makes `lock()` return with the
    /// lock: the client's tenure began at the server before it knows it.
    pub fn won(self, l: &Locals, reply: &Reply, me: &Me) -> bool {
        let mut probe = *l;
        self.step(&mut probe, Some(reply), me).kind == StepKind::Acquired
    }
}

impl fmt::Display for EtcdRecipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A client's place in its recipe, named after the `Mutex`'s code (the
/// transaction lock uses the places it has too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// A round begins: `NewSession` if the last one is done, then `Lock`.
    Begin,
    /// `client.Grant(ctx, ttl)`'s reply.
    AwaitGrant,
    /// The lock's `Txn` reply.
    AwaitLock,
    /// `waitDeletes`: the reply of `Get(pfx, WithLastCreate(),
    /// WithMaxCreateRev(myRev-1))`.
    AwaitLast,
    /// `waitDelete`: the watch's `DELETE` event.
    AwaitWatch,
    /// 3.5: the reply of `Get(myKey)` after the wait.
    AwaitMine,
    /// The critical section; the step ends it.
    Business,
    /// `Unlock`: send the delete.
    Unlock,
    /// The delete's reply; the next step begins the next round.
    AwaitUnlock,
}

/// What a client's recipe keeps: its place, its session's lease (`None`
/// before the first), how many sessions it opened, and its key's create
/// revision (the `Mutex`'s `myRev`; the naive lock's put's revision): a
/// fenced caller's token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Locals {
    pub at: At,
    pub session: Option<LeaseId>,
    pub opened: u8,
    pub my_rev: i64,
}

/// What a client knows of itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Me {
    /// Its number (0 for c1): its leases' ids are drawn from it.
    pub client: u8,
    /// The session's TTL (`concurrency.WithTTL`).
    pub ttl: u8,
    /// Its session's lease is alive: its keep-alives get a TTL back (a
    /// client learns otherwise when `Session.Done()` closes).
    pub session_alive: bool,
}

impl AwaitsReply for Locals {
    /// The recipe waits for the reply to the request it sent.
    fn awaits_reply(&self) -> bool {
        matches!(
            self.at,
            At::AwaitGrant | At::AwaitLock | At::AwaitLast | At::AwaitWatch | At::AwaitMine
        )
    }
}

/// What one step did: the request it sent, if any, what it means to the
/// harness, whether it sleeps a tick.
pub type Outcome = crate::engine::harness::Outcome<Request>;
