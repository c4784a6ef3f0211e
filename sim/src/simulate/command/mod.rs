//! The simulator core of the command backends (Redis, MySQL, etcd): a client
//! sends a command (a statement) and reads its reply, and the server model
//! applies it in one step. One madsim runtime per seed runs every client on
//! its own node ([`library::rounds`]: the harness's rounds through the
//! backend's client library, over the same sans-IO recipe the checker
//! explores), a chaos task over the scenario's fault budgets ([`chaos`])
//! and the backend's server tasks;
//! an observer ends the run when every live client is done (or at a
//! generous bound) and lets the backend judge the end (a stuck lock).
//!
//! A backend plugs in its world ([`CommandWorld`]: its server model and
//! bookkeeping beside the [`Core`] every world shares, its own faults and
//! their strikes) and its client library ([`Library`]: a step, an exchange
//! with the server); [`Simulated`] makes a seed's world of its checker
//! space. Time is the checker's ticks scaled to [`CommandWorld::TICK_MS`]
//! milliseconds ([`run_clock`]).
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

pub mod chaos;
pub mod core;
pub mod fencing;
pub mod library;
pub mod run;
pub mod run_clock;

pub use self::chaos::Aftermath;
pub use self::core::{Client, Core, Setup};
pub use self::library::{Library, Step};
pub use self::run_clock::TICK_MS;

use crate::simulate::seed_run::{self, Simulation};
use locksmith_model::engine::harness::{LockEvent, Property};
use madsim::runtime::NodeHandle;
use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What one seed found.
#[derive(Clone, Debug)]
pub struct BackendRun {
    pub seed: u64,
    /// The first violation.
    pub violation: Option<(Property, String)>,
    /// Every property the run violated.
    pub violated: BTreeSet<Property>,
    /// One line per event, with its simulated time (empty unless asked).
    pub trace: Vec<String>,
    pub acquisitions: u64,
    /// Commands or statements the server ran.
    pub commands: u64,
    /// Watch events the server sent the clients.
    pub notifications: u64,
}

/// What a sweep sums over its seeds.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackendTotals {
    pub acquisitions: u64,
    pub commands: u64,
    pub notifications: u64,
}

impl crate::simulate::sweep::SeedRun for BackendRun {
    type Totals = BackendTotals;

    fn failed(&self) -> bool {
        self.violation.is_some()
    }

    fn add_to(&self, t: &mut BackendTotals) {
        t.acquisitions += self.acquisitions;
        t.commands += self.commands;
        t.notifications += self.notifications;
    }
}

/// A backend's world: what the core runs. The core holds the run's setup
/// and spends its fault budgets: a pause and a crash are the same on every
/// backend ([`chaos`]), the rest of its faults are the backend's own
/// ([`CommandWorld::FAULTS`], [`CommandWorld::strike`]). (Methods take
/// `&mut self` where they read the core: [`CommandWorld::core`] is the
/// world's one accessor, and the world is always held locked.)
pub trait CommandWorld: Sized + Send + 'static {
    /// A fault of the backend's own (not a pause, not a crash).
    type Fault: Copy + Send + 'static;
    /// Simulated milliseconds per checker tick.
    const TICK_MS: u64 = TICK_MS;
    /// Its own faults by their scenario keys (`[faults]`), in the order
    /// their instants are drawn, after the pauses' and the crashes' (a
    /// backend's fault table writes it: `matrix::fault_table!`).
    const FAULTS: &'static [(&'static str, Self::Fault)];
    /// What the trace says a crash leaves, after "cN crashes".
    const CRASH: &'static str;
    /// Its locks wait on watches, and a run counts their events (the
    /// Redis and MySQL locks poll: they have none).
    const NOTIFIES: bool = false;

    fn core(&mut self) -> &mut Core;

    /// Whether a fault may strike client `c` now (by default: while it has
    /// not crashed).
    fn targetable(&mut self, c: usize) -> bool {
        !self.core().clients[c].crashed
    }
    /// Before any fault but a pause strikes its client: the backend catches
    /// up with the time (by default: nothing to do).
    fn before_strike(&mut self) {}
    /// The backend's side of client `c`'s crash, after the core's (its
    /// tenure ends, the trace says so) and before its node dies.
    fn crashed(&mut self, _c: usize) {}
    /// One of its own faults strikes (`target`: the client drawn, if any
    /// was targetable).
    fn strike(&mut self, f: Self::Fault, target: Option<usize>) -> Option<Aftermath<Self>>;
    /// A lock event of client `c`'s, as the world records it (by default,
    /// as the core does: [`Core::event`]).
    fn event(&mut self, c: usize, e: LockEvent) {
        self.core().event(c, e);
    }

    /// The run ends by this many ms, whoever is still in its loop.
    fn bound_ms(&self) -> u64;

    /// The backend's own tasks beside the clients and the chaos task
    /// (`chaos`: that task's node; a task of its own node is spawned on
    /// one made now); by default none.
    fn spawn_servers(_world: &Arc<Mutex<Self>>, _chaos: &NodeHandle) {}
    /// Every live client is done (or the bound passed): the backend judges
    /// what is left (a stuck lock); by default nothing.
    fn judge_end(&mut self) {}
}

