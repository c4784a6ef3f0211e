//! The simulator for the Redis recipes: the same sans-IO machines the
//! checker explores (`model/src/redis/recipes/`) against the same server
//! model ([`RedisServer`]), in one madsim runtime per seed, with real time:
//! milliseconds instead of ticks, latencies on every command, a critical
//! section drawn per acquisition below the lease, and the scenario's fault
//! budgets spent at random instants.
//!
//! Time. One checker tick is [`TICK_MS`] simulated milliseconds: the lease,
//! the critical section, a pause and a clock jump are the scenario's ticks
//! times that. The server's reference time is madsim's clock; every
//! server operation first advances the model by the milliseconds since the
//! last one ([`RedisServer::advance`]: TTLs run out, stored stamps age). A
//! client's stamps are relative to "now", as in the checker, and age by
//! the milliseconds between its steps; its clock reads `offset` ms ahead.
//!
//! Each client runs on its own madsim node, so a pause freezes it whole
//! (`Handle::pause`): its commands already sent are still served, as in
//! the checker. A crash kills the node; its keys stay.
//!
//! What it judges, with the checker's definitions
//! ([`locksmith_model::engine::harness::Property`]): **mutual exclusion** (a
//! `lock()` returns while another live client believes it holds), **unlock
//! by non-owner** (a command deletes or overwrites the key another client set in its
//! current tenure, while that tenure is still valid by the recipe's own
//! rule read on that client's clock — the rule the checker's `serve`
//! applies), and **stuck lock** (when every live client is done, the key
//! still refuses a new `lock()` after ten leases more: no client could
//! ever acquire again). Deadlock and starvation are the checker's.
//!
//! With `fencing = true` the holders write to a protected resource with a
//! fencing token ([`fence`]), which judges mutual exclusion at the resource
//! and fenced safety.
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

mod fence;

use crate::simulate::backend::Fencing;
use locksmith_model::engine::harness::{LockEvent, Phase, Property, StepKind};
use locksmith_model::redis::check::step::FENCE_KEY;
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::recipes::{Me, LOCK_KEY};
use locksmith_model::redis::{Command, Key, RedisServer, Reply, Value};
use madsim::rand::Rng;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Simulated milliseconds per checker tick.
pub const TICK_MS: u64 = 10;

/// What one seed found.
pub type RedisRun = crate::simulate::backend::BackendRun;

/// One client as the world sees it.
struct Cl {
    phase: Phase,
    /// How far its clock reads ahead of the reference time, in ms.
    clock: i64,
    crashed: bool,
    /// Its last reply said it won the lock (its tenure began at the server
    /// before it read it).
    won: bool,
    node: Option<madsim::task::NodeId>,
}

impl Cl {
    fn in_tenure(&self) -> bool {
        self.phase.holds() || self.won
    }
}

struct World {
    space: RedisSpace,
    server: RedisServer,
    /// The server's reference time last advanced to, in ms.
    server_ms: u64,
    clients: Vec<Cl>,
    /// Who set the lock key's current value.
    owner: Option<usize>,
    violation: Option<(Property, String)>,
    violated: BTreeSet<Property>,
    trace: Option<Vec<String>>,
    acquisitions: u64,
    commands: u64,
    /// The resource and the tenures, when the scenario fences.
    fencing: Option<Fencing>,
}

fn lock(w: &Mutex<World>) -> MutexGuard<'_, World> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

/// Simulated milliseconds since the run began.
fn now_ms() -> u64 {
    let start = START.with(|s| s.get());
    let ms = start.map_or(0, |s| {
        madsim::time::Instant::now().duration_since(s).as_millis()
    });
    u64::try_from(ms).unwrap_or(u64::MAX)
}

