//! The simulator for the etcd locks: the same sans-IO machines the checker
//! explores (`model/src/etcd/recipes/`) against the same server model
//! ([`EtcdServer`]), in one madsim runtime per seed, on etcd's own clocks:
//! latencies on every request, a critical section drawn per acquisition
//! below the TTL, and the scenario's fault budgets spent at random
//! instants.
//!
//! Time. One tick of an etcd scenario is a second ([`TICK_MS`]): etcd's
//! TTLs are whole seconds, 2 at least. The server's lessor and each
//! client's keep-alive and deadline goroutines run on etcd's clocks
//! ([`leases`]: deadlines checked every 500 ms by the server and every
//! second by the client, keep-alives every TTL / 3). A pause freezes the
//! client's node (no keep-alives: the lease runs out), a crash kills it, a
//! partition cuts the client's link while its process runs on (no
//! keep-alive arrives, its request waits to be served and its reply or
//! watch event to arrive). A client learns its session is gone from its
//! own deadline (`Session.Done()`), at the start of its next round; until
//! then its requests on a lease the server revoked fail and `lock()` gives
//! up.
//!
//! What it judges, with the checker's definitions: **mutual exclusion** (a
//! `lock()` returns while another live client believes it holds), **unlock
//! by non-owner** (a request deletes the key of another client whose
//! tenure is current), **herd** (an unlock's delete fires the watches of
//! two or more waiting clients), and, with `fencing = true`, the resource's
//! two properties (the token: the key's create revision). Deadlock,
//! starvation and stuck lock are the checker's, and so are late unlocks
//! (`late_unlocks`: a request held in the network is the checker's fault;
//! the simulator's links do not hold one back yet).
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

mod client;
mod leases;

use super::faults::{Strike, ETCD_STRIKES};
use crate::simulate::command::run_clock::now_ms;
use crate::simulate::command::{Aftermath, CommandWorld, Core, Setup, Simulated};
use leases::Clocks;
use locksmith_model::engine::harness::{LockEvent, Property};
use locksmith_model::etcd::check::client_of;
use locksmith_model::etcd::check::EtcdSpace;
use locksmith_model::etcd::{EtcdServer, Fired, KeyValue, Reply, Request};
use madsim::rand::seq::IteratorRandom;
use madsim::runtime::NodeHandle;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// Simulated milliseconds per tick of an etcd scenario: a second.
pub const TICK_MS: u64 = 1000;

/// What one seed found.
pub type EtcdRun = crate::simulate::command::BackendRun;

/// One seed's etcd: the server, the watches' deliveries, the leases'
/// clocks and the links.
pub struct World {
    core: Core,
    space: EtcdSpace,
    server: EtcdServer,
    /// The event each client's watch delivered and it has not read.
    inbox: Vec<Option<Reply>>,
    /// Wakes a client waiting on its watch.
    wake: Vec<Arc<Notify>>,
    /// The leases' deadlines, the server's and each client's.
    clocks: Clocks,
    /// Until when (simulated ms) each client's link to the server is cut.
    cut_until: Vec<u64>,
}

impl World {
    /// The server handles `c`'s request; as the checker's `serve`, it
    /// notes whether the request deleted the key of another client whose
    /// tenure is current, and whether an unlock woke a herd.
    fn serve(&mut self, c: usize, req: &Request) -> Reply {
        let before: Vec<KeyValue> = self.server.with_prefix("").cloned().collect();
        let (reply, fired) = self.server.apply(c as u8, req);
        if let Reply::Granted { id, .. } = reply {
            self.clocks.renewed(id, self.ttl_ms());
        }
        self.core.commands += 1;
        self.core.note(|| format!("c{c} {req} → {reply}"));
        for kv in &before {
            let gone = self
                .server
                .get(&kv.key)
                .is_none_or(|now| now.create_revision != kv.create_revision);
            if let (true, Some(owner)) = (gone, kv.lease.map(client_of)) {
                let o = &self.core.clients[owner];
                if owner != c && o.in_tenure() && !o.crashed {
                    self.core.violate(
                        Property::UnlockByNonOwner,
                        format!("c{c}'s {req} deleted {}, which c{owner} holds", kv.key),
                    );
                }
            }
        }
        let waiting = fired
            .iter()
            .filter(|f| self.core.clients[f.watcher as usize].phase.locking())
            .count();
        if matches!(req, Request::Delete { .. }) && waiting >= 2 {
            self.core.violate(
                Property::Herd,
                format!("c{c}'s unlock woke {waiting} waiting clients"),
            );
        }
        self.deliver(fired);
        reply
    }

