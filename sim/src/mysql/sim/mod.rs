//! The simulator for the database locks: the same sans-IO machines the
//! checker explores (`model/src/mysql/recipes/`) against the same InnoDB model
//! ([`MysqlServer`]), in one madsim runtime per seed, with real time:
//! milliseconds instead of ticks, latencies on every statement, a critical
//! section drawn per acquisition, and the scenario's fault budgets spent
//! at random instants.
//!
//! Time. One checker tick is [`TICK_MS`] simulated milliseconds: the
//! critical section, a pause, `innodb_lock_wait_timeout` and the cleanup
//! job's age are the scenario's ticks times that. The server's clock is
//! madsim's: a server task advances the model every millisecond
//! ([`MysqlServer::advance`]), so a statement waiting for a row lock times
//! out (1205) when its session's timeout has passed.
//!
//! Each client runs on its own madsim node with one connection, so a pause
//! freezes its process whole (`Handle::pause`) while the server goes on.
//! A statement's reply waits in the client's socket ([`Cl::reply`]) until
//! the client reads it. The faults are the checker's: a crash (the node
//! dies; the server rolls back its transaction), a connection the server
//! drops (`KILL`: rolled back at once; the client's statement in flight,
//! or its next one, fails with 2013), a network drop (the same on the
//! client's side, but the server keeps the session — its transaction and
//! row locks — until it notices, a few ticks later), a server restart
//! (every connection gone), a pause; and the seeds' cleanup job, a task
//! with a connection of its own.
//!
//! What it judges, with the checker's definitions: **mutual exclusion** (a
//! `lock()` returns while another live client believes it holds),
//! **unlock by non-owner** (a statement, or the cleanup job, changes the
//! lock row another client took in its current tenure), **thread died**
//! (an `SQLException` reaches the seed's code), **stuck lock** (when every
//! live client is done and the server has noticed every dropped
//! connection, a new `lock()` could not get the lock — and the cleanup
//! job, if any, has had its chance), and with `fencing = true` mutual
//! exclusion at the resource and fenced safety
//! ([`crate::simulate::command::fencing::Fencing`]). Deadlock and starvation are the
//! checker's.
//!
//! The world, the chaos task and the run are the command simulators' core
//! ([`crate::simulate::command`]); this file is MySQL's server and faults,
//! [`client`] its client library.
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

mod client;

use super::faults::{Strike, MYSQL_STRIKES};
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Aftermath, BackendRun, CommandWorld, Core, Setup, Simulated};
use locksmith_model::engine::harness::{LockEvent, Property};
use locksmith_model::mysql::check::MysqlSpace;
use locksmith_model::mysql::recipes::{lock_name, Locals};
use locksmith_model::mysql::RowData;
use locksmith_model::mysql::{Completion, MysqlError, MysqlServer, Reply, Session};
use madsim::runtime::NodeHandle;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::simulate::command::TICK_MS;

/// One client's connection as the world sees it.
#[derive(Clone)]
struct Conn {
    /// The connection is open on the client's side.
    connected: bool,
    /// The network dropped the connection and the server has not noticed.
    orphaned: bool,
    /// Its statement is at the server, unanswered.
    in_flight: bool,
    /// The reply in its socket, not read yet.
    reply: Option<Reply>,
}

/// One seed's MySQL: the server, each client's connection, who took the
/// lock row and since when.
pub struct World {
    core: Core,
    space: MysqlSpace,
    server: MysqlServer,
    /// The server's clock last advanced to, in ms.
    server_ms: u64,
    conns: Vec<Conn>,
    /// Each client's recipe position, for `won` (the server's side of a
    /// grant is read off the reply and the position it answers).
    locals: Vec<Locals>,
    /// Who took the lock row, while it is taken.
    owner: Option<usize>,
    /// When the lock row last changed (the cleanup job's age).
    row_since: u64,
}

impl World {
    fn lock_row(&self) -> Option<RowData> {
        self.server.table().entry(&lock_name()).current()
    }

    /// The server's clock catches up with madsim's: lock waits time out.
    fn sync(&mut self) {
        let now = now_ms();
        if now > self.server_ms {
            let done = self.server.advance(now - self.server_ms);
            self.server_ms = now;
            self.deliver(done);
        }
    }