thread_local! {
    /// When the current run began (one run at a time per thread).
    static START: std::cell::Cell<Option<madsim::time::Instant>> = const { std::cell::Cell::new(None) };
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

    /// The server's clock caught up with madsim's.
    fn sync(&mut self) {
        let now = now_ms();
        if now > self.server_ms {
            self.server.advance(now - self.server_ms);
            self.server_ms = now;
        }
    }

    fn lease_ms(&self) -> i64 {
        i64::from(self.space.lease) * TICK_MS as i64
    }

    /// The server applies `c`'s command; as the checker's `serve`, it notes
    /// who set the key and whether the command took it from a client whose
    /// tenure is current and still valid by the recipe's own rule.
    fn serve(&mut self, c: usize, cmd: &Command) -> Reply {
        self.sync();
        let before = self.server.entry(cmd.key()).map(|e| e.value.clone());
        let reply = self.server.apply(cmd);
        let after = self.server.entry(cmd.key()).map(|e| e.value.clone());
        self.commands += 1;
        self.note(|| format!("c{c} {cmd:?} → {reply:?}"));
        if cmd.wrote(before.as_ref(), after.as_ref(), &reply) {
            if let (Some(o), Some(v)) = (self.owner, &before) {
                let owner = &self.clients[o];
                let valid = !self.space.recipe.expired(v, owner.clock, self.lease_ms());
                if o != c && owner.in_tenure() && !owner.crashed && valid {
                    self.violate(
                        Property::UnlockByNonOwner,
                        format!("c{c}'s {cmd:?} wrote over the key c{o} set in its current tenure"),
                    );
                }
            }
            self.owner = after.is_some().then_some(c);
        }
        reply
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
            LockEvent::Released => {
                self.note(|| format!("c{c} released (critical section over)"));
                if let Some(f) = &mut self.fencing {
                    f.tenure_ends(c);
                }
            }
            LockEvent::GaveUp => self.note(|| format!("c{c} gave up")),
            _ => {}
        }
    }
}

/// `r` read `ms` after the server made it: its stamps are that much older.
fn aged(r: Reply, ms: u64) -> Reply {
    let ms = ms as i64;
    match r {
        Reply::Bulk(Value::Stamp(k)) => Reply::Bulk(Value::Stamp(k - ms)),
        Reply::Stamp(k) => Reply::Stamp(k - ms),
        other => other,
    }
}

/// A duration drawn uniformly from `lo..=hi` microseconds.
fn micros(lo: u64, hi: u64) -> Duration {
    Duration::from_micros(madsim::rand::thread_rng().gen_range(lo..=hi))
}

/// One client's loop: the checker's rounds with real time.
async fn client(world: Arc<Mutex<World>>, c: usize) {
    let (recipe, rounds, lease_ms, work_ms) = {
        let w = lock(&world);
        (
            w.space.recipe,
            w.space.acquisitions,
            w.lease_ms(),
            u64::from(w.space.work) * TICK_MS,
        )
    };
    let key = Key::new(LOCK_KEY);
    let token = Value::Int(c as i64 + 1);
    let mut locals = recipe.start();
    // The last reply, with when the server made it (its stamps are
    // relative to that moment).
    let mut reply: Option<(Reply, u64)> = None;
    let mut left = rounds;
    let mut last = now_ms();
    loop {
        let (phase, clock) = {
            let w = lock(&world);
            (w.clients[c].phase, w.clients[c].clock)
        };
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
        let now = now_ms();
        for _ in 0..now.saturating_sub(last).min(1 << 20) {
            locals = locals.aged(i64::MIN / 4);
        }
        last = now;
        let me = Me {
            key: key.clone(),
            fence: Key::new(FENCE_KEY),
            token: token.clone(),
            lease: lease_ms,
            clock,
        };
        let read = reply.take().map(|(r, at)| aged(r, now.saturating_sub(at)));
        let out = recipe.step(&mut locals, read.as_ref(), &me);
        // With fencing, `lock()` returns once the token is read.
        let mut token = None;
        if out.kind == StepKind::Acquired && lock(&world).fencing.is_some() {
            token = fence::token(&world, c, recipe, read.as_ref()).await;
            if token.is_none() {
                let mut w = lock(&world);
                w.note(|| format!("c{c}'s INCR failed: the program throws"));
                w.clients[c].phase = Phase::Died;
                if let Some(f) = &mut w.fencing {
                    f.tenure_ends(c);
                }
                return;
            }
        }
        {
            let mut w = lock(&world);
            let mut events = Vec::new();
            let next = w.clients[c].phase.after(out.kind, true, &mut events);
            w.clients[c].phase = next;
            for e in events {
                w.event(c, e);
            }
            if let StepKind::Threw(why) = out.kind {
                w.note(|| format!("c{c} threw {why}"));
                return;
            }
        }
        if let Some(cmd) = out.send {
            madsim::time::sleep(micros(100, 1000)).await;
            let served = {
                let mut w = lock(&world);
                let r = w.serve(c, &cmd);
                let clock = w.clients[c].clock;
                w.clients[c].won = locals.won(&r, clock);
                if w.clients[c].won {
                    if let Some(f) = &mut w.fencing {
                        f.tenure_begins(c);
                    }
                }
                (r, now_ms())
            };
            madsim::time::sleep(micros(100, 1000)).await;
            reply = Some(served);
        }
        if out.kind == StepKind::Acquired {
            if let Some(t) = token {
                fence::write(&world, c, t, true).await;
            }
            // Shorter than the lease by at least a millisecond: a holder
            // overruns only under a pause or a clock fault.
            let hold = work_ms.saturating_sub(1).max(1);
            madsim::time::sleep(micros(hold * 500, hold * 1000)).await;
            if let Some(t) = token {
                fence::write(&world, c, t, false).await;
            }
        }
        if out.sleep {
            madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        }
    }
}

