//! One MySQL configuration to explore: the recipe, the clients and their
//! rounds, time in ticks, the fault budgets and the bounds; its checks of
//! its own ([`Configured`]: the engine's come around them).

use crate::engine::command::config::{Problem, LIMITS};
use crate::engine::command::{config_checks, process_faults, Configured};
use crate::engine::fault_budget::fault_budget;
use crate::engine::space::Limits;
use crate::mysql::recipes::MysqlRecipe;

fault_budget! {
    /// How many times each fault may strike in one run.
    ///
    /// The scenario file's `[faults]` table reads into it by these field
    /// names (a key it does not name is an error listing them).
    pub struct MysqlFaults {
        /// A client's process stops for [`MysqlSpace::pause`] ticks, at any step:
        /// it takes no step and its work does not advance; its connection
        /// stays open and a statement it sent is still served.
        pauses,
        /// A client's process crashes at any step: its connection closes, the
        /// server rolls back its transaction; committed rows stay.
        crashes,
        /// The server drops a client's connection (`KILL`, `wait_timeout`)
        /// while its process keeps working: the transaction rolls back and its
        /// row locks go at once; the client learns it only from its next
        /// statement (or the one it waits on), which fails with 2013.
        connection_drops,
        /// The network between a client and the server breaks while its
        /// process keeps working: the client's statement in flight, or its
        /// next one, fails with 2013 at once, but the server keeps the session
        /// — its transaction and row locks, a statement it holds waiting — until
        /// it notices the connection is gone (TCP keepalive, `wait_timeout`),
        /// at any later step.
        network_drops,
        /// The server restarts (a crash or a clean restart): every connection
        /// is gone, uncommitted transactions roll back, committed rows stay,
        /// and the AUTO_INCREMENT counter is kept (MariaDB 10.11 persists it).
        /// Each client's statement in flight, or its next one, fails with 2013.
        restarts,
    }
}

process_faults!(MysqlFaults);

/// A configuration of the MySQL system: what [`super::space`] explores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MysqlSpace {
    pub recipe: MysqlRecipe,
    pub clients: u8,
    /// Rounds of the harness loop per client.
    pub acquisitions: u8,
    /// The critical section, in ticks.
    pub work: u8,
    /// How long a pause lasts, in ticks.
    pub pause: u8,
    /// Every session's `innodb_lock_wait_timeout`, in ticks.
    pub lock_wait_timeout: u8,
    /// The seeds' cleanup job (source 002, line 25): it releases a lock row
    /// that has been taken for at least this many ticks, with its own
    /// connection; `None`: no job.
    pub cleanup_after: Option<u8>,
    /// The recipe's lock row is in the table before any client runs, as
    /// the status and `FOR UPDATE` locks expect (`false`: someone forgot
    /// to insert it; `FOR UPDATE` then finds no row).
    pub lock_row: bool,
    /// Every connection sets `CLIENT_FOUND_ROWS` (Connector/J does): an
    /// UPDATE's affected rows count matched rows, not changed ones.
    pub found_rows: bool,
    /// Fencing (`fencing = true`): `lock()` returns with a token the
    /// database hands out with the lock — the unique key's AUTO_INCREMENT
    /// id, the status row's or the locked row's version through
    /// `LAST_INSERT_ID(version + 1)` — and each critical section writes
    /// to the protected resource (outside the database) twice with it
    /// ([`crate::engine::resource`]).
    pub fencing: bool,
    pub faults: MysqlFaults,
    pub limits: Limits,
}

impl MysqlSpace {
    /// Two clients, one round each, a critical section of 2 ticks, a pause
    /// of 4, a lock wait timeout of 5, no faults.
    pub fn new(recipe: MysqlRecipe) -> MysqlSpace {
        MysqlSpace {
            recipe,
            clients: 2,
            acquisitions: 1,
            work: 2,
            pause: 4,
            lock_wait_timeout: 5,
            found_rows: false,
            cleanup_after: None,
            lock_row: true,
            fencing: false,
            faults: MysqlFaults::default(),
            limits: LIMITS,
        }
    }

    config_checks!();
}

impl Configured for MysqlSpace {
    /// Every time is a tick or more.
    fn own_problem(&self) -> Option<Problem> {
        let at_least_a_tick = [
            ("mysql.critical_section", Some(self.work)),
            ("mysql.pause", Some(self.pause)),
            ("mysql.lock_wait_timeout", Some(self.lock_wait_timeout)),
            ("mysql.cleanup_after", self.cleanup_after),
        ];
        let (key, _) = at_least_a_tick.into_iter().find(|(_, t)| *t == Some(0))?;
        Some((key, "expected at least 1 tick".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::MysqlFaults;

    /// `locksmith recipes` prints the budgets by these names: the scenario
    /// file's `[faults]` keys, in its order.
    #[test]
    fn each_budget_is_listed_under_its_scenario_key_in_file_order() {
        let budget = MysqlFaults {
            pauses: 1,
            crashes: 2,
            connection_drops: 3,
            network_drops: 4,
            restarts: 5,
        };
        let keys: Vec<&str> = budget.by_key().iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "pauses",
                "crashes",
                "connection_drops",
                "network_drops",
                "restarts"
            ]
        );
        let values: Vec<u8> = budget.by_key().iter().map(|(_, n)| *n).collect();
        assert_eq!(values, (1..=5).collect::<Vec<u8>>());
    }
}
