//! etcd scenario files: a recipe of the etcd backend (its id begins
//! `etcd-`), time in ticks, the faults' budgets, the checker's bounds and
//! what it must find. The checker explores them (`locksmith check`,
//! `cargo test --test scenarios`) and the etcd simulator runs them
//! (`locksmith sim`), and `locksmith real --etcd` runs their recipe on a
//! real etcd.
//!
//! ```toml
//! recipe = "etcd-mutex"
//! clients = 2
//! acquisitions = 2
//! fencing = false          # lock() returns with its key's create revision as a token;
//!                          # each critical section writes twice to a resource that
//!                          # rejects a token lower than the highest it accepted
//!
//! [etcd]                   # time in ticks
//! ttl = 3                  # the session's lease TTL (concurrency.WithTTL)
//! critical_section = 2     # shorter than the TTL (default: ttl - 1)
//! pause = 4                # a pause's or a partition's length, longer than the TTL (default: ttl + 1)
//!
//! [faults]                 # budgets per run
//! pauses = 0               # a client's process stops for `pause` ticks: no steps, no keep-alives
//! crashes = 0              # a client's process crashes: its keys stay until its lease runs out
//! revokes = 0              # a client's lease is revoked: its keys go at once
//! waiter_expiries = 1      # a waiter's lease expires while it waits in lock() (etcd-io/etcd#11456)
//! compactions = 0          # the store is compacted to its current revision
//! late_unlocks = 0         # an unlock's Delete arrives after its caller gave up (etcd-io/etcd#22082)
//! partitions = 0           # a client's link is cut for `pause` ticks: no keep-alives, its process runs on
//!
//! [expect]                 # as for ZooKeeper (crate::expect)
//! verdict = "violated"
//! property = "mutual exclusion"
//! steps = 25
//! states = 2879
//!
//! [check]
//! max_states = 2000000
//! max_depth = 200
//! max_memory_mb = 2048
//! ```

use crate::scenario::reading::command_reader;
use locksmith_model::catalogue::Backend;
use locksmith_model::etcd::check::mermaid;
use locksmith_model::etcd::check::{EtcdFaults, EtcdSpace};
use locksmith_model::etcd::recipes::EtcdRecipe;
use serde::Deserialize;

command_reader!(Backend::Etcd, EtcdRecipe, EtcdSpace, [etcd]: RawTime, EtcdFaults);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTime {
    ttl: Option<u8>,
    critical_section: Option<u8>,
    pause: Option<u8>,
}

/// An etcd scenario, ready to explore.
pub type EtcdScenario = crate::scenario::CommandScenario<EtcdSpace>;

impl RawTime {
    /// The recipe's space with these times: the critical section and the
    /// pause follow the TTL unless the file says.
    fn space(&self, recipe: EtcdRecipe) -> EtcdSpace {
        let mut s = EtcdSpace::new(recipe);
        s.ttl = self.ttl.unwrap_or(s.ttl);
        s.work = self.critical_section.unwrap_or(s.ttl.saturating_sub(1));
        s.pause = self.pause.unwrap_or(s.ttl.saturating_add(1));
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::backends::AnyScenario;
    use std::path::Path;

    #[test]
    fn an_etcd_scenario_loads_and_a_bad_key_points_at_its_line() {
        let head = "recipe = \"etcd-mutex\"\nclients = 2\n";
        let text = format!("{head}[etcd]\nttl = 4\n[faults]\nwaiter_expiries = 1\n");
        let Ok(AnyScenario::Etcd(sc)) = AnyScenario::parse(Path::new("e.toml"), &text) else {
            panic!("not an etcd scenario");
        };
        assert_eq!(
            (sc.space.ttl, sc.space.work, sc.space.pause),
            (4, 3, 5),
            "the critical section and the pause follow the TTL"
        );
        assert_eq!(sc.space.faults.waiter_expiries, 1);
        let bad = format!("{head}[etcd]\nlease = 3\n");
        let e = AnyScenario::parse(Path::new("e.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("e.toml:4:1: unknown field `lease`"), "{e}");
        let short = format!("{head}[etcd]\nttl = 3\npause = 2\n");
        let e = AnyScenario::parse(Path::new("e.toml"), &short)
            .unwrap_err()
            .to_string();
        assert!(e.contains("etcd.pause: expected more than the TTL"), "{e}");
    }
}
