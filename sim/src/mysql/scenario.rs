//! MySQL scenario files: a recipe of the MySQL backend (its id begins
//! `mysql-`), time in ticks, the faults' budgets, the checker's bounds and
//! what it must find. The checker explores them (`locksmith check`,
//! `cargo test --test scenarios`), the MySQL simulator runs them
//! (`locksmith sim`), and `locksmith real` takes their recipe to a real
//! server.
//!
//! ```toml
//! recipe = "mysql-unique-key"
//! clients = 2
//! acquisitions = 1
//! fencing = false          # lock() returns with a token the database hands out
//!                          # (the unique key's id; the status or locked row's
//!                          # version); each critical section writes to the
//!                          # protected resource twice with it
//!
//! [mysql]                  # time in ticks
//! critical_section = 2
//! pause = 4                # a pause fault's length
//! lock_wait_timeout = 5    # every session's innodb_lock_wait_timeout
//! found_rows = false       # every connection sets CLIENT_FOUND_ROWS
//! cleanup_after = 3        # a cleanup job frees a lock row this many ticks old (default: none)
//! lock_row = true          # the status/FOR UPDATE lock row exists before the run
//!
//! [faults]
//! pauses = 0               # a client's process stops for `pause` ticks
//! crashes = 1              # a client's process crashes: its connection closes
//! connection_drops = 0     # the server drops a connection (KILL); the process goes on
//! network_drops = 0        # the network drops one; the server notices later
//! restarts = 0             # the server restarts: every connection is gone
//!
//! [expect]                 # as for ZooKeeper (crate::expect)
//! verdict = "violated"
//! property = "stuck lock"
//! steps = 3
//! states = 268
//!
//! [check]
//! max_states = 2000000
//! max_depth = 200
//! max_memory_mb = 2048
//! ```

use crate::scenario::reading::command_reader;
use locksmith_model::catalogue::Backend;
use locksmith_model::mysql::check::mermaid;
use locksmith_model::mysql::check::{MysqlFaults, MysqlSpace};
use locksmith_model::mysql::recipes::MysqlRecipe;
use serde::Deserialize;

command_reader!(Backend::Mysql, MysqlRecipe, MysqlSpace, [mysql]: RawTime, MysqlFaults);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTime {
    critical_section: Option<u8>,
    pause: Option<u8>,
    lock_wait_timeout: Option<u8>,
    cleanup_after: Option<u8>,
    #[serde(default)]
    found_rows: bool,
    lock_row: Option<bool>,
}

/// A MySQL scenario, ready to explore.
pub type MysqlScenario = crate::scenario::CommandScenario<MysqlSpace>;

impl RawTime {
    /// The recipe's space with these times (each default the model's).
    fn space(&self, recipe: MysqlRecipe) -> MysqlSpace {
        let mut s = MysqlSpace::new(recipe);
        s.work = self.critical_section.unwrap_or(s.work);
        s.pause = self.pause.unwrap_or(s.pause);
        s.lock_wait_timeout = self.lock_wait_timeout.unwrap_or(s.lock_wait_timeout);
        s.found_rows = self.found_rows;
        s.cleanup_after = self.cleanup_after;
        s.lock_row = self.lock_row.unwrap_or(true);
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::backends::AnyScenario;
    use std::path::Path;

    #[test]
    fn a_mysql_scenario_loads_and_a_bad_key_points_at_its_line() {
        let head = "recipe = \"mysql-status-cas\"\nclients = 2\n";
        let text = format!("{head}[mysql]\nlock_wait_timeout = 3\n[faults]\ncrashes = 1\n");
        let Ok(AnyScenario::Mysql(sc)) = AnyScenario::parse(Path::new("m.toml"), &text) else {
            panic!("not a MySQL scenario");
        };
        assert_eq!(
            (sc.space.lock_wait_timeout, sc.space.faults.crashes),
            (3, 1)
        );
        let bad = format!("{head}[mysql]\nlease = 3\n");
        let e = AnyScenario::parse(Path::new("m.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:4:1: unknown field `lease`"), "{e}");
        let zero = format!("{head}[mysql]\nlock_wait_timeout = 0\n");
        let e = AnyScenario::parse(Path::new("m.toml"), &zero)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("mysql.lock_wait_timeout: expected at least 1"),
            "{e}"
        );
    }
}
