//! The MySQL matrix's rows and columns: the database locks of sources 002
//! and 003, and the fault classes of a database lock — a lock held by a
//! row or a row lock, with no lease: what ends a holder's tenure is a
//! crash, a dropped connection, or the seeds' cleanup job. Every cell is
//! judged by the MySQL checker.

use crate::matrix::axes::{Fault, Row};
use crate::matrix::command::FaultClass;
use locksmith_model::mysql::check::MysqlSpace;
use locksmith_model::mysql::recipes::MysqlRecipe;

/// Every MySQL fault class, in column order. Time in ticks: a critical
/// section of 2 (4 for the slow holder), a pause of 4, a lock wait
/// timeout of 5, the cleanup job after 3 ([`space`]).
pub static MYSQL_FAULTS: &[FaultClass<MysqlSpace>] = &[
    FaultClass {
        fault: Fault {
            id: "none",
            label: "no fault",
            about: "no fault: every interleaving of the clients' statements, the server's lock waits and time in ticks (critical section 2 ticks, innodb_lock_wait_timeout 5)",
        },
        apply: |_| {},
    },
    FaultClass {
        fault: Fault {
            id: "found-rows",
            label: "Java driver (found rows)",
            about: "no fault, on connections that set CLIENT_FOUND_ROWS, as MySQL's and MariaDB's Java drivers (Connector/J) do by default: an UPDATE's affected rows count the rows it matched, not those it changed (the server's default, and the Rust and C clients')",
        },
        apply: |s| s.found_rows = true,
    },
    FaultClass {
        fault: Fault {
            id: "pause",
            label: "pause",
            about: "a client's process stops for 4 ticks, once, at any step: it takes no step and its work does not advance; its connection stays open and a statement it sent is still served",
        },
        apply: |s| s.faults.pauses = 1,
    },
    FaultClass {
        fault: Fault {
            id: "crash",
            label: "client crash",
            about: "a client's process crashes once, at any step: its connection closes and the server rolls back its transaction; committed rows stay",
        },
        apply: |s| s.faults.crashes = 1,
    },
    FaultClass {
        fault: Fault {
            id: "connection-drop",
            label: "connection dropped",
            about: "the server drops a client's connection once (KILL, wait_timeout), at any step, while its process keeps working: the transaction rolls back and its row locks go at once; the client learns it from its next statement (2013)",
        },
        apply: |s| s.faults.connection_drops = 1,
    },
    FaultClass {
        fault: Fault {
            id: "network-drop",
            label: "network drop",
            about: "the network between a client and the server breaks once, at any step, while its process keeps working: its statement fails with 2013 at once, but the server keeps its transaction and row locks until it notices (any later step)",
        },
        apply: |s| s.faults.network_drops = 1,
    },
    FaultClass {
        fault: Fault {
            id: "restart",
            label: "server restart",
            about: "the server restarts once, at any step: every connection is gone, uncommitted transactions roll back, committed rows and the AUTO_INCREMENT counter stay; each client's next statement fails with 2013",
        },
        apply: |s| s.faults.restarts = 1,
    },
    FaultClass {
        fault: Fault {
            id: "cleanup-slow-holder",
            label: "cleanup job, slow holder",
            about: "the seeds' cleanup job (source 002, line 25) frees a lock row taken 3 ticks ago, with a connection of its own; the holder's critical section lasts 4 ticks (a row lock has no row to clean: the job never fires)",
        },
        apply: |s| {
            s.cleanup_after = Some(3);
            s.work = 4;
        },
    },
    FaultClass {
        fault: Fault {
            id: "cleanup-crash",
            label: "cleanup job, client crash",
            about: "the cleanup job after 3 ticks, critical sections of 2, and one client crash at any step: the job is the seeds' cure for a crashed holder's row",
        },
        apply: |s| {
            s.cleanup_after = Some(3);
            s.faults.crashes = 1;
        },
    },
    FaultClass {
        fault: Fault {
            id: "connection-drop-fenced",
            label: "connection dropped, fenced",
            about: "the server drops a client's connection once, as above, with fencing: lock() returns with a token the database hands out with the lock (the unique key's AUTO_INCREMENT id; the status row's version, set by the compare-and-set through LAST_INSERT_ID(version + 1); the locked row's version, bumped inside the FOR UPDATE transaction), and each critical section writes to a resource outside the database twice with it",
        },
        apply: |s| {
            s.faults.connection_drops = 1;
            s.fencing = true;
        },
    },
    FaultClass {
        fault: Fault {
            id: "cleanup-slow-holder-fenced",
            label: "cleanup job, slow holder, fenced",
            about: "the cleanup job after 3 ticks and a 4-tick critical section, as above, with fencing as in the previous column",
        },
        apply: |s| {
            s.cleanup_after = Some(3);
            s.work = 4;
            s.fencing = true;
        },
    },
];

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