/// A command backend's checker space, as its simulator runs it: its
/// world and its client library.
pub trait Simulated: crate::scenario::CommandSpace + Sync {
    type World: CommandWorld;
    type Client: Library<World = Self::World>;
    /// One seed's world of this configuration (`trace`: keep the trace).
    fn world(&self, trace: bool) -> Self::World;

    /// Runs one seed, each client's task the library's rounds.
    fn run_seed(&self, seed: u64, trace: bool) -> BackendRun {
        run_seed(seed, || self.world(trace), library::rounds::<Self::Client>)
    }
}

pub use crate::simulate::seed_run::lock;

/// A command backend's seed run: the world `make` builds, each client
/// `c`'s task `client(world, c)` on its node, the core's chaos task and
/// the backend's servers on the chaos node, and the core's observer.
struct CommandRun<M, C> {
    make: M,
    client: C,
}

impl<W, M, C, F> Simulation for CommandRun<M, C>
where
    W: CommandWorld,
    M: Fn() -> W,
    C: Fn(Arc<Mutex<W>>, usize) -> F,
    F: Future<Output = ()> + Send + 'static,
{
    type World = W;
    type Run = BackendRun;

    fn start_clock(&self) {
        run_clock::start();
    }

    fn world(&self) -> W {
        (self.make)()
    }

    fn clients(&self, w: &mut W) -> usize {
        w.core().setup.clients
    }

    fn client_node(&self, c: usize) -> String {
        format!("c{c}")
    }

    fn client(&self, world: &Arc<Mutex<W>>, c: usize, node: &NodeHandle) {
        lock(world).core().clients[c].node = Some(node.id());
        node.spawn((self.client)(world.clone(), c));
    }

    fn chaos(&self, world: &Arc<Mutex<W>>, chaos: &NodeHandle) {
        let horizon = {
            let mut w = lock(world);
            let s = &w.core().setup;
            // Faults strike within the first two ticks per round: about how
            // long a client that gives up at once takes for its rounds, and
            // well inside the run of a blocking recipe, whose clients
            // contend from the start.
            u64::from(s.rounds) * 2 * W::TICK_MS
        };
        chaos.spawn(chaos::chaos(world.clone(), horizon));
        W::spawn_servers(world, chaos);
    }

    async fn observe(&self, world: &Arc<Mutex<W>>) {
        observe(world).await;
    }

    fn finish(&self, w: &mut W, seed: u64) -> BackendRun {
        w.core().into_run(seed)
    }
}

/// Runs one seed: the world `make` builds, in its own madsim runtime,
/// each client `c`'s task `client(world, c)`.
pub fn run_seed<W: CommandWorld, F>(
    seed: u64,
    make: impl Fn() -> W,
    client: fn(Arc<Mutex<W>>, usize) -> F,
) -> BackendRun
where
    F: Future<Output = ()> + Send + 'static,
{
    seed_run::run_seed(&CommandRun { make, client }, seed)
}

/// Ends the run when every live client is done, or at the world's bound;
/// then says who is still in its loop and lets the backend judge the end.
async fn observe<W: CommandWorld>(world: &Arc<Mutex<W>>) {
    let (n, bound) = {
        let mut w = lock(world);
        let bound = w.bound_ms();
        (w.core().setup.clients, bound)
    };
    let started = madsim::time::Instant::now();
    loop {
        madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        if lock(world).core().all_done() || started.elapsed() > Duration::from_millis(bound) {
            break;
        }
    }
    let mut w = lock(world);
    let core = w.core();
    let unfinished: Vec<String> = (0..n)
        .filter(|&c| !core.clients[c].done())
        .map(|c| format!("c{c}"))
        .collect();
    if !unfinished.is_empty() {
        let why = format!(
            "{} still in its loop after {bound} ms",
            unfinished.join(", ")
        );
        core.note(|| why.clone());
    }
    w.judge_end();
}
