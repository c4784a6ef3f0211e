//! One seed's run, laid out the same for every backend's simulator: one
//! madsim runtime seeded with the seed; the backend's clock bound; its
//! world built behind one mutex (madsim runs every task on one OS thread,
//! so the mutex costs nothing and makes each task's step atomic); its
//! server nodes; one node per client, running the backend's client
//! library; one "chaos" node, running its faults; then the observer,
//! which ends the run; and the world's result.
//!
//! A backend plugs in a [`Simulation`]: its world, its servers, its client
//! library, its faults and its observer. The order in which nodes are made
//! and tasks spawned is this file's and no backend's: madsim picks among
//! ready tasks at random, so that order is part of every seed's trace
//! (seeds in the report and in the tests name runs laid out this way: a
//! change here moves them).

use madsim::runtime::{Handle, NodeHandle};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

/// A backend's simulator, as the seed run lays it out.
pub trait Simulation {
    /// What every task of the run shares.
    type World: Send + 'static;
    /// What a run gives back.
    type Run;

    /// Binds the backend's clock to the new runtime, before anything else.
    fn start_clock(&self);
    /// The seed's world (the clock is bound).
    fn world(&self) -> Self::World;
    /// How many clients the world runs, and the name of client `c`'s node.
    fn clients(&self, world: &mut Self::World) -> usize;
    fn client_node(&self, c: usize) -> String;
    /// The backend's server nodes and their tasks, made before the
    /// clients' (by default none).
    fn servers(&self, _world: &Arc<Mutex<Self::World>>, _h: &Handle) {}
    /// Client `c` runs on `node` (made just now): the world learns its
    /// node, the client library spawns its tasks there.
    fn client(&self, world: &Arc<Mutex<Self::World>>, c: usize, node: &NodeHandle);
    /// The faults' tasks, on the chaos node (made after the clients').
    fn chaos(&self, world: &Arc<Mutex<Self::World>>, chaos: &NodeHandle);
    /// Watches the run and returns when it is over.
    fn observe(&self, world: &Arc<Mutex<Self::World>>) -> impl Future<Output = ()>;
    /// The run's result, taken out of the world.
    fn finish(&self, world: &mut Self::World, seed: u64) -> Self::Run;
}

/// The world, locked (a panic inside a task aborts the whole run anyway;
/// a poisoned lock only means that panic is already unwinding).
pub fn lock<W>(w: &Mutex<W>) -> MutexGuard<'_, W> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `sim` on `seed`, in a madsim runtime of its own.
pub fn run_seed<S: Simulation>(sim: &S, seed: u64) -> S::Run {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    rt.block_on(run(sim, seed))
}

/// The body of one run, inside a madsim runtime (`seed` is only handed to
/// [`Simulation::finish`]: the runtime's own seed is what draws).
pub async fn run<S: Simulation>(sim: &S, seed: u64) -> S::Run {
    sim.start_clock();
    let world = Arc::new(Mutex::new(sim.world()));
    let h = Handle::current();
    sim.servers(&world, &h);
    let clients = sim.clients(&mut lock(&world));
    for c in 0..clients {
        let node = h.create_node().name(sim.client_node(c)).build();
        sim.client(&world, c, &node);
    }
    let chaos = h.create_node().name("chaos").build();
    sim.chaos(&world, &chaos);
    sim.observe(&world).await;
    let mut w = lock(&world);
    sim.finish(&mut w, seed)
}
