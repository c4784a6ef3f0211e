//! A sweep of ZooKeeper's simulator: its seed's run as the sweep folds it
//! (a failure is a violation; the totals are the run's metrics).

use super::{run_seed, RunReport, SimConfig, Totals};
use crate::simulate::sweep::{sweep_runs, SeedRun, Sweep, SweepOptions};

impl SeedRun for RunReport {
    type Totals = Totals;

    fn failed(&self) -> bool {
        self.violation.is_some()
    }

    fn add_to(&self, totals: &mut Totals) {
        totals.add(&self.metrics);
    }
}

/// A ZooKeeper sweep.
pub type SweepReport = Sweep<RunReport>;

/// Runs a ZooKeeper configuration's seeds ([`sweep_runs`]).
pub fn sweep(cfg: &SimConfig, opts: &SweepOptions, tick: &(dyn Fn() + Sync)) -> SweepReport {
    sweep_runs(&|seed| run_seed(cfg, seed, false), opts, tick)
}
