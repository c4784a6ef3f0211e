//! The simulator core of the command backends (Redis, MySQL): a client
//! sends a command (a statement) and reads its reply, and the server model
//! applies it in one step. One madsim runtime per seed runs every client on
//! its own node ([`CommandWorld::client`]: the backend's client library
//! over the same sans-IO recipe the checker explores), a chaos task over
//! the scenario's fault budgets ([`chaos`]) and the backend's server tasks;
//! an observer ends the run when every live client is done (or at a
//! generous bound) and lets the backend judge the end (a stuck lock).
//!
//! A backend plugs in its world: its server model and bookkeeping beside
//! the [`Core`] every world shares, its faults and their strikes, its
//! client task. Time is the checker's ticks scaled to [`TICK_MS`]
//! milliseconds ([`run_clock`]).
//!
//! Determinism: all randomness is `madsim::rand`, all time madsim's; a
//! trace is a pure function of (scenario, seed).

pub mod chaos;
pub mod core;
pub mod fencing;
pub mod run_clock;

pub use self::chaos::Aftermath;
pub use self::core::{Client, Core};
pub use self::run_clock::TICK_MS;

use locksmith_model::engine::harness::Property;
use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
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

/// A backend's world: what the core runs.
pub trait CommandWorld: Sized + Send + 'static {
    /// A fault of the scenario's budgets.
    type Fault: Copy + Send + 'static;

    fn core(&self) -> &Core;
    fn core_mut(&mut self) -> &mut Core;

    /// Each fault class's budget, in the order their instants are drawn.
    fn fault_budgets(&self) -> Vec<(u8, Self::Fault)>;
    /// Whether the fault is a process pause (the core's own strike).
    fn is_pause(f: Self::Fault) -> bool;
    /// How long a pause lasts, in ms.
    fn pause_ms(&self) -> u64;
    /// Whether a fault may strike client `c` now.
    fn targetable(&self, c: usize) -> bool;
    /// A fault other than a pause strikes (`target`: the client drawn, if
    /// any was targetable).
    fn strike(
        &mut self,
        f: Self::Fault,
        target: Option<usize>,
        h: &madsim::runtime::Handle,
    ) -> Option<Aftermath<Self>>;

    /// Faults strike within this many ms of the start.
    fn horizon_ms(&self) -> u64;
    /// The run ends by this many ms, whoever is still in its loop.
    fn bound_ms(&self) -> u64;

    /// Client `c`'s task: its recipe's rounds with real time.
    fn client(world: Arc<Mutex<Self>>, c: usize) -> impl Future<Output = ()> + Send + 'static;
    /// The backend's own tasks beside the clients and the chaos task
    /// (`chaos`: that task's node).
    fn spawn_servers(
        world: &Arc<Mutex<Self>>,
        h: &madsim::runtime::Handle,
        chaos: &madsim::runtime::NodeHandle,
    );
    /// Every live client is done (or the bound passed): the backend judges
    /// what is left (a stuck lock).
    fn judge_end(&mut self);
}

pub fn lock<W>(w: &Mutex<W>) -> MutexGuard<'_, W> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs one seed: the world `make` builds, in its own madsim runtime.
pub fn run_seed<W: CommandWorld>(seed: u64, make: impl FnOnce() -> W) -> BackendRun {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    rt.block_on(async move {
        run_clock::start();
        let world = Arc::new(Mutex::new(make()));
        simulate(&world).await;
        let mut w = lock(&world);
        w.core_mut().into_run(seed)
    })
}

async fn simulate<W: CommandWorld>(world: &Arc<Mutex<W>>) {
    let (n, horizon, bound) = {
        let w = lock(world);
        (w.core().clients.len(), w.horizon_ms(), w.bound_ms())
    };
    let h = madsim::runtime::Handle::current();
    for c in 0..n {
        let node = h.create_node().name(format!("c{c}")).build();
        lock(world).core_mut().clients[c].node = Some(node.id());
        node.spawn(W::client(world.clone(), c));
    }
    let chaos_node = h.create_node().name("chaos").build();
    let chaos_task = chaos_node.spawn(chaos::chaos(world.clone(), horizon));
    W::spawn_servers(world, &h, &chaos_node);
    let started = madsim::time::Instant::now();
    loop {
        madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        if lock(world).core().all_done() || started.elapsed() > Duration::from_millis(bound) {
            break;
        }
    }
    drop(chaos_task);
    let mut w = lock(world);
    let core = w.core_mut();
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
