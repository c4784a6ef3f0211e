//! The Redis lock recipes of sources 003 and 004, one file each, as sans-IO
//! state machines over [`crate::redis`]'s commands and replies: a client's
//! step reads the reply its last command got (if any), and says which
//! command it sends next and what the step means to the harness
//! ([`StepKind`]). Time, pauses, the critical section's length and the
//! rounds of the harness loop are the driver's, not the recipe's.
//!
//! | id | file |
//! |---|---|
//! | redis-set-px-del | [`set_px_del`] |
//! | redis-compare-and-delete | [`compare_and_delete`] |
//! | redis-setnx-expire | [`setnx_expire`] |
//! | redis-setnx-del | [`setnx_del`] |
//! | redis-acquirelock | [`acquire_lock`] (source 003's first caller) |
//! | redis-acquirelock-always-release | [`acquire_lock`] (source 003's second caller) |
//! | redis-get-then-del | [`get_then_del`] |
//! | redis-setnx-getset | [`setnx_getset`] |
//! | redis-set-px-token | [`set_px_token`] |

pub(crate) mod acquire_lock;
pub(crate) mod compare_and_delete;
pub(crate) mod get_then_del;
pub(crate) mod set_px_del;
pub(crate) mod set_px_token;
pub(crate) mod setnx_del;
pub(crate) mod setnx_expire;
pub(crate) mod setnx_getset;

use crate::engine::harness::AwaitsReply;
use crate::redis::{Command, Key, RedisServer, Reply, Value};

/// The key every client locks (source 003's `lockKey`).
pub const LOCK_KEY: &str = "lock";
use serde::Serialize;
use std::fmt;

/// A Redis recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum RedisRecipe {
    SetPxDel,
    CompareAndDelete,
    SetNxExpire,
    SetNxDel,
    AcquireLock,
    /// Source 003's second caller: `releaseLock` in `finally` even when
    /// `acquireLock` returned false.
    AcquireLockAlwaysRelease,
    GetThenDel,
    SetNxGetSet,
    /// `SET NX PX` and a fencing token in one script, compare-and-delete.
    SetPxToken,
}

impl RedisRecipe {
    pub const ALL: [RedisRecipe; 9] = [
        RedisRecipe::SetPxDel,
        RedisRecipe::CompareAndDelete,
        RedisRecipe::SetNxExpire,
        RedisRecipe::SetNxDel,
        RedisRecipe::AcquireLock,
        RedisRecipe::AcquireLockAlwaysRelease,
        RedisRecipe::GetThenDel,
        RedisRecipe::SetNxGetSet,
        RedisRecipe::SetPxToken,
    ];

