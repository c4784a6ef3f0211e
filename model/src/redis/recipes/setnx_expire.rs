//! `redis-setnx-expire` — source 004 (`004_*.txt`), lines 39–45: the lock is
//! taken with `SETNX` (line 39, shown only as a screenshot), released with
//! `del` (line 42); problem 1 (line 44: a holder that dies never releases)
//! is answered by "set a feasible timeout" (line 45), done here as many
//! teams do it and as issue 14 asks: `SETNX key token`, then, as a second
//! command, an expiry on the key. The model sends `PEXPIRE key lease`
//! where a program would send `EXPIRE key seconds`: the checker's unit of
//! time is a tick, one model millisecond, and what matters — two commands,
//! not one atomic `SET NX PX` — is the same.
//!
//! What it claims: the timeout frees the lock if its holder dies. What
//! breaks it: a holder that dies between `SETNX` and the expiry leaves a
//! key that never expires, and nobody can take the lock again — a stuck
//! lock, judged by reachability. Like source 003's caller, it gives up when
//! `SETNX` answers 0 and releases with a plain `DEL` in `finally`.

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Reply};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Send `SETNX key token`.
    Lock,
    /// Read `SETNX`'s reply: 1 sends the expiry, 0 gives up.
    AwaitSetNx,
    /// Read the expiry's reply: `lock()` returns true.
    AwaitExpire,
    /// The critical section; the step ends it.
    Business,
    /// `finally`: send `DEL key`.
    Finally,
    /// Read `DEL`'s reply; the round is over.
    AwaitDel,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(self, At::AwaitSetNx | At::AwaitExpire | At::AwaitDel)
    }

    /// `reply`, unread at this point, means `SETNX` set the key.
    pub fn won(self, reply: &Reply) -> bool {
        match self {
            At::AwaitSetNx => *reply == Reply::Int(1),
            At::AwaitExpire => true,
            _ => false,
        }
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>, me: &Me) -> Outcome {
    let key = me.key.clone();
    let (next, out) = match (*at, reply) {
        (At::Lock, _) | (At::AwaitDel, Some(_)) => {
            let setnx = Command::SetNx {
                key,
                value: me.token.clone(),
            };
            (At::AwaitSetNx, Outcome::send(setnx, StepKind::Other))
        }
        (At::AwaitSetNx, Some(Reply::Int(1))) => {
            let expire = Command::PExpire { key, ms: me.lease };
            (At::AwaitExpire, Outcome::send(expire, StepKind::Other))
        }
        (At::AwaitSetNx, Some(Reply::Int(0))) => (At::Lock, Outcome::only(StepKind::GaveUp)),
        (At::AwaitExpire, Some(Reply::Int(_))) => (At::Business, Outcome::only(StepKind::Acquired)),
        (At::AwaitSetNx | At::AwaitExpire, Some(_)) => {
            (*at, Outcome::only(StepKind::Threw("JedisDataException")))
        }
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitDel,
            Outcome::send(Command::Del { key }, StepKind::SentRelease),
        ),
        (At::AwaitSetNx | At::AwaitExpire | At::AwaitDel, None) => {
            (*at, Outcome::only(StepKind::Other))
        }
    };
    *at = next;
    out
}
