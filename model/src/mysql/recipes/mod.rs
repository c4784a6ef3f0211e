//! The database lock recipes of sources 002 and 003, one file each, as
//! sans-IO state machines over [`crate::mysql`]'s statements and replies: a
//! client's step reads the reply its last statement got (if any) and says
//! which statement it sends next and what the step means to the harness
//! ([`StepKind`]). Time, faults, the critical section and the rounds of
//! the harness loop are the driver's.
//!
//! | id | file |
//! |---|---|
//! | mysql-unique-key | [`unique_key`] |
//! | mysql-unique-key-txn | [`unique_key_txn`] |
//! | mysql-for-update | [`for_update`] |
//! | mysql-status-cas | [`status_cas`] |
//! | mysql-status-cas-unguarded | [`status_cas_unguarded`] |
//!
//! The protected resource is outside the database: a write inside the
//! lock's own transaction would roll back with it, so the recipes' critical
//! sections write elsewhere. Each recipe has a fenced variant (`fencing =
//! true`): its `lock()` returns with a token the database handed out with
//! the lock ([`MysqlRecipe::token`]).

pub(crate) mod for_update;
pub mod status_cas;
pub(crate) mod status_cas_unguarded;
pub(crate) mod unique_key;
pub(crate) mod unique_key_txn;

use crate::engine::harness::AwaitsReply;
use crate::mysql::locks::LockKind;
use crate::mysql::table::RowData;
use crate::mysql::{MysqlServer, Name, Reply, SetVersion, Statement};
use serde::Serialize;
use std::fmt;

/// The name of the one lock every client takes (source 002's `lock` column
/// value; source 003's "method name").
pub const LOCK_NAME: &str = "lock";

pub fn lock_name() -> Name {
    Name::new(LOCK_NAME)
}

/// A database lock recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum MysqlRecipe {
    UniqueKey,
    UniqueKeyTxn,
    ForUpdate,
    StatusCas,
    StatusCasUnguarded,
}

impl MysqlRecipe {
    pub const ALL: [MysqlRecipe; 5] = [
        MysqlRecipe::UniqueKey,
        MysqlRecipe::UniqueKeyTxn,
        MysqlRecipe::ForUpdate,
        MysqlRecipe::StatusCas,
        MysqlRecipe::StatusCasUnguarded,
    ];

