//! ZooKeeper's simulator: many clients, real timers, faults, one seed per
//! run.
//!
//! One madsim runtime per seed. The model's [`ZkServer`] runs on its own
//! node ([`server_node`]), every client on its own node with an emulation of
//! ZooKeeper's Java client library ([`client_lib`]), the protected resource
//! on another ([`resource`]), and the fault injector on a "chaos" node
//! ([`faults`]). The recipes are the model's own values, driven through
//! [`Client`]; nothing here re-implements one. The observer (this module's
//! [`run_seed`]) judges deadlock and starvation by bounds and ends the run;
//! the other properties are judged where they happen, with the harness's
//! definitions ([`locksmith_model::engine::harness`]).
//!
//! **Why the connections are in-memory queues and not madsim's TCP.** Each
//! session's two directions are deterministic FIFO queues ([`link`]) whose
//! packets are delivered at madsim instants (receivers sleep on madsim
//! timers until the head packet is due), instead of one
//! `madsim::net::TcpStream`/`Endpoint` message per packet. Measured in
//! release on this machine (2-node ping-pong, 20,000 round trips): a madsim
//! `Endpoint` message costs 1.1 µs, a madsim timer wake-up 0.24 µs. An
//! acquisition of the textbook lock needs 11 packets plus two resource writes
//! and about a dozen thread steps, so madsim networking alone would cap a
//! core near 70,000 simulated acquisitions per second, under the 100,000
//! bar (with our links: 64,000–80,000 end to end; see
//! `docs/simulation.md`); `Endpoint` also reorders datagrams on one link,
//! which a ZooKeeper session must not. A sender arms the receiver's
//! wake-up for the packet's arrival ([`clock::wake_at`]), so each packet
//! costs one timer and one poll. Partitions are therefore our links' `clog`/`unclog`
//! (packets wait, as TCP's do); process pauses are madsim's own
//! `pause`/`resume` of the client's node, which freezes its threads, timers
//! and heartbeats together.
//!
//! Determinism: all randomness is `madsim::rand` (seeded by the runtime),
//! all time is madsim time, all maps are `BTreeMap`s; a trace is a pure
//! function of (scenario, seed).
//!
//! [`ZkServer`]: locksmith_model::zk::ZkServer
//! [`Client`]: locksmith_model::zk::client::Client

pub mod bench;
pub mod budgets;
pub mod client_lib;
pub mod clock;
pub mod command;
pub mod faults;
pub mod heartbeat;
pub mod link;
pub mod resource;
pub mod server_node;
pub mod sweep;
pub mod trace;
pub mod world;

pub use super::metrics::{Metrics, Summary, Totals};
use crate::simulate::seed_run::{self, Simulation};
use crate::zk::scenario::Scenario;
use crate::zk::sim_settings::{FaultKind, SimSettings};
use crate::zk::timeline::Timeline;
use link::Link;
use locksmith_model::engine::harness::{Property, Violations};
use locksmith_model::zk::client::{Client, Recipe, RecipeConfig, Thread};
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::zk::{CreateMode, Service, ZkServer};
use madsim::runtime::{Handle, NodeHandle};
use trace::Trace;
use world::{lock, now, ClientProc, Conn, Params, ServerSession, Shared, World};

/// What one simulation runs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub recipe: RecipeId,
    pub clients: usize,
    pub acquisitions: u8,
    /// Re-entrant `lock()` calls per round.
    pub reentries: u8,
    /// Curator's `acquire(time, unit)` instead of `acquire()`: the
    /// scenario's `acquire_timeout_ms`.
    pub acquire_timeout_ms: Option<u32>,
    /// The recipe creates its lock root (`root = "recipe"`); the server's
    /// container reaper then runs every `[sim] container_check_ms`.
    pub recipe_root: bool,
    pub settings: SimSettings,
}

/// Whether `[sim]` schedules or draws faults of its own (then the checker's
/// `[faults]` budgets are not turned into a schedule).
pub fn has_own_faults(settings: &SimSettings) -> bool {
    let r = &settings.rates;
    !settings.schedule.is_empty()
        || r.expire > 0.0
        || r.pause > 0.0
        || r.partition > 0.0
        || r.connection_loss > 0.0
        || r.crash > 0.0
}

