//! What a statement answers: an OK packet, a result set of at most one
//! row, or one of the errors a lock meets, with MariaDB's codes and texts.

use super::Name;
use serde::Serialize;
use std::fmt;

/// A row as `SELECT id, status, version` returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RowView {
    pub id: u64,
    pub status: i64,
    pub version: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MysqlError {
    /// 1062 (23000): the unique key `name` is taken by a committed row (or
    /// one the statement's own transaction wrote).
    Duplicate(Name),
    /// 1205 (HY000): `innodb_lock_wait_timeout` passed while waiting.
    LockWaitTimeout,
    /// 1213 (40001): the transaction was chosen as a deadlock victim and
    /// rolled back.
    Deadlock,
    /// 2013 (HY000), the client library's, not the server's: the
    /// connection was closed under the statement, or before it was sent.
    ConnectionLost,
}

impl MysqlError {
    pub fn code(&self) -> u16 {
        match self {
            MysqlError::Duplicate(_) => 1062,
            MysqlError::LockWaitTimeout => 1205,
            MysqlError::Deadlock => 1213,
            MysqlError::ConnectionLost => 2013,
        }
    }

    /// MariaDB 10.11's message text.
    pub fn message(&self) -> String {
        match self {
            MysqlError::Duplicate(name) => format!("Duplicate entry '{name}' for key 'name'"),
            MysqlError::LockWaitTimeout => {
                "Lock wait timeout exceeded; try restarting transaction".into()
            }
            MysqlError::Deadlock => {
                "Deadlock found when trying to get lock; try restarting transaction".into()
            }
            MysqlError::ConnectionLost => "Lost connection to server during query".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Reply {
    /// An OK packet: affected rows and, for an INSERT, the id it was given.
    Ok {
        affected: u64,
        insert_id: Option<u64>,
    },
    /// A result set (0 or 1 rows: `name` is unique).
    Rows(Option<RowView>),
    Err(MysqlError),
}

impl Reply {
    pub(crate) fn ok(affected: u64) -> Reply {
        Reply::Ok {
            affected,
            insert_id: None,
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Ok {
                affected,
                insert_id: None,
            } => write!(f, "OK {affected}"),
            Reply::Ok {
                affected,
                insert_id: Some(id),
            } => write!(f, "OK {affected} id {id}"),
            Reply::Rows(None) => f.write_str("empty"),
            Reply::Rows(Some(r)) => write!(f, "row ({}, {}, {})", r.id, r.status, r.version),
            Reply::Err(e) => write!(f, "ERROR {}: {}", e.code(), e.message()),
        }
    }
}
