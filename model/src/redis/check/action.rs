//! What can happen in the Redis system: the actions every command backend
//! has, and Redis's own (clock jumps, replication, a restart, a failover).

use crate::engine::command::command_actions;

command_actions! {
    /// What can happen in the Redis system.
    pub enum Action;
    serve: "server serves c{}";
    /// What can happen in the Redis system only.
    pub enum Own {
        /// Fault: client `c`'s clock jumps ahead by the configured skew.
        ClockAhead(c): fault => "c{}'s clock jumps ahead (fault)",
        /// Fault: client `c`'s clock jumps back by the configured skew.
        ClockBack(c): fault => "c{}'s clock jumps back (fault)",
        /// Fault: the server's clock jumps ahead by the configured skew: its
        /// TTLs shrink at once (keys past their deadline go).
        ServerClockAhead: fault => "the server's clock jumps ahead (fault)",
        /// Fault: the server's clock jumps back by the configured skew: every
        /// TTL grows (Redis keeps absolute deadlines).
        ServerClockBack: fault => "the server's clock jumps back (fault)",
        /// The replica receives the oldest write it has not received.
        Replicate: event => "the replica receives a write",
        /// Fault: the server restarts without persistence.
        Restart: fault => "the server restarts empty (fault)",
        /// Fault: the replica is promoted, losing what it had not received.
        Failover: fault => "the replica takes over (fault)",
    }
}
