//! `etcd-txn-lease` — the lock a user writes from etcd's API (`Txn`,
//! leases, `Watch`) without `concurrency.Mutex`: there is no seed text for
//! it; the issue that added etcd describes it. `lock()` opens a
//! session (a lease kept alive), then `Txn(If(CreateRevision(key) = 0),
//! Then(Put(key, me, WithLease(lease))))`; if the key was there, it
//! `Watch(ctx, key)`es and tries again at the first `DELETE`. `unlock()`
//! is `Delete(ctx, key)`.
//!
//! What it claims: only the client whose put found no key holds the lock,
//! and a dead holder's lease frees it.
//!
//! What breaks it: every waiter watches the one key, so each release
//! wakes them all (a herd); a watch made without a revision starts after
//! the failed `Txn`, so a release between the two is never seen (a lost
//! wake-up: the waiter waits for a delete that already happened); and a
//! holder paused past its TTL loses the key to its lease, a second client
//! takes it, and the first one's `Delete` then removes the second one's
//! key (unlock by non-owner).

use super::{At, Locals, Outcome, LOCK};
use crate::engine::harness::StepKind;
use crate::etcd::{Cmp, Compare, Op, Put, Reply, Request, Target, Txn};

/// The lock's `Txn`: put the key with the session's lease if it is not
/// there.
pub fn lock_txn(l: &Locals) -> Request {
    Request::Txn(Txn {
        compare: vec![Compare {
            key: LOCK.to_string(),
            cmp: Cmp::Equal,
            target: Target::CreateRevision(0),
        }],
        success: vec![Op::Put(Put {
            key: LOCK.to_string(),
            value: l.session.map_or(String::new(), |s| s.to_string()),
            lease: l.session,
        })],
        failure: Vec::new(),
    })
}

/// One step of `lock()` past its session, or of `unlock()`.
pub fn step(l: &mut Locals, reply: Option<&Reply>) -> Outcome {
    let (next, out) = match (l.at, reply) {
        // The put's revision is the key's create revision: the token a
        // fenced caller hands the resource.
        (
            At::AwaitLock,
            Some(Reply::Txn {
                succeeded: true,
                revision,
                ..
            }),
        ) => {
            l.my_rev = *revision;
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::AwaitLock, Some(Reply::Txn { .. })) => (
            At::AwaitWatch,
            Outcome::send(
                Request::Watch {
                    key: LOCK.to_string(),
                    from: 0,
                },
                StepKind::Other,
            ),
        ),
        // The lease is gone: lock() returns the error.
        (At::AwaitLock, Some(_)) => (At::Begin, Outcome::only(StepKind::GaveUp)),
        (At::AwaitWatch, Some(_)) => (At::AwaitLock, Outcome::send(lock_txn(l), StepKind::Other)),
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitUnlock,
            Outcome::send(
                Request::Delete {
                    key: LOCK.to_string(),
                    prefix: false,
                },
                StepKind::SentRelease,
            ),
        ),
        (at, _) => (at, Outcome::only(StepKind::Other)),
    };
    l.at = next;
    out
}