/// The scenario's fault budgets, each spent at a random instant of the
/// first `horizon` ms on a random live client (a pause or a crash strikes a
/// holder when there is one, half the time).
async fn chaos(world: Arc<Mutex<World>>, horizon: u64) {
    let (f, pause_ms, skew_ms, n) = {
        let w = lock(&world);
        (
            w.space.faults,
            u64::from(w.space.pause) * TICK_MS,
            i64::from(w.space.skew) * TICK_MS as i64,
            w.clients.len(),
        )
    };
    #[derive(Clone, Copy, Debug)]
    enum F {
        Pause,
        Crash,
        ClockJump,
        ServerClockJump,
        Restart,
        Failover,
    }
    let mut plan: Vec<(u64, F)> = Vec::new();
    let mut rng = madsim::rand::thread_rng();
    for (k, kind) in [
        (f.pauses, F::Pause),
        (f.crashes, F::Crash),
        (f.clock_jumps, F::ClockJump),
        (f.server_clock_jumps, F::ServerClockJump),
        (f.restarts, F::Restart),
        (f.failovers, F::Failover),
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
                (0..n).filter(|&c| !w.clients[c].crashed),
                |c| w.clients[c].phase.holds(),
                &mut rng,
            )
        };
        let pause = {
            let mut w = lock(&world);
            match (kind, target) {
                (F::Pause, Some(c)) => {
                    w.note(|| format!("c{c}'s process pauses for {pause_ms} ms"));
                    w.clients[c].node.map(|node| (c, node))
                }
                _ => None,
            }
        };
        if let Some((c, node)) = pause {
            h.pause(node);
            madsim::time::sleep(Duration::from_millis(pause_ms)).await;
            h.resume(node);
            lock(&world).note(|| format!("c{c}'s process resumes"));
            continue;
        }
        let mut w = lock(&world);
        match (kind, target) {
            (F::Crash, Some(c)) => {
                w.clients[c].crashed = true;
                if let Some(f) = &mut w.fencing {
                    f.tenure_ends(c);
                }
                w.note(|| format!("c{c} crashes (its keys stay)"));
                if let Some(node) = w.clients[c].node {
                    h.kill(node);
                }
            }
            (F::ClockJump, Some(c)) => {
                let by = if rng.gen_bool(0.5) { skew_ms } else { -skew_ms };
                w.clients[c].clock += by;
                w.note(|| format!("c{c}'s clock jumps {by:+} ms"));
            }
            (F::ServerClockJump, _) => {
                w.sync();
                w.server.jump_forward(skew_ms as u64);
                w.note(|| format!("the server's clock jumps +{skew_ms} ms"));
                if w.server.entry(&Key::new(LOCK_KEY)).is_none() {
                    w.owner = None;
                }
            }
            (F::Restart, _) => {
                w.sync();
                w.server.restart();
                w.owner = None;
                w.note(|| "the server restarts without persistence: every key is lost".into());
            }
            (F::Failover, _) => {
                w.sync();
                w.server.failover();
                w.note(|| "the primary fails; its replica takes over".into());
            }
            (F::Pause, _) | (_, None) => {}
        }
    }
}

