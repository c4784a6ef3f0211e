//! The configuration of one cell, as a fault class changes it (its
//! constructor from a recipe row is in `cell.rs`).

use crate::zk::sim_settings::SimSettings;
use locksmith_model::engine::harness::Writes;
use locksmith_model::zk::check::FaultBudget;
use locksmith_model::zk::recipes::RecipeId;

/// What a fault class changes: the configuration a cell's scenario file
/// spells out.
#[derive(Clone, Debug)]
pub struct CellConfig {
    pub recipe: RecipeId,
    pub clients: u8,
    pub acquisitions: u8,
    /// The checker's fault budgets (`[faults]`).
    pub faults: FaultBudget,
    /// The simulator's settings (`[sim]`, seeds included).
    pub sim: SimSettings,
    /// The checker's bound (`[check] max_states`).
    pub max_states: usize,
    /// The checker's sequence-suffix abstraction (`[check]
    /// abstract_sequences`).
    pub abstract_sequences: bool,
    /// The critical section's writes to the protected resource (`fencing`,
    /// `guarded`; the checker's).
    pub writes: Writes,
}
