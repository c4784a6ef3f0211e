//! What every backend's `locksmith real` shares: its flags ([`flags`]),
//! the think and hold times drawn from the run's seed ([`times`]), the run
//! of one OS thread per client the command backends share ([`threads`])
//! and what it prints ([`report`]), and a figure per acquisition
//! ([`per`]). A backend's own adapter and run are in its folder
//! (ZooKeeper's: `crate::zk::real`).

pub mod flags;
pub mod report;
pub mod threads;
pub mod times;

/// `x` per `n` (0 where `n` is none): a run's figure per acquisition or per
/// second.
pub fn per(x: u64, n: f64) -> f64 {
    if n <= 0.0 {
        0.0
    } else {
        x as f64 / n
    }
}
