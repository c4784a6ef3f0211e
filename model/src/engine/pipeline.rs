//! One BFS level, expanded a batch at a time and merged in order.
//!
//! With one job, each batch is expanded and then merged, in turn. With
//! more, worker threads expand batches ahead while this thread merges the
//! finished ones in batch order: expansion (cloning, stepping and
//! fingerprinting every successor) is the costly part and runs on every
//! core, and merging (numbering new states, keeping edges and traces) never
//! waits for a whole level. Workers read the visited set, to which the
//! merger adds this level's states as it numbers them ([`Visited`]).
//! Batches are merged in order whatever thread expanded them, so ids,
//! traces, counts and bounds are the same for any number of jobs.

use super::expand::{self, Batch};
use super::level::{Level, BATCH};
use super::space::Space;
use super::visited::Visited;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// How many batches workers may run ahead of the merger, per worker: bounds
/// the successors held at once.
const AHEAD: usize = 4;

/// What takes the expanded batches in.
pub trait Merge<S> {
    /// Takes in the batch whose first state is the level's `at`-th; `false`
    /// stops the run.
    fn merge(&mut self, at: usize, batch: Batch<S>) -> bool;
    /// The id of a state this level numbered but the visited set had no
    /// room for, if it did.
    fn found(&self, fingerprint: u64) -> Option<u32>;
}

/// What a level's expansion reads: the visited set (the states found
/// before the level began, and those the merger numbers meanwhile) and how
/// many states were found before the level began (the level's own
/// included: each level's states are found while the one before it is
/// merged).
#[derive(Clone, Copy)]
pub struct Known<'a> {
    pub visited: &'a Visited,
    pub before: usize,
}

impl Known<'_> {
    /// Whether the state was found before the level began: it is at most
    /// as deep as the states expanded.
    fn earlier(&self, fingerprint: u64) -> bool {
        self.visited
            .get(fingerprint)
            .is_some_and(|id| (id as usize) < self.before)
    }
}

/// Expands `level` (successors only if `expand`) and hands every batch to
/// `merger` in order; stops early when it says so. Returns whether every
/// batch was merged.
pub fn run_level<X: Space>(
    space: &X,
    known: Known,
    level: Level<X::State>,
    expand: bool,
    merger: &mut dyn Merge<X::State>,
) -> bool {
    let jobs = space.limits().jobs;
    // A level's states leave it as their batch is expanded, so a level and
    // the next are never both held whole.
    let batches = level.into_chunks();
    // A level of a few batches is not worth starting threads for.
    if jobs <= 1 || batches.len() < 2 * jobs {
        // One thread: this level's earlier batches are merged before the
        // next is expanded, so expansion can know their states too.
        for (i, states) in batches.into_iter().enumerate() {
            let id = |f| known.visited.get(f).or_else(|| merger.found(f));
            let earlier = |f| known.earlier(f);
            let out = expand::expand(space, &id, &earlier, &states, expand);
            drop(states);
            if !merger.merge(i * BATCH, out) {
                return false;
            }
        }
        return true;
    }
    threaded(space, jobs, known, batches, expand, merger)
}

/// `jobs` threads in all: `jobs - 1` workers expand batches ahead, and this
/// thread merges the finished ones in order and, when the next one to merge
/// is not ready, expands a batch itself rather than wait. A worker that has
/// run `AHEAD` batches per job ahead of the merger sleeps until the merger
/// catches up (spinning would take a core from the merger, which is the
/// level's critical path). Every batch is expanded against the visited set
/// as it stands.
fn threaded<X: Space>(
    space: &X,
    jobs: usize,
    known: Known,
    batches: Vec<Vec<X::State>>,
    expand: bool,
    merger: &mut dyn Merge<X::State>,
) -> bool {
    let count = batches.len();
    let batches: Vec<Mutex<Vec<X::State>>> = batches.into_iter().map(Mutex::new).collect();
    let taken = AtomicUsize::new(0);
    // Batches merged so far, and the workers waiting for it to grow.
    let merged = (Mutex::new(0usize), Condvar::new());
    let stop = AtomicBool::new(false);
    let ahead = AHEAD * jobs;
    let expand_batch = |b: usize| {
        let states = batches[b]
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default();
        let id = |f| known.visited.get(f);
        let earlier = |f| known.earlier(f);
        expand::expand(space, &id, &earlier, &states, expand)
    };
    let (tx, rx) = mpsc::channel::<(usize, Batch<X::State>)>();
    std::thread::scope(|scope| {
        for _ in 1..jobs {
            let tx = tx.clone();
            let (taken, merged, stop, expand_batch) = (&taken, &merged, &stop, &expand_batch);
            scope.spawn(move || loop {
                let b = taken.fetch_add(1, Ordering::Relaxed);
                if b >= count {
                    break;
                }
                {
                    let (lock, grew) = merged;
                    let mut done = lock.lock().unwrap_or_else(|e| e.into_inner());
                    while b >= *done + ahead && !stop.load(Ordering::Relaxed) {
                        done = grew.wait(done).unwrap_or_else(|e| e.into_inner());
                    }
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if tx.send((b, expand_batch(b))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let finish = |ok: bool| {
            if !ok {
                stop.store(true, Ordering::Relaxed);
            }
            let (lock, grew) = &merged;
            // Wake every waiting worker: to go on, or to see the stop.
            let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            grew.notify_all();
            ok
        };
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        while next < count {
            while let Ok((b, out)) = rx.try_recv() {
                waiting.insert(b, out);
            }
            if let Some(out) = waiting.remove(&next) {
                if !merger.merge(next * BATCH, out) {
                    return finish(false);
                }
                next += 1;
                let (lock, grew) = &merged;
                *lock.lock().unwrap_or_else(|e| e.into_inner()) = next;
                grew.notify_all();
                continue;
            }
            // The next batch is a worker's and not ready: expand one here
            // rather than wait, unless that would run too far ahead.
            let b = taken.load(Ordering::Relaxed);
            if b < count
                && b < next + ahead
                && taken
                    .compare_exchange(b, b + 1, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                waiting.insert(b, expand_batch(b));
                continue;
            }
            match rx.recv() {
                Ok((b, out)) => {
                    waiting.insert(b, out);
                }
                // Every worker is gone and the next batch never came.
                Err(_) => break,
            }
        }
        finish(next == count)
    })
}
