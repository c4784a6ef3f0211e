//! The simulator for the etcd locks: the same sans-IO machines the checker
//! explores (`model/src/etcd/recipes/`) against the same server model
//! ([`EtcdServer`]), in one madsim runtime per seed, with real time:
//! milliseconds instead of ticks, latencies on every request, a critical
//! section drawn per acquisition below the TTL, and the scenario's fault
//! budgets spent at random instants.
//!
//! Time. One checker tick is [`TICK_MS`] simulated milliseconds. The
//! server's lessor runs on its own node and counts every lease down by a
//! tick each tick; a lease at zero is revoked (its keys go in one revision,
//! the watches on them fire). Each client runs a keep-alive task beside
//! its recipe, on its own node, sending `LeaseKeepAlive` every TTL / 3 as
//! clientv3 does: a pause freezes the node (no keep-alives: the lease runs
//! out), a crash kills it, a partition cuts the client's link while its
//! process runs on (no keep-alive arrives, its request waits to be served
//! and its reply or watch event to arrive). A client learns its session
//! is gone at the start of its next round, as in the checker.
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

use crate::simulate::command::fencing::write;
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Aftermath, CommandWorld, Core};
use locksmith_model::engine::harness::{LockEvent, Property, StepKind};
use locksmith_model::etcd::check::state::client_of;
use locksmith_model::etcd::check::EtcdSpace;
use locksmith_model::etcd::recipes::Me;
use locksmith_model::etcd::{EtcdServer, Fired, KeyValue, LeaseId, Reply, Request};
use madsim::rand::seq::IteratorRandom;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::simulate::command::TICK_MS;

/// What one seed found.
pub type EtcdRun = crate::simulate::command::BackendRun;

