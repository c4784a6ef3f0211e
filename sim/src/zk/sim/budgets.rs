//! How ZooKeeper's simulator takes each of the checker's fault budgets
//! (`[faults]`), one row per key of the model's `FaultBudget` (a test holds
//! the two to the same keys, so a new budget does not compile into a run
//! that silently leaves it out). A file with no faults of its own in
//! `[sim]` gets its budgets as a schedule, in this table's order: each unit
//! once, 5 ms apart from 5 ms on ([`super::SimConfig::of`]).

use crate::zk::sim_settings::{FaultKind, TargetName};

/// What the simulator makes of one budget.
#[derive(Clone, Copy, Debug)]
pub enum AsSimulated {
    /// Each unit, one fault of this kind on a client in this role.
    Scheduled(FaultKind, TargetName),
    /// The same, but only for a library that gives up on a suspended
    /// session (Curator): for any other the checker's budget is no fault at
    /// all, and so it is here (a one-way partition would be another fault,
    /// the plain client's calls timing out).
    IfItGivesUp(FaultKind, TargetName),
    /// The checker's overtakes are the simulator's unsafe reordering
    /// (`reorder_within_session`).
    Reordering,
    /// The simulated library does it by its own clock, unbudgeted.
    ByClock,
    /// Not simulated: `sim` and `replay` refuse the file rather than run
    /// it without the fault (exit 2, saying why).
    Refused(&'static str),
}

use AsSimulated::*;

/// Every budget, by its scenario key.
pub const BUDGETS: &[(&str, AsSimulated)] = &[
    (
        "waiter_expiries",
        Scheduled(FaultKind::Expire, TargetName::Waiter),
    ),
    (
        "holder_expiries",
        Scheduled(FaultKind::Expire, TargetName::Holder),
    ),
    // The simulator's connection loss drops whatever is in flight, nothing
    // included; a parked waiter is where a disconnect bites.
    (
        "connection_losses",
        Scheduled(FaultKind::ConnectionLoss, TargetName::Any),
    ),
    (
        "disconnects",
        Scheduled(FaultKind::ConnectionLoss, TargetName::Waiter),
    ),
    ("expiries", Scheduled(FaultKind::Expire, TargetName::Any)),
    ("crashes", Scheduled(FaultKind::Crash, TargetName::Any)),
    // A client-side expiry: the server's packets stop reaching the client
    // long enough for a library that gives up on a suspended session
    // (SUSPENDED after 2/3 of the timeout, given up a timeout later) to do
    // so, while the server keeps hearing it.
    (
        "client_expiries",
        IfItGivesUp(FaultKind::OneWayPartition, TargetName::Any),
    ),
    (
        "waiter_client_expiries",
        IfItGivesUp(FaultKind::OneWayPartition, TargetName::Waiter),
    ),
    ("reorders", Reordering),
    // The library fails a call waiting on a connect attempt that went
    // unanswered for a session timeout (the Java client's clean-up of its
    // queue), for every recipe.
    ("connection_timeouts", ByClock),
    ("server_restarts", Refused(NO_STOP)),
    ("long_server_restarts", Refused(NO_STOP)),
];

const NO_STOP: &str = "the simulator does not stop its server";

#[cfg(test)]
mod tests {
    use super::BUDGETS;
    use locksmith_model::zk::check::FaultBudget;
    use std::collections::BTreeSet;

    #[test]
    fn every_budget_of_the_checker_says_what_the_simulator_makes_of_it() {
        let table: Vec<&str> = BUDGETS.iter().map(|(k, _)| *k).collect();
        let unique: BTreeSet<&str> = table.iter().copied().collect();
        assert_eq!(unique.len(), table.len(), "a key twice: {table:?}");
        let budget: BTreeSet<&str> = FaultBudget::default()
            .by_key()
            .iter()
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(unique, budget);
    }
}
