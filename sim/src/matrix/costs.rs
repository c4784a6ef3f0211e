//! What a backend's recipes cost when they work, beside its cells: a
//! series of points per recipe (ZooKeeper's: the simulator without
//! faults at growing numbers of clients), drawn as the report's charts and
//! quoted by its answer.

use serde::Serialize;

/// One point of a recipe's cost series.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CostPoint {
    pub recipe: String,
    pub clients: u8,
    pub seeds: u64,
    pub acquisitions: u64,
    /// Acquisitions during whose attempt a notification arrived.
    pub contended_acquisitions: u64,
    /// All notifications ÷ contended acquisitions.
    pub notifications_per_contended_acquisition: f64,
    /// Requests + replies + notifications ÷ acquisitions (heartbeats apart).
    pub packets_per_acquisition: f64,
    /// Sessions notified per release that had a waiter.
    pub wakeups_per_release: f64,
    pub latency_p50_ms: f64,
    pub latency_p99_ms: f64,
    /// Seeds that ended on a violation (their figures count up to it).
    pub failing_seeds: u64,
    /// The command that prints these figures.
    pub command: String,
}

/// A recipe's cost series, and the scenario file its points run.
#[derive(Clone, Debug)]
pub struct CostSeries {
    pub recipe: String,
    /// The scenario file, relative to the report folder.
    pub scenario: String,
    pub scenario_text: String,
    /// In client order.
    pub points: Vec<CostPoint>,
}