    /// Each finished statement's reply to its client's socket (a closed
    /// connection's is lost; the cleanup job reads nothing). A reply that
    /// grants the lock begins the client's tenure.
    fn deliver(&mut self, done: Vec<Completion>) {
        for d in done {
            let Some(conn) = self.conns.get_mut(d.conn) else {
                continue;
            };
            conn.in_flight = false;
            if !conn.connected {
                continue;
            }
            let grants = self.locals[d.conn].won(&d.reply);
            self.core.note(|| format!("c{} ← {}", d.conn, d.reply));
            self.core.won(d.conn, grants);
            self.conns[d.conn].reply = Some(d.reply);
        }
    }

    /// Runs `f` on the server and keeps the checker's bookkeeping of the
    /// lock row: who took it, and whether the change took it from another
    /// client whose tenure is current (unlock by non-owner; `by` is who
    /// changed it, `None` for the cleanup job).
    fn changing(&mut self, by: Option<usize>, f: impl FnOnce(&mut World)) {
        let before = self.lock_row();
        f(self);
        let after = self.lock_row();
        let recipe = self.space.recipe;
        if after != before {
            if let Some(o) = self.owner {
                let owner = &self.core.clients[o];
                if by != Some(o) && owner.in_tenure() && !owner.crashed {
                    let who = by.map_or("the cleanup job".to_string(), |c| format!("c{c}"));
                    self.core.violate(
                        Property::UnlockByNonOwner,
                        format!("{who} changed the lock row c{o} took in its current tenure"),
                    );
                }
            }
            self.owner = if recipe.taken(after) { by } else { None };
            self.row_since = now_ms();
        } else if !recipe.taken(after) {
            self.owner = None;
        }
    }

    /// The server ends connection `c`'s session: rolls back its
    /// transaction, releases its locks, lets what waited for them finish
    /// (as the checker's `server_drops`: no one's unlock).
    fn server_drops(&mut self, c: usize) {
        let done = self.server.disconnect(c);
        self.deliver(done);
        if !self.space.recipe.taken(self.lock_row()) {
            self.owner = None;
        }
    }

    /// `c`'s connection is gone from its side: the statement it has at the
    /// server fails with 2013 at once.
    fn lose_connection(&mut self, c: usize) {
        let conn = &mut self.conns[c];
        conn.connected = false;
        if conn.in_flight {
            conn.in_flight = false;
            conn.reply = Some(Reply::Err(MysqlError::ConnectionLost));
        }
    }

    /// The server notices (keepalive, wait_timeout) that the network
    /// dropped `c`'s connection.
    fn notices_drop(&mut self, c: usize) {
        self.sync();
        self.core
            .note(|| format!("the server notices c{c}'s connection is gone"));
        self.conns[c].orphaned = false;
        self.server_drops(c);
    }
}

