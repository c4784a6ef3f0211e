//! The statements the seeds' database locks send, on one lock table:
//!
//! ```sql
//! CREATE TABLE locks (
//!   id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
//!   name VARCHAR(64) NOT NULL,
//!   status INT NOT NULL DEFAULT 0,
//!   version INT NOT NULL DEFAULT 0,
//!   UNIQUE KEY name (name)
//! ) ENGINE=InnoDB
//! ```
//!
//! Every row statement finds its row by the unique key `name`, as the
//! seeds' do (source 002's `uiq_idx_lock`, source 003's lock row).

use serde::Serialize;
use std::fmt;

/// A lock name: the value of the unique key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Name(pub String);

impl Name {
    pub fn new(s: &str) -> Name {
        Name(s.to_string())
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One statement of one connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Statement {
    /// `START TRANSACTION` (an open transaction is committed first, as
    /// MariaDB's implicit commit does).
    Begin,
    Commit,
    Rollback,
    /// `INSERT INTO locks (name, status) VALUES (?, ?)`: acquire by
    /// unique key (sources 002 and 003).
    Insert {
        name: Name,
        status: i64,
    },
    /// `DELETE FROM locks WHERE name = ?`: release by unique key.
    Delete {
        name: Name,
    },
    /// `SELECT id, status, version FROM locks WHERE name = ? FOR UPDATE`.
    SelectForUpdate {
        name: Name,
    },
    /// The same without `FOR UPDATE`: a consistent (non-locking) read.
    Select {
        name: Name,
    },
    /// `UPDATE locks SET status = ?[, version = …] WHERE name = ?
    /// [AND status = ?][AND version = ?]`: source 003's compare-and-set.
    Update {
        name: Name,
        set_status: i64,
        set_version: SetVersion,
        where_status: Option<i64>,
        where_version: Option<i64>,
    },
}

/// What an UPDATE does to the version column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SetVersion {
    /// Leaves it.
    Keep,
    /// `version = version + 1`.
    Bump,
    /// `version = LAST_INSERT_ID(version + 1)`: bumps it and hands the new
    /// version back in the OK packet's insert id (0 if no row matched) —
    /// MySQL's one-statement way to read what an UPDATE wrote, and so a
    /// fencing token taken atomically with the lock.
    Token,
}

impl Statement {
    /// The row the statement touches, if any.
    pub fn name(&self) -> Option<&Name> {
        match self {
            Statement::Begin | Statement::Commit | Statement::Rollback => None,
            Statement::Insert { name, .. }
            | Statement::Delete { name }
            | Statement::SelectForUpdate { name }
            | Statement::Select { name }
            | Statement::Update { name, .. } => Some(name),
        }
    }

    /// The statement as SQL text on the table `locks` (what the
    /// conformance test sends; values are inlined: names are plain words
    /// from the caller, never user input).
    pub fn sql(&self) -> String {
        self.sql_in("locks")
    }

    /// The statement as SQL text on `table`, a table laid out as `locks`
    /// is (`locksmith real --mysql` runs on a table of its own).
    pub fn sql_in(&self, table: &str) -> String {
        let locks = table;
        match self {
            Statement::Begin => "START TRANSACTION".into(),
            Statement::Commit => "COMMIT".into(),
            Statement::Rollback => "ROLLBACK".into(),
            Statement::Insert { name, status } => {
                format!("INSERT INTO {locks} (name, status) VALUES ('{name}', {status})")
            }
            Statement::Delete { name } => format!("DELETE FROM {locks} WHERE name = '{name}'"),
            Statement::SelectForUpdate { name } => {
                format!("SELECT id, status, version FROM {locks} WHERE name = '{name}' FOR UPDATE")
            }
            Statement::Select { name } => {
                format!("SELECT id, status, version FROM {locks} WHERE name = '{name}'")
            }
            Statement::Update {
                name,
                set_status,
                set_version,
                where_status,
                where_version,
            } => {
                let mut s = format!("UPDATE {locks} SET status = {set_status}");
                match set_version {
                    SetVersion::Keep => {}
                    SetVersion::Bump => s.push_str(", version = version + 1"),
                    SetVersion::Token => s.push_str(", version = LAST_INSERT_ID(version + 1)"),
                }
                s.push_str(&format!(" WHERE name = '{name}'"));
                if let Some(st) = where_status {
                    s.push_str(&format!(" AND status = {st}"));
                }
                if let Some(v) = where_version {
                    s.push_str(&format!(" AND version = {v}"));
                }
                s
            }
        }
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sql())
    }
}
