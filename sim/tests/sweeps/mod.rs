//! A seed sweep run on one thread and on three, for every simulator's test
//! that the sweep reports the same on any number of threads.

use locksmith::simulate::sweep::{sweep_runs, SeedRun, SweepOptions};
use std::fmt::Debug;

/// Seeds 0..40 through `run`, on one thread and on three: the seeds run,
/// the failing seeds and `totals` of the sums must agree. Returns the
/// one-thread figures.
pub fn same_on_1_and_3_threads<R: SeedRun, T: PartialEq + Debug>(
    what: &str,
    run: &(dyn Fn(u64) -> R + Sync),
    keep_going: bool,
    seed: fn(&R) -> u64,
    totals: fn(&R::Totals) -> T,
) -> (u64, Vec<u64>, T) {
    let swept = |jobs| {
        let opts = SweepOptions {
            first: 0,
            count: 40,
            keep_going,
            jobs,
        };
        let r = sweep_runs(run, &opts, &|| {});
        let seeds: Vec<u64> = r.failures.iter().map(seed).collect();
        (r.seeds_run, seeds, totals(&r.totals))
    };
    let one = swept(1);
    assert_eq!(one, swept(3), "{what}, keep_going {keep_going}");
    one
}
