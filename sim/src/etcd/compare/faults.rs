//! The etcd matrix's rows and columns: the etcd locks, and the fault
//! classes of a lock held by a key on a lease — what ends a holder's
//! tenure is its lease running out (a pause or a partition stops its
//! keep-alives, a crash ends them) or a revoke. Every cell is judged by the etcd checker.

use crate::matrix::axes::{Fault, Row};
use crate::matrix::command::FaultClass;
use locksmith_model::etcd::check::EtcdSpace;
use locksmith_model::etcd::recipes::EtcdRecipe;

/// Every etcd fault class, in column order. Time in ticks: a session TTL
/// of 3, a critical section of 2, a pause of 4 ([`space`]).
pub static ETCD_FAULTS: &[FaultClass<EtcdSpace>] = &[
    FaultClass {
        fault: Fault {
            id: "none",
            label: "no fault",
            about: "no fault: every interleaving of the clients' requests, the watches' events and time in ticks (session TTL 3 ticks, kept alive by a running client; critical section 2)",
        },
        apply: |_| {},
    },
    FaultClass {
        fault: Fault {
            id: "pause",
            label: "pause",
            about: "a client's process stops for 4 ticks, once, at any step: no step and no keep-alive, so its lease (TTL 3) runs out and its keys go; a request it sent is still served",
        },
        apply: |s| s.faults.pauses = 1,
    },
    FaultClass {
        fault: Fault {
            id: "crash",
            label: "client crash",
            about: "a client's process crashes once, at any step: its watches end, its keys stay until its lease runs out 3 ticks later",
        },
        apply: |s| s.faults.crashes = 1,
    },
    FaultClass {
        fault: Fault {
            id: "revoke",
            label: "lease revoked",
            about: "a client's lease is revoked once, at any step (etcdctl lease revoke, an operator): its keys go at once while its process runs on",
        },
        apply: |s| s.faults.revokes = 1,
    },
    FaultClass {
        fault: Fault {
            id: "waiter-expiry",
            label: "waiter's lease expires",
            about: "a waiter's lease expires once while it waits in lock() for a watch event: its keep-alives were lost for a TTL (a partition its watch stream sat out) while its process ran (etcd-io/etcd#11456)",
        },
        apply: |s| s.faults.waiter_expiries = 1,
    },
    FaultClass {
        fault: Fault {
            id: "partition",
            label: "partition",
            about: "a client's link to etcd is cut for 4 ticks, once, at any step, while its process runs on: its keep-alives stop, so its lease (TTL 3) runs out and its keys go; its requests wait to be served, and the replies and watch events it has not read wait to arrive, until the link heals",
        },
        apply: |s| s.faults.partitions = 1,
    },
    FaultClass {
        fault: Fault {
            id: "compaction",
            label: "compaction",
            about: "the store is compacted to its current revision once, at any step: a watch asked for from an older revision afterwards fails with ErrCompacted",
        },
        apply: |s| s.faults.compactions = 1,
    },
    FaultClass {
        fault: Fault {
            id: "late-unlock",
            label: "late unlock",
            about: "an unlock's Delete is held up in the network once, until its caller's deadline passes (context deadline exceeded) and the caller goes on; the request arrives at any later step and deletes whatever key of that name is there (etcd-io/etcd#22082)",
        },
        apply: |s| s.faults.late_unlocks = 1,
    },
    FaultClass {
        fault: Fault {
            id: "pause-fenced",
            label: "pause, fenced",
            about: "a client's process stops for 4 ticks, once, as in the pause column, with fencing: lock() returns with its key's create revision as the token, and each critical section writes twice to a resource that rejects a token lower than the highest it accepted",
        },
        apply: |s| {
            s.faults.pauses = 1;
            s.fencing = true;
        },
    },
];

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
