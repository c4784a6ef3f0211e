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
//! ([`crate::simulate::command`]); this file is Redis's server and faults,
//! [`client`] its client library.
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

mod client;
mod fence;

use super::faults::{Strike, REDIS_STRIKES};
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Aftermath, CommandWorld, Core, Setup, Simulated};
use locksmith_model::engine::harness::Property;
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::recipes::LOCK_KEY;
use locksmith_model::redis::{Command, Key, RedisServer, Reply};
use madsim::rand::Rng;
use madsim::runtime::NodeHandle;
use std::sync::{Arc, Mutex};

pub use crate::simulate::command::TICK_MS;

/// What one seed found.
pub type RedisRun = crate::simulate::command::BackendRun;

/// One seed's Redis: the server, the clients' clocks and who set the key.
pub struct World {
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
}

impl CommandWorld for World {
    type Fault = Strike;
    const FAULTS: &'static [(&'static str, Strike)] = REDIS_STRIKES;
    const CRASH: &'static str = " (its keys stay)";

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn strike(&mut self, kind: Strike, target: Option<usize>) -> Option<Aftermath<World>> {
        let skew_ms = i64::from(self.space.skew) * TICK_MS as i64;
        match (kind, target) {
            (Strike::ClockJump, Some(c)) => {
                let by = if madsim::rand::thread_rng().gen_bool(0.5) {
                    skew_ms
                } else {
                    -skew_ms
                };
                self.clocks[c] += by;
                self.core.note(|| format!("c{c}'s clock jumps {by:+} ms"));
            }
            (Strike::ServerClockJump, _) => {
                self.sync();
                self.server.jump_forward(skew_ms as u64);
                self.core
                    .note(|| format!("the server's clock jumps +{skew_ms} ms"));
                if self.server.entry(&Key::new(LOCK_KEY)).is_none() {
                    self.owner = None;
                }
            }
            (Strike::Restart, _) => {
                self.sync();
                self.server.restart();
                self.owner = None;
                self.core
                    .note(|| "the server restarts without persistence: every key is lost".into());
            }
            (Strike::Failover, _) => {
                self.sync();
                self.server.failover();
                self.core
                    .note(|| "the primary fails; its replica takes over".into());
            }
            (Strike::ClockJump, None) => {}
        }
        None
    }

    fn bound_ms(&self) -> u64 {
        self.core
            .bound_ms(u64::from(self.space.lease), TICK_MS, 10_000)
    }

    fn spawn_servers(world: &Arc<Mutex<World>>, chaos: &NodeHandle) {
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

impl Simulated for RedisSpace {
    type World = World;
    type Client = client::Client;

    fn world(&self, trace: bool) -> World {
        World {
            core: Core::new(Setup::of(self), trace),
            server: if self.replica {
                RedisServer::with_replica()
            } else {
                RedisServer::new()
            },
            server_ms: 0,
            clocks: vec![0; usize::from(self.clients)],
            owner: None,
            space: self.clone(),
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, lease, faults).
pub fn run_seed(space: &RedisSpace, seed: u64, trace: bool) -> RedisRun {
    space.run_seed(seed, trace)
}
