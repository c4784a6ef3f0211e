//! One cell of the MySQL matrix: a database lock under one MySQL fault
//! class, written as a MySQL scenario file and judged by loading that very
//! file as `locksmith check` loads it.

use super::rows::{space, MYSQL_ROWS};
use crate::matrix::axes::Row;
use crate::matrix::backend::Backend;
use crate::matrix::command::{columns, rows, run, CommandMatrix, FaultClass};
use crate::matrix::command_pages::CommandPages;
use crate::mysql::faults::MYSQL_FAULTS;
use locksmith_model::mysql::check::MysqlSpace;

impl CommandMatrix for MysqlSpace {
    const ROWS: &'static [Row] = MYSQL_ROWS;
    const FAULTS: &'static [FaultClass<MysqlSpace>] = MYSQL_FAULTS;

    fn row_space(row: &Row) -> Option<MysqlSpace> {
        space(row)
    }

    fn table(&self) -> String {
        let mut table = format!(
            "\n[mysql]\ncritical_section = {}\npause = {}\nlock_wait_timeout = {}\n",
            self.work, self.pause, self.lock_wait_timeout
        );
        if let Some(age) = self.cleanup_after {
            table.push_str(&format!("cleanup_after = {age}\n"));
        }
        if self.found_rows {
            table.push_str("found_rows = true\n");
        }
        table
    }
}

/// The MySQL matrix.
pub static MYSQL: Backend = Backend {
    name: "MySQL",
    key: "mysql",
    rows: rows::<MysqlSpace>,
    faults: columns::<MysqlSpace>,
    run: run::<MysqlSpace>,
    costs: None,
    never_produced: &[],
    record: None,
    pages: &PAGES,
};

/// The MySQL matrix's prose, as the report's pages draw it.
static PAGES: CommandPages = CommandPages {
    intro: "The database locks of sources 002 and 003 on the InnoDB model (MariaDB 10.11, held \
            against a real server: docs/conformance.md), each cell judged by the MySQL checker \
            (`locksmith check`: every interleaving of the clients' statements, the server's lock \
            waits and time in ticks; shortest traces). A database lock has no lease: what ends a \
            holder's tenure is a crash, a dropped connection or the seeds' cleanup job, so these \
            locks have a matrix of their own, with the same properties, marks and conventions.",
    notes: "Unlock by non-owner: a client, or the cleanup job, deletes or frees the lock row \
            another client took in its current tenure. Stuck lock: from some reachable state no \
            client can ever acquire again. Mutual exclusion at the resource and fenced safety \
            are judged in the fenced columns only (the resource is outside the database: a \
            write inside the lock's own transaction would roll back with it); orphaned node, \
            herd and re-entrancy are ZooKeeper's (n/a).",
    explored: "the clients, the InnoDB server and time in ticks",
};
