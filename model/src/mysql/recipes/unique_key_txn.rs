//! `mysql-unique-key-txn` — source 002 (`002_*.txt`), lines 5–27, on a
//! connection with autocommit off (JDBC's `setAutoCommit(false)`, which
//! frameworks set around a service method): the same `INSERT` acquires
//! and the same `DELETE` releases ([`super::unique_key`]), but the row stays
//! uncommitted while the lock is held, and `COMMIT` after the `DELETE`
//! ends the transaction that held it.
//!
//! That changes what a waiter meets. Its `INSERT` finds the holder's
//! uncommitted row, waits for it behind the duplicate check's lock, and
//! fails with 1205 after `innodb_lock_wait_timeout` (the statement rolls
//! back, the waiter's transaction stays) — no 1062 while the holder holds.
//! The seed's loop ("直至INSERT成功再返回", line 27) tries the `INSERT` again
//! after either error, here after a tick's sleep. A deadlock (1213: two
//! waiters granted the duplicate check at once, each wanting to insert)
//! rolls the waiter's transaction back; it begins a new one and tries again.
//!
//! What it claims: exactly one `INSERT` succeeds. Unlike the autocommit
//! form it is never stuck by a dead holder: a crash or a dropped
//! connection rolls the `INSERT` back and the lock frees itself — and, as
//! with `mysql-for-update` under a dropped connection, frees it while the
//! holder may still be working (mutual exclusion). The seeds' cleanup job
//! never finds an uncommitted row to delete.
//!
//! **Fenced** (`fencing = true`): the token is the `INSERT`'s
//! AUTO_INCREMENT id, which a rollback does not give back.

use super::unique_key::insert;
use super::{lock_name, Outcome};
use crate::engine::harness::StepKind;
use crate::mysql::{MysqlError, Reply, Statement};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Autocommit off: the first statement opens a transaction (sent as
    /// `START TRANSACTION`).
    Lock,
    /// Read its OK; send `INSERT INTO locks (name) VALUES ('lock')`.
    AwaitBegin,
    /// Read the `INSERT`'s reply: OK holds; 1062 or 1205 sleeps and tries
    /// again; 1213 (rolled back) sleeps and begins again.
    AwaitInsert,
    /// The retry loop's sleep is over: `INSERT` again, in the same
    /// transaction.
    Retry,
    /// The sleep after a deadlock is over: a new transaction.
    Restart,
    /// The critical section; the step ends it.
    Business,
    /// `unlock()`: send `DELETE FROM locks WHERE name = 'lock'`.
    Unlock,
    /// Read the `DELETE`'s reply; send `COMMIT`, which frees the lock.
    AwaitDelete,
    /// Read `COMMIT`'s reply; the round is over.
    AwaitCommit,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(
            self,
            At::AwaitBegin | At::AwaitInsert | At::AwaitDelete | At::AwaitCommit
        )
    }

    /// `reply`, unread here, means the `INSERT` put the row in.
    pub fn won(self, reply: &Reply) -> bool {
        self == At::AwaitInsert && matches!(reply, Reply::Ok { .. })
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>) -> Outcome {
    let (next, out) = match (*at, reply) {
        (At::Lock | At::Restart, _) | (At::AwaitCommit, Some(Reply::Ok { .. })) => (
            At::AwaitBegin,
            Outcome::send(Statement::Begin, StepKind::Other),
        ),
        (At::AwaitBegin, Some(Reply::Ok { .. })) | (At::Retry, _) => {
            (At::AwaitInsert, Outcome::send(insert(), StepKind::Other))
        }
        (At::AwaitInsert, Some(Reply::Ok { .. })) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (
            At::AwaitInsert,
            Some(Reply::Err(MysqlError::Duplicate(_) | MysqlError::LockWaitTimeout)),
        ) => (At::Retry, Outcome::sleep(StepKind::Other)),
        (At::AwaitInsert, Some(Reply::Err(MysqlError::Deadlock))) => {
            (At::Restart, Outcome::sleep(StepKind::Other))
        }
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitDelete,
            Outcome::send(Statement::Delete { name: lock_name() }, StepKind::Other),
        ),
        (At::AwaitDelete, Some(Reply::Ok { .. })) => (
            At::AwaitCommit,
            Outcome::send(Statement::Commit, StepKind::SentRelease),
        ),
        // Any other error (a lost connection) reaches the caller as an
        // SQLException.
        (_, Some(_)) => (*at, Outcome::only(StepKind::Threw("SQLException"))),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