impl SimConfig {
    /// The scenario's simulation: `[sim]` overrides the top-level fields.
    /// A file with checker fault budgets (`[faults]`) and no faults of its
    /// own in `[sim]` gets them as a schedule: each budgeted fault once,
    /// 5 ms apart from 5 ms on, on a client in the matching role, in the
    /// order of [`budgets::BUDGETS`], which says what becomes of each.
    pub fn of(sc: &Scenario) -> SimConfig {
        let mut settings = sc.sim.clone();
        if !has_own_faults(&settings) {
            use crate::zk::sim_settings::{ScheduledFault, Target};
            use budgets::AsSimulated;
            let library = sc.recipe().instantiate(RecipeConfig::new(1, 0)).library();
            let budget = sc.check.faults.by_key();
            let mut faults = Vec::new();
            for &(key, how) in budgets::BUDGETS {
                let n = budget
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or(0, |&(_, n)| n);
                let mut schedule = |fault, target| {
                    faults.extend(std::iter::repeat_n((fault, target), usize::from(n)));
                };
                match how {
                    AsSimulated::Scheduled(fault, target) => schedule(fault, target),
                    AsSimulated::IfItGivesUp(fault, target) if library.gives_up_on_session => {
                        schedule(fault, target)
                    }
                    AsSimulated::Reordering => settings.reorder_within_session |= n > 0,
                    AsSimulated::IfItGivesUp(..)
                    | AsSimulated::ByClock
                    | AsSimulated::Refused(_) => {}
                }
            }
            let one_way_ms = 2.5 * settings.negotiated_timeout_ms();
            settings.schedule = faults
                .into_iter()
                .enumerate()
                .map(|(i, (fault, target))| ScheduledFault {
                    at_ms: 5.0 * (i + 1) as f64,
                    fault,
                    target: Target::Named(target),
                    duration_ms: (fault == FaultKind::OneWayPartition).then_some(one_way_ms),
                    applied: i % 2 == 1,
                })
                .collect();
        }
        SimConfig {
            recipe: sc.recipe(),
            clients: sc.sim.clients.unwrap_or(sc.clients) as usize,
            acquisitions: sc.sim.acquisitions.unwrap_or(sc.acquisitions),
            reentries: sc.check.reentries,
            acquire_timeout_ms: sc.check.acquire_timeout_ms,
            recipe_root: sc.check.recipe_root,
            settings,
        }
    }
}

impl SimConfig {
    /// Whether the simulator judges `p` on this configuration: fenced
    /// safety only when holders send tokens (without them it could not fail,
    /// so it is n/a, not "holds").
    pub fn judges(&self, p: Property) -> bool {
        self.settings.not_judged(p).is_none()
    }
}

/// The result of one seed.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub seed: u64,
    /// The headline: the first violated property in the harness's order,
    /// and how.
    pub violation: Option<(Property, String)>,
    /// Every property violated, with its first occurrence.
    pub violations: Violations,
    pub metrics: Metrics,
    pub trace: Trace,
    /// Empty unless asked for ([`run_seed_with_timeline`]).
    pub timeline: Timeline,
}

/// Runs one seed. With `trace`, records every step.
pub fn run_seed(cfg: &SimConfig, seed: u64, trace: bool) -> RunReport {
    run(cfg, seed, trace, false)
}

/// Runs one seed with its trace and its timeline (`locksmith replay
/// --timeline`). The timeline draws nothing: the run is the same seed's.
pub fn run_seed_with_timeline(cfg: &SimConfig, seed: u64) -> RunReport {
    run(cfg, seed, true, true)
}

fn run(cfg: &SimConfig, seed: u64, trace: bool, timeline: bool) -> RunReport {
    let sim = ZkRun {
        cfg: cfg.clone(),
        trace,
        timeline,
    };
    let (violations, metrics, trace, timeline) = seed_run::run_seed(&sim, seed);
    RunReport {
        seed,
        violation: violations.headline().map(|(p, why)| (p, why.to_string())),
        violations,
        metrics,
        trace,
        timeline,
    }
}

/// The body of one run, inside a madsim runtime.
pub async fn simulate(cfg: SimConfig, trace_on: bool) -> (Violations, Metrics, Trace) {
    let sim = ZkRun {
        cfg,
        trace: trace_on,
        timeline: false,
    };
    let (violations, metrics, trace, _) = seed_run::run(&sim, 0).await;
    (violations, metrics, trace)
}

/// One seed's run of a configuration: with its trace, and its timeline.
struct ZkRun {
    cfg: SimConfig,
    trace: bool,
    timeline: bool,
}

impl Simulation for ZkRun {
    type World = World;
    type Run = (Violations, Metrics, Trace, Timeline);

    fn start_clock(&self) {
        world::bind_clock();
    }

    fn world(&self) -> World {
        build(&self.cfg, self.trace, self.timeline)
    }

