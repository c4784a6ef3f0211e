//! The etcd matrix's rows: the etcd locks, and each one's configuration
//! before its column's fault (the columns are etcd's fault table,
//! `crate::etcd::faults`). Every cell is judged by the etcd checker.

use crate::matrix::axes::Row;
use locksmith_model::etcd::check::EtcdSpace;
use locksmith_model::etcd::recipes::EtcdRecipe;

/// Every etcd lock, in [`EtcdRecipe::ALL`]'s order.
pub static ETCD_ROWS: &[Row] = &[
    Row {
        recipe: "etcd-mutex",
        clients: 2,
        claim: "etcd 3.4's clientv3/concurrency.Mutex (mutex.go lines 42–88, key.go lines 26–65; etcdctl lock and the v3lock service run it too): a key per session under the lock's prefix, put with the session's lease; the oldest key by create revision holds; a waiter watches the key just before its own. Claims one holder at a time, no herd, and a dead holder's lease frees the lock.",
        instead: "etcd-mutex-3.5 (etcd 3.5 or later), and a token the resource checks (the key's create revision) where a holder can pause past its TTL.",
    },
    Row {
        recipe: "etcd-mutex-3.5",
        clients: 2,
        claim: "etcd 3.5's Mutex (client/v3/concurrency/mutex.go lines 71–105): the 3.4 Mutex plus a Get of its own key after the wait, ErrSessionExpired when it is gone (etcd-io/etcd#11456).",
        instead: "a token the resource checks (the key's create revision) where a holder can pause past its TTL: the check runs once, inside Lock.",
    },
    Row {
        recipe: "etcd-txn-lease",
        clients: 2,
        claim: "No seed text: the lock a user writes from etcd's API without concurrency.Mutex — a Txn that puts the key with a lease if its create revision is 0, else Watch(key) and try again at a DELETE; Delete(key) releases. Claims one holder at a time, and a dead holder's lease frees it.",
        instead: "etcd-mutex-3.5: its watch starts from the revision it read (no lost wake-up), each waiter watches one key (no herd), and it deletes only its own key.",
    },
];

/// A row's configuration before its column's fault: the comparison's
/// sizes and times (`None`: not an etcd recipe). Two rounds each: a
/// waiter's expiry breaks 3.4's Mutex only when the holder comes back.
pub fn space(row: &Row) -> Option<EtcdSpace> {
    let mut s = EtcdSpace::new(EtcdRecipe::parse(row.recipe)?);
    s.clients = row.clients;
    s.acquisitions = 2;
    s.ttl = 3;
    s.work = 2;
    s.pause = 4;
    Some(s)
}
