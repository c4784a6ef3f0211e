//! `mysql-for-update` — source 003 (`003_*.txt`), line 38: "根据数据库的排他锁
//! for update实现,当commit的时候释放" — the lock is the row lock of a
//! `SELECT … FOR UPDATE` inside a transaction, released by `COMMIT`. The
//! lock row exists before any client runs (on a missing row `FOR UPDATE`
//! takes a gap lock, and gap locks do not conflict). `lock()`: `START
//! TRANSACTION`, then `SELECT id, status, version FROM locks WHERE name =
//! 'lock' FOR UPDATE`, which waits while another transaction holds the
//! row; it returns when the row comes back. `unlock()`: `COMMIT`.
//!
//! The seed's code handles no error: a lock wait timeout (1205), a
//! deadlock (1213) or a lost connection reaches the caller as an
//! `SQLException` and ends its thread.
//!
//! What it claims: the lock lives exactly as long as the transaction, so
//! a crashed holder's lock goes with its connection. What breaks it: the
//! same fact — a holder whose connection is dropped (`KILL`,
//! `wait_timeout`) while its process keeps working has lost the lock
//! without knowing; the next client gets the row at once.
//!
//! **Fenced** (the scenario's `fencing = true`): once the row is locked,
//! `lock()` takes a token inside the same transaction — `UPDATE locks SET
//! status = 0, version = LAST_INSERT_ID(version + 1) WHERE name = 'lock'`,
//! whose OK packet hands the new version back. The bump commits with the
//! transaction: a holder whose connection is dropped has its transaction
//! rolled back, version and all, and the next holder is handed the very
//! same token.

use super::{lock_name, Outcome};
use crate::engine::harness::StepKind;
use crate::mysql::{Reply, SetVersion, Statement};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// Send `START TRANSACTION`.
    Lock,
    /// Read its OK; send `SELECT … FOR UPDATE`.
    AwaitBegin,
    /// Read the row: the lock is held (fenced: send the token's UPDATE).
    AwaitSelect,
    /// Fenced: read the token's OK; `lock()` returns.
    AwaitToken,
    /// The critical section; the step ends it.
    Business,
    /// `unlock()`: send `COMMIT`.
    Unlock,
    /// Read `COMMIT`'s reply; the round is over.
    AwaitCommit,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(
            self,
            At::AwaitBegin | At::AwaitSelect | At::AwaitToken | At::AwaitCommit
        )
    }

    /// `reply`, unread here, means the row lock was granted.
    pub fn won(self, reply: &Reply) -> bool {
        self == At::AwaitSelect && matches!(reply, Reply::Rows(_))
    }
}

/// The fenced lock's token: the locked row's version, bumped inside the
/// transaction.
fn token() -> Statement {
    Statement::Update {
        name: lock_name(),
        set_status: 0,
        set_version: SetVersion::Token,
        where_status: None,
        where_version: None,
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>, fenced: bool) -> Outcome {
    let (next, out) = match (*at, reply) {
        (At::Lock, _) | (At::AwaitCommit, Some(Reply::Ok { .. })) => (
            At::AwaitBegin,
            Outcome::send(Statement::Begin, StepKind::Other),
        ),
        (At::AwaitBegin, Some(Reply::Ok { .. })) => (
            At::AwaitSelect,
            Outcome::send(
                Statement::SelectForUpdate { name: lock_name() },
                StepKind::Other,
            ),
        ),
        (At::AwaitSelect, Some(Reply::Rows(_))) if fenced => {
            (At::AwaitToken, Outcome::send(token(), StepKind::Other))
        }
        (At::AwaitSelect, Some(Reply::Rows(_))) | (At::AwaitToken, Some(Reply::Ok { .. })) => {
            (At::Business, Outcome::only(StepKind::Acquired))
        }
        (At::Business, _) => (At::Unlock, Outcome::only(StepKind::Released)),
        (At::Unlock, _) => (
            At::AwaitCommit,
            Outcome::send(Statement::Commit, StepKind::SentRelease),
        ),
        (_, Some(_)) => (*at, Outcome::only(StepKind::Threw("SQLException"))),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
