//! The lock table's rows as InnoDB keeps them for this purpose: each name's
//! committed row and at most one uncommitted change (a writer holds the
//! row's exclusive lock, so no second transaction can change it before the
//! first ends).

use super::{ConnId, Name, RowView};
use serde::Serialize;
use std::collections::BTreeMap;

/// One row's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RowData {
    pub id: u64,
    pub status: i64,
    pub version: i64,
}

impl RowData {
    pub fn view(&self) -> RowView {
        RowView {
            id: self.id,
            status: self.status,
            version: self.version,
        }
    }
}

/// A name's entry: what is committed, and an uncommitted change by one
/// transaction (`Some(None)`: it deleted the row; `Some(Some(_))`: it
/// inserted or updated it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Entry {
    pub committed: Option<RowData>,
    pub pending: Option<(ConnId, Option<RowData>)>,
}

impl Entry {
    /// The row a locking read by `me` sees: its own change, else the
    /// committed row. (Another transaction's change is locked against it.)
    pub fn current(&self) -> Option<RowData> {
        match &self.pending {
            Some((_, row)) => *row,
            None => self.committed,
        }
    }

    /// The transaction with an uncommitted change here, if any.
    pub fn writer(&self) -> Option<ConnId> {
        self.pending.as_ref().map(|(c, _)| *c)
    }
}

/// The table: name → entry, plus the AUTO_INCREMENT counter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Table {
    pub rows: BTreeMap<Name, Entry>,
    /// The id the next INSERT is given. InnoDB hands it out before the
    /// row is inserted, so an INSERT that then fails or is rolled back
    /// still uses it up (`innodb_autoinc_lock_mode` 1, MariaDB's default).
    pub next_id: u64,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            rows: BTreeMap::new(),
            next_id: 1,
        }
    }
}

impl Table {
    pub fn entry(&self, name: &Name) -> Entry {
        self.rows.get(name).cloned().unwrap_or_default()
    }

    /// `conn`'s change to `name` (it holds the row's exclusive lock).
    pub fn write(&mut self, conn: ConnId, name: &Name, row: Option<RowData>) {
        self.rows.entry(name.clone()).or_default().pending = Some((conn, row));
    }

    /// Makes `conn`'s changes permanent; returns the names whose row is
    /// gone now (a committed DELETE: purged at once, see [`super`]).
    pub fn commit(&mut self, conn: ConnId) -> Vec<Name> {
        let mut gone = Vec::new();
        for (name, e) in self.rows.iter_mut() {
            if let Some((c, row)) = e.pending {
                if c == conn {
                    e.pending = None;
                    e.committed = row;
                    if row.is_none() {
                        gone.push(name.clone());
                    }
                }
            }
        }
        self.tidy();
        gone
    }

    /// Undoes `conn`'s changes; returns the names whose row is gone now
    /// (a rolled-back INSERT).
    pub fn rollback(&mut self, conn: ConnId) -> Vec<Name> {
        let mut gone = Vec::new();
        for (name, e) in self.rows.iter_mut() {
            if let Some((c, row)) = e.pending {
                if c == conn {
                    e.pending = None;
                    if row.is_some() && e.committed.is_none() {
                        gone.push(name.clone());
                    }
                }
            }
        }
        self.tidy();
        gone
    }

    fn tidy(&mut self) {
        self.rows
            .retain(|_, e| e.committed.is_some() || e.pending.is_some());
    }

    /// Every committed row (a consistent read's snapshot).
    pub fn committed(&self) -> BTreeMap<Name, RowData> {
        self.rows
            .iter()
            .filter_map(|(n, e)| e.committed.map(|r| (n.clone(), r)))
            .collect()
    }
}
