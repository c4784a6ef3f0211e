//! `locksmith sim`, `locksmith replay` and `locksmith bench-sim`: the
//! deterministic simulator from the command line. The file is read once;
//! its backend plans the sweep or the replay
//! (`crate::commands::Commands::sim`, `replay`).

use crate::backend::Capability;
use crate::commands::Planned;
pub use crate::simulate::flags::{BenchSimArgs, ReplayArgs, SimArgs};

/// The sweep the flags ask for, or the error the command exits 2 with.
pub fn plan(a: &SimArgs) -> Result<Planned<'_>, String> {
    crate::backends::load_for(&a.scenario, &[("sim", Capability::Simulator)])
        .map_err(|e| e.to_string())?
        .sim(a)
}

/// Seeds until the first violation (all of them with `--keep-going`);
/// exit codes 0 no seed failed, 1 a seed failed, 2 bad input, 3 fewer
/// seeds run than asked, 130 / 143 stopped by a signal.
pub fn run_sim(a: &SimArgs) -> i32 {
    run(plan(a))
}

/// The replay the flags ask for, or the error the command exits 2 with.
pub fn plan_replay(a: &ReplayArgs) -> Result<Planned<'_>, String> {
    let needs: &[_] = if a.timeline.is_some() {
        &[
            ("replay", Capability::Simulator),
            ("replay --timeline", Capability::Timeline),
        ]
    } else {
        &[("replay", Capability::Simulator)]
    };
    crate::backends::load_for(&a.scenario, needs)
        .map_err(|e| e.to_string())?
        .replay(a)
}

/// One seed's whole trace; 0 no violation, 1 violated, 2 bad input.
pub fn run_replay(a: &ReplayArgs) -> i32 {
    run(plan_replay(a))
}

/// The simulator's figures on ZooKeeper's recipes (the benchmark's
/// workload is ZooKeeper's).
pub fn run_bench(a: &BenchSimArgs) -> i32 {
    crate::zk::sim::bench::run(a)
}

fn run(plan: Result<Planned<'_>, String>) -> i32 {
    match plan {
        Ok(run) => run(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
