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

use super::command::{command_space_fields, CommandScenario, CommandSpace};
use super::reading::Reading;
use super::ScenarioError;
use crate::expect::RawExpect;
use locksmith_model::catalogue::Backend;
use locksmith_model::mysql::check::mermaid;
use locksmith_model::mysql::check::{MysqlFaults, MysqlSpace};
use locksmith_model::mysql::recipes::MysqlRecipe;
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    recipe: String,
    #[serde(deserialize_with = "super::clients::clients")]
    clients: u8,
    #[serde(default = "one")]
    acquisitions: u8,
    #[serde(default)]
    description: String,
    #[serde(default)]
    fencing: bool,
    #[serde(default)]
    mysql: RawTime,
    #[serde(default)]
    faults: MysqlFaults,
    #[serde(default)]
    expect: Option<RawExpect>,
    #[serde(default)]
    check: super::bounds::Bounds,
}

fn one() -> u8 {
    1
}

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
pub type MysqlScenario = CommandScenario<MysqlSpace>;

impl CommandScenario<MysqlSpace> {
    pub fn recipe(&self) -> MysqlRecipe {
        self.space.recipe
    }

    pub fn parse(path: &Path, text: &str) -> Result<Self, ScenarioError> {
        let r = Reading { path, text };
        let raw: Raw = r.raw()?;
        let recipe = r.recipe(&raw.recipe, Backend::Mysql, MysqlRecipe::parse)?;
        let mut space = MysqlSpace::new(recipe);
        space.clients = raw.clients;
        space.acquisitions = raw.acquisitions;
        let t = &raw.mysql;
        space.work = t.critical_section.unwrap_or(space.work);
        space.pause = t.pause.unwrap_or(space.pause);
        space.lock_wait_timeout = t.lock_wait_timeout.unwrap_or(space.lock_wait_timeout);
        space.found_rows = t.found_rows;
        space.fencing = raw.fencing;
        space.cleanup_after = t.cleanup_after;
        space.lock_row = t.lock_row.unwrap_or(true);
        space.faults = raw.faults;
        r.scenario(space, &raw.check, raw.expect.as_ref(), raw.description)
    }
}

impl CommandSpace for MysqlSpace {
    command_space_fields!();
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
