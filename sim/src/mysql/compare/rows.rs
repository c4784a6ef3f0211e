//! The MySQL matrix's rows: the database locks of sources 002 and 003, and
//! each one's configuration before its column's fault (the columns are
//! MySQL's fault table, `crate::mysql::faults`). Every cell is judged by
//! the MySQL checker.

use crate::matrix::axes::Row;
use locksmith_model::mysql::check::MysqlSpace;
use locksmith_model::mysql::recipes::MysqlRecipe;

/// Every database lock, in [`MysqlRecipe::ALL`]'s order.
pub static MYSQL_ROWS: &[Row] = &[
    Row {
        recipe: "mysql-unique-key",
        clients: 2,
        claim: "Sources 002 (lines 5-27) and 003: a row inserted under a unique key is the lock — `INSERT` acquires (1062 for the others, retried in a loop), `DELETE` releases; every statement autocommit. Claims exactly one `INSERT` succeeds.",
        instead: "mysql-for-update where a crashed holder must not keep the lock (the server rolls back a dead connection's transaction); it still needs a fence where the server can drop a live holder's connection.",
    },
    Row {
        recipe: "mysql-unique-key-txn",
        clients: 2,
        claim: "Source 002's unique-key lock on a connection with autocommit off: the `INSERT` stays uncommitted while the lock is held (a waiter's `INSERT` waits behind it and fails with 1205, retried), `DELETE` and `COMMIT` release. Claims exactly one `INSERT` succeeds, and a dead holder's row rolls back with its connection.",
        instead: "a token the resource checks, where the server can drop a live holder's connection: the rollback that frees a crashed holder's lock frees a live one's too.",
    },
    Row {
        recipe: "mysql-for-update",
        clients: 2,
        claim: "Source 003: `START TRANSACTION`, `SELECT … FOR UPDATE` on a lock row that already exists, the work, `COMMIT` — the row lock is the lock, and the server releases it when the connection goes.",
        instead: "a token the resource checks, where the server can drop a live holder's connection (KILL, wait_timeout) — committed before the lock is used, not bumped inside the locking transaction; a lock wait timeout longer than any pause and than the whole queue ahead of a waiter (with four clients a waiter behind three holders times out: scenarios/mysql-for-update-queue-timeout.toml).",
    },
    Row {
        recipe: "mysql-status-cas",
        clients: 2,
        claim: "Source 003: one row per lock with a status column, taken by `UPDATE … SET status = 1 WHERE status = -1` (one changed row wins) and freed by setting it back.",
        instead: "mysql-for-update (no row left taken by a dead holder).",
    },
    Row {
        recipe: "mysql-status-cas-unguarded",
        clients: 2,
        claim: "Source 003's status lock without its `AND status = -1` guard: `UPDATE … SET status = 1 WHERE name = ?`, one affected row taken as the lock, freed by setting it back. Claims one holder at a time.",
        instead: "mysql-status-cas: its guard makes matched rows and changed rows the same count, whatever the driver sets.",
    },
];

/// A row's configuration before its column's fault: the comparison's
/// sizes and times (`None`: not a MySQL recipe).
pub fn space(row: &Row) -> Option<MysqlSpace> {
    let mut s = MysqlSpace::new(MysqlRecipe::parse(row.recipe)?);
    s.clients = row.clients;
    s.acquisitions = 1;
    s.work = 2;
    s.pause = 4;
    s.lock_wait_timeout = 5;
    Some(s)
}