    /// The recipe's id (as scenario files name it).
    pub fn id(self) -> &'static str {
        match self {
            MysqlRecipe::UniqueKey => "mysql-unique-key",
            MysqlRecipe::UniqueKeyTxn => "mysql-unique-key-txn",
            MysqlRecipe::ForUpdate => "mysql-for-update",
            MysqlRecipe::StatusCas => "mysql-status-cas",
            MysqlRecipe::StatusCasUnguarded => "mysql-status-cas-unguarded",
        }
    }

    pub fn parse(id: &str) -> Option<MysqlRecipe> {
        MysqlRecipe::ALL.into_iter().find(|r| r.id() == id.trim())
    }

    /// Where the recipe comes from, in a line: the seed and its lines (as
    /// the recipe's file cites them).
    pub fn origin(self) -> &'static str {
        match self {
            MysqlRecipe::UniqueKey => {
                "source 002, lines 5–27: INSERT under a unique key, DELETE to release, the INSERT retried in a loop"
            }
            MysqlRecipe::UniqueKeyTxn => {
                "source 002, lines 5–27, with autocommit off: the INSERT held uncommitted, DELETE and COMMIT to release"
            }
            MysqlRecipe::ForUpdate => {
                "source 003, line 38: SELECT … FOR UPDATE in a transaction, released by COMMIT"
            }
            MysqlRecipe::StatusCas => {
                "source 003, line 39: UPDATE … SET status = 1 WHERE status = -1, released by setting it back"
            }
            MysqlRecipe::StatusCasUnguarded => {
                "source 003, line 39, without its guard: UPDATE … SET status = 1, one affected row taken as the lock"
            }
        }
    }

    /// What the recipe claims, in a sentence from its file's doc comment.
    pub fn claim(self) -> &'static str {
        match self {
            MysqlRecipe::UniqueKey => "exactly one INSERT succeeds",
            MysqlRecipe::UniqueKeyTxn => {
                "exactly one INSERT succeeds, and a dead holder's uncommitted row rolls back"
            }
            MysqlRecipe::ForUpdate => {
                "the lock lives exactly as long as the transaction, so a crashed holder's lock goes with its connection"
            }
            MysqlRecipe::StatusCas => "one holder at a time: the guarded UPDATE succeeds for one client only",
            MysqlRecipe::StatusCasUnguarded => {
                "one holder at a time: the UPDATE changes the row for one client only"
            }
        }
    }

    /// The lock row the recipe expects before any client runs, with its
    /// status: source 003's status lock keeps one row per lock, free (-1);
    /// its `FOR UPDATE` lock locks a row that is there.
    pub fn lock_row(self) -> Option<i64> {
        match self {
            MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn => None,
            MysqlRecipe::ForUpdate => Some(0),
            MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => Some(status_cas::FREE),
        }
    }

    /// A client calling `lock()` on `server` now would get the lock (the
    /// stuck-lock analysis asks this of every state), by the recipe's own
    /// rule: on the committed lock row with no change pending, or, for a
    /// row lock, with no transaction holding it.
    pub fn acquirable(self, server: &MysqlServer) -> bool {
        let name = lock_name();
        let e = server.table().entry(&name);
        match self {
            MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn => {
                e.pending.is_none() && e.committed.is_none()
            }
            // Free when no transaction holds the row's record lock.
            MysqlRecipe::ForUpdate => !server
                .locks()
                .iter()
                .any(|l| l.name == name && !l.waiting && l.kind == LockKind::X),
            MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => {
                e.pending.is_none() && e.committed.is_some_and(|r| r.status == status_cas::FREE)
            }
        }
    }

    /// `row`, the lock row as a locking read sees it, says the lock is
    /// taken (for the owner bookkeeping of unlock by non-owner).
    pub fn taken(self, row: Option<RowData>) -> bool {
        match self {
            MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn => row.is_some(),
            // The lock is a row lock, not the row's data.
            MysqlRecipe::ForUpdate => false,
            MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => {
                row.is_some_and(|r| r.status == status_cas::TAKEN)
            }
        }
    }

    /// What the seeds' cleanup job sends to free a lock row it finds too
    /// old: source 002's deletes it; for the status row, it sets the status
    /// back to free. A row lock has no row to clean (`None`).
    pub fn cleanup_statement(self) -> Option<Statement> {
        match self {
            MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn => {
                Some(Statement::Delete { name: lock_name() })
            }
            MysqlRecipe::ForUpdate => None,
            MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => Some(Statement::Update {
                name: lock_name(),
                set_status: status_cas::FREE,
                set_version: SetVersion::Keep,
                where_status: None,
                where_version: None,
            }),
        }
    }

    pub fn start(self) -> Locals {
        match self {
            MysqlRecipe::UniqueKey => Locals::UniqueKey(unique_key::At::Lock),
            MysqlRecipe::UniqueKeyTxn => Locals::UniqueKeyTxn(unique_key_txn::At::Lock),
            MysqlRecipe::ForUpdate => Locals::ForUpdate(for_update::At::Lock),
            MysqlRecipe::StatusCas => Locals::StatusCas(status_cas::At::Lock),
            MysqlRecipe::StatusCasUnguarded => Locals::StatusCasUnguarded(status_cas::At::Lock),
        }
    }

    /// One step at `at`, reading `reply` (the reply to its last statement,
    /// if one came since); `fenced`: the recipe's fenced variant, whose
    /// `lock()` returns on the reply that carries its token (the OK
    /// packet's insert id: [`MysqlRecipe::token`]).
    pub fn step(self, at: &mut Locals, reply: Option<&Reply>, fenced: bool) -> Outcome {
        match at {
            Locals::UniqueKey(at) => unique_key::step(at, reply),
            Locals::UniqueKeyTxn(at) => unique_key_txn::step(at, reply),
            Locals::ForUpdate(at) => for_update::step(at, reply, fenced),
            Locals::StatusCas(at) => status_cas::step(at, reply, fenced),
            Locals::StatusCasUnguarded(at) => status_cas_unguarded::step(at, reply, fenced),
        }
    }

    /// The fencing token in the reply a fenced `lock()` returned on: the
    /// unique key's AUTO_INCREMENT id, or the version `LAST_INSERT_ID(…)`
    /// set.
    pub fn token(reply: Option<&Reply>) -> Option<i64> {
        match reply {
            Some(Reply::Ok {
                insert_id: Some(t), ..
            }) => i64::try_from(*t).ok(),
            _ => None,
        }
    }

    /// The fencing token is an AUTO_INCREMENT id (which the checker
    /// renumbers), not a version.
    pub fn token_is_id(self) -> bool {
        matches!(self, MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn)
    }
}

impl fmt::Display for MysqlRecipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A client's position in its recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Locals {
    UniqueKey(unique_key::At),
    UniqueKeyTxn(unique_key_txn::At),
    ForUpdate(for_update::At),
    StatusCas(status_cas::At),
    StatusCasUnguarded(status_cas::At),
}

impl Locals {
    /// `reply`, waiting to be read here, says the lock operation succeeded
    /// at the server: the client's tenure began before it knows it.
    pub fn won(self, reply: &Reply) -> bool {
        match self {
            Locals::UniqueKey(at) => at.won(reply),
            Locals::UniqueKeyTxn(at) => at.won(reply),
            Locals::ForUpdate(at) => at.won(reply),
            Locals::StatusCas(at) | Locals::StatusCasUnguarded(at) => at.won(reply),
        }
    }
}

impl AwaitsReply for Locals {
    /// The recipe waits for the reply to the statement it sent.
    fn awaits_reply(&self) -> bool {
        match self {
            Locals::UniqueKey(at) => at.awaits_reply(),
            Locals::UniqueKeyTxn(at) => at.awaits_reply(),
            Locals::ForUpdate(at) => at.awaits_reply(),
            Locals::StatusCas(at) | Locals::StatusCasUnguarded(at) => at.awaits_reply(),
        }
    }
}

/// What one step did: the statement it sent, if any, what it means to the
/// harness, whether it sleeps a tick.
pub type Outcome = crate::engine::harness::Outcome<Statement>;
