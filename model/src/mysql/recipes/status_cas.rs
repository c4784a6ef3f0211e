//! `mysql-status-cas` — source 003 (`003_*.txt`), line 39: every lock is a
//! row with a status; acquiring is `UPDATE … SET status = 1 WHERE status =
//! -1` ("类似CAS的方式"), which succeeds for one client only; releasing sets
//! the status back to -1. The seed does not say what a caller does when
//! the update changed nothing: as for source 002's unique key, it tries
//! again after a sleep. The row exists before any client runs.
//!
//! The recipe reads "affected rows": 1 means it changed the row. With the
//! `WHERE status = -1` guard that is 1 exactly when the row was free, under
//! the server's default (changed rows) and under `CLIENT_FOUND_ROWS`
//! (matched rows, which Connector/J sets) alike.
//!
//! What it claims: one holder at a time. What breaks it: no expiry — a
//! holder that dies before its release leaves status 1 forever (stuck
//! lock).
//!
//! **Fenced** (the scenario's `fencing = true`): the row's version column
//! is the token, taken by the same statement that takes the lock —
//! `UPDATE locks SET status = 1, version = LAST_INSERT_ID(version + 1)
//! WHERE name = 'lock' AND status = -1` — whose OK packet hands the new
//! version back. Reading the version with a second statement would not
//! do: between the two, the cleanup job and another client can have moved
//! it on, and the stale holder would read the newer holder's token.

use super::{lock_name, Outcome};
use crate::engine::harness::StepKind;
use crate::mysql::{Reply, SetVersion, Statement};
use serde::Serialize;

/// The seed's free status.
pub const FREE: i64 = -1;
/// The seed's taken status.
pub const TAKEN: i64 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Send `UPDATE locks SET status = 1 WHERE name = 'lock' AND status = -1`.
    Lock,
    /// Read its affected rows: 1 holds; 0 sleeps and tries again.
    AwaitCas,
    /// The retry loop's sleep is over: update again.
    Retry,
    /// The critical section; the step ends it.
    Business,
    /// `unlock()`: send `UPDATE locks SET status = -1 WHERE name = 'lock'`.
    Unlock,
    /// Read the release's reply; the round is over.
    AwaitRelease,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(self, At::AwaitCas | At::AwaitRelease)
    }

    /// `reply`, unread here, means the update took the lock.
    pub fn won(self, reply: &Reply) -> bool {
        self == At::AwaitCas && matches!(reply, Reply::Ok { affected: 1, .. })
    }
}

fn cas(fenced: bool) -> Statement {
    take(fenced, Some(FREE))
}

/// `UPDATE locks SET status = 1[, version = LAST_INSERT_ID(version + 1)]
/// WHERE name = 'lock'[ AND status = <where_status>]`.
pub(super) fn take(fenced: bool, where_status: Option<i64>) -> Statement {
    Statement::Update {
        name: lock_name(),
        set_status: TAKEN,
        set_version: if fenced {
            SetVersion::Token
        } else {
            SetVersion::Keep
        },
        where_status,
        where_version: None,
    }
}

fn release() -> Statement {
    Statement::Update {
        name: lock_name(),
        set_status: FREE,
        set_version: SetVersion::Keep,
        where_status: None,
        where_version: None,
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>, fenced: bool) -> Outcome {
    step_with(at, reply, cas(fenced))
}

/// The recipe's loop around `cas`, its acquiring statement: the one thing
/// [`super::status_cas_unguarded`] changes.
pub(super) fn step_with(at: &mut At, reply: Option<&Reply>, cas: Statement) -> Outcome {
    let (next, out) = match (*at, reply) {
        (At::Lock | At::Retry, _) | (At::AwaitRelease, Some(_)) => {
            (At::AwaitCas, Outcome::send(cas, StepKind::Other))
        }
        (At::AwaitCas, Some(Reply::Ok { affected: 1, .. })) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::AwaitCas, Some(Reply::Ok { .. })) => (At::Retry, Outcome::sleep(StepKind::Other)),
        (At::AwaitCas, Some(_)) => (*at, Outcome::only(StepKind::Threw("SQLException"))),
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitRelease,
            Outcome::send(release(), StepKind::SentRelease),
        ),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
