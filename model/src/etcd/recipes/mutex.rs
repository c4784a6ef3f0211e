//! `etcd-mutex` and `etcd-mutex-3.5` — `clientv3/concurrency.Mutex`, the
//! lock etcd ships: etcd v3.4.23 `clientv3/concurrency/mutex.go` lines
//! 42–88 (`Lock`, `Unlock`) and `key.go` lines 26–65 (`waitDelete`,
//! `waitDeletes`); `etcdctl lock` (`lock_command.go` lines 56–74) and the
//! server's v3lock service (`v3lock/lock.go` lines 33–47, on the caller's
//! lease) run this same `Mutex`, so they are no recipes of their own.
//! `etcd-mutex-3.5` is v3.5.0's `Lock` (`client/v3/concurrency/mutex.go`
//! lines 71–105): the same, plus a `Get(myKey)` after the wait.
//!
//! `Lock` puts `myKey = pfx/<lease in hex>` with the session's lease in a
//! `Txn` if its create revision is 0 (else gets it: a second `Mutex` on the
//! same session finds its key), and in the same `Txn` gets the prefix's
//! oldest key. `myRev` is its key's create revision. If the oldest key is
//! its own, it holds the lock. Else `waitDeletes` gets the newest key
//! created before `myRev` and watches it from the `Get`'s revision until a
//! `DELETE`, then looks again, until no older key is left. `Unlock`
//! deletes `myKey`.
//!
//! What it claims: the waiter whose key has the lowest create revision
//! holds the lock; each waiter wakes only when the key just before its own
//! is deleted (no herd); a dead holder's lease frees the lock.
//!
//! What breaks it: 3.4 returns from `Lock` after `waitDeletes` without
//! looking at its own key (etcd-io/etcd#11456, fixed in 3.5.0). A waiter
//! whose lease expired while it waited (a pause longer than the TTL, which
//! stops its keep-alives too) has lost its key, so a later client's key is
//! the oldest and that client holds; when the waiter's predecessor goes,
//! the waiter returns from `Lock` too. 3.5 gets `myKey` after the wait and
//! returns `ErrSessionExpired`. Both still trust a lock whose lease
//! expired while the holder was paused (Jepsen, etcd 3.4.3: "locks …
//! did not, and can not, guarantee mutual exclusion in asynchronous
//! networks").

use super::{At, Locals, Outcome, LOCK};
use crate::engine::harness::StepKind;
use crate::etcd::{Cmp, Compare, Op, Put, Range, Reply, Request, Target, Txn};

/// Which `Lock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Returns after `waitDeletes`.
    V3_4,
    /// `Get(myKey)` after `waitDeletes`; no key: `ErrSessionExpired`.
    V3_5,
}

/// `NewMutex(s, "lock")`'s `pfx`.
pub fn prefix() -> String {
    format!("{LOCK}/")
}

/// `m.myKey = fmt.Sprintf("%s%x", m.pfx, s.Lease())`.
pub fn my_key(l: &Locals) -> String {
    match l.session {
        Some(lease) => format!("{}{lease}", prefix()),
        None => prefix(),
    }
}

/// `Lock`'s one `Txn` (mutex.go lines 47–54): if `myKey`'s create revision
/// is 0, put it with the lease and get the owner; else get it and the
/// owner.
pub fn lock_txn(l: &Locals) -> Request {
    let my_key = my_key(l);
    let get_owner = Op::Get(Range::first_create(&prefix()));
    Request::Txn(Txn {
        compare: vec![Compare {
            key: my_key.clone(),
            cmp: Cmp::Equal,
            target: Target::CreateRevision(0),
        }],
        success: vec![
            Op::Put(Put {
                key: my_key.clone(),
                value: String::new(),
                lease: l.session,
            }),
            get_owner.clone(),
        ],
        failure: vec![Op::Get(Range::key(&my_key)), get_owner],
    })
}

/// `waitDeletes`' `Get` (key.go lines 51–53).
fn last_before(l: &Locals) -> Request {
    Request::Range(Range::last_create_up_to(&prefix(), l.my_rev - 1))
}

/// One step of `Lock` past its session, or of `Unlock`.
pub fn step(l: &mut Locals, reply: Option<&Reply>, version: Version) -> Outcome {
    let (next, out) = match (l.at, reply) {
        (
            At::AwaitLock,
            Some(Reply::Txn {
                revision,
                succeeded,
                responses,
            }),
        ) => {
            // Lines 58–61: myRev is the put's revision, or the create
            // revision of the key this session already had.
            l.my_rev = match (succeeded, responses.first().map(Reply::kvs)) {
                (true, _) => *revision,
                (false, Some([kv, ..])) => kv.create_revision,
                (false, _) => -1,
            };
            // Lines 63–66: no key on the prefix, or the oldest is mine.
            let owner = responses.get(1).map_or(&[][..], Reply::kvs);
            if owner
                .first()
                .is_none_or(|kv| kv.create_revision == l.my_rev)
            {
                (At::Business, Outcome::only(StepKind::Acquired))
            } else {
                (
                    At::AwaitLast,
                    Outcome::send(last_before(l), StepKind::Other),
                )
            }
        }
        // `if err != nil { return err }`: lock() fails (its lease is gone).
        (At::AwaitLock, Some(Reply::Error(_))) => (At::Begin, Outcome::only(StepKind::GaveUp)),
        (At::AwaitLast, Some(Reply::Range { revision, kvs })) => match (kvs.first(), version) {
            // Line 70 returns: 3.4 holds the lock without looking at its key.
            (None, Version::V3_4) => (At::Business, Outcome::only(StepKind::Acquired)),
            (None, Version::V3_5) => (
                At::AwaitMine,
                Outcome::send(Request::Range(Range::key(&my_key(l))), StepKind::Other),
            ),
            // key.go line 61: watch the last key from the Get's revision.
            (Some(last), _) => (
                At::AwaitWatch,
                Outcome::send(
                    Request::Watch {
                        key: last.key.clone(),
                        from: *revision,
                    },
                    StepKind::Other,
                ),
            ),
        },
        // key.go line 34: a DELETE ends waitDelete; waitDeletes looks again.
        (At::AwaitWatch, Some(Reply::Event(_))) => (
            At::AwaitLast,
            Outcome::send(last_before(l), StepKind::Other),
        ),
        // key.go lines 39–41, mutex.go lines 72–73: the watch failed
        // (compacted): Unlock, and Lock returns the error.
        (At::AwaitWatch, Some(_)) => (At::AwaitUnlock, Outcome::send(unlock(l), StepKind::GaveUp)),
        // 3.5, lines 99–100: `if len(gresp.Kvs) == 0 { return ErrSessionExpired }`.
        (At::AwaitMine, Some(Reply::Range { kvs, .. })) if kvs.is_empty() => {
            (At::Begin, Outcome::only(StepKind::GaveUp))
        }
        (At::AwaitMine, Some(_)) => (At::Business, Outcome::only(StepKind::Acquired)),
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitUnlock,
            Outcome::send(unlock(l), StepKind::SentRelease),
        ),
        // The driver steps a client that awaits a reply only once it came;
        // an answer of another kind than the request's cannot come.
        (at, _) => (at, Outcome::only(StepKind::Other)),
    };
    l.at = next;
    out
}

/// `Unlock` (mutex.go lines 80–88): `client.Delete(ctx, m.myKey)`.
fn unlock(l: &Locals) -> Request {
    Request::Delete {
        key: my_key(l),
        prefix: false,
    }
}