    fn clients(&self, w: &mut World) -> usize {
        w.clients.len()
    }

    fn client_node(&self, c: usize) -> String {
        format!("c{}", c + 1)
    }

    /// The server on one node, with a session task per client, the
    /// session expirer and (for a recipe's own root) the container reaper;
    /// the protected resource on another, a task per client.
    fn servers(&self, shared: &Shared, h: &Handle) {
        let n = self.cfg.clients;
        let zk = h.create_node().name("zookeeper").build();
        for c in 0..n {
            zk.spawn(server_node::serve(shared.clone(), c));
        }
        zk.spawn(server_node::expirer(shared.clone()));
        // Only a recipe's own root can be a container; without one the reaper
        // would only add timer events to every run.
        if self.cfg.recipe_root {
            zk.spawn(server_node::reaper(shared.clone()));
        }

        let res = h.create_node().name("resource").build();
        for c in 0..n {
            res.spawn(resource::serve(shared.clone(), c));
        }
    }

    /// Client `c`'s threads, as tasks on its node, in the order the
    /// library starts them: the receiver, the heartbeat, the event and
    /// main threads, then Curator's executors and, for a recipe with a
    /// connection-state listener, the thread that runs it.
    fn client(&self, shared: &Shared, c: usize, node: &NodeHandle) {
        lock(shared).clients[c].node = Some(node.id());
        node.spawn(client_lib::receiver(shared.clone(), c));
        node.spawn(heartbeat::heartbeat(shared.clone(), c));
        node.spawn(client_lib::event_thread(shared.clone(), c));
        node.spawn(client_lib::main_thread(shared.clone(), c));
        let (executors, listens) = {
            let w = lock(shared);
            let client = &w.clients[c].client;
            (client.executors.is_some(), client.recipe.guards_writes())
        };
        if executors {
            for t in [Thread::SafeNotify, Thread::Background] {
                node.spawn(client_lib::executor_thread(shared.clone(), c, t));
            }
        }
        // Only a recipe with a listener has the thread that runs it (a task
        // more would move every other recipe's seeds).
        if listens {
            node.spawn(client_lib::executor_thread(
                shared.clone(),
                c,
                Thread::Listener,
            ));
        }
    }

    /// The schedule's faults, and a task per fault drawn at a rate.
    fn chaos(&self, shared: &Shared, chaos: &NodeHandle) {
        let s = &self.cfg.settings;
        let long = lock(shared).p.timeout * 3 / 2;
        if !s.schedule.is_empty() {
            chaos.spawn(faults::scheduled(shared.clone(), s.schedule.clone(), long));
        }
        for (kind, rate) in [
            (FaultKind::Expire, s.rates.expire),
            (FaultKind::Pause, s.rates.pause),
            (FaultKind::Partition, s.rates.partition),
            (FaultKind::ConnectionLoss, s.rates.connection_loss),
            (FaultKind::Crash, s.rates.crash),
        ] {
            if rate > 0.0 {
                chaos.spawn(faults::random(shared.clone(), kind, rate, long));
            }
        }
    }

    async fn observe(&self, shared: &Shared) {
        let p = lock(shared).p.clone();
        observe(shared, &p).await;
    }

    fn finish(&self, w: &mut World, _seed: u64) -> Self::Run {
        w.metrics.sim_ns = now();
        (
            std::mem::take(&mut w.violations),
            std::mem::take(&mut w.metrics),
            std::mem::take(&mut w.trace),
            std::mem::take(&mut w.timeline),
        )
    }
}

