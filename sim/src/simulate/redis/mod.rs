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
//! the checker. A crash kills the node; its keys stay. The world, the
//! chaos task and the run are the command simulators' core
//! ([`crate::simulate::command`]); this file is Redis's server, faults and
//! client.
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

use crate::simulate::command::fencing::write;
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Aftermath, CommandWorld, Core};
use locksmith_model::engine::harness::{LockEvent, Phase, Property, StepKind};
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::check::FENCE_KEY;
use locksmith_model::redis::recipes::{Me, LOCK_KEY};
use locksmith_model::redis::{Command, Key, RedisServer, Reply, Value};
use madsim::rand::Rng;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::simulate::command::TICK_MS;

/// What one seed found.
pub type RedisRun = crate::simulate::command::BackendRun;

struct World {
    core: Core,
    space: RedisSpace,
    server: RedisServer,
    /// The server's reference time last advanced to, in ms.
    server_ms: u64,
    /// How far each client's clock reads ahead of the reference time, in
    /// ms.
    clocks: Vec<i64>,
    /// Who set the lock key's current value.
    owner: Option<usize>,
}

impl World {
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
        self.core.commands += 1;
        self.core.note(|| format!("c{c} {cmd:?} → {reply:?}"));
        if cmd.wrote(before.as_ref(), after.as_ref(), &reply) {
            if let (Some(o), Some(v)) = (self.owner, &before) {
                let owner = &self.core.clients[o];
                let valid = !self
                    .space
                    .recipe
                    .expired(v, self.clocks[o], self.lease_ms());
                if o != c && owner.in_tenure() && !owner.crashed && valid {
                    self.core.violate(
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
            LockEvent::Acquired => self.core.acquired(c),
            LockEvent::Released => {
                self.core
                    .note(|| format!("c{c} released (critical section over)"));
                self.core.tenure_ends(c);
            }
            LockEvent::GaveUp => self.core.note(|| format!("c{c} gave up")),
            _ => {}
        }
    }
}

/// A fault of the scenario's budgets.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    Pause,
    Crash,
    ClockJump,
    ServerClockJump,
    Restart,
    Failover,
}

impl CommandWorld for World {
    type Fault = Fault;

    fn core(&self) -> &Core {
        &self.core
    }

    fn core_mut(&mut self) -> &mut Core {
        &mut self.core
    }

    fn fault_budgets(&self) -> Vec<(u8, Fault)> {
        let f = self.space.faults;
        vec![
            (f.pauses, Fault::Pause),
            (f.crashes, Fault::Crash),
            (f.clock_jumps, Fault::ClockJump),
            (f.server_clock_jumps, Fault::ServerClockJump),
            (f.restarts, Fault::Restart),
            (f.failovers, Fault::Failover),
        ]
    }

    fn is_pause(f: Fault) -> bool {
        matches!(f, Fault::Pause)
    }

    fn pause_ms(&self) -> u64 {
        u64::from(self.space.pause) * TICK_MS
    }

    fn targetable(&self, c: usize) -> bool {
        !self.core.clients[c].crashed
    }

    fn strike(
        &mut self,
        kind: Fault,
        target: Option<usize>,
        h: &madsim::runtime::Handle,
    ) -> Option<Aftermath<World>> {
        let skew_ms = i64::from(self.space.skew) * TICK_MS as i64;
        match (kind, target) {
            (Fault::Crash, Some(c)) => {
                self.core.clients[c].crashed = true;
                self.core.tenure_ends(c);
                self.core.note(|| format!("c{c} crashes (its keys stay)"));
                if let Some(node) = self.core.clients[c].node {
                    h.kill(node);
                }
            }
            (Fault::ClockJump, Some(c)) => {
                let by = if madsim::rand::thread_rng().gen_bool(0.5) {
                    skew_ms
                } else {
                    -skew_ms
                };
                self.clocks[c] += by;
                self.core.note(|| format!("c{c}'s clock jumps {by:+} ms"));
            }
            (Fault::ServerClockJump, _) => {
                self.sync();
                self.server.jump_forward(skew_ms as u64);
                self.core
                    .note(|| format!("the server's clock jumps +{skew_ms} ms"));
                if self.server.entry(&Key::new(LOCK_KEY)).is_none() {
                    self.owner = None;
                }
            }
            (Fault::Restart, _) => {
                self.sync();
                self.server.restart();
                self.owner = None;
                self.core
                    .note(|| "the server restarts without persistence: every key is lost".into());
            }
            (Fault::Failover, _) => {
                self.sync();
                self.server.failover();
                self.core
                    .note(|| "the primary fails; its replica takes over".into());
            }
            (Fault::Pause, _) | (_, None) => {}
        }
        None
    }

