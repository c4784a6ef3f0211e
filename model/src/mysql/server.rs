//! The server: connections, their transactions and blocked statements,
//! the lock queue, lock wait timeouts and deadlock detection.

use super::locks::{LockKind, Locks, Mode};
use super::table::{RowData, Table};
use super::{ConnId, MysqlError, Name, Reply, SetVersion, Statement};
use serde::Serialize;
use std::collections::BTreeMap;

/// MariaDB's default `innodb_lock_wait_timeout`: 50 s.
pub const DEFAULT_LOCK_WAIT_TIMEOUT_MS: u64 = 50_000;

/// A connection's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Session {
    /// `CLIENT_FOUND_ROWS`: an UPDATE's affected rows count the rows it
    /// matched, not the rows it changed (Connector/J sets it).
    pub found_rows: bool,
    /// The session's `innodb_lock_wait_timeout`, in ms (MariaDB takes
    /// whole seconds, or fractions of one).
    pub lock_wait_timeout_ms: u64,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            found_rows: false,
            lock_wait_timeout_ms: DEFAULT_LOCK_WAIT_TIMEOUT_MS,
        }
    }
}

/// A statement waiting for a lock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Blocked {
    pub stmt: Statement,
    /// When its current wait began (the server's ms).
    pub since_ms: u64,
    /// The id an INSERT was given before it had to wait.
    insert_id: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
struct Conn {
    session: Session,
    /// Inside `START TRANSACTION` (else every statement commits itself).
    explicit: bool,
    blocked: Option<Blocked>,
    /// The transaction's read view, taken at its first consistent read.
    view: Option<BTreeMap<Name, RowData>>,
    /// Undo records written (the other part of the deadlock weight).
    undo: u64,
    /// The transaction holds the table's IX lock.
    table_locked: bool,
}

/// A statement's answer, to the connection that sent it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Completion {
    pub conn: ConnId,
    pub reply: Reply,
}

/// Why [`MysqlServer::execute`] refused a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The connection's previous statement is still waiting for a lock.
    Busy,
    /// No such connection.
    NoConnection,
}

/// What one attempt at a row statement came to.
enum Attempt {
    Done(Reply),
    Wait,
}

/// A MariaDB 10.11 server with one InnoDB lock table, as a pure state
/// machine: statements, time and dropped connections in; the replies of
/// the statements that finish out.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MysqlServer {
    table: Table,
    locks: Locks,
    conns: Vec<Conn>,
    now_ms: u64,
}

