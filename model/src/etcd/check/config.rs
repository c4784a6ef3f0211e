//! One etcd configuration to explore: the recipe, the clients and their
//! rounds, time in ticks, the fault budgets and the bounds; its checks of
//! its own ([`Configured`]: the engine's come around them).

use crate::engine::command::config::{lease_problem, LeaseKeys, Problem, LIMITS};
use crate::engine::command::{config_checks, process_faults, Configured};
use crate::engine::fault_budget::fault_budget;
use crate::engine::space::Limits;
use crate::etcd::recipes::EtcdRecipe;

/// The scenario keys of the session's times.
const TTL: LeaseKeys = LeaseKeys {
    lease: "etcd.ttl",
    work: "etcd.critical_section",
    pause: "etcd.pause",
    named: "the TTL",
};

fault_budget! {
    /// How many times each fault may strike in one run.
    ///
    /// The scenario file's `[faults]` table reads into it by these field
    /// names (a key it does not name is an error listing them).
    pub struct EtcdFaults {
        /// A client's process stops for [`EtcdSpace::pause`] ticks (a GC
        /// pause, a stopped VM), at any step: no step, no keep-alive (its
        /// lease runs down), its work does not advance; requests it sent are
        /// still served.
        pauses,
        /// A client's process crashes at any step: its watches end, its keys
        /// stay until its lease runs out (no keep-alive renews it).
        crashes,
        /// A client's lease is revoked (`etcdctl lease revoke`, an operator or
        /// another program): its keys go at once.
        revokes,
        /// A waiter's lease expires while it waits in `lock()` for a watch
        /// event (etcd-io/etcd#11456): its keep-alives did not reach the
        /// server for a TTL (a partition the watch stream sat out), while its
        /// process ran and its watch stayed.
        waiter_expiries,
        /// The store is compacted to its current revision, at any step: a
        /// watch asked for from an older revision afterwards fails with
        /// `ErrCompacted` (the `Mutex` then unlocks and returns the error).
        compactions,
        /// An unlock's `Delete` reaches the server late: its caller timed out
        /// waiting (`context deadline exceeded`) and went on, and the request,
        /// still in flight, arrives at any later step (etcd-io/etcd#22082: the
        /// delete is by name, so it removes whatever key of that name is there).
        late_unlocks,
        /// A client's link to etcd is cut for [`EtcdSpace::pause`] ticks, at
        /// any step: its keep-alives stop (its lease runs out), its requests
        /// wait to be served and the replies and watch events it has not read
        /// wait to arrive, while its process runs on — a holder keeps working
        /// and learns nothing of its lease until the link heals.
        partitions,
    }
}

process_faults!(EtcdFaults);

/// A configuration of the etcd system: what [`super::space`] explores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdSpace {
    pub recipe: EtcdRecipe,
    pub clients: u8,
    /// Rounds of the harness loop per client.
    pub acquisitions: u8,
    /// The session's TTL, in ticks.
    pub ttl: u8,
    /// The critical section, in ticks: shorter than the TTL.
    pub work: u8,
    /// How long a pause or a partition lasts, in ticks: longer than the
    /// TTL.
    pub pause: u8,
    pub faults: EtcdFaults,
    /// Fencing (`fencing = true`): `lock()` returns with its key's create
    /// revision as the token, and the critical section writes to the
    /// protected resource twice with it ([`crate::engine::resource`]: a
    /// lower token than the highest it accepted is rejected).
    pub fencing: bool,
    /// The bounds and switches every backend's run has.
    pub limits: Limits,
}

impl EtcdSpace {
    /// Two clients, one round each, a TTL of 3 ticks, a critical section
    /// of 2, a pause of 4, no faults.
    pub fn new(recipe: EtcdRecipe) -> EtcdSpace {
        EtcdSpace {
            recipe,
            clients: 2,
            acquisitions: 1,
            ttl: 3,
            work: 2,
            pause: 4,
            faults: EtcdFaults::default(),
            fencing: false,
            limits: LIMITS,
        }
    }

    config_checks!();
}

impl Configured for EtcdSpace {
    /// The TTL's times.
    fn own_problem(&self) -> Option<Problem> {
        lease_problem(self.ttl, self.work, self.pause, &TTL)
    }
}
