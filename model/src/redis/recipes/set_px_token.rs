//! `redis-set-px-token` — source 003's `SET NX PX` lock (line 45) with the
//! cure its line 217 gives for a holder whose lease ran out while it still
//! works: "every write carries the lock's version, and each acquisition
//! adds 1 to it" (每次写入数据都带一个锁的版本, 如果下次获取锁的时候版本加1),
//! so that a stale holder's writes carry an old version. The version is
//! drawn in the same command that takes the lock — `EVAL` of
//! [`crate::redis::SET_NX_PX_INCR_LUA`]: `SET key token NX PX lease` and,
//! only if it set the key, `INCR fence`, whose value comes back as the
//! reply — and released with the atomic compare-and-delete.
//!
//! What it claims: the versions follow the order in which the server gave
//! the lock, so a resource that refuses a version older than one it saw
//! keeps every stale write out. A token drawn by a second command after the
//! `SET` does not (`redis-compare-and-delete` with fencing: a client paused
//! between its `SET` and its `INCR` draws a newer token than the next
//! holder's). What still breaks: mutual exclusion by belief — the lease
//! runs out under a pause as for every lease lock; only the resource's
//! check saves the data.
//!
//! The caller is [`super::set_px_del`]'s, with this lock command and the
//! compare-and-delete release.

use super::Me;
use crate::redis::Command;

/// The lock-with-a-token script for this client.
pub fn lock(me: &Me) -> Command {
    Command::SetNxPxIncr {
        key: me.key.clone(),
        value: me.token.clone(),
        ms: me.lease,
        fence: me.fence.clone(),
    }
}
