//! `redis-acquirelock` — source 003 (`003_*.txt`): `acquireLock`, lines
//! 83–140, and the time-compare `releaseLock`, lines 153–167, called by the
//! seed's first caller (lines 55–66: `return` when `acquireLock` fails,
//! `releaseLock` in `finally` only after it succeeded).
//!
//! `acquireLock` computes `value = now + expired + 1` once, then up to
//! three times (`while (tryTimes++ < 3)`): `SETNX key value` (1: true);
//! else `GET key`; a blank value retries (`continue`); a value not yet
//! past (`oldValue >= now`) returns false; a past one sends `GETSET key
//! value` and returns `oldValue.equals(getValue)`. `releaseLock` reads
//! `now`, `GET`s the value, and `DEL`s the key only if `now < value`.
//!
//! What it claims: a crashed holder's expired timestamp is taken over by
//! exactly one client (`GETSET` returns the old value to one of them), and
//! a late holder does not delete a fresh lock (the time compare). What
//! breaks it: every "now" is the client's own clock — a client whose clock
//! runs ahead sees a live lock as expired and takes it over (mutual
//! exclusion); a losing `GETSET` still overwrites the winner's timestamp.
//!
//! The seed's second caller (lines 180–188: `locked = acquireLock(...);
//! if (locked) { business } ... finally { releaseLock(lockKey); }`) runs
//! `releaseLock` even when `acquireLock` returned false — the misuse the
//! seed itself describes (line 191: A, not holding, releases B's lock):
//! its time compare reads B's live timestamp as not past and deletes it.
//! [`Caller::Second`] runs it (`redis-acquirelock-always-release`).
//!
//! Time: values are [stamps](crate::redis::Value::Stamp); the locals keep
//! `value` and `oldValue` as stamps too (ticks relative to the reference
//! time), and they age with every tick ([`Locals::aged`]).

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Reply, Value};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// `acquireLock` begins: compute `value`, send the first `SETNX`.
    Lock,
    /// Read `SETNX`'s reply: 1 returns true; 0 sends `GET`.
    AwaitSetNx,
    /// Read `oldValue`: blank retries, past sends `GETSET`, else false.
    AwaitGet,
    /// Read `getValue`: `oldValue.equals(getValue)`.
    AwaitGetSet,
    /// `// do business ...`; the step ends the critical section.
    Business,
    /// `releaseLock`: read `current`, send `GET`.
    Finally,
    /// Read the value: `current < value` sends `DEL`, else nothing.
    AwaitReleaseGet,
    /// Read `DEL`'s reply; the round is over.
    AwaitDel,
}

/// Which of source 003's callers runs `acquireLock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// Lines 55–66: `return` when `acquireLock` fails; `releaseLock` only
    /// after it succeeded.
    First,
    /// Lines 180–188: `releaseLock` in `finally`, whatever `acquireLock`
    /// returned.
    Second,
}

/// The seed's locals: where it is, `value`, `oldValue` and `tryTimes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Locals {
    pub at: At,
    /// `value`, a stamp.
    pub value: i64,
    /// `oldValue`, a stamp, once read.
    pub old: i64,
    /// `tryTimes` after its increment.
    pub tries: u8,
    /// `acquireLock` returned true this round (the second caller's
    /// `finally` runs either way). False until then and from the next
    /// round on, so for the first caller it follows `at` and splits no
    /// state.
    pub held: bool,
}

impl Locals {
    pub fn start() -> Locals {
        Locals {
            at: At::Lock,
            value: 0,
            old: 0,
            tries: 0,
            held: false,
        }
    }

    pub fn awaits_reply(self) -> bool {
        matches!(
            self.at,
            At::AwaitSetNx | At::AwaitGet | At::AwaitGetSet | At::AwaitReleaseGet | At::AwaitDel
        )
    }

    /// `reply`, unread here, means `acquireLock` will return true.
    pub fn won(self, reply: &Reply) -> bool {
        match (self.at, reply) {
            (At::AwaitSetNx, Reply::Int(1)) => true,
            (At::AwaitGetSet, Reply::Bulk(Value::Stamp(g))) => *g == self.old,
            _ => false,
        }
    }

    /// The locals a tick later, stamps clamped at `floor`.
    pub fn aged(self, floor: i64) -> Locals {
        Locals {
            value: (self.value - 1).max(floor),
            old: (self.old - 1).max(floor),
            ..self
        }
    }
}

/// The seed's rule for a timestamp `v` read at `now`: past it.
pub fn expired(v: &Value, now: i64) -> bool {
    matches!(v, Value::Stamp(k) if *k < now)
}

pub fn step(l: &mut Locals, reply: Option<&Reply>, me: &Me, caller: Caller) -> Outcome {
    let key = me.key.clone();
    let setnx = |value: i64| Command::SetNx {
        key: me.key.clone(),
        value: Value::Stamp(value),
    };
    // `acquireLock` returned false: the first caller returns; the second
    // goes on to its `finally` (lock() has not returned to the harness
    // until its release went out).
    let failed = match caller {
        Caller::First => (At::Lock, Outcome::only(StepKind::GaveUp)),
        Caller::Second => (At::Finally, Outcome::only(StepKind::Other)),
    };
    // The release went out (or was skipped): the round's lock() is over.
    let released = if l.held {
        StepKind::SentRelease
    } else {
        StepKind::GaveUp
    };
    let (at, out) = match (l.at, reply) {
        // `value = now + expired + 1`; `tryTimes++ < 3` with tryTimes 0.
        (At::Lock, _) | (At::AwaitDel, Some(_)) => {
            l.value = me.clock + me.lease + 1;
            l.tries = 1;
            (
                At::AwaitSetNx,
                Outcome::send(setnx(l.value), StepKind::Other),
            )
        }
        (At::AwaitSetNx, Some(Reply::Int(1))) => (At::Business, Outcome::only(StepKind::Acquired)),
        (At::AwaitSetNx, Some(Reply::Int(_))) => (
            At::AwaitGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        // Blank: `continue`, while `tryTimes++ < 3`.
        (At::AwaitGet, Some(Reply::Nil)) if l.tries < 3 => {
            l.tries += 1;
            (
                At::AwaitSetNx,
                Outcome::send(setnx(l.value), StepKind::Other),
            )
        }
        (At::AwaitGet, Some(Reply::Bulk(Value::Stamp(k)))) if *k < me.clock => {
            l.old = *k;
            let getset = Command::GetSet {
                key,
                value: Value::Stamp(l.value),
            };
            (At::AwaitGetSet, Outcome::send(getset, StepKind::Other))
        }
        // Not past yet, or three blanks, or not a number (caught: false).
        (At::AwaitGet, Some(_)) => failed,
        (At::AwaitGetSet, Some(Reply::Bulk(Value::Stamp(g)))) if *g == l.old => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::AwaitGetSet, Some(_)) => failed,
        (At::AwaitSetNx, Some(_)) => failed,
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitReleaseGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        // `current < Long.valueOf(value)`: delete; else leave it.
        (At::AwaitReleaseGet, Some(Reply::Bulk(Value::Stamp(k)))) if me.clock < *k => {
            (At::AwaitDel, Outcome::send(Command::Del { key }, released))
        }
        (At::AwaitReleaseGet, Some(_)) => (At::Lock, Outcome::only(released)),
        (_, None) => (l.at, Outcome::only(StepKind::Other)),
    };
    l.at = at;
    if out.kind == StepKind::Acquired {
        l.held = true;
    } else if matches!(
        at,
        At::Lock | At::AwaitSetNx | At::AwaitGet | At::AwaitGetSet
    ) {
        l.held = false;
    }
    out
}
