//! A seed sweep: many runs of one configuration, in parallel over `jobs`
//! OS threads (each run has its own madsim runtime on its thread), stopping
//! at the first failure unless told to go on, and between seeds on Ctrl-C
//! (see [`crate::interrupt`]). Every backend's simulator sweeps here: a
//! seed's result says whether it failed and adds itself to the totals
//! ([`SeedRun`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct SweepOptions {
    pub first: u64,
    pub count: u64,
    pub keep_going: bool,
    pub jobs: usize,
}

impl SweepOptions {
    /// Seeds `0..count`, every one run (a failure does not stop the
    /// sweep), on one thread: what a comparison cell needs.
    pub fn every_seed(count: u64) -> SweepOptions {
        SweepOptions {
            first: 0,
            count,
            keep_going: true,
            jobs: 1,
        }
    }
}

/// One seed's result, as a sweep folds it.
pub trait SeedRun: Send {
    /// What the sweep sums over its seeds.
    type Totals: Default + Send;
    fn failed(&self) -> bool;
    fn add_to(&self, totals: &mut Self::Totals);
}

#[derive(Debug, Clone)]
pub struct Sweep<R: SeedRun> {
    pub seeds_run: u64,
    /// Ctrl-C stopped the sweep before its last seed.
    pub interrupted: bool,
    /// Every failing run (without its trace), lowest seed first.
    pub failures: Vec<R>,
    pub totals: R::Totals,
    pub elapsed_ms: u128,
}

impl<R: SeedRun> Sweep<R> {
    pub fn first_failure(&self) -> Option<&R> {
        self.failures.first()
    }
}

/// The runs finished so far, folded in seed order: a run that finishes
/// ahead of a lower seed waits in `pending`, so what the sweep reports is
/// the same on any number of threads.
struct Folded<R: SeedRun> {
    /// The next seed (as an index from `first`) to fold.
    next: u64,
    pending: BTreeMap<u64, R>,
    failures: Vec<R>,
    totals: R::Totals,
    /// A failure was folded and the sweep stops at it: every later seed is
    /// left out, whichever thread ran it.
    done: bool,
}

impl<R: SeedRun> Folded<R> {
    fn new() -> Folded<R> {
        Folded {
            next: 0,
            pending: BTreeMap::new(),
            failures: Vec::new(),
            totals: R::Totals::default(),
            done: false,
        }
    }

    fn take(&mut self, i: u64, r: R, keep_going: bool) {
        self.pending.insert(i, r);
        while !self.done {
            let Some(r) = self.pending.remove(&self.next) else {
                break;
            };
            self.next += 1;
            r.add_to(&mut self.totals);
            if r.failed() {
                self.done = !keep_going;
                self.failures.push(r);
            }
        }
    }
}

/// Runs the seeds `first .. first + count` through `run`. `tick` is called
/// after each run. Without `keep_going` it stops at the lowest failing
/// seed, having run every seed below it; with one thread or many, it
/// reports the same seeds, failures and totals.
pub fn sweep_runs<R: SeedRun>(
    run: &(dyn Fn(u64) -> R + Sync),
    opts: &SweepOptions,
    tick: &(dyn Fn() + Sync),
) -> Sweep<R> {
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let next = AtomicU64::new(0);
    let folded = Mutex::new(Folded::new());
    let jobs = opts.jobs.max(1);
    let work = || loop {
        if stop.load(Ordering::Relaxed) || crate::interrupt::requested() {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= opts.count {
            break;
        }
        let r = run(opts.first + i);
        let mut f = folded.lock().unwrap_or_else(|e| e.into_inner());
        f.take(i, r, opts.keep_going);
        if f.done {
            stop.store(true, Ordering::Relaxed);
        }
        drop(f);
        tick();
    };
    if jobs == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(work);
            }
        });
    }
    let f = folded.into_inner().unwrap_or_else(|e| e.into_inner());
    let seeds_run = f.next;
    Sweep {
        interrupted: seeds_run < opts.count
            && f.failures.is_empty()
            && crate::interrupt::requested(),
        seeds_run,
        failures: f.failures,
        totals: f.totals,
        elapsed_ms: started.elapsed().as_millis(),
    }
}