    fn deliver(&mut self, fired: Vec<Fired>) {
        for f in fired {
            let c = f.watcher as usize;
            self.core.notifications += 1;
            self.core
                .note(|| format!("c{c}'s watch fires: DELETE {}", f.event.key));
            self.inbox[c] = Some(Reply::Event(f.event));
            self.wake[c].notify_one();
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::from(self.space.ttl) * TICK_MS
    }

    /// Client `c`'s link is cut now: nothing it sends arrives, nothing
    /// sent to it arrives.
    fn cut(&self, c: usize) -> bool {
        now_ms() < self.cut_until[c]
    }
}

impl CommandWorld for World {
    type Fault = Strike;
    const TICK_MS: u64 = TICK_MS;
    const FAULTS: &'static [(&'static str, Strike)] = ETCD_STRIKES;
    const CRASH: &'static str = " (its keys stay until its lease runs out)";
    const NOTIFIES: bool = true;

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    /// Its watches end.
    fn crashed(&mut self, c: usize) {
        self.server.cancel_watches(c as u8);
    }

    fn strike(&mut self, kind: Strike, target: Option<usize>) -> Option<Aftermath<World>> {
        match (kind, target) {
            (Strike::Revoke, Some(c)) => {
                let session = self.clocks.sessions[c].lease;
                if let Some(id) = session.filter(|&id| self.server.lease(id).is_some()) {
                    let mut fired = Vec::new();
                    self.server.revoke(id, &mut fired);
                    self.core.note(|| format!("c{c}'s lease {id} is revoked"));
                    self.deliver(fired);
                }
            }
            // A waiter's lease expires while it waits: one of the clients
            // whose watch the server holds (none waiting: nothing strikes).
            (Strike::WaiterExpiry, _) => {
                let waiter = (0..self.core.clients.len())
                    .filter(|&c| self.server.watching(c as u8))
                    .filter_map(|c| self.clocks.sessions[c].lease.map(|id| (c, id)))
                    .filter(|&(_, id)| self.server.lease(id).is_some())
                    .choose(&mut madsim::rand::thread_rng());
                if let Some((c, id)) = waiter {
                    let mut fired = Vec::new();
                    self.server.revoke(id, &mut fired);
                    self.core
                        .note(|| format!("c{c}'s lease {id} expires while it waits"));
                    self.deliver(fired);
                }
            }
            (Strike::Compaction, _) => {
                let now = self.server.revision();
                self.server.apply(u8::MAX, &Request::Compact(now));
                self.core
                    .note(|| format!("the store is compacted at revision {now}"));
            }
            (Strike::Partition, Some(c)) => {
                let ms = u64::from(self.space.pause) * TICK_MS;
                self.cut_until[c] = now_ms() + ms;
                self.core.note(|| {
                    format!("c{c}'s link to etcd is cut for {ms} ms (its process runs on)")
                });
                return Some(Aftermath {
                    after: Duration::from_millis(ms),
                    client: c,
                    then: |w, c| w.core.note(|| format!("c{c}'s link heals")),
                });
            }
            (_, None) => {}
        }
        None
    }

    /// As the core records it, and a `lock()` that gives up (its session
    /// gone, and its key with it) ends the tenure too.
    fn event(&mut self, c: usize, e: LockEvent) {
        self.core.event(c, e);
        if e == LockEvent::GaveUp {
            self.core.tenure_ends(c);
        }
    }

    fn bound_ms(&self) -> u64 {
        self.core
            .bound_ms(u64::from(self.space.ttl), TICK_MS, 10_000)
    }

    /// The server's lessor ([`leases::lessor`]).
    fn spawn_servers(world: &Arc<Mutex<World>>, chaos: &NodeHandle) {
        chaos.spawn(leases::lessor(world.clone()));
    }

    // judge_end: none. Every lease runs out once nobody keeps it alive:
    // the lock is free again (the checker judges stuck lock exhaustively).
}

impl Simulated for EtcdSpace {
    type World = World;
    type Client = client::Client;

    fn world(&self, trace: bool) -> World {
        let n = usize::from(self.clients);
        World {
            core: Core::new(Setup::of(self), trace),
            server: EtcdServer::new(),
            inbox: vec![None; n],
            wake: (0..n).map(|_| Arc::new(Notify::new())).collect(),
            clocks: Clocks::new(n),
            cut_until: vec![0; n],
            space: self.clone(),
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, TTL, faults).
pub fn run_seed(space: &EtcdSpace, seed: u64, trace: bool) -> EtcdRun {
    space.run_seed(seed, trace)
}
