//! One cell of the MySQL matrix: a database lock under one MySQL fault
//! class, written as a MySQL scenario file and judged by loading that very
//! file as `locksmith check` loads it.

use super::backend::{cell_toml, check_file, run_cell, Backend, Fault};
use super::cell::CellResult;
use super::mysql_faults::{space, MYSQL_FAULTS, MYSQL_ROWS};
use locksmith_model::mysql::check::MysqlSpace;

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &MysqlSpace, fault: &Fault) -> String {
    let mut table = format!(
        "\n[mysql]\ncritical_section = {}\npause = {}\nlock_wait_timeout = {}\n",
        s.work, s.pause, s.lock_wait_timeout
    );
    if let Some(age) = s.cleanup_after {
        table.push_str(&format!("cleanup_after = {age}\n"));
    }
    if s.found_rows {
        table.push_str("found_rows = true\n");
    }
    cell_toml(s, fault, &table)
}

/// Runs the cell `recipe` × `fault` (ids of [`MYSQL_ROWS`] and
/// [`MYSQL_FAULTS`]); `out` is the report folder as the commands name it.
pub fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let class = MYSQL_FAULTS
        .iter()
        .find(|f| f.fault.id == fault)
        .ok_or_else(|| format!("no MySQL fault class `{fault}`"))?;
    let mut s = MYSQL_ROWS
        .iter()
        .find(|r| r.recipe == recipe)
        .and_then(space)
        .ok_or_else(|| format!("no MySQL recipe `{recipe}`"))?;
    (class.apply)(&mut s);
    let text = to_toml(&s, &class.fault);
    run_cell(recipe, fault, out, text, check_file::<MysqlSpace>)
}

/// The MySQL matrix, as the report's pages draw it.
pub static MYSQL: Backend = Backend {
    name: "MySQL",
    key: "mysql",
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
    rows: || MYSQL_ROWS.to_vec(),
    faults: || MYSQL_FAULTS.iter().map(|f| f.fault.clone()).collect(),
    run,
};