impl CommandWorld for World {
    type Fault = Strike;
    const FAULTS: &'static [(&'static str, Strike)] = MYSQL_STRIKES;
    const CRASH: &'static str = ": its connection closes";

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn targetable(&mut self, c: usize) -> bool {
        !self.core.clients[c].done() && self.conns[c].connected
    }

    /// The server's clock catches up first (a lock wait may time out).
    fn before_strike(&mut self) {
        self.sync();
    }

    /// The crashed client's connection closes; the server rolls back its
    /// transaction.
    fn crashed(&mut self, c: usize) {
        self.lose_connection(c);
        self.server_drops(c);
    }

    fn strike(&mut self, kind: Strike, target: Option<usize>) -> Option<Aftermath<World>> {
        match (kind, target) {
            (Strike::ConnectionDrop, Some(c)) => {
                self.core.note(|| {
                    format!("the server drops c{c}'s connection (KILL); its process goes on")
                });
                self.lose_connection(c);
                self.server_drops(c);
            }
            (Strike::NetworkDrop, Some(c)) => {
                self.core.note(|| {
                    format!("the network drops c{c}'s connection; the server has not noticed")
                });
                self.lose_connection(c);
                self.conns[c].orphaned = true;
                // The server notices (keepalive, wait_timeout) a few ticks
                // later.
                return Some(Aftermath {
                    after: micros(TICK_MS * 1000, 4 * TICK_MS * 1000),
                    client: c,
                    then: World::notices_drop,
                });
            }
            (Strike::Restart, _) => {
                self.core
                    .note(|| "the server restarts: every connection is gone".into());
                for c in 0..self.conns.len() {
                    self.lose_connection(c);
                    self.conns[c].orphaned = false;
                }
                for conn in 0..self.server.connections() {
                    self.server_drops(conn);
                }
            }
            // A connection fault that found no connected client strikes nothing.
            (Strike::ConnectionDrop | Strike::NetworkDrop, None) => {}
        }
        None
    }

    fn event(&mut self, c: usize, e: LockEvent) {
        match e {
            LockEvent::Acquired => self.core.acquired(c),
            LockEvent::Released | LockEvent::GaveUp | LockEvent::Finished => {
                self.core.note(|| format!("c{c}: {e:?}"));
                self.core.tenure_ends(c);
            }
            LockEvent::ThreadDied(why) => {
                self.core.tenure_ends(c);
                self.core
                    .violate(Property::ThreadDied, format!("c{c}'s thread died: {why}"));
            }
            _ => {}
        }
    }

    fn bound_ms(&self) -> u64 {
        let s = &self.space;
        let round = u64::from(s.work) + u64::from(s.lock_wait_timeout);
        self.core.bound_ms(round, TICK_MS, 2_000)
    }

    /// The server's clock and the cleanup job, on a node of their own.
    fn spawn_servers(world: &Arc<Mutex<World>>, _chaos: &NodeHandle) {
        let h = madsim::runtime::Handle::current();
        let mysql_node = h.create_node().name("mysql").build();
        mysql_node.spawn(server(world.clone()));
    }

    /// Stuck lock: the server notices every dropped connection, the
    /// cleanup job has its chance, and a new lock() still could not get
    /// the lock.
    fn judge_end(&mut self) {
        for c in 0..self.conns.len() {
            if self.conns[c].orphaned {
                self.conns[c].orphaned = false;
                self.server_drops(c);
            }
        }
        self.row_since = 0;
        cleanup(self);
        if !self.space.recipe.acquirable(&self.server) {
            let row = self.lock_row();
            self.core.violate(
                Property::StuckLock,
                format!("every live client is done, and a new lock() still cannot get the lock: lock row {row:?}"),
            );
        }
    }
}

/// The server's clock, and the seeds' cleanup job: it frees a lock row
/// taken `cleanup_after` ticks ago that no transaction has locked, with a
/// connection of its own.
async fn server(world: Arc<Mutex<World>>) {
    loop {
        madsim::time::sleep(Duration::from_millis(1)).await;
        let mut w = lock(&world);
        w.sync();
        cleanup(&mut w);
        if w.core.all_done() {
            return;
        }
    }
}

fn cleanup(w: &mut World) {
    let (Some(age), Some(stmt)) = (w.space.cleanup_after, w.space.recipe.cleanup_statement())
    else {
        return;
    };
    let name = lock_name();
    let due = w.space.recipe.taken(w.lock_row())
        && now_ms().saturating_sub(w.row_since) >= u64::from(age) * TICK_MS
        && w.server.table().entry(&name).pending.is_none()
        && !w.server.locks().iter().any(|l| l.name == name);
    if !due {
        return;
    }
    w.core.note(|| format!("the cleanup job: {stmt}"));
    let job = w.conns.len();
    w.changing(None, |w| {
        let done = w.server.execute(job, &stmt).unwrap_or_default();
        w.deliver(done);
    });
}

impl Simulated for MysqlSpace {
    type World = World;
    type Client = client::Client;

    fn world(&self, trace: bool) -> World {
        let n = usize::from(self.clients);
        let session = Session {
            found_rows: self.found_rows,
            lock_wait_timeout_ms: u64::from(self.lock_wait_timeout) * TICK_MS,
        };
        // One connection per client, and the cleanup job's after them.
        let mut db = MysqlServer::new(&vec![session; n + 1]);
        if let Some(status) = self.recipe.lock_row().filter(|_| self.lock_row) {
            db.preload(&lock_name(), status);
        }
        World {
            core: Core::new(Setup::of(self), trace),
            server: db,
            server_ms: 0,
            conns: vec![
                Conn {
                    connected: true,
                    orphaned: false,
                    in_flight: false,
                    reply: None,
                };
                n
            ],
            locals: vec![self.recipe.start(); n],
            owner: None,
            row_since: 0,
            space: self.clone(),
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, times, faults).
pub fn run_seed(space: &MysqlSpace, seed: u64, trace: bool) -> BackendRun {
    space.run_seed(seed, trace)
}
