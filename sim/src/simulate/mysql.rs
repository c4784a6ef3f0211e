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
//! ([`crate::simulate::backend::Fencing`]). Deadlock and starvation are the
//! checker's.
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

use crate::simulate::backend::{BackendRun, Fencing};
use locksmith_model::engine::harness::{LockEvent, Phase, Property, StepKind};
use locksmith_model::mysql::check::MysqlSpace;
use locksmith_model::mysql::recipes::{lock_name, MysqlRecipe};
use locksmith_model::mysql::table::RowData;
use locksmith_model::mysql::{Completion, MysqlError, MysqlServer, Reply, Session, Statement};
use madsim::rand::Rng;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Simulated milliseconds per checker tick.
pub const TICK_MS: u64 = 10;

/// One client as the world sees it.
struct Cl {
    phase: Phase,
    crashed: bool,
    /// The connection is open on the client's side.
    connected: bool,
    /// The network dropped the connection and the server has not noticed.
    orphaned: bool,
    /// Its statement is at the server, unanswered.
    in_flight: bool,
    /// The reply in its socket, not read yet.
    reply: Option<Reply>,
    /// The reply in its socket grants the lock: its tenure began at the
    /// server before it read it.
    won: bool,
    node: Option<madsim::task::NodeId>,
}

impl Cl {
    fn in_tenure(&self) -> bool {
        self.phase.holds() || self.won
    }

    fn done(&self) -> bool {
        self.crashed || matches!(self.phase, Phase::Finished | Phase::Died)
    }
}

struct World {
    space: MysqlSpace,
    server: MysqlServer,
    /// The server's clock last advanced to, in ms.
    server_ms: u64,
    clients: Vec<Cl>,
    /// Each client's recipe position, for `won` (the server's side of a
    /// grant is read off the reply and the position it answers).
    locals: Vec<locksmith_model::mysql::recipes::Locals>,
    /// Who took the lock row, while it is taken.
    owner: Option<usize>,
    /// When the lock row last changed (the cleanup job's age).
    row_since: u64,
    violation: Option<(Property, String)>,
    violated: BTreeSet<Property>,
    trace: Option<Vec<String>>,
    acquisitions: u64,
    statements: u64,
    fencing: Option<Fencing>,
}

fn lock(w: &Mutex<World>) -> MutexGuard<'_, World> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