    /// The recipe's id (as scenario files and the comparison name it).
    pub fn id(self) -> &'static str {
        match self {
            RedisRecipe::SetPxDel => "redis-set-px-del",
            RedisRecipe::CompareAndDelete => "redis-compare-and-delete",
            RedisRecipe::SetNxExpire => "redis-setnx-expire",
            RedisRecipe::SetNxDel => "redis-setnx-del",
            RedisRecipe::AcquireLock => "redis-acquirelock",
            RedisRecipe::AcquireLockAlwaysRelease => "redis-acquirelock-always-release",
            RedisRecipe::GetThenDel => "redis-get-then-del",
            RedisRecipe::SetNxGetSet => "redis-setnx-getset",
            RedisRecipe::SetPxToken => "redis-set-px-token",
        }
    }

    pub fn parse(id: &str) -> Option<RedisRecipe> {
        RedisRecipe::ALL.into_iter().find(|r| r.id() == id.trim())
    }

    /// Where the recipe comes from, in a line: the seed and its lines (as
    /// the recipe's file cites them).
    pub fn origin(self) -> &'static str {
        match self {
            RedisRecipe::SetPxDel => {
                "source 003, lines 45–66: SET NX PX, the business, a plain DEL in finally"
            }
            RedisRecipe::CompareAndDelete => {
                "source 003's SET NX PX caller (lines 45–66) with the release lines 76–78 ask for, as an atomic compare-and-delete script"
            }
            RedisRecipe::SetNxExpire => {
                "source 004, lines 39–45: SETNX, then the timeout as a second command"
            }
            RedisRecipe::SetNxDel => {
                "source 004's method 1, lines 52–61: SETNX of a timestamp; a stale one is deleted and set again"
            }
            RedisRecipe::AcquireLock => {
                "source 003's acquireLock (lines 83–140) / releaseLock (lines 153–167), called by its first caller (lines 55–66)"
            }
            RedisRecipe::AcquireLockAlwaysRelease => {
                "source 003's acquireLock / releaseLock, called by its second caller (lines 180–188): releaseLock in finally even when acquireLock returned false"
            }
            RedisRecipe::GetThenDel => {
                "source 003, lines 194–213: SET NX PX, released by GET, compare, then DEL"
            }
            RedisRecipe::SetNxGetSet => {
                "source 004's method 2, lines 77–92: a blocking SETNX / GET / GETSET loop on an expiry timestamp"
            }
            RedisRecipe::SetPxToken => {
                "source 003's SET NX PX lock (line 45) with the version its line 217 asks for, drawn by the lock command itself"
            }
        }
    }

    /// What the recipe claims, in a sentence from its file's doc comment.
    pub fn claim(self) -> &'static str {
        match self {
            RedisRecipe::SetPxDel => {
                "the key's TTL frees the lock if its holder dies, and NX lets only one client set it"
            }
            RedisRecipe::CompareAndDelete => "a client never deletes a key another client set",
            RedisRecipe::GetThenDel => "a client deletes only its own key",
            RedisRecipe::SetNxExpire => "the timeout frees the lock if its holder dies",
            RedisRecipe::SetNxDel => {
                "a crashed holder's lock is taken over once its timestamp is older than the timeout"
            }
            RedisRecipe::AcquireLock | RedisRecipe::AcquireLockAlwaysRelease => {
                "a crashed holder's expired timestamp is taken over by exactly one client (GETSET returns the old value to one of them), and a late holder does not delete a fresh lock"
            }
            RedisRecipe::SetNxGetSet => {
                "a crashed holder's expired timestamp is taken over by one client only: the one whose GETSET returns the expired value"
            }
            RedisRecipe::SetPxToken => {
                "the versions follow the order in which the server gave the lock, so a resource that refuses an older version keeps every stale write out"
            }
        }
    }

    /// A client calling `lock()` on `server` now would get the lock (the
    /// stuck-lock analysis asks this of every state): for the `SET NX`
    /// and `SETNX` recipes, the key is missing.
    pub fn acquirable(self, server: &RedisServer, lease: i64) -> bool {
        match self {
            RedisRecipe::SetPxDel
            | RedisRecipe::CompareAndDelete
            | RedisRecipe::SetNxExpire
            | RedisRecipe::GetThenDel
            | RedisRecipe::SetPxToken => server.entry(&Key::new(LOCK_KEY)).is_none(),
            // Missing, or older than the timeout by the reference clock.
            RedisRecipe::SetNxDel => server
                .entry(&Key::new(LOCK_KEY))
                .is_none_or(|e| setnx_del::expired(&e.value, 0, lease)),
            RedisRecipe::AcquireLock
            | RedisRecipe::AcquireLockAlwaysRelease
            | RedisRecipe::SetNxGetSet => server
                .entry(&Key::new(LOCK_KEY))
                .is_none_or(|e| acquire_lock::expired(&e.value, 0)),
        }
    }

    /// Where a client of this recipe starts.
    pub fn start(self) -> Locals {
        match self {
            RedisRecipe::SetPxDel | RedisRecipe::CompareAndDelete | RedisRecipe::SetPxToken => {
                Locals::SetPx(set_px_del::At::Lock)
            }
            RedisRecipe::SetNxExpire => Locals::SetNx(setnx_expire::At::Lock),
            RedisRecipe::SetNxDel => Locals::SetNxDel(setnx_del::At::Lock),
            RedisRecipe::AcquireLock | RedisRecipe::AcquireLockAlwaysRelease => {
                Locals::AcquireLock(acquire_lock::Locals::start())
            }
            RedisRecipe::GetThenDel => Locals::GetThenDel(get_then_del::At::Lock),
            RedisRecipe::SetNxGetSet => Locals::SetNxGetSet(setnx_getset::Locals::start()),
        }
    }

    /// One step of `me` at `at`, reading `reply` (the reply to its last
    /// command, if one came since).
    pub fn step(self, at: &mut Locals, reply: Option<&Reply>, me: &Me) -> Outcome {
        match (self, at) {
            (RedisRecipe::SetPxDel, Locals::SetPx(at)) => {
                let cmds = set_px_del::Commands {
                    lock: set_px_del::set_nx_px,
                    release: set_px_del::release,
                };
                set_px_del::step(at, reply, me, cmds)
            }
            (RedisRecipe::CompareAndDelete, Locals::SetPx(at)) => {
                let cmds = set_px_del::Commands {
                    lock: set_px_del::set_nx_px,
                    release: compare_and_delete::release,
                };
                set_px_del::step(at, reply, me, cmds)
            }
            (RedisRecipe::SetPxToken, Locals::SetPx(at)) => {
                let cmds = set_px_del::Commands {
                    lock: set_px_token::lock,
                    release: compare_and_delete::release,
                };
                set_px_del::step(at, reply, me, cmds)
            }
            (RedisRecipe::SetNxExpire, Locals::SetNx(at)) => setnx_expire::step(at, reply, me),
            (RedisRecipe::SetNxDel, Locals::SetNxDel(at)) => setnx_del::step(at, reply, me),
            (RedisRecipe::AcquireLock, Locals::AcquireLock(l)) => {
                acquire_lock::step(l, reply, me, acquire_lock::Caller::First)
            }
            (RedisRecipe::AcquireLockAlwaysRelease, Locals::AcquireLock(l)) => {
                acquire_lock::step(l, reply, me, acquire_lock::Caller::Second)
            }
            (RedisRecipe::GetThenDel, Locals::GetThenDel(at)) => get_then_del::step(at, reply, me),
            (RedisRecipe::SetNxGetSet, Locals::SetNxGetSet(l)) => setnx_getset::step(l, reply, me),
            // A recipe's clients start in its own locals and stay there.
            (_, at) => unreachable!("{self} cannot run from {at:?}"),
        }
    }
}

