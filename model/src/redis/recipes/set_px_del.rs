//! `redis-set-px-del` — source 003 (`003_*.txt`), lines 45–66: the lock is
//! `SET resource_name my_random_value NX PX 30000` (line 45); the caller
//! (lines 55–66) returns at once when it does not get the lock
//! (`if (!acquireLock(lockKey)) { LOGGER.warn(...); return; }`), does its
//! business, and releases in `finally` with a plain `DEL lockKey`.
//!
//! What it claims: the key's TTL frees the lock if its holder dies, and
//! `NX` lets only one client set it. What breaks it (the seed's own
//! five-step story, lines 70–74): a holder that works past its lease (a
//! pause) loses the key to its TTL, a second client sets it, and the first
//! one's `DEL` then removes the second one's key — a third gets in beside
//! the second. The pause alone already breaks mutual exclusion: the first
//! still believes it holds when the second sets the key.
//!
//! The steps are named after the caller's code: `Lock` sends the `SET`,
//! `AwaitSet` reads its reply (`OK`: `acquireLock` returned true; nil: the
//! caller warns and returns), `Business` is the critical section's end,
//! `Finally` sends the release, `AwaitDel` reads its reply and the harness
//! starts the next round. [`super::compare_and_delete`] is the same caller
//! with the atomic release, [`super::set_px_token`] with a fencing token
//! drawn by the lock command too.

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Expiry, Reply, SetCondition};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// `acquireLock`: send `SET key token NX PX lease`.
    Lock,
    /// Read the `SET`'s reply.
    AwaitSet,
    /// `// do business ...`: the critical section; the step ends it.
    Business,
    /// `finally { releaseLock(lockKey); }`: send the release.
    Finally,
    /// Read the release's reply; the round is over.
    AwaitDel,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(self, At::AwaitSet | At::AwaitDel)
    }
}

/// Source 003's release: a plain `DEL`, whoever set the key.
pub fn release(me: &Me) -> Command {
    Command::Del {
        key: me.key.clone(),
    }
}

/// Source 003's lock: `SET key token NX PX lease`.
pub fn set_nx_px(me: &Me) -> Command {
    Command::Set {
        key: me.key.clone(),
        value: me.token.clone(),
        condition: SetCondition::Nx,
        expiry: Some(Expiry::Px(me.lease)),
    }
}

/// The commands a caller of this shape sends: `acquireLock`'s, and the
/// release `finally` sends.
#[derive(Clone, Copy)]
pub struct Commands {
    pub lock: fn(&Me) -> Command,
    pub release: fn(&Me) -> Command,
}

/// Whether `reply` to the lock command says it took the lock: `SET`'s OK,
/// or the token the lock-with-a-token script returns.
pub fn took(reply: &Reply) -> bool {
    matches!(reply, Reply::Ok | Reply::Int(_))
}

/// One step at `at`.
pub fn step(at: &mut At, reply: Option<&Reply>, me: &Me, cmds: Commands) -> Outcome {
    let (next, out) = match (*at, reply) {
        // A new round (the first, or the next after the release's reply).
        (At::Lock, _) | (At::AwaitDel, Some(_)) => (
            At::AwaitSet,
            Outcome::send((cmds.lock)(me), StepKind::Other),
        ),
        (At::AwaitSet, Some(r)) if took(r) => (At::Business, Outcome::only(StepKind::Acquired)),
        // `if (!acquireLock(lockKey)) { warn; return; }`
        (At::AwaitSet, Some(Reply::Nil)) => (At::Lock, Outcome::only(StepKind::GaveUp)),
        (At::AwaitSet, Some(_)) => (*at, Outcome::only(StepKind::Threw("JedisDataException"))),
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitDel,
            Outcome::send((cmds.release)(me), StepKind::SentRelease),
        ),
        // The driver steps a client that awaits a reply only once it came.
        (At::AwaitSet | At::AwaitDel, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
