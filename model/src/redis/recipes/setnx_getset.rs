//! `redis-setnx-getset` — source 004 (`004_*.txt`), "method 2", the
//! pseudo-code of lines 77–92: a blocking loop
//!
//! ```text
//! while lock != 1:
//!    timestamp = current Unix time + lock timeout + 1
//!    lock = SETNX lock.foo timestamp
//!    if lock == 1 or (now() > (GET lock.foo) and now() > (GETSET lock.foo timestamp)):
//!       break
//!    else:
//!       sleep(10ms)
//! do_job()
//! if now() < GET lock.foo:
//!     DEL lock.foo
//! ```
//!
//! A nil reply compares as the pseudo-code's Python 2 compares `None`:
//! below every number, so `now() > None` is true (the key went away: the
//! `GETSET` that follows sets it). `sleep(10ms)` is a tick.
//!
//! What it claims (lines 68–73): a crashed holder's expired timestamp is
//! taken over by one client only — the one whose `GETSET` returns the
//! expired value; a loser's `GETSET` only moves the winner's deadline a
//! little ("usually milliseconds: it does not matter"). What breaks it:
//! that overwrite is a write to the winner's live key (unlock by
//! non-owner); every "now" is the client's own clock, so a clock ahead sees
//! a live lock as expired; and a holder paused past its timeout is taken
//! over while it still works.

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Reply, Value};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// The loop's top: compute `timestamp`, send `SETNX`.
    Lock,
    /// Read `SETNX`'s reply: 1 breaks; else send `GET`.
    AwaitSetNx,
    /// Read the value: past sends `GETSET`, else sleep.
    AwaitGet,
    /// Read `GETSET`'s old value: past breaks, else sleep.
    AwaitGetSet,
    /// `do_job()`; the step ends the critical section.
    Business,
    /// The release: send `GET`.
    Finally,
    /// Read the value: `now() < value` sends `DEL`, else nothing.
    AwaitReleaseGet,
    /// Read `DEL`'s reply; the round is over.
    AwaitDel,
}

/// Where the loop is and its `timestamp` (a stamp, while it matters:
/// from the `SETNX` to the `GETSET`; 0 elsewhere, so that it splits no
/// state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Locals {
    pub at: At,
    pub timestamp: i64,
}

impl Locals {
    pub fn start() -> Locals {
        Locals {
            at: At::Lock,
            timestamp: 0,
        }
    }

    pub fn awaits_reply(self) -> bool {
        matches!(
            self.at,
            At::AwaitSetNx | At::AwaitGet | At::AwaitGetSet | At::AwaitReleaseGet | At::AwaitDel
        )
    }

    /// `reply`, unread, breaks the loop for a client whose clock reads
    /// `now`.
    pub fn won(self, reply: &Reply, now: i64) -> bool {
        match (self.at, reply) {
            (At::AwaitSetNx, r) => *r == Reply::Int(1),
            (At::AwaitGetSet, r) => past(r, now),
            _ => false,
        }
    }

    /// A tick later: the timestamp ages while the loop still needs it.
    pub fn aged(self, floor: i64) -> Locals {
        match self.at {
            At::AwaitSetNx | At::AwaitGet | At::AwaitGetSet => Locals {
                timestamp: (self.timestamp - 1).max(floor),
                ..self
            },
            _ => self,
        }
    }
}

/// `now() > reply`: nil is below every number.
fn past(reply: &Reply, now: i64) -> bool {
    match reply {
        Reply::Nil => true,
        Reply::Bulk(Value::Stamp(k)) => *k < now,
        _ => false,
    }
}

pub fn step(l: &mut Locals, reply: Option<&Reply>, me: &Me) -> Outcome {
    let key = me.key.clone();
    let (at, out) = match (l.at, reply) {
        (At::Lock, _) | (At::AwaitDel, Some(_)) => {
            l.timestamp = me.clock + me.lease + 1;
            let setnx = Command::SetNx {
                key,
                value: Value::Stamp(l.timestamp),
            };
            (At::AwaitSetNx, Outcome::send(setnx, StepKind::Other))
        }
        (At::AwaitSetNx, Some(Reply::Int(1))) => (At::Business, Outcome::only(StepKind::Acquired)),
        (At::AwaitSetNx, Some(_)) => (
            At::AwaitGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        (At::AwaitGet, Some(r)) if past(r, me.clock) => {
            let getset = Command::GetSet {
                key,
                value: Value::Stamp(l.timestamp),
            };
            (At::AwaitGetSet, Outcome::send(getset, StepKind::Other))
        }
        (At::AwaitGetSet, Some(r)) if past(r, me.clock) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        // `sleep(10ms)`, then the loop's top.
        (At::AwaitGet | At::AwaitGetSet, Some(_)) => (At::Lock, Outcome::sleep(StepKind::Other)),
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitReleaseGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        (At::AwaitReleaseGet, Some(Reply::Bulk(Value::Stamp(k)))) if me.clock < *k => (
            At::AwaitDel,
            Outcome::send(Command::Del { key }, StepKind::SentRelease),
        ),
        (At::AwaitReleaseGet, Some(_)) => (At::Lock, Outcome::only(StepKind::SentRelease)),
        (_, None) => (l.at, Outcome::only(StepKind::Other)),
    };
    l.at = at;
    if !matches!(at, At::AwaitSetNx | At::AwaitGet | At::AwaitGetSet) {
        l.timestamp = 0;
    }
    out
}