impl fmt::Display for RedisRecipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A client's position in its recipe, with the locals the seed's code
/// keeps (none yet beyond the position: the token is the client's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Locals {
    /// `SET key token NX PX lease`, work, then a release in `finally`.
    SetPx(set_px_del::At),
    /// `SETNX key token`, then the expiry as a second command.
    SetNx(setnx_expire::At),
    /// `SETNX key now`; a stale timestamp is deleted and set again.
    SetNxDel(setnx_del::At),
    /// Source 003's `acquireLock` with its stamps and `tryTimes`.
    AcquireLock(acquire_lock::Locals),
    /// `SET key token NX PX lease`, work, then `GET` and a `DEL` if ours.
    GetThenDel(get_then_del::At),
    /// Source 004's blocking `SETNX`/`GET`/`GETSET` loop with its timestamp.
    SetNxGetSet(setnx_getset::Locals),
}

impl Locals {
    /// The locals a tick later: stamps they keep age, clamped at `floor`.
    pub fn aged(self, floor: i64) -> Locals {
        match self {
            Locals::AcquireLock(l) => Locals::AcquireLock(l.aged(floor)),
            Locals::SetNxGetSet(l) => Locals::SetNxGetSet(l.aged(floor)),
            other => other,
        }
    }

    /// `reply`, waiting to be read here, says the lock operation succeeded
    /// (read on the client's clock, `now`): the client's tenure began at
    /// the server before it knows it.
    pub fn won(self, reply: &Reply, now: i64) -> bool {
        match self {
            Locals::SetPx(at) => at == set_px_del::At::AwaitSet && set_px_del::took(reply),
            Locals::SetNx(at) => at.won(reply),
            Locals::SetNxDel(at) => at.won(reply),
            Locals::AcquireLock(l) => l.won(reply),
            Locals::GetThenDel(at) => at == get_then_del::At::AwaitSet && *reply == Reply::Ok,
            Locals::SetNxGetSet(l) => l.won(reply, now),
        }
    }
}

/// What a client knows of itself: the lock's key, its own token (seed
/// 003's `my_random_value`, unique per client) and the lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Me {
    pub key: Key,
    /// The key whose `INCR` numbers the lock's tenures (a fencing token
    /// drawn by the lock command itself).
    pub fence: Key,
    pub token: Value,
    /// `PX`'s argument, or a timestamp recipe's timeout, in the model's
    /// milliseconds (one per tick).
    pub lease: i64,
    /// The client's clock: how far it reads ahead of the reference time.
    pub clock: i64,
}

impl RedisRecipe {
    /// The lock command's reply carries the fencing token: `lock()` takes
    /// it from there, with no `INCR` of its own.
    pub fn token_in_reply(self) -> bool {
        self == RedisRecipe::SetPxToken
    }

    /// The recipe's own rule says the lock's value `v` has run out by a
    /// clock reading `now` (a timestamp recipe's takeover is then by
    /// design). A lease lock's key never has: its TTL removes it.
    pub fn expired(self, v: &Value, now: i64, lease: i64) -> bool {
        match self {
            RedisRecipe::SetNxDel => setnx_del::expired(v, now, lease),
            RedisRecipe::AcquireLock
            | RedisRecipe::AcquireLockAlwaysRelease
            | RedisRecipe::SetNxGetSet => acquire_lock::expired(v, now),
            _ => false,
        }
    }
}

impl AwaitsReply for Locals {
    /// The recipe waits for the reply to the command it sent.
    fn awaits_reply(&self) -> bool {
        match self {
            Locals::SetPx(at) => at.awaits_reply(),
            Locals::SetNx(at) => at.awaits_reply(),
            Locals::SetNxDel(at) => at.awaits_reply(),
            Locals::AcquireLock(l) => l.awaits_reply(),
            Locals::GetThenDel(at) => at.awaits_reply(),
            Locals::SetNxGetSet(l) => l.awaits_reply(),
        }
    }
}

/// What one step did: the command it sent, if any, what it means to the
/// harness, whether it sleeps a tick.
pub type Outcome = crate::engine::harness::Outcome<Command>;
