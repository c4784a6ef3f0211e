//! The Redis matrix's rows and columns: the Redis recipes, and the fault
//! classes of a lease lock on Redis — not ZooKeeper's columns (a Redis
//! client has no session to expire; its lock ends with a TTL, a clock or a
//! lost key). One registry, [`REDIS_FAULTS`]; every cell is judged by
//! the Redis checker.

use crate::matrix::axes::{Fault, Row};
use crate::matrix::command::FaultClass;
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::recipes::RedisRecipe;

/// Every Redis fault class, in column order. Time in ticks: a lease of 3,
/// a critical section of 2, a pause of 4, a clock jump of 4 ([`space`]).
pub static REDIS_FAULTS: &[FaultClass<RedisSpace>] = &[
    FaultClass {
        fault: Fault {
            id: "none",
            label: "no fault",
            about: "no fault: every interleaving of the clients' commands, the server and time in ticks (lease 3 ticks, critical section 2)",
        },
        apply: |_| {},
    },
    FaultClass {
        fault: Fault {
            id: "pause",
            label: "pause > lease",
            about: "a client's process stops for 4 ticks, longer than the 3-tick lease (a GC pause), once, at any step; commands it sent are still served",
        },
        apply: |s| s.faults.pauses = 1,
    },
    FaultClass {
        fault: Fault {
            id: "crash",
            label: "client crash",
            about: "a client's process crashes once, at any step: its connection closes (a command not yet served is lost), its keys stay",
        },
        apply: |s| s.faults.crashes = 1,
    },
    FaultClass {
        fault: Fault {
            id: "clock-jump",
            label: "client clock jump",
            about: "a client's clock jumps 4 ticks ahead or back, once, at any step: what a timestamp recipe reads and writes moves; the server's TTLs do not",
        },
        apply: |s| s.faults.clock_jumps = 1,
    },
    FaultClass {
        fault: Fault {
            id: "server-clock-jump",
            label: "server clock jump",
            about: "the server's clock jumps 4 ticks ahead (TTLs shrink: keys past their deadline go at once) or back (TTLs grow), once, at any step",
        },
        apply: |s| s.faults.server_clock_jumps = 1,
    },
    FaultClass {
        fault: Fault {
            id: "restart",
            label: "restart without persistence",
            about: "the server restarts once without persistence, between commands: every key is lost",
        },
        apply: |s| s.faults.restarts = 1,
    },
    FaultClass {
        fault: Fault {
            id: "failover",
            label: "failover",
            about: "the primary fails once, between commands, and its replica takes over without the writes it had not received (asynchronous replication, one write shipped at a time)",
        },
        apply: |s| {
            s.replica = true;
            s.faults.failovers = 1;
        },
    },
    FaultClass {
        fault: Fault {
            id: "pause-fenced",
            label: "pause > lease, fenced",
            about: "the pause, with fencing: lock() ends with INCR of a token on a key of its own, every critical section writes to the protected resource twice with it, and the resource rejects a token lower than one it accepted (mutual exclusion at the resource and fenced safety are judged)",
        },
        apply: |s| {
            s.fencing = true;
            s.faults.pauses = 1;
        },
    },
];

/// Every Redis recipe, in [`RedisRecipe::ALL`]'s order.
pub static REDIS_ROWS: &[Row] = &[
    Row {
        recipe: "redis-set-px-del",
        clients: 2,
        claim: "Source 003, lines 45-74: `SET key token NX PX lease`, the business, a plain `DEL` in `finally`. Claims the lease keeps a crashed holder from blocking everyone.",
        instead: "redis-compare-and-delete, with fencing where the resource can check a token.",
    },
    Row {
        recipe: "redis-compare-and-delete",
        clients: 2,
        claim: "Source 003's caller with the release the seed asks for (lines 76-78), done atomically: `EVAL` of the compare-and-delete script. A holder deletes only its own key.",
        instead: "",
    },
    Row {
        recipe: "redis-setnx-expire",
        clients: 2,
        claim: "Source 004, lines 39-45: `SETNX`, then the timeout as a second command (`PEXPIRE`).",
        instead: "redis-compare-and-delete (`SET NX PX` sets the key and its TTL in one command).",
    },
    Row {
        recipe: "redis-setnx-del",
        clients: 3,
        claim: "Source 004, lines 52-61 (\"method 1\"): `SETNX` of an expiry timestamp; a stale one is deleted and set again. Three clients: source 004's B and C race for A's expired lock.",
        instead: "redis-compare-and-delete.",
    },
    Row {
        recipe: "redis-acquirelock",
        clients: 3,
        claim: "Source 003's acquireLock (lines 83-140: `SETNX` of an expiry timestamp, `GET`, compare, `GETSET`, `equals`) and its time-compare releaseLock, called by the seed's first caller. Three clients: two race with `GETSET` for an expired key.",
        instead: "redis-compare-and-delete.",
    },
    Row {
        recipe: "redis-acquirelock-always-release",
        clients: 2,
        claim: "Source 003's second caller (lines 180-188): releaseLock in `finally` even when acquireLock returned false — the misuse the seed itself describes.",
        instead: "release only after acquiring; redis-compare-and-delete.",
    },
    Row {
        recipe: "redis-get-then-del",
        clients: 2,
        claim: "Source 003, lines 194-213: `SET NX PX`, released by `GET`, compare with the client's own value, then `DEL` — two commands.",
        instead: "redis-compare-and-delete (the compare and the delete in one script).",
    },
    Row {
        recipe: "redis-setnx-getset",
        clients: 3,
        claim: "Source 004's \"method 2\" (lines 77-92): a blocking `SETNX` / `GET` / `GETSET` loop on an expiry timestamp, released by a time-compared `DEL`. Three clients: source 004's B and C race with `GETSET` for the lock.",
        instead: "redis-compare-and-delete.",
    },
    Row {
        recipe: "redis-set-px-token",
        clients: 2,
        claim: "Source 003's `SET NX PX` lock with the version its line 217 asks for, drawn by the lock command itself: one `EVAL` sets the key and, only if it did, `INCR`s a fencing counter whose value is the token; released by compare-and-delete. The token follows the order in which the server gave the lock.",
        instead: "",
    },
];

/// A row's configuration before its column's fault: the comparison's
/// sizes and times (`None`: not a Redis recipe).
pub fn space(row: &Row) -> Option<RedisSpace> {
    let mut s = RedisSpace::new(RedisRecipe::parse(row.recipe)?);
    s.clients = row.clients;
    s.acquisitions = 1;
    s.lease = 3;
    s.work = 2;
    s.pause = 4;
    s.skew = 4;
    Some(s)
}
