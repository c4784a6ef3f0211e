//! A matrix's rows and columns, as every backend declares them: a row is
//! a recipe ([`Row`]), a column a fault class ([`Fault`]), judged by one
//! of the drivers ([`Driver`]).

use serde::Serialize;

/// One row: a recipe.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub recipe: &'static str,
    /// Clients in the row's cells (ZooKeeper's: in its checker cells,
    /// unless a column or the recipe's own sizes say otherwise).
    pub clients: u8,
    /// Where the recipe comes from and what it claims.
    pub claim: &'static str,
    /// What to use instead (empty: nothing better here).
    pub instead: &'static str,
}

/// Which driver judges a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// The exhaustive checker (`locksmith check`): every interleaving of a
    /// small configuration, shortest traces.
    Check,
    /// The deterministic simulator (`locksmith sim`): real timers, many
    /// seeds; "holds" means no seed violated it.
    Sim,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::Check => "check",
            Driver::Sim => "sim",
        }
    }
}

/// One column: a fault class.
#[derive(Clone, Debug, Serialize)]
pub struct Fault {
    /// As `--faults` and file names spell it.
    pub id: &'static str,
    /// As the column header reads.
    pub label: &'static str,
    /// The legend's sentence: what strikes, when, how often.
    pub about: &'static str,
}
