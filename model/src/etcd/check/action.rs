//! What can happen in the etcd system: the actions every command backend
//! has, and etcd's own (leases revoked or expired, compaction, a late
//! unlock, a partition).

use crate::engine::command::command_actions;

command_actions! {
    /// What can happen in the etcd system. A tick keeps running clients'
    /// leases alive; the others count down and expire.
    pub enum Action;
    serve: "etcd serves c{}";
    /// What can happen in the etcd system only.
    pub enum Own {
        /// Fault: client `c`'s lease is revoked.
        Revoke(c): fault => "c{}'s lease is revoked (fault)",
        /// Fault: client `c`, waiting for a watch event, loses its lease: the
        /// server expires it (its keep-alives were lost for a TTL).
        WaiterExpires(c): fault =>
            "c{}'s lease expires while it waits: its keep-alives were lost (fault)",
        /// Fault: the store is compacted to its current revision.
        Compact: fault => "the store is compacted (fault)",
        /// Fault: client `c`'s unlock in flight is held up in the network; the
        /// client's own deadline passes and it goes on.
        DelayUnlock(c): fault =>
            "c{}'s unlock is held up in the network; its deadline passes (fault)",
        /// Client `c`'s held-up unlock reaches the server.
        LateUnlock(c): event => "c{}'s late unlock reaches etcd",
        /// Fault: client `c`'s link to etcd is cut for the configured ticks
        /// while its process runs on.
        Partition(c): fault => "c{}'s link to etcd is cut (fault)",
    }
}