impl MysqlServer {
    /// A server with an empty lock table and one connection per session.
    pub fn new(sessions: &[Session]) -> MysqlServer {
        MysqlServer {
            table: Table::default(),
            locks: Locks::default(),
            conns: sessions
                .iter()
                .map(|&session| Conn {
                    session,
                    ..Conn::default()
                })
                .collect(),
            now_ms: 0,
        }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn locks(&self) -> &Locks {
        &self.locks
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The statement `conn` is waiting on, if any.
    pub fn blocked(&self, conn: ConnId) -> Option<&Blocked> {
        self.conns.get(conn).and_then(|c| c.blocked.as_ref())
    }

    /// Whether `conn` is inside an explicit transaction.
    pub fn in_transaction(&self, conn: ConnId) -> bool {
        self.conns.get(conn).is_some_and(|c| c.explicit)
    }

    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// A committed row put in place before any connection runs (the lock
    /// row source 003's `FOR UPDATE` and status recipes expect to exist), with
    /// the next AUTO_INCREMENT id.
    pub fn preload(&mut self, name: &Name, status: i64) {
        let id = self.table.next_id;
        self.table.next_id += 1;
        self.table.write(
            usize::MAX,
            name,
            Some(RowData {
                id,
                status,
                version: 0,
            }),
        );
        self.table.commit(usize::MAX);
    }

    /// Forgets absolute time for the exhaustive checker: shifts the clock
    /// so that the oldest lock wait began at 0 (the clock is 0 when
    /// nothing waits). Only differences of times are ever read, so the
    /// server behaves the same, and states that differ only in the hour
    /// are one state.
    pub fn rebase_time(&mut self) {
        let base = self
            .conns
            .iter()
            .filter_map(|c| c.blocked.as_ref().map(|b| b.since_ms))
            .min()
            .unwrap_or(self.now_ms);
        self.now_ms -= base;
        for b in self.conns.iter_mut().filter_map(|c| c.blocked.as_mut()) {
            b.since_ms -= base;
        }
    }

    /// Renumbers the AUTO_INCREMENT ids in use (rows, and ids waiting
    /// INSERTs were given) as 1, 2, … in their order, and the counter
    /// after them, for the exhaustive checker: a recipe that reads no id
    /// cannot tell, and a retry loop (every failed INSERT uses an id up)
    /// no longer makes the space infinite. Order is kept, so a recipe that
    /// compares ids (a fencing token) reads the same answers as long as
    /// every id it keeps is among these.
    pub fn renumber_ids(&mut self) {
        self.renumber_ids_keeping(&[]);
    }

    /// [`MysqlServer::renumber_ids`], with `held` — ids a driver keeps
    /// outside the server (fencing tokens) — among those whose order is
    /// kept. Returns the old ids in order: the one at index `i` is now
    /// `i + 1`.
    pub fn renumber_ids_keeping(&mut self, held: &[u64]) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .table
            .rows
            .values()
            .flat_map(|e| [e.committed, e.pending.and_then(|p| p.1)])
            .flatten()
            .map(|r| r.id)
            .chain(
                self.conns
                    .iter()
                    .filter_map(|c| c.blocked.as_ref()?.insert_id),
            )
            .chain(held.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let new = |id: u64| ids.binary_search(&id).map_or(id, |i| i as u64 + 1);
        for e in self.table.rows.values_mut() {
            if let Some(r) = &mut e.committed {
                r.id = new(r.id);
            }
            if let Some((_, Some(r))) = &mut e.pending {
                r.id = new(r.id);
            }
        }
        for b in self.conns.iter_mut().filter_map(|c| c.blocked.as_mut()) {
            b.insert_id = b.insert_id.map(new);
        }
        self.table.next_id = ids.len() as u64 + 1;
        ids
    }

    /// `conn` sends `stmt`. Returns the statements that finish because of
    /// it, in the order the server finishes them: `conn`'s own (unless it
    /// now waits), a deadlock victim's, waiters its locks let go.
    pub fn execute(&mut self, conn: ConnId, stmt: &Statement) -> Result<Vec<Completion>, Refused> {
        let c = self.conns.get(conn).ok_or(Refused::NoConnection)?;
        if c.blocked.is_some() {
            return Err(Refused::Busy);
        }
        let mut out = Vec::new();
        match stmt {
            Statement::Begin => {
                if self.conns[conn].explicit {
                    self.end(conn, true);
                }
                self.conns[conn].explicit = true;
                out.push(done(conn, Reply::ok(0)));
            }
            Statement::Commit | Statement::Rollback => {
                self.end(conn, matches!(stmt, Statement::Commit));
                out.push(done(conn, Reply::ok(0)));
            }
            _ => {
                self.conns[conn].blocked = Some(Blocked {
                    stmt: stmt.clone(),
                    since_ms: self.now_ms,
                    insert_id: None,
                });
                self.run_blocked(conn, &mut out);
            }
        }
        self.wake(&mut out);
        Ok(out)
    }

    /// Time passes: every statement whose wait reaches its session's
    /// `innodb_lock_wait_timeout` fails with 1205. That rolls back the
    /// statement only (`innodb_rollback_on_timeout` off): the transaction
    /// and the locks it holds stay; an autocommit statement's own
    /// transaction ends.
    pub fn advance(&mut self, ms: u64) -> Vec<Completion> {
        self.now_ms += ms;
        let mut out = Vec::new();
        loop {
            let due = (0..self.conns.len())
                .filter_map(|i| {
                    let c = &self.conns[i];
                    let b = c.blocked.as_ref()?;
                    let deadline = b.since_ms + c.session.lock_wait_timeout_ms;
                    (deadline <= self.now_ms).then_some((deadline, i))
                })
                .min();
            let Some((_, conn)) = due else { break };
            self.locks.cancel_wait(conn);
            self.conns[conn].blocked = None;
            if !self.conns[conn].explicit {
                self.end(conn, false);
            }
            out.push(done(conn, Reply::Err(MysqlError::LockWaitTimeout)));
            self.wake(&mut out);
        }
        out
    }

    /// The ms until the earliest lock wait times out, if any waits.
    pub fn next_timeout_in(&self) -> Option<u64> {
        self.conns
            .iter()
            .filter_map(|c| {
                let b = c.blocked.as_ref()?;
                Some((b.since_ms + c.session.lock_wait_timeout_ms).saturating_sub(self.now_ms))
            })
            .min()
    }

    /// The server drops `conn` (the client closed it, `KILL`, or
    /// `wait_timeout`): its statement stops unanswered, its transaction
    /// rolls back and its locks go. The slot then stands for a new
    /// connection with the same settings. Returns what that lets finish.
    pub fn disconnect(&mut self, conn: ConnId) -> Vec<Completion> {
        let mut out = Vec::new();
        if conn >= self.conns.len() {
            return out;
        }
        self.locks.cancel_wait(conn);
        self.conns[conn].blocked = None;
        self.end(conn, false);
        self.wake(&mut out);
        out
    }

    /// Ends `conn`'s transaction; the connection leaves any explicit one.
    fn end(&mut self, conn: ConnId, commit: bool) {
        let gone = if commit {
            self.table.commit(conn)
        } else {
            self.table.rollback(conn)
        };
        self.locks.release_all(conn);
        for name in gone {
            self.locks.record_gone(&name);
        }
        let c = &mut self.conns[conn];
        c.explicit = false;
        c.view = None;
        c.undo = 0;
        c.table_locked = false;
    }

    /// Runs (or runs again) `conn`'s blocked statement; finishes it or
    /// leaves it waiting, resolving a deadlock its wait closes.
    fn run_blocked(&mut self, conn: ConnId, out: &mut Vec<Completion>) {
        let Some(b) = self.conns[conn].blocked.clone() else {
            return;
        };
        match self.attempt(conn, &b) {
            Attempt::Done(reply) => {
                self.conns[conn].blocked = None;
                if !self.conns[conn].explicit {
                    let ok = !matches!(reply, Reply::Err(_));
                    self.end(conn, ok);
                }
                out.push(done(conn, reply));
            }
            Attempt::Wait => {
                if let Some(b) = &mut self.conns[conn].blocked {
                    b.since_ms = self.now_ms;
                }
                self.resolve_deadlock(conn, out);
            }
        }
    }

    /// Lets waiters go, first in the queue first, until none can.
    fn wake(&mut self, out: &mut Vec<Completion>) {
        loop {
            let mut waiters: Vec<(usize, ConnId)> = (0..self.conns.len())
                .filter(|&i| self.conns[i].blocked.is_some())
                .map(|i| (self.locks.waiting_of(i).unwrap_or(0), i))
                .collect();
            waiters.sort();
            let ready = waiters.into_iter().find_map(|(_, i)| {
                let let_go = self.locks.waiting_of(i).is_none();
                (let_go || self.locks.try_grant(i)).then_some(i)
            });
            match ready {
                Some(i) => self.run_blocked(i, out),
                None => break,
            }
        }
    }

    /// If `conn`'s new wait closes a cycle of waits, InnoDB rolls back the
    /// transaction of least weight (undo records plus lock objects; on a
    /// tie, the one whose request closed the cycle) with 1213.
    fn resolve_deadlock(&mut self, conn: ConnId, out: &mut Vec<Completion>) {
        let mut cycle = vec![conn];
        let mut at = conn;
        loop {
            let Some(next) = self.locks.waits_for(at) else {
                return;
            };
            if next == conn {
                break;
            }
            if cycle.contains(&next) {
                return;
            }
            cycle.push(next);
            at = next;
        }
        let weight = |s: &MysqlServer, i: ConnId| {
            let c = &s.conns[i];
            // A waiting INSERT has already put its row in the clustered
            // index (InnoDB inserts there first, then checks the unique
            // key): one more undo record.
            let inserting = matches!(
                c.blocked.as_ref().map(|b| &b.stmt),
                Some(Statement::Insert { .. })
            );
            c.undo + u64::from(inserting) + s.locks.objects(i) + u64::from(c.table_locked)
        };
        let mine = weight(self, conn);
        let mut victim = conn;
        let mut least = u64::MAX;
        for &i in cycle[1..].iter().chain(std::iter::once(&conn)) {
            let w = weight(self, i);
            if w < least {
                least = w;
                victim = i;
            }
        }
        if mine == least {
            victim = conn;
        }
        self.locks.cancel_wait(victim);
        self.conns[victim].blocked = None;
        self.end(victim, false);
        out.push(done(victim, Reply::Err(MysqlError::Deadlock)));
    }

    /// One attempt at a row statement, as InnoDB runs it (after a lock
    /// wait the statement looks again from the start, holding what it was
    /// granted).
    fn attempt(&mut self, conn: ConnId, b: &Blocked) -> Attempt {
        if !matches!(b.stmt, Statement::Select { .. }) {
            self.conns[conn].table_locked = true;
        }
        match &b.stmt {
            Statement::Insert { name, status } => self.insert(conn, name, *status),
            Statement::Select { name } => {
                Attempt::Done(Reply::Rows(self.consistent_read(conn, name)))
            }
            Statement::SelectForUpdate { name } => self.locking(conn, name, |_, row| {
                (None, Reply::Rows(row.map(|r| r.view())))
            }),
            Statement::Delete { name } => self.locking(conn, name, |_, row| match row {
                Some(_) => (Some(None), Reply::ok(1)),
                None => (None, Reply::ok(0)),
            }),
            Statement::Update {
                name,
                set_status,
                set_version,
                where_status,
                where_version,
            } => {
                let found_rows = self.conns[conn].session.found_rows;
                // LAST_INSERT_ID(expr) sets the OK packet's id only where
                // it ran: on the matched row.
                let ok = |affected: u64, id: i64| Reply::Ok {
                    affected,
                    insert_id: (*set_version == SetVersion::Token).then_some(id as u64),
                };
                self.locking(conn, name, |_, row| {
                    let Some(row) = row else {
                        return (None, ok(0, 0));
                    };
                    let matched = where_status.is_none_or(|s| row.status == s)
                        && where_version.is_none_or(|v| row.version == v);
                    if !matched {
                        return (None, ok(0, 0));
                    }
                    let new = RowData {
                        status: *set_status,
                        version: row.version + i64::from(*set_version != SetVersion::Keep),
                        ..row
                    };
                    let changed = new != row;
                    let affected = u64::from(changed || found_rows);
                    (changed.then_some(Some(new)), ok(affected, new.version))
                })
            }
            Statement::Begin | Statement::Commit | Statement::Rollback => {
                Attempt::Done(Reply::ok(0))
            }
        }
        .with_id(self, conn, b)
    }

    /// A locking statement on `name`: an X lock on its record, or a gap
    /// lock where there is none; then `act` on the row it sees, which may
    /// write a new row (`Some(None)` deletes it).
    fn locking(
        &mut self,
        conn: ConnId,
        name: &Name,
        act: impl FnOnce(&Self, Option<RowData>) -> (Option<Option<RowData>>, Reply),
    ) -> Attempt {
        let e = self.table.entry(name);
        let row = if e.committed.is_some() || e.pending.is_some() {
            if !self.locks.request(conn, name, LockKind::X, true) {
                return Attempt::Wait;
            }
            // Granted: any uncommitted change here is our own.
            self.table.entry(name).current()
        } else {
            self.locks
                .request(conn, name, LockKind::Gap(Mode::X), false);
            None
        };
        let (write, reply) = act(self, row);
        if let Some(new) = write {
            self.table.write(conn, name, new);
            self.conns[conn].undo += 1;
        }
        Attempt::Done(reply)
    }

    /// `INSERT`: the duplicate check locks a record that is there (S) and
    /// fails with 1062 if it is a row; else the insert waits for any
    /// other transaction's gap lock on the name, and inserts.
    fn insert(&mut self, conn: ConnId, name: &Name, status: i64) -> Attempt {
        let e = self.table.entry(name);
        let there = e.committed.is_some() || e.pending.is_some();
        // The duplicate check S-locks a record that is there, the
        // transaction's own too (InnoDB does not count its implicit lock).
        if there && !self.locks.request(conn, name, LockKind::S, false) {
            return Attempt::Wait;
        }
        let e = self.table.entry(name);
        if e.current().is_some() {
            return Attempt::Done(Reply::Err(MysqlError::Duplicate(name.clone())));
        }
        if !self
            .locks
            .request(conn, name, LockKind::InsertIntention, false)
        {
            return Attempt::Wait;
        }
        let Some(b) = &self.conns[conn].blocked else {
            return Attempt::Done(Reply::ok(0));
        };
        let id = b.insert_id.unwrap_or(self.table.next_id);
        self.table.write(
            conn,
            name,
            Some(RowData {
                id,
                status,
                version: 0,
            }),
        );
        self.locks.insert_implicit(conn, name);
        self.conns[conn].undo += 1;
        Attempt::Done(Reply::Ok {
            affected: 1,
            insert_id: Some(id),
        })
    }

    /// A plain `SELECT`: an autocommit one reads the committed row; one
    /// in a transaction reads its read view (REPEATABLE READ), taken at
    /// its first consistent read, and its own changes.
    fn consistent_read(&mut self, conn: ConnId, name: &Name) -> Option<crate::mysql::RowView> {
        let e = self.table.entry(name);
        if e.writer() == Some(conn) {
            return e.current().map(|r| r.view());
        }
        if !self.conns[conn].explicit {
            return e.committed.map(|r| r.view());
        }
        let snapshot = self.table.committed();
        let view = self.conns[conn].view.get_or_insert(snapshot);
        view.get(name).map(|r| r.view())
    }
}

impl Attempt {
    /// An INSERT takes its AUTO_INCREMENT id at its first attempt, and
    /// keeps it through its waits.
    fn with_id(self, s: &mut MysqlServer, conn: ConnId, b: &Blocked) -> Attempt {
        if matches!(b.stmt, Statement::Insert { .. }) && b.insert_id.is_none() {
            let id = s.table.next_id;
            s.table.next_id += 1;
            if let Some(b) = &mut s.conns[conn].blocked {
                b.insert_id = Some(id);
            }
        }
        self
    }
}

fn done(conn: ConnId, reply: Reply) -> Completion {
    Completion { conn, reply }
}
