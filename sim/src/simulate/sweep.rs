//! A seed sweep: many runs of one configuration, in parallel over `jobs`
//! OS threads (each run has its own madsim runtime on its thread), stopping
//! at the first failure unless told to go on, and between seeds on Ctrl-C
//! (see [`crate::interrupt`]).

use super::{run_seed, RunReport, SimConfig, Totals};
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

#[derive(Debug, Clone)]
pub struct SweepReport {
    pub seeds_run: u64,
    /// Ctrl-C stopped the sweep before its last seed.
    pub interrupted: bool,
    /// Every failing run (without its trace), lowest seed first.
    pub failures: Vec<RunReport>,
    pub totals: Totals,
    pub elapsed_ms: u128,
}

impl SweepReport {
    pub fn first_failure(&self) -> Option<&RunReport> {
        self.failures.first()
    }
}

/// Runs the seeds `first .. first + count`. `tick` is called after each run.
pub fn sweep(cfg: &SimConfig, opts: &SweepOptions, tick: &(dyn Fn() + Sync)) -> SweepReport {
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let next = AtomicU64::new(0);
    let out: Mutex<(u64, Vec<RunReport>, Totals)> = Mutex::new((0, Vec::new(), Totals::default()));
    let jobs = opts.jobs.max(1);
    let work = || {
        let mut local = Totals::default();
        let mut runs = 0;
        let mut fails = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) || crate::interrupt::requested() {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= opts.count {
                break;
            }
            let r = run_seed(cfg, opts.first + i, false);
            runs += 1;
            local.add(&r.metrics);
            if r.violation.is_some() {
                if !opts.keep_going {
                    stop.store(true, Ordering::Relaxed);
                }
                fails.push(r);
            }
            tick();
        }
        let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
        o.0 += runs;
        o.1.extend(fails);
        o.2.merge(&local);
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
    let (seeds_run, mut failures, totals) = out.into_inner().unwrap_or_else(|e| e.into_inner());
    failures.sort_by_key(|r| r.seed);
    SweepReport {
        interrupted: seeds_run < opts.count && failures.is_empty() && crate::interrupt::requested(),
        seeds_run,
        failures,
        totals,
        elapsed_ms: started.elapsed().as_millis(),
    }
}
