//! `mysql-unique-key` — source 002 (`002_*.txt`), lines 5–27: a row inserted
//! under a unique key is the lock. `INSERT` acquires (the one that
//! succeeds holds; the others fail with 1062, line 17), `DELETE … WHERE
//! lock = ?` releases (line 21), and a caller that wants to block retries
//! the `INSERT` in a loop until it succeeds (line 27: "弄个for循环、while循环
//! 之类的,直至INSERT成功再返回"); here it sleeps a tick between attempts.
//! Source 003 (lines 36) describes the same lock.
//!
//! Each statement is autocommit, as the seed's are: the row is committed
//! as soon as the `INSERT` answers.
//!
//! What it claims: exactly one `INSERT` succeeds. What breaks it (the
//! seed's own line 25): the lock has no expiry — a holder that dies before
//! its `DELETE` leaves the row forever, and every other client retries
//! forever (stuck lock); the seed's cure, a job that deletes old rows,
//! deletes a slow holder's row too.

use super::{lock_name, Outcome};
use crate::engine::harness::StepKind;
use crate::mysql::{MysqlError, Reply, Statement};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Send `INSERT INTO locks (name) VALUES ('lock')`.
    Lock,
    /// Read the `INSERT`'s reply: OK holds; 1062 sleeps and tries again.
    AwaitInsert,
    /// The retry loop's sleep is over: `INSERT` again.
    Retry,
    /// The critical section; the step ends it.
    Business,
    /// `unlock()`: send `DELETE FROM locks WHERE name = 'lock'`.
    Unlock,
    /// Read the `DELETE`'s reply; the round is over.
    AwaitDelete,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(self, At::AwaitInsert | At::AwaitDelete)
    }

    /// `reply`, unread here, means the `INSERT` put the row in.
    pub fn won(self, reply: &Reply) -> bool {
        self == At::AwaitInsert && matches!(reply, Reply::Ok { .. })
    }
}

/// `INSERT INTO locks (name) VALUES ('lock')`, the lock.
pub(super) fn insert() -> Statement {
    Statement::Insert {
        name: lock_name(),
        status: 0,
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>) -> Outcome {
    let (next, out) = match (*at, reply) {
        (At::Lock | At::Retry, _) | (At::AwaitDelete, Some(_)) => {
            (At::AwaitInsert, Outcome::send(insert(), StepKind::Other))
        }
        (At::AwaitInsert, Some(Reply::Ok { .. })) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::AwaitInsert, Some(Reply::Err(MysqlError::Duplicate(_)))) => {
            (At::Retry, Outcome::sleep(StepKind::Other))
        }
        // Any other error reaches the caller as an SQLException.
        (At::AwaitInsert, Some(_)) => (*at, Outcome::only(StepKind::Threw("SQLException"))),
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitDelete,
            Outcome::send(
                Statement::Delete { name: lock_name() },
                StepKind::SentRelease,
            ),
        ),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
