//! One Redis configuration to explore: the recipe, the clients and their
//! rounds, time in ticks, the fault budgets and the bounds; its checks of
//! its own ([`Configured`]: the engine's come around them).

use crate::engine::command::config::{lease_problem, LeaseKeys, Problem, LIMITS};
use crate::engine::command::{config_checks, process_faults, Configured};
use crate::engine::space::Limits;
use crate::redis::recipes::RedisRecipe;

/// The scenario keys of the lease's times.
const LEASE: LeaseKeys = LeaseKeys {
    lease: "redis.lease",
    work: "redis.critical_section",
    pause: "redis.pause",
    named: "the lease",
};

/// How many times each fault may strike in one run.
///
/// The scenario file's `[faults]` table reads into it by these field
/// names (a key it does not name is an error listing them). Written out,
/// not by `fault_budget!` as the other backends' are: its keys' file order
/// (`by_key`, which reports and generated files follow) is not its fields'
/// order (which a state's hash, and so the explorer's order, follows), and
/// the table would make them one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisFaults {
    /// A client's process stops for [`RedisSpace::pause`] ticks (a GC
    /// pause, a stopped VM), at any step: it takes no step and its work
    /// does not advance; commands it sent are still served.
    pub pauses: u8,
    /// A client's process crashes at any step: its connection closes (a
    /// command not yet served is lost), its keys stay.
    pub crashes: u8,
    /// The server restarts without persistence: every key is lost. Only
    /// between commands (no command in flight: a restart would close the
    /// connection under it, which the recipes here do not handle yet).
    pub restarts: u8,
    /// The primary fails and its replica takes over, without the writes it
    /// had not received (asynchronous replication); needs
    /// [`RedisSpace::replica`]. Only between commands, as a restart.
    pub failovers: u8,
    /// A client's clock jumps [`RedisSpace::skew`] ticks ahead or back.
    pub clock_jumps: u8,
    /// The server's clock jumps [`RedisSpace::skew`] ticks ahead (TTLs
    /// shrink) or back (TTLs grow), at any step.
    pub server_clock_jumps: u8,
}

impl RedisFaults {
    /// Every budget by its scenario-file key (`[faults]`), in file order.
    pub fn by_key(&self) -> [(&'static str, u8); 6] {
        [
            ("pauses", self.pauses),
            ("crashes", self.crashes),
            ("clock_jumps", self.clock_jumps),
            ("restarts", self.restarts),
            ("failovers", self.failovers),
            ("server_clock_jumps", self.server_clock_jumps),
        ]
    }
}

process_faults!(RedisFaults);

/// A configuration of the Redis system: what [`super::space`] explores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisSpace {
    pub recipe: RedisRecipe,
    pub clients: u8,
    /// Rounds of the harness loop per client (`lock()` calls, whether
    /// they get the lock or give up).
    pub acquisitions: u8,
    /// The lease (`PX`), in ticks.
    pub lease: u8,
    /// The critical section, in ticks: shorter than the lease.
    pub work: u8,
    /// How long a pause lasts, in ticks: longer than the lease.
    pub pause: u8,
    /// How far a clock jump moves a client's clock, in ticks.
    pub skew: u8,
    pub faults: RedisFaults,
    /// The server has a replica behind an asynchronous replication stream
    /// ([`super::action::Action::Replicate`] ships one write at a time).
    pub replica: bool,
    /// Fencing (`fencing = true`): a holder takes a token from `INCR` on a
    /// key of its own as the last command of `lock()`, and its critical
    /// section writes to the protected resource twice with it
    /// ([`crate::engine::resource`]: the resource ZooKeeper's checker has).
    pub fencing: bool,
    /// The bounds and switches every backend's run has (the kept graph
    /// is what the starvation and stuck-lock analyses read).
    pub limits: Limits,
}

impl RedisSpace {
    /// Two clients, one round each, a lease of 3 ticks, a critical section
    /// of 2, a pause of 4, no faults.
    pub fn new(recipe: RedisRecipe) -> RedisSpace {
        RedisSpace {
            recipe,
            clients: 2,
            acquisitions: 1,
            lease: 3,
            work: 2,
            pause: 4,
            skew: 4,
            faults: RedisFaults::default(),
            replica: false,
            fencing: false,
            limits: LIMITS,
        }
    }

    config_checks!();

    /// The bound on a client clock's distance from the reference time
    /// (the drift): every jump the budget allows, one way.
    pub fn drift(&self) -> i64 {
        i64::from(self.skew) * i64::from(self.faults.clock_jumps)
    }
}

impl Configured for RedisSpace {
    /// The lease's times, a failover's replica, and the clocks' drift.
    fn own_problem(&self) -> Option<Problem> {
        if let Some(p) = lease_problem(self.lease, self.work, self.pause, &LEASE) {
            return Some(p);
        }
        if self.faults.failovers > 0 && !self.replica {
            return Some((
                "faults.failovers",
                "a failover needs a replica: expected `replica = true` in [redis]".into(),
            ));
        }
        if self.drift() > 60 {
            return Some((
                "redis.skew",
                format!(
                    "skew × clock_jumps: expected at most 60 ticks of drift, got {}",
                    self.drift()
                ),
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::RedisFaults;

    /// `locksmith recipes` prints the budgets by these names: the scenario
    /// file's `[faults]` keys, in its order.
    #[test]
    fn each_budget_is_listed_under_its_scenario_key_in_file_order() {
        let budget = RedisFaults {
            pauses: 1,
            crashes: 2,
            clock_jumps: 3,
            restarts: 4,
            failovers: 5,
            server_clock_jumps: 6,
        };
        let keys: Vec<&str> = budget.by_key().iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "pauses",
                "crashes",
                "clock_jumps",
                "restarts",
                "failovers",
                "server_clock_jumps"
            ]
        );
        let values: Vec<u8> = budget.by_key().iter().map(|(_, n)| *n).collect();
        assert_eq!(values, (1..=6).collect::<Vec<u8>>());
    }
}
