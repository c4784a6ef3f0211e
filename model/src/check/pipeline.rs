//! One BFS level, expanded a batch at a time and merged in order.
//!
//! With one job, each batch is expanded and then merged, in turn. With
//! more, worker threads expand batches ahead while this thread merges the
//! finished ones in batch order: expansion (cloning, stepping and
//! fingerprinting every successor) is the costly part and runs on every
//! core, and merging (numbering new states, keeping edges and traces) never
//! waits for a whole level. Workers read only the visited set of earlier
//! levels, which nobody changes during a level; the merger keeps this
//! level's discoveries apart (see [`Search`](super::explore)). Batches are
//! merged in order whatever thread expanded them, so ids, traces, counts
//! and bounds are the same for any number of jobs.

use super::expand::{self, Batch};
use super::space::Space;
use super::visited::Visited;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

/// States per batch: small enough that a batch's successors are still in
/// the cache when they are merged.
pub const BATCH: usize = 128;

/// How many batches workers may run ahead of the merger, per worker: bounds
/// the successors held at once.
const AHEAD: usize = 4;

/// What takes the expanded batches in.
pub trait Merge<S> {
    /// Takes in the batch whose first state is the level's `at`-th; `false`
    /// stops the run.
    fn merge(&mut self, at: usize, batch: Batch<S>) -> bool;
    /// The id of a state this level found already, if it did.
    fn found(&self, fingerprint: u64) -> Option<u32>;
}

/// Expands `level` (successors only if `expand`) and hands every batch to
/// `merger` in order; stops early when it says so. Returns whether every
/// batch was merged.
pub fn run_level<X: Space>(
    space: &X,
    visited: &Visited,
    level: Vec<X::State>,
    expand: bool,
    merger: &mut dyn Merge<X::State>,
) -> bool {
    let jobs = space.limits().jobs;
    // A level's states leave it as their batch is expanded, so a level and
    // the next are never both held whole.
    let mut batches: Vec<Vec<X::State>> = Vec::new();
    let mut rest = level.into_iter();
    loop {
        let b: Vec<_> = rest.by_ref().take(BATCH).collect();
        if b.is_empty() {
            break;
        }
        batches.push(b);
    }
    // A level of a few batches is not worth starting threads for.
    if jobs <= 1 || batches.len() < 2 * jobs {
        // One thread: this level's earlier batches are merged before the
        // next is expanded, so expansion can know their states too.
        for (i, states) in batches.into_iter().enumerate() {
            let known = |f| visited.get(f).or_else(|| merger.found(f));
            let out = expand::expand(space, &known, &states, expand);
            drop(states);
            if !merger.merge(i * BATCH, out) {
                return false;
            }
        }
        return true;
    }
    threaded(space, jobs, visited, batches, expand, merger)
}

fn threaded<X: Space>(
    space: &X,
    jobs: usize,
    visited: &Visited,
    batches: Vec<Vec<X::State>>,
    expand: bool,
    merger: &mut dyn Merge<X::State>,
) -> bool {
    let count = batches.len();
    let batches: Vec<Mutex<Vec<X::State>>> = batches.into_iter().map(Mutex::new).collect();
    let taken = AtomicUsize::new(0);
    let merged = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let ahead = AHEAD * jobs;
    let (tx, rx) = mpsc::channel::<(usize, Batch<X::State>)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (batches, taken, merged, stop) = (&batches, &taken, &merged, &stop);
            scope.spawn(move || loop {
                let b = taken.fetch_add(1, Ordering::Relaxed);
                if b >= count {
                    break;
                }
                while b >= merged.load(Ordering::Acquire) + ahead && !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let states = batches[b]
                    .lock()
                    .map(|mut s| std::mem::take(&mut *s))
                    .unwrap_or_default();
                let out = expand::expand(space, &|f| visited.get(f), &states, expand);
                drop(states);
                if tx.send((b, out)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        for (b, out) in rx {
            waiting.insert(b, out);
            while let Some(out) = waiting.remove(&next) {
                if !merger.merge(next * BATCH, out) {
                    stop.store(true, Ordering::Relaxed);
                    return false;
                }
                next += 1;
                merged.store(next, Ordering::Release);
            }
        }
        next == count
    })
}
