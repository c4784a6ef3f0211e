//! `redis-setnx-del` — source 004 (`004_*.txt`), lines 52–61, "method 1":
//! `SETNX` with the current timestamp as the value; if the key is taken,
//! `GET` its timestamp and compare it with the current time; if the
//! timeout has passed, delete the key (`DEL`) and `SETNX` again. Source 004
//! does not say what the caller does when the lock is taken and fresh, or
//! when the second `SETNX` fails: like source 003's caller, it gives up
//! (the round ends). Released with `DEL` in `finally`.
//!
//! What it claims: a crashed holder's lock is taken over once its
//! timestamp is older than the timeout. What breaks it (the seed's own
//! story, lines 57–60): A crashes holding the lock; B and C both read A's
//! stale timestamp; B deletes it and sets its own; C's `DEL`, meant for
//! A's key, deletes B's, and C sets its own: B and C both hold.
//!
//! Time: the value is a [stamp](crate::redis::Value::Stamp) of the
//! client's clock, and "older than the timeout" is read by the client's own
//! clock: `value + timeout < now`.

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Reply, Value};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Send `SETNX key now`.
    Lock,
    /// Read `SETNX`'s reply: 1 holds; 0 sends `GET`.
    AwaitSetNx,
    /// Read the timestamp: past the timeout sends `DEL`, else give up.
    AwaitGet,
    /// Read the takeover `DEL`'s reply and `SETNX` again.
    AwaitTakeoverDel,
    /// Read the second `SETNX`'s reply: 1 holds, 0 gives up.
    AwaitResetNx,
    /// The critical section; the step ends it.
    Business,
    /// `finally`: send `DEL key`.
    Finally,
    /// Read `DEL`'s reply; the round is over.
    AwaitDel,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(
            self,
            At::AwaitSetNx | At::AwaitGet | At::AwaitTakeoverDel | At::AwaitResetNx | At::AwaitDel
        )
    }

    /// `reply`, unread at this point, means a `SETNX` set the key.
    pub fn won(self, reply: &Reply) -> bool {
        matches!(self, At::AwaitSetNx | At::AwaitResetNx) && *reply == Reply::Int(1)
    }
}

/// The seed's rule: the timestamp `v` is older than the timeout by the
/// clock that reads `now` (a stamp relative to the reference time).
pub fn expired(v: &Value, now: i64, timeout: i64) -> bool {
    matches!(v, Value::Stamp(k) if k + timeout < now)
}

pub fn step(at: &mut At, reply: Option<&Reply>, me: &Me) -> Outcome {
    let key = me.key.clone();
    let setnx = || Command::SetNx {
        key: me.key.clone(),
        value: Value::Stamp(me.clock),
    };
    let (next, out) = match (*at, reply) {
        (At::Lock, _) | (At::AwaitDel, Some(_)) => {
            (At::AwaitSetNx, Outcome::send(setnx(), StepKind::Other))
        }
        (At::AwaitSetNx | At::AwaitResetNx, Some(Reply::Int(1))) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::AwaitSetNx, Some(Reply::Int(0))) => (
            At::AwaitGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        (At::AwaitGet, Some(Reply::Bulk(v))) if expired(v, me.clock, me.lease) => (
            At::AwaitTakeoverDel,
            Outcome::send(Command::Del { key }, StepKind::Other),
        ),
        // Fresh, or gone since the SETNX: the caller gives up.
        (At::AwaitGet, Some(Reply::Bulk(_) | Reply::Nil))
        | (At::AwaitResetNx, Some(Reply::Int(0))) => (At::Lock, Outcome::only(StepKind::GaveUp)),
        (At::AwaitTakeoverDel, Some(_)) => {
            (At::AwaitResetNx, Outcome::send(setnx(), StepKind::Other))
        }
        (At::AwaitSetNx | At::AwaitGet | At::AwaitResetNx, Some(_)) => {
            (*at, Outcome::only(StepKind::Threw("JedisDataException")))
        }
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitDel,
            Outcome::send(Command::Del { key }, StepKind::SentRelease),
        ),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