struct World {
    core: Core,
    space: EtcdSpace,
    server: EtcdServer,
    /// The event each client's watch delivered and it has not read.
    inbox: Vec<Option<Reply>>,
    /// Each client's session lease, as its keep-alive task reads it.
    sessions: Vec<Option<LeaseId>>,
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
        }
    }

    fn event(&mut self, c: usize, e: LockEvent) {
        match e {
            LockEvent::Acquired => self.core.acquired(c),
            LockEvent::Released => {
                self.core
                    .note(|| format!("c{c} released (critical section over)"));
                self.core.tenure_ends(c);
            }
            LockEvent::GaveUp => {
                self.core.note(|| format!("c{c} gave up"));
                self.core.tenure_ends(c);
            }
            _ => {}
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

/// Until `c`'s link heals, if it is cut.
async fn while_cut(world: &Arc<Mutex<World>>, c: usize) {
    while lock(world).cut(c) {
        madsim::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A fault of the scenario's budgets.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    Pause,
    Crash,
    Revoke,
    WaiterExpiry,
    Compaction,
    Partition,
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
            (f.revokes, Fault::Revoke),
            (f.waiter_expiries, Fault::WaiterExpiry),
            (f.compactions, Fault::Compaction),
            (f.partitions, Fault::Partition),
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
        match (kind, target) {
            (Fault::Crash, Some(c)) => {
                self.core.clients[c].crashed = true;
                self.core.tenure_ends(c);
                self.server.cancel_watches(c as u8);
                self.core
                    .note(|| format!("c{c} crashes (its keys stay until its lease runs out)"));
                if let Some(node) = self.core.clients[c].node {
                    h.kill(node);
                }
            }
            (Fault::Revoke, Some(c)) => {
                if let Some(id) = self.sessions[c].filter(|&id| self.server.lease(id).is_some()) {
                    let mut fired = Vec::new();
                    self.server.revoke(id, &mut fired);
                    self.core.note(|| format!("c{c}'s lease {id} is revoked"));
                    self.deliver(fired);
                }
            }
            // A waiter's lease expires while it waits: one of the clients
            // whose watch the server holds (none waiting: nothing strikes).
            (Fault::WaiterExpiry, _) => {
                let waiter = (0..self.core.clients.len())
                    .filter(|&c| self.server.watching(c as u8))
                    .filter_map(|c| self.sessions[c].map(|id| (c, id)))
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
            (Fault::Compaction, _) => {
                let now = self.server.revision();
                self.server.apply(u8::MAX, &Request::Compact(now));
                self.core
                    .note(|| format!("the store is compacted at revision {now}"));
            }
            (Fault::Partition, Some(c)) => {
                let ms = self.pause_ms();
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
            (Fault::Pause, _) | (_, None) => {}
        }
        None
    }

    /// Faults strike within the first two ticks per round.
    fn horizon_ms(&self) -> u64 {
        u64::from(self.space.acquisitions) * 2 * TICK_MS
    }

    fn bound_ms(&self) -> u64 {
        let s = &self.space;
        u64::from(s.acquisitions)
            * self.core.clients.len() as u64
            * (u64::from(s.ttl) + u64::from(s.pause) + 2)
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

    /// The lessor: every tick, every lease counts down (keep-alives put
    /// them back up); one at zero is revoked.
    fn spawn_servers(
        world: &Arc<Mutex<World>>,
        _h: &madsim::runtime::Handle,
        chaos: &madsim::runtime::NodeHandle,
    ) {
        chaos.spawn(lessor(world.clone()));
    }

    /// Every lease runs out once nobody keeps it alive: the lock is free
    /// again (the checker judges stuck lock exhaustively).
    fn judge_end(&mut self) {}
}

async fn lessor(world: Arc<Mutex<World>>) {
    loop {
        madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        let mut w = lock(&world);
        let before: Vec<LeaseId> = w.server.leases().map(|(id, _)| id).collect();
        let fired = w.server.tick(|_| false);
        for id in before {
            if w.server.lease(id).is_none() {
                w.core.note(|| format!("lease {id} expires: its keys go"));
            }
        }
        w.deliver(fired);
        if w.core.all_done() {
            return;
        }
    }
}

/// Client `c`'s keep-alive goroutine: `LeaseKeepAlive` every TTL / 3 for
/// its current session, on its own node (a pause stops it too).
async fn keep_alive(world: Arc<Mutex<World>>, c: usize) {
    let every = (lock(&world).ttl_ms() / 3).max(1);
    loop {
        madsim::time::sleep(Duration::from_millis(every)).await;
        let mut w = lock(&world);
        if w.core.clients[c].done() {
            return;
        }
        if let (Some(id), false) = (w.sessions[c], w.cut(c)) {
            w.server.apply(c as u8, &Request::KeepAlive(id));
        }
    }
}

/// One client's loop: the checker's rounds with real time.
async fn client(world: Arc<Mutex<World>>, c: usize) {
    madsim::task::spawn(keep_alive(world.clone(), c));
    let (recipe, rounds, ttl, work_ms, fenced) = {
        let w = lock(&world);
        (
            w.space.recipe,
            w.space.acquisitions,
            w.space.ttl,
            u64::from(w.space.work) * TICK_MS,
            w.space.fencing,
        )
    };
    let mut locals = recipe.start();
    let mut reply: Option<Reply> = None;
    let mut left = rounds;
    loop {
        let phase = lock(&world).core.clients[c].phase;
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
        let out = {
            let mut w = lock(&world);
            let me = Me {
                client: c as u8,
                ttl,
                session_alive: locals
                    .session
                    .is_some_and(|id| w.server.lease(id).is_some()),
            };
            let out = recipe.step(&mut locals, reply.take().as_ref(), &me);
            w.sessions[c] = locals.session;
            let mut events = Vec::new();
            let next = w.core.clients[c].phase.after(out.kind, true, &mut events);
            w.core.clients[c].phase = next;
            for e in events {
                w.event(c, e);
            }
            out
        };
        if let Some(req) = out.send {
            madsim::time::sleep(micros(100, 1000)).await;
            while_cut(&world, c).await;
            let served = {
                let mut w = lock(&world);
                let r = w.serve(c, &req);
                let me = Me {
                    client: c as u8,
                    ttl,
                    session_alive: true,
                };
                let won = recipe.won(&locals, &r, &me);
                w.core.clients[c].won = won;
                if won {
                    w.core.tenure_begins(c);
                }
                r
            };
            // A watch's reply is its event, whenever the server sends it.
            let served = match served {
                Reply::Watching => loop {
                    madsim::time::sleep(Duration::from_millis(1)).await;
                    if let Some(e) = lock(&world).inbox[c].take() {
                        break e;
                    }
                },
                r => r,
            };
            madsim::time::sleep(micros(100, 1000)).await;
            while_cut(&world, c).await;
            reply = Some(served);
        }
        if out.kind == StepKind::Acquired {
            let token = u64::try_from(locals.my_rev).ok().filter(|_| fenced);
            if let Some(t) = token {
                write(&world, c, t, true).await;
            }
            // Shorter than the TTL: a holder overruns only under a pause.
            let hold = work_ms.saturating_sub(1).max(1);
            madsim::time::sleep(micros(hold * 500, hold * 1000)).await;
            if let Some(t) = token {
                write(&world, c, t, false).await;
            }
        }
    }
}

/// Runs one seed of `space` (its recipe, clients, rounds, TTL, faults).
pub fn run_seed(space: &EtcdSpace, seed: u64, trace: bool) -> EtcdRun {
    crate::simulate::command::run_seed(seed, || {
        let n = usize::from(space.clients);
        World {
            core: Core::new(n, trace, space.fencing),
            server: EtcdServer::new(),
            inbox: vec![None; n],
            sessions: vec![None; n],
            cut_until: vec![0; n],
            space: space.clone(),
        }
    })
}