/// The world of one run of `cfg`: the server with a session per client,
/// the lock root unless the recipe makes its own, the links.
fn build(cfg: &SimConfig, trace_on: bool, timeline_on: bool) -> World {
    let n = cfg.clients;
    let s = &cfg.settings;
    let mut p = Params::from(s, n as u64 * cfg.acquisitions as u64);
    p.acquire_timeout = cfg.acquire_timeout_ms.map(|ms| u64::from(ms) * 1_000_000);
    let mut server = ZkServer::new();
    let mut sessions = Vec::new();
    let mut clients = Vec::new();
    for c in 0..n {
        let id = server.open_session();
        let rcfg = RecipeConfig::new(cfg.acquisitions, c as u8)
            .with_reentries(cfg.reentries)
            .with_acquire_timeout(cfg.acquire_timeout_ms);
        sessions.push(ServerSession {
            id,
            epoch: 0,
            connected: true,
            last_heard: 0,
            sent_events: Vec::new(),
            next_seq: 0,
        });
        clients.push(ClientProc {
            client: Client::new(cfg.recipe.instantiate(rcfg)),
            session: id,
            epoch: 0,
            conn: Conn::Connected,
            last_heard: 0,
            last_sent: 0,
            heartbeat: None,
            seen_event: 0,
            wakers: Default::default(),
            own_czxid: None,
            attempt_since: None,
            arrived_at: None,
            notified_in_attempt: false,
            node: None,
            paused: false,
            timed_waits: [0; 5],
            deadlines: 0,
            deadline_timed: false,
            suspended_since: None,
        });
    }
    if let Some(root) = clients.first().map(|c| c.client.recipe.lock_root()) {
        if !cfg.recipe_root && server.node(root).is_none() {
            // The roots are fixed, valid paths under `/`.
            let _ = server.seed_node(root, CreateMode::Persistent);
        }
    }
    let fifo = !s.reorder_within_session;
    World {
        p: p.clone(),
        reorder_within_session: s.reorder_within_session,
        server,
        sessions,
        abandoned: Vec::new(),
        clients,
        to_server: (0..n).map(|_| Link::new(true)).collect(),
        to_client: (0..n).map(|_| Link::new(fifo)).collect(),
        to_resource: (0..n).map(|_| Link::new(true)).collect(),
        from_resource: (0..n).map(|_| Link::new(true)).collect(),
        resource: locksmith_model::engine::harness::resource::Resource::new(s.fencing),
        metrics: Metrics::default(),
        trace: Trace {
            on: trace_on,
            ..Trace::default()
        },
        timeline: Timeline::new(timeline_on),
        violations: Violations::default(),
        ended: false,
        last_progress: 0,
        cut_after_serve: vec![false; n],
        server_free_at: 0,
        observer_waker: None,
        tick_due: false,
    }
}

/// The observer: ends the run at the first violation, when every client is
/// done, or at the time limit; judges deadlock and liveness.
async fn observe(shared: &Shared, p: &Params) {
    // A violation or a finished client wakes the observer at once; the
    // deadlock and time bounds are checked on a tick (every 50 ms of
    // simulated time at most).
    let tick = (p.deadlock / 8).clamp(1, 50_000_000);
    // Ends with the run (the runtime drops every task).
    let _ticker = {
        let shared = shared.clone();
        madsim::task::spawn(async move {
            loop {
                world::sleep_ns(tick).await;
                let mut w = lock(&shared);
                w.tick_due = true;
                w.wake_observer();
            }
        })
    };
    loop {
        world::park(shared, |w, waker| {
            if w.ended || w.tick_due || w.clients.iter().all(|c| c.client.is_done()) {
                return true;
            }
            w.observer_waker = Some(waker.clone());
            false
        })
        .await;
        let mut w = lock(shared);
        let t = now();
        if w.ended {
            return;
        }
        let ticked = std::mem::replace(&mut w.tick_due, false);
        let all_done = w.clients.iter().all(|c| c.client.is_done());
        if all_done {
            return;
        }
        if !ticked {
            continue;
        }
        // A holder inside a re-entrant `lock()` waits like anyone else.
        let holders = w
            .clients
            .iter()
            .any(|c| c.client.holds() && !c.client.phase.locking());
        let waiters: Vec<usize> = (0..w.clients.len())
            .filter(|&i| {
                let c = &w.clients[i];
                (c.attempt_since.is_some() || c.client.phase.locking()) && !c.client.is_done()
            })
            .collect();
        if !holders && !waiters.is_empty() && t.saturating_sub(w.last_progress) > p.deadlock {
            let who: Vec<String> = waiters.iter().map(|i| format!("c{}", i + 1)).collect();
            let since = world::ms(w.last_progress);
            let nobody = if w.clients.iter().any(|c| c.client.holds()) {
                "nobody holding the lock is out of lock()"
            } else {
                "nobody holds the lock"
            };
            w.violate(
                Property::Deadlock,
                format!(
                    "no acquisition or release since {since:.3} ms while {} wait(s) and {nobody}",
                    who.join(", ")
                ),
            );
            return;
        }
        if t > p.limit {
            let behind: Vec<String> = w
                .clients
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.client.is_done())
                .map(|(i, c)| format!("c{} has {} acquisition(s)", i + 1, c.client.acquired))
                .collect();
            w.violate(
                Property::Starvation,
                format!(
                    "after {:.0} ms not every client is done: {}",
                    world::ms(t),
                    behind.join(", ")
                ),
            );
            return;
        }
    }
}
