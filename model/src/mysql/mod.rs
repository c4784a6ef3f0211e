//! A MariaDB 10.11 / InnoDB server, as a pure state machine: the one lock
//! table the seeds' database locks use (sources 002 and 003; the table is in
//! [`statement`]) and what its row locks do.
//!
//! What is modelled, each rule where it is implemented:
//!
//! - [`statement`]: `START TRANSACTION`, `COMMIT`, `ROLLBACK`; `INSERT`,
//!   `DELETE`, `SELECT … FOR UPDATE`, plain `SELECT` and a guarded
//!   `UPDATE`, each on one row found by the unique key `name`;
//! - [`reply`]: OK packets (affected rows, the AUTO_INCREMENT id), at most
//!   one row, and errors 1062, 1205 and 1213 with MariaDB's texts;
//! - [`table`]: each name's committed row and one uncommitted change; the
//!   AUTO_INCREMENT counter (an id is used up even by an INSERT that
//!   fails);
//! - [`locks`]: record locks (X, S), gap locks that never conflict with
//!   each other, insert intention, one queue served first come first
//!   served;
//! - [`server`]: [`MysqlServer::execute`] (autocommit, or inside an explicit
//!   transaction; a statement that must wait is *blocked*, a state, and
//!   finishes later), [`MysqlServer::advance`] (time, explicit: lock wait
//!   timeout 1205 rolls back the statement only), deadlock detection
//!   (1213 rolls back the transaction of least weight),
//!   [`MysqlServer::disconnect`] (rolls back and releases everything),
//!   `CLIENT_FOUND_ROWS` per session ([`Session`]).
//!
//! Isolation is REPEATABLE READ, MariaDB's default: locking statements read
//! the latest row; a plain `SELECT` in a transaction reads the snapshot of
//! its first consistent read.
//!
//! **Gap locks are per name.** InnoDB locks the gap between a missing
//! name's neighbours in the index; the model locks "the gap where this
//! name would be". The two agree when no two names the statements use are
//! neighbours in the index (the conformance test puts a row no statement
//! touches between each pair) — and trivially with one lock name, as the
//! seeds' locks use. A committed DELETE is purged at once: InnoDB removes
//! the delete-marked record a little later, in the background, and until
//! then a locking read of the name waits on it as on a row.
//!
//! Not modelled: other isolation levels, other tables and statements,
//! `innodb_rollback_on_timeout`, server restarts (yet), replication, and
//! transactions larger than the seeds' (the deadlock weight counts lock
//! objects as if all records shared one page per index, which a one-page
//! table does).
//!
//! The model has no clock, no I/O and no randomness. It is held against a
//! real MariaDB by `sim/tests/mysql_conformance/` (docs/conformance.md).

pub mod check;
pub(crate) mod locks;
pub mod recipes;
pub(crate) mod reply;
pub(crate) mod server;
pub(crate) mod statement;
pub(crate) mod table;

/// A connection (and its transaction: one at a time per connection).
pub type ConnId = usize;

pub use reply::{MysqlError, Reply, RowView};
pub use server::{
    Blocked, Completion, MysqlServer, Refused, Session, DEFAULT_LOCK_WAIT_TIMEOUT_MS,
};
pub use statement::{Name, SetVersion, Statement};
pub use table::RowData;

#[cfg(test)]
mod tests;
