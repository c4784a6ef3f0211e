//! MySQL's fault classes, one row each: the comparison's column and
//! legend, the scenario key (`[faults]`, a field of the model's
//! `MysqlFaults`, whose rows hold the checker's action), and the
//! simulator's strike. A database lock has no lease: what ends a holder's
//! tenure is a crash, a dropped connection or the seeds' cleanup job.

use crate::matrix::fault_table::fault_table;
use locksmith_model::mysql::check::MysqlSpace;

fault_table! {
    /// Every MySQL fault class, in column order. Time in ticks: a critical
    /// section of 2 (4 for the slow holder), a pause of 4, a lock wait
    /// timeout of 5, the cleanup job after 3 (`compare::rows::space`).
    pub static MYSQL_FAULTS: [FaultClass<MysqlSpace>];
    strikes MYSQL_STRIKES: enum Strike;

    "none", "no fault",
    "no fault: every interleaving of the clients' statements, the server's lock waits and time in ticks (critical section 2 ticks, innodb_lock_wait_timeout 5)",
    [setting |_| {}];

    "found-rows", "Java driver (found rows)",
    "no fault, on connections that set CLIENT_FOUND_ROWS, as MySQL's and MariaDB's Java drivers (Connector/J) do by default: an UPDATE's affected rows count the rows it matched, not those it changed (the server's default, and the Rust and C clients')",
    [setting |s| s.found_rows = true];

    "pause", "pause",
    "a client's process stops for 4 ticks, once, at any step: it takes no step and its work does not advance; its connection stays open and a statement it sent is still served",
    [budget pauses];

    "crash", "client crash",
    "a client's process crashes once, at any step: its connection closes and the server rolls back its transaction; committed rows stay",
    [budget crashes];

    "connection-drop", "connection dropped",
    "the server drops a client's connection once (KILL, wait_timeout), at any step, while its process keeps working: the transaction rolls back and its row locks go at once; the client learns it from its next statement (2013)",
    [budget connection_drops => ConnectionDrop];

    "network-drop", "network drop",
    "the network between a client and the server breaks once, at any step, while its process keeps working: its statement fails with 2013 at once, but the server keeps its transaction and row locks until it notices (any later step)",
    [budget network_drops => NetworkDrop];

    "restart", "server restart",
    "the server restarts once, at any step: every connection is gone, uncommitted transactions roll back, committed rows and the AUTO_INCREMENT counter stay; each client's next statement fails with 2013",
    [budget restarts => Restart];

    "cleanup-slow-holder", "cleanup job, slow holder",
    "the seeds' cleanup job (source 002, line 25) frees a lock row taken 3 ticks ago, with a connection of its own; the holder's critical section lasts 4 ticks (a row lock has no row to clean: the job never fires)",
    [setting |s| {
        s.cleanup_after = Some(3);
        s.work = 4;
    }];

    "cleanup-crash", "cleanup job, client crash",
    "the cleanup job after 3 ticks, critical sections of 2, and one client crash at any step: the job is the seeds' cure for a crashed holder's row",
    [setting |s| {
        s.cleanup_after = Some(3);
        s.faults.crashes = 1;
    }];

    "connection-drop-fenced", "connection dropped, fenced",
    "the server drops a client's connection once, as above, with fencing: lock() returns with a token the database hands out with the lock (the unique key's AUTO_INCREMENT id; the status row's version, set by the compare-and-set through LAST_INSERT_ID(version + 1); the locked row's version, bumped inside the FOR UPDATE transaction), and each critical section writes to a resource outside the database twice with it",
    [setting |s| {
        s.faults.connection_drops = 1;
        s.fencing = true;
    }];

    "cleanup-slow-holder-fenced", "cleanup job, slow holder, fenced",
    "the cleanup job after 3 ticks and a 4-tick critical section, as above, with fencing as in the previous column",
    [setting |s| {
        s.cleanup_after = Some(3);
        s.work = 4;
        s.fencing = true;
    }];
}
