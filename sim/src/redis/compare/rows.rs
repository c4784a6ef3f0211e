//! The Redis matrix's rows: the Redis recipes, and each one's
//! configuration before its column's fault (the columns are Redis's fault
//! table, `crate::redis::faults`). Every cell is judged by the Redis
//! checker.

use crate::matrix::axes::Row;
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::recipes::RedisRecipe;

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