    /// Faults strike within the first two ticks per round: about how long
    /// a client that gives up at once takes for its rounds, and well inside
    /// the run of a blocking recipe, whose clients contend from the start.
    fn horizon_ms(&self) -> u64 {
        u64::from(self.space.acquisitions) * 2 * TICK_MS
    }

    fn bound_ms(&self) -> u64 {
        let s = &self.space;
        u64::from(s.acquisitions)
            * self.core.clients.len() as u64
            * (u64::from(s.lease) + u64::from(s.pause) + 2)
            * TICK_MS
            * 4
            + 10_000
    }

    fn client(
        world: Arc<Mutex<World>>,
        c: usize,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        client(world, c)
    }

    fn spawn_servers(
        world: &Arc<Mutex<World>>,
        _h: &madsim::runtime::Handle,
        chaos: &madsim::runtime::NodeHandle,
    ) {
        if lock(world).server.has_replica() {
            chaos.spawn(replication(world.clone()));
        }
    }

    /// Stuck lock: ten leases later, would a new lock() get the key?
    fn judge_end(&mut self) {
        let later = 10 * self.lease_ms() as u64;
        self.sync();
        self.server.advance(later);
        let lease = self.lease_ms();
        if !self.space.recipe.acquirable(&self.server, lease) {
            let entry = self.server.entry(&Key::new(LOCK_KEY)).cloned();
            self.core.violate(
                Property::StuckLock,
                format!(
                    "every live client is done, and {later} ms later the key still refuses a new lock(): {entry:?}"
                ),
            );
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
            (w.core.clients[c].phase, w.clocks[c])
        };
        if phase.thinks_next() {
            if left == 0 {
                let mut w = lock(&world);
                let mut ev = Vec::new();
                w.core.clients[c].phase = phase.after(StepKind::Finished, true, &mut ev);
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
        if out.kind == StepKind::Acquired && lock(&world).core.fencing.is_some() {
            token = fence::token(&world, c, recipe, read.as_ref()).await;
            if token.is_none() {
                let mut w = lock(&world);
                w.core
                    .note(|| format!("c{c}'s INCR failed: the program throws"));
                w.core.clients[c].phase = Phase::Died;
                w.core.tenure_ends(c);
                return;
            }
        }
        {
            let mut w = lock(&world);
            let mut events = Vec::new();
            let next = w.core.clients[c].phase.after(out.kind, true, &mut events);
            w.core.clients[c].phase = next;
            for e in events {
                w.event(c, e);
            }
            if let StepKind::Threw(why) = out.kind {
                w.core.note(|| format!("c{c} threw {why}"));
                return;
            }
        }
        if let Some(cmd) = out.send {
            madsim::time::sleep(micros(100, 1000)).await;
            let served = {
                let mut w = lock(&world);
                let r = w.serve(c, &cmd);
                let clock = w.clocks[c];
                let won = locals.won(&r, clock);
                w.core.clients[c].won = won;
                if won {
                    w.core.tenure_begins(c);
                }
                (r, now_ms())
            };
            madsim::time::sleep(micros(100, 1000)).await;
            reply = Some(served);
        }
        if out.kind == StepKind::Acquired {
            if let Some(t) = token {
                write(&world, c, t, true).await;
            }
            // Shorter than the lease by at least a millisecond: a holder
            // overruns only under a pause or a clock fault.
            let hold = work_ms.saturating_sub(1).max(1);
            madsim::time::sleep(micros(hold * 500, hold * 1000)).await;
            if let Some(t) = token {
                write(&world, c, t, false).await;
            }
        }
        if out.sleep {
            madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
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
        if w.core.all_done() {
            return;
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, lease, faults).
pub fn run_seed(space: &RedisSpace, seed: u64, trace: bool) -> RedisRun {
    crate::simulate::command::run_seed(seed, || {
        let n = usize::from(space.clients);
        World {
            core: Core::new(n, trace, space.fencing),
            server: if space.replica {
                RedisServer::with_replica()
            } else {
                RedisServer::new()
            },
            server_ms: 0,
            clocks: vec![0; n],
            owner: None,
            space: space.clone(),
        }
    })
}