thread_local! {
    /// When the current run began (one run at a time per thread).
    static START: std::cell::Cell<Option<madsim::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// Simulated milliseconds since the run began.
fn now_ms() -> u64 {
    let start = START.with(|s| s.get());
    let ms = start.map_or(0, |s| {
        madsim::time::Instant::now().duration_since(s).as_millis()
    });
    u64::try_from(ms).unwrap_or(u64::MAX)
}

/// A duration drawn uniformly from `lo..=hi` microseconds.
fn micros(lo: u64, hi: u64) -> Duration {
    Duration::from_micros(madsim::rand::thread_rng().gen_range(lo..=hi))
}

impl World {
    fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(t) = &mut self.trace {
            let start = START.with(|s| s.get());
            let us = start.map_or(0, |s| {
                madsim::time::Instant::now().duration_since(s).as_micros()
            });
            t.push(format!("{:>9.3} ms  {}", us as f64 / 1e3, line()));
        }
    }

    fn violate(&mut self, p: Property, why: String) {
        self.note(|| format!("VIOLATION {p}: {why}"));
        self.violated.insert(p);
        if self.violation.is_none() {
            self.violation = Some((p, why));
        }
    }

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
            let Some(cl) = self.clients.get_mut(d.conn) else {
                continue;
            };
            cl.in_flight = false;
            if !cl.connected {
                continue;
            }
            let grants = self.locals[d.conn].won(&d.reply);
            self.note(|| format!("c{} ← {}", d.conn, d.reply));
            let cl = &mut self.clients[d.conn];
            cl.won = grants;
            cl.reply = Some(d.reply);
            if grants {
                if let Some(f) = &mut self.fencing {
                    f.tenure_begins(d.conn);
                }
            }
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
                if by != Some(o) && self.clients[o].in_tenure() && !self.clients[o].crashed {
                    let who = by.map_or("the cleanup job".to_string(), |c| format!("c{c}"));
                    self.violate(
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
        let cl = &mut self.clients[c];
        cl.connected = false;
        if cl.in_flight {
            cl.in_flight = false;
            cl.reply = Some(Reply::Err(MysqlError::ConnectionLost));
        }
    }

    fn event(&mut self, c: usize, e: LockEvent) {
        match e {
            LockEvent::Acquired => {
                self.acquisitions += 1;
                self.clients[c].won = false;
                let others: Vec<String> = (0..self.clients.len())
                    .filter(|&o| {
                        o != c && !self.clients[o].crashed && self.clients[o].phase.holds()
                    })
                    .map(|o| format!("c{o}"))
                    .collect();
                self.note(|| format!("c{c} acquired"));
                if !others.is_empty() {
                    self.violate(
                        Property::MutualExclusion,
                        format!(
                            "c{c} acquired while {} still believed it held the lock",
                            others.join(", ")
                        ),
                    );
                }
            }
            LockEvent::Released | LockEvent::GaveUp | LockEvent::Finished => {
                self.note(|| format!("c{c}: {e:?}"));
                if let Some(f) = &mut self.fencing {
                    f.tenure_ends(c);
                }
            }
            LockEvent::ThreadDied(why) => {
                if let Some(f) = &mut self.fencing {
                    f.tenure_ends(c);
                }
                self.violate(Property::ThreadDied, format!("c{c}'s thread died: {why}"));
            }
            _ => {}
        }
    }
}

/// `c` sends `stmt` after a link's latency and reads the reply when it
/// comes (a statement waiting for a row lock waits here; a dropped
/// connection answers 2013).
async fn exchange(world: &Arc<Mutex<World>>, c: usize, stmt: Statement) -> Reply {
    madsim::time::sleep(micros(100, 1000)).await;
    {
        let mut w = lock(world);
        w.sync();
        w.statements += 1;
        w.note(|| format!("c{c} → {stmt}"));
        if w.clients[c].connected {
            w.clients[c].in_flight = true;
            w.changing(Some(c), |w| {
                // A client sends only when its last statement has answered.
                let done = w.server.execute(c, &stmt).unwrap_or_default();
                w.deliver(done);
            });
        } else {
            w.clients[c].reply = Some(Reply::Err(MysqlError::ConnectionLost));
        }
    }
    loop {
        let reply = lock(world).clients[c].reply.take();
        if let Some(r) = reply {
            // The reply's way back.
            madsim::time::sleep(micros(100, 1000)).await;
            return r;
        }
        madsim::time::sleep(micros(200, 1000)).await;
    }
}

/// Writes to the resource after a link's latency.
async fn write(world: &Arc<Mutex<World>>, c: usize, token: u64, begin: bool) {
    madsim::time::sleep(micros(100, 1000)).await;
    let mut w = lock(world);
    let Some(f) = w.fencing.as_mut() else {
        return;
    };
    let (line, broken) = f.write(c, token, begin);
    w.note(|| line);
    for (p, why) in broken {
        w.violate(p, why);
    }
}

/// One client's loop: the checker's rounds with real time.
async fn client(world: Arc<Mutex<World>>, c: usize) {
    let (recipe, rounds, work_ms, fenced) = {
        let w = lock(&world);
        (
            w.space.recipe,
            w.space.acquisitions,
            u64::from(w.space.work) * TICK_MS,
            w.space.fencing,
        )
    };
    let mut locals = recipe.start();
    let mut read: Option<Reply> = None;
    let mut left = rounds;
    loop {
        let phase = lock(&world).clients[c].phase;
        if phase.thinks_next() {
            if left == 0 {
                let mut w = lock(&world);
                let mut ev = Vec::new();
                w.clients[c].phase = phase.after(StepKind::Finished, true, &mut ev);
                return;
            }
            left -= 1;
            madsim::time::sleep(micros(0, TICK_MS * 1000)).await;
        }
        let got = read.take();
        let out = recipe.step(&mut locals, got.as_ref(), fenced);
        let token = (out.kind == StepKind::Acquired && fenced)
            .then(|| MysqlRecipe::token(got.as_ref()).and_then(|t| u64::try_from(t).ok()))
            .flatten();
        {
            let mut w = lock(&world);
            w.locals[c] = locals;
            let mut events = Vec::new();
            let next = w.clients[c].phase.after(out.kind, true, &mut events);
            w.clients[c].phase = next;
            for e in events {
                w.event(c, e);
            }
            if matches!(out.kind, StepKind::Threw(_)) {
                return;
            }
        }
        if let Some(stmt) = out.send {
            read = Some(exchange(&world, c, stmt).await);
        }
        if out.kind == StepKind::Acquired {
            if let Some(t) = token {
                write(&world, c, t, true).await;
            }
            madsim::time::sleep(micros(work_ms * 500, work_ms * 1000)).await;
            if let Some(t) = token {
                write(&world, c, t, false).await;
            }
        }
        if out.sleep {
            madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
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
        if w.clients.iter().all(Cl::done) {
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
    w.note(|| format!("the cleanup job: {stmt}"));
    let job = w.clients.len();
    w.changing(None, |w| {
        let done = w.server.execute(job, &stmt).unwrap_or_default();
        w.deliver(done);
    });
}

/// A fault of the scenario's budgets.
#[derive(Clone, Copy, Debug)]
enum F {
    Pause,
    Crash,
    ConnectionDrop,
    NetworkDrop,
    Restart,
}

/// A fault that takes no time: a crash, a dropped connection, a restart.
fn strike(w: &mut World, kind: F, target: Option<usize>, h: &madsim::runtime::Handle) {
    match (kind, target) {
        (F::Crash, Some(c)) => {
            w.note(|| format!("c{c} crashes: its connection closes"));
            w.clients[c].crashed = true;
            w.lose_connection(c);
            if let Some(f) = &mut w.fencing {
                f.tenure_ends(c);
            }
            w.server_drops(c);
            if let Some(node) = w.clients[c].node {
                h.kill(node);
            }
        }
        (F::ConnectionDrop, Some(c)) => {
            w.note(|| format!("the server drops c{c}'s connection (KILL); its process goes on"));
            w.lose_connection(c);
            w.server_drops(c);
        }
        (F::Restart, _) => {
            w.note(|| "the server restarts: every connection is gone".into());
            for c in 0..w.clients.len() {
                w.lose_connection(c);
                w.clients[c].orphaned = false;
            }
            for conn in 0..w.server.connections() {
                w.server_drops(conn);
            }
        }
        _ => {}
    }
}

/// The scenario's fault budgets, each spent at a random instant of the
/// first `horizon` ms on a random live client (a holder, half the time,
/// when there is one).
async fn chaos(world: Arc<Mutex<World>>, horizon: u64) {
    let (f, pause_ms, n) = {
        let w = lock(&world);
        (
            w.space.faults,
            u64::from(w.space.pause) * TICK_MS,
            w.clients.len(),
        )
    };
    let mut plan: Vec<(u64, F)> = Vec::new();
    let mut rng = madsim::rand::thread_rng();
    for (k, kind) in [
        (f.pauses, F::Pause),
        (f.crashes, F::Crash),
        (f.connection_drops, F::ConnectionDrop),
        (f.network_drops, F::NetworkDrop),
        (f.restarts, F::Restart),
    ] {
        for _ in 0..k {
            plan.push((rng.gen_range(0..=horizon * 1000), kind));
        }
    }
    plan.sort_by_key(|p| p.0);
    let h = madsim::runtime::Handle::current();
    for (at_us, kind) in plan {
        let now_us = now_ms() * 1000;
        if at_us > now_us {
            madsim::time::sleep(Duration::from_micros(at_us - now_us)).await;
        }
        let target = {
            let w = lock(&world);
            crate::simulate::backend::target(
                (0..n).filter(|&c| !w.clients[c].done() && w.clients[c].connected),
                |c| w.clients[c].phase.holds(),
                &mut rng,
            )
        };
        match (kind, target) {
            (F::Pause, Some(c)) => {
                let node = {
                    let mut w = lock(&world);
                    w.note(|| format!("c{c}'s process pauses for {pause_ms} ms"));
                    w.clients[c].node
                };
                if let Some(node) = node {
                    h.pause(node);
                    madsim::time::sleep(Duration::from_millis(pause_ms)).await;
                    h.resume(node);
                    lock(&world).note(|| format!("c{c}'s process resumes"));
                }
            }
            (F::NetworkDrop, Some(c)) => {
                {
                    let mut w = lock(&world);
                    w.sync();
                    w.note(|| {
                        format!("the network drops c{c}'s connection; the server has not noticed")
                    });
                    w.lose_connection(c);
                    w.clients[c].orphaned = true;
                }
                // The server notices (keepalive, wait_timeout) a few ticks
                // later.
                madsim::time::sleep(micros(TICK_MS * 1000, 4 * TICK_MS * 1000)).await;
                let mut w = lock(&world);
                w.sync();
                w.note(|| format!("the server notices c{c}'s connection is gone"));
                w.clients[c].orphaned = false;
                w.server_drops(c);
            }
            (kind, target) => {
                let mut w = lock(&world);
                w.sync();
                strike(&mut w, kind, target, &h);
            }
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, times, faults).
pub fn run_seed(space: &MysqlSpace, seed: u64, trace: bool) -> BackendRun {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    BackendRun {
        seed,
        ..rt.block_on(simulate(space.clone(), trace))
    }
}

async fn simulate(space: MysqlSpace, trace: bool) -> BackendRun {
    START.with(|s| s.set(Some(madsim::time::Instant::now())));
    let n = usize::from(space.clients);
    let session = Session {
        found_rows: space.found_rows,
        lock_wait_timeout_ms: u64::from(space.lock_wait_timeout) * TICK_MS,
    };
    // One connection per client, and the cleanup job's after them.
    let mut db = MysqlServer::new(&vec![session; n + 1]);
    if let Some(status) = space.recipe.lock_row().filter(|_| space.lock_row) {
        db.preload(&lock_name(), status);
    }
    let rounds = u64::from(space.acquisitions);
    let horizon = rounds * 2 * TICK_MS;
    let bound_ms = rounds
        * n as u64
        * (u64::from(space.work) + u64::from(space.pause) + u64::from(space.lock_wait_timeout) + 2)
        * TICK_MS
        * 4
        + 2_000;
    let world = Arc::new(Mutex::new(World {
        server: db,
        server_ms: 0,
        clients: (0..n)
            .map(|_| Cl {
                phase: Phase::Idle,
                crashed: false,
                connected: true,
                orphaned: false,
                in_flight: false,
                reply: None,
                won: false,
                node: None,
            })
            .collect(),
        locals: vec![space.recipe.start(); n],
        owner: None,
        row_since: 0,
        violation: None,
        violated: BTreeSet::new(),
        trace: trace.then(Vec::new),
        acquisitions: 0,
        statements: 0,
        fencing: space.fencing.then(|| Fencing::new(n)),
        space,
    }));
    let h = madsim::runtime::Handle::current();
    for c in 0..n {
        let node = h.create_node().name(format!("c{c}")).build();
        lock(&world).clients[c].node = Some(node.id());
        node.spawn(client(world.clone(), c));
    }
    let chaos_node = h.create_node().name("chaos").build();
    let chaos_task = chaos_node.spawn(chaos(world.clone(), horizon));
    let mysql_node = h.create_node().name("mysql").build();
    mysql_node.spawn(server(world.clone()));
    let started = madsim::time::Instant::now();
    loop {
        madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        let w = lock(&world);
        if w.clients.iter().all(Cl::done) || started.elapsed() > Duration::from_millis(bound_ms) {
            break;
        }
    }
    drop(chaos_task);
    let mut w = lock(&world);
    let unfinished: Vec<String> = (0..n)
        .filter(|&c| !w.clients[c].done())
        .map(|c| format!("c{c}"))
        .collect();
    if !unfinished.is_empty() {
        let why = format!(
            "{} still in its loop after {bound_ms} ms",
            unfinished.join(", ")
        );
        w.note(|| why.clone());
    }
    // Stuck lock: the server notices every dropped connection, the
    // cleanup job has its chance, and a new lock() still could not get
    // the lock.
    for c in 0..n {
        if w.clients[c].orphaned {
            w.clients[c].orphaned = false;
            w.server_drops(c);
        }
    }
    w.row_since = 0;
    cleanup(&mut w);
    if !w.space.recipe.acquirable(&w.server) {
        let row = w.lock_row();
        w.violate(
            Property::StuckLock,
            format!("every live client is done, and a new lock() still cannot get the lock: lock row {row:?}"),
        );
    }
    BackendRun {
        seed: 0,
        violation: w.violation.clone(),
        violated: w.violated.clone(),
        trace: w.trace.take().unwrap_or_default(),
        acquisitions: w.acquisitions,
        commands: w.statements,
    }
}
