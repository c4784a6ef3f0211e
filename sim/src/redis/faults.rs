//! Redis's fault classes, one row each: the comparison's column and
//! legend, the scenario key (`[faults]`, a field of the model's
//! `RedisFaults`, whose rows hold the checker's action), and the
//! simulator's strike. Not ZooKeeper's columns: a Redis client has no
//! session to expire; its lock ends with a TTL, a clock or a lost key.

use crate::matrix::fault_table::fault_table;
use locksmith_model::redis::check::RedisSpace;

fault_table! {
    /// Every Redis fault class, in column order. Time in ticks: a lease of
    /// 3, a critical section of 2, a pause of 4, a clock jump of 4
    /// (`compare::rows::space`).
    pub static REDIS_FAULTS: [FaultClass<RedisSpace>];
    strikes REDIS_STRIKES: enum Strike;

    "none", "no fault",
    "no fault: every interleaving of the clients' commands, the server and time in ticks (lease 3 ticks, critical section 2)",
    [setting |_| {}];

    "pause", "pause > lease",
    "a client's process stops for 4 ticks, longer than the 3-tick lease (a GC pause), once, at any step; commands it sent are still served",
    [budget pauses];

    "crash", "client crash",
    "a client's process crashes once, at any step: its connection closes (a command not yet served is lost), its keys stay",
    [budget crashes];

    "clock-jump", "client clock jump",
    "a client's clock jumps 4 ticks ahead or back, once, at any step: what a timestamp recipe reads and writes moves; the server's TTLs do not",
    [budget clock_jumps => ClockJump];

    "server-clock-jump", "server clock jump",
    "the server's clock jumps 4 ticks ahead (TTLs shrink: keys past their deadline go at once) or back (TTLs grow), once, at any step",
    [budget server_clock_jumps => ServerClockJump];

    "restart", "restart without persistence",
    "the server restarts once without persistence, between commands: every key is lost",
    [budget restarts => Restart];

    "failover", "failover",
    "the primary fails once, between commands, and its replica takes over without the writes it had not received (asynchronous replication, one write shipped at a time)",
    [budget failovers => Failover, also |s| s.replica = true];

    "pause-fenced", "pause > lease, fenced",
    "the pause, with fencing: lock() ends with INCR of a token on a key of its own, every critical section writes to the protected resource twice with it, and the resource rejects a token lower than one it accepted (mutual exclusion at the resource and fenced safety are judged)",
    [setting |s| {
        s.fencing = true;
        s.faults.pauses = 1;
    }];
}