/// Ships the primary's writes to its replica one at a time, each a few
/// milliseconds late (asynchronous replication).
async fn replication(world: Arc<Mutex<World>>) {
    loop {
        madsim::time::sleep(micros(1000, 5000)).await;
        let mut w = lock(&world);
        w.sync();
        while w.server.replicate_one() {}
        if w.clients
            .iter()
            .all(|c| c.crashed || matches!(c.phase, Phase::Finished | Phase::Died))
        {
            return;
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, lease, faults).
pub fn run_seed(space: &RedisSpace, seed: u64, trace: bool) -> RedisRun {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let space = space.clone();
    let (violation, violated, trace, acquisitions, commands) = rt.block_on(simulate(space, trace));
    RedisRun {
        seed,
        violation,
        violated,
        trace,
        acquisitions,
        commands,
    }
}

/// What a seed's run found: its first violation, every property it
/// violated, its trace, acquisitions and commands.
type Found = (
    Option<(Property, String)>,
    BTreeSet<Property>,
    Vec<String>,
    u64,
    u64,
);

async fn simulate(space: RedisSpace, trace: bool) -> Found {
    START.with(|s| s.set(Some(madsim::time::Instant::now())));
    let n = usize::from(space.clients);
    let server = if space.replica {
        RedisServer::with_replica()
    } else {
        RedisServer::new()
    };
    let rounds = u64::from(space.acquisitions);
    let (space_lease, space_pause) = (space.lease, space.pause);
    // Faults strike within the first two ticks per round: about how long
    // a client that gives up at once takes for its rounds, and well inside
    // the run of a blocking recipe, whose clients contend from the start.
    let horizon = rounds * 2 * TICK_MS;
    let world = Arc::new(Mutex::new(World {
        server,
        server_ms: 0,
        clients: (0..n)
            .map(|_| Cl {
                phase: Phase::Idle,
                clock: 0,
                crashed: false,
                won: false,
                node: None,
            })
            .collect(),
        owner: None,
        violation: None,
        violated: BTreeSet::new(),
        trace: trace.then(Vec::new),
        acquisitions: 0,
        commands: 0,
        fencing: space.fencing.then(|| Fencing::new(n)),
        space,
    }));
    let h = madsim::runtime::Handle::current();
    let mut tasks = Vec::new();
    for c in 0..n {
        let node = h.create_node().name(format!("c{c}")).build();
        lock(&world).clients[c].node = Some(node.id());
        tasks.push(node.spawn(client(world.clone(), c)));
    }
    let chaos_node = h.create_node().name("chaos").build();
    let chaos_task = chaos_node.spawn(chaos(world.clone(), horizon));
    if lock(&world).server.has_replica() {
        chaos_node.spawn(replication(world.clone()));
    }
    // Until every live client is done (a crashed one's task never ends),
    // within a generous bound.
    let bound = Duration::from_millis(
        rounds * n as u64 * (u64::from(space_lease) + u64::from(space_pause) + 2) * TICK_MS * 4
            + 10_000,
    );
    let started = madsim::time::Instant::now();
    loop {
        madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        let w = lock(&world);
        let done = w
            .clients
            .iter()
            .all(|c| c.crashed || matches!(c.phase, Phase::Finished | Phase::Died));
        if done || started.elapsed() > bound {
            break;
        }
    }
    drop(chaos_task);
    let mut w = lock(&world);
    let unfinished: Vec<String> = (0..n)
        .filter(|&c| {
            !w.clients[c].crashed && !matches!(w.clients[c].phase, Phase::Finished | Phase::Died)
        })
        .map(|c| format!("c{c}"))
        .collect();
    if !unfinished.is_empty() {
        let why = format!(
            "{} still in its loop after {} ms",
            unfinished.join(", "),
            bound.as_millis()
        );
        w.note(|| why.clone());
    }
    // Stuck lock: ten leases later, would a new lock() get the key?
    let later = 10 * w.lease_ms() as u64;
    w.sync();
    w.server.advance(later);
    let recipe = w.space.recipe;
    let lease = w.lease_ms();
    if !recipe.acquirable(&w.server, lease) {
        let entry = w.server.entry(&Key::new(LOCK_KEY)).cloned();
        w.violate(
            Property::StuckLock,
            format!(
                "every live client is done, and {later} ms later the key still refuses a new lock(): {entry:?}"
            ),
        );
    }
    (
        w.violation.clone(),
        w.violated.clone(),
        w.trace.take().unwrap_or_default(),
        w.acquisitions,
        w.commands,
    )
}
