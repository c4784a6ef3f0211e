//! The command simulators' clock: madsim's, counted from the run's start,
//! in the milliseconds the checker's ticks are scaled to, and the latency
//! draws every client and task makes.

use madsim::rand::Rng;
use std::time::Duration;

/// Simulated milliseconds per checker tick.
pub const TICK_MS: u64 = 10;

thread_local! {
    /// When the current run began (one run at a time per thread).
    static START: std::cell::Cell<Option<madsim::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// The run begins now (inside its runtime, before any task).
pub fn start() {
    START.with(|s| s.set(Some(madsim::time::Instant::now())));
}

fn since_start() -> Duration {
    let start = START.with(|s| s.get());
    start.map_or(Duration::ZERO, |s| {
        madsim::time::Instant::now().duration_since(s)
    })
}

/// Simulated milliseconds since the run began.
pub fn now_ms() -> u64 {
    u64::try_from(since_start().as_millis()).unwrap_or(u64::MAX)
}

/// The time a trace line carries: milliseconds with three decimals.
pub fn stamp() -> String {
    format!("{:>9.3} ms", since_start().as_micros() as f64 / 1e3)
}

/// A duration drawn uniformly from `lo..=hi` microseconds.
pub fn micros(lo: u64, hi: u64) -> Duration {
    Duration::from_micros(madsim::rand::thread_rng().gen_range(lo..=hi))
}
