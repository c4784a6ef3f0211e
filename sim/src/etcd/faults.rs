//! etcd's fault classes, one row each: the comparison's column and
//! legend, the scenario key (`[faults]`, a field of the model's
//! `EtcdFaults`, whose rows hold the checker's action), and the
//! simulator's strike (`late_unlocks` has none: the checker's only). What
//! ends a holder's tenure is its lease running out (a pause or a partition
//! stops its keep-alives, a crash ends them) or a revoke.

use crate::matrix::fault_table::fault_table;
use locksmith_model::etcd::check::EtcdSpace;

fault_table! {
    /// Every etcd fault class, in column order. Time in ticks: a session
    /// TTL of 3, a critical section of 2, a pause of 4
    /// (`compare::rows::space`).
    pub static ETCD_FAULTS: [FaultClass<EtcdSpace>];
    strikes ETCD_STRIKES: enum Strike;

    "none", "no fault",
    "no fault: every interleaving of the clients' requests, the watches' events and time in ticks (session TTL 3 ticks, kept alive by a running client; critical section 2)",
    [setting |_| {}];

    "pause", "pause",
    "a client's process stops for 4 ticks, once, at any step: no step and no keep-alive, so its lease (TTL 3) runs out and its keys go; a request it sent is still served",
    [budget pauses];

    "crash", "client crash",
    "a client's process crashes once, at any step: its watches end, its keys stay until its lease runs out 3 ticks later",
    [budget crashes];

    "revoke", "lease revoked",
    "a client's lease is revoked once, at any step (etcdctl lease revoke, an operator): its keys go at once while its process runs on",
    [budget revokes => Revoke];

    "waiter-expiry", "waiter's lease expires",
    "a waiter's lease expires once while it waits in lock() for a watch event: its keep-alives were lost for a TTL (a partition its watch stream sat out) while its process ran (etcd-io/etcd#11456)",
    [budget waiter_expiries => WaiterExpiry];

    "partition", "partition",
    "a client's link to etcd is cut for 4 ticks, once, at any step, while its process runs on: its keep-alives stop, so its lease (TTL 3) runs out and its keys go; its requests wait to be served, and the replies and watch events it has not read wait to arrive, until the link heals",
    [budget partitions => Partition];

    "compaction", "compaction",
    "the store is compacted to its current revision once, at any step: a watch asked for from an older revision afterwards fails with ErrCompacted",
    [budget compactions => Compaction];

    "late-unlock", "late unlock",
    "an unlock's Delete is held up in the network once, until its caller's deadline passes (context deadline exceeded) and the caller goes on; the request arrives at any later step and deletes whatever key of that name is there (etcd-io/etcd#22082)",
    [budget late_unlocks];

    "pause-fenced", "pause, fenced",
    "a client's process stops for 4 ticks, once, as in the pause column, with fencing: lock() returns with its key's create revision as the token, and each critical section writes twice to a resource that rejects a token lower than the highest it accepted",
    [setting |s| {
        s.faults.pauses = 1;
        s.fencing = true;
    }];
}
