//! Redis scenario files: a recipe of the Redis backend (its id begins
//! `redis-`), time in ticks, the Redis faults' budgets, the checker's
//! bounds and what it must find. The checker explores them (`locksmith
//! check`, `cargo test --test scenarios`), the Redis simulator runs them
//! (`locksmith sim`), and `locksmith real` and `confirm` take their
//! recipe to a real server.
//!
//! ```toml
//! recipe = "redis-set-px-del"
//! clients = 2
//! acquisitions = 1
//! fencing = false          # lock() ends with INCR of a token; each critical section
//!                          # writes twice to a resource that rejects older tokens
//!
//! [redis]                  # time in ticks (a tick is one model millisecond)
//! lease = 3                # PX, or a timestamp recipe's timeout
//! critical_section = 2     # shorter than the lease (default: lease - 1)
//! pause = 4                # a pause fault's length, longer than the lease (default: lease + 1)
//! skew = 4                 # how far a clock jump moves a client's clock (default: lease + 1)
//! replica = false          # a replica behind asynchronous replication
//!
//! [faults]                 # budgets per run
//! pauses = 1               # a client's process stops for `pause` ticks, at any step
//! crashes = 0              # a client's process crashes: its connection closes, its keys stay
//! clock_jumps = 0          # a client's clock jumps `skew` ticks ahead or back
//! restarts = 0             # the server restarts without persistence (between commands)
//! failovers = 0            # the replica takes over without the writes it missed
//! server_clock_jumps = 0   # the server's clock jumps `skew` ticks ahead (TTLs shrink) or back
//!
//! [expect]                 # as for ZooKeeper (crate::expect)
//! verdict = "violated"
//! property = "mutual exclusion"
//! violated = { "unlock by non-owner" = 20 }
//! steps = 15
//! states = 1061
//!
//! [check]
//! max_states = 2000000
//! max_depth = 200
//! max_memory_mb = 2048
//! ```

use crate::scenario::reading::command_reader;
use locksmith_model::catalogue::Backend;
use locksmith_model::redis::check::mermaid;
use locksmith_model::redis::check::{RedisFaults, RedisSpace};
use locksmith_model::redis::recipes::RedisRecipe;
use serde::Deserialize;

command_reader!(Backend::Redis, RedisRecipe, RedisSpace, [redis]: RawTime, RedisFaults);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTime {
    lease: Option<u8>,
    critical_section: Option<u8>,
    pause: Option<u8>,
    skew: Option<u8>,
    #[serde(default)]
    replica: bool,
}

/// A Redis scenario, ready to explore.
pub type RedisScenario = crate::scenario::CommandScenario<RedisSpace>;

impl RawTime {
    /// The recipe's space with these times: the critical section, the
    /// pause and the skew follow the lease unless the file says.
    fn space(&self, recipe: RedisRecipe) -> RedisSpace {
        let mut s = RedisSpace::new(recipe);
        s.lease = self.lease.unwrap_or(s.lease);
        s.work = self.critical_section.unwrap_or(s.lease.saturating_sub(1));
        s.pause = self.pause.unwrap_or(s.lease.saturating_add(1));
        s.skew = self.skew.unwrap_or(s.lease.saturating_add(1));
        s.replica = self.replica;
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::backends::AnyScenario;
    use crate::zk::scenario::Scenario;
    use std::path::Path;

    fn error(text: &str) -> String {
        match AnyScenario::parse(Path::new("r.toml"), text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    const HEAD: &str = "recipe = \"redis-set-px-del\"\nclients = 2\n";

    #[test]
    fn a_redis_scenario_loads_with_its_defaults_from_the_lease() {
        let text = format!("{HEAD}[redis]\nlease = 5\n[faults]\npauses = 1\n");
        let Ok(AnyScenario::Redis(sc)) = AnyScenario::parse(Path::new("r.toml"), &text) else {
            panic!("not a Redis scenario");
        };
        let s = &sc.space;
        assert_eq!((s.lease, s.work, s.pause, s.skew), (5, 4, 6, 6));
        assert_eq!(s.faults.pauses, 1);
    }

    #[test]
    fn a_broken_time_rule_points_at_its_key() {
        let e = error(&format!("{HEAD}[redis]\nlease = 3\ncritical_section = 3\n"));
        assert!(
            e.starts_with("r.toml:5:1: redis.critical_section: expected 1 to 2 ticks"),
            "{e}"
        );
        let e = error(&format!("{HEAD}[redis]\nlease = 3\npause = 2\n"));
        assert!(
            e.starts_with("r.toml:5:1: redis.pause: expected more than the lease"),
            "{e}"
        );
        let e = error(&format!("{HEAD}[faults]\nfailovers = 1\n"));
        assert!(e.starts_with("r.toml:4:1: faults.failovers:"), "{e}");
        assert!(e.contains("replica = true"), "{e}");
    }

    #[test]
    fn zookeeper_keys_in_a_redis_scenario_are_refused_with_their_line() {
        let e = error(&format!("{HEAD}[faults]\nwaiter_expiries = 1\n"));
        assert!(
            e.starts_with("r.toml:4:1: unknown field `waiter_expiries`"),
            "{e}"
        );
        assert!(e.contains("expected one of `pauses`"), "{e}");
        let e = error(&format!("{HEAD}[sim]\nseeds = 3\n"));
        assert!(e.starts_with("r.toml:3:"), "{e}");
    }

    #[test]
    fn the_redis_properties_can_be_expected_and_a_wrong_one_is_refused() {
        let ok = format!(
            "{HEAD}[expect]\nverdict = \"violated\"\nproperty = \"stuck lock\"\nholds = [\"unlock by non-owner\"]\n"
        );
        assert!(AnyScenario::parse(Path::new("r.toml"), &ok).is_ok());
        let e = error(&format!(
            "{HEAD}[expect]\nverdict = \"holds\"\nholds = [\"unlock by stranger\"]\n"
        ));
        assert!(e.starts_with("r.toml:5:10: unknown property"), "{e}");
    }

    #[test]
    fn a_recipe_no_backend_has_is_named_before_the_keys_are_read() {
        let e = error("clients = 2\nrecipe = \"redis-setnx-expir\"\n[redis]\nlease = 3\n");
        assert!(
            e.starts_with("r.toml:2:1: unknown recipe `redis-setnx-expir`: expected one of"),
            "{e}"
        );
        assert!(e.contains("(ZooKeeper), redis-set-px-del"), "{e}");
        assert!(
            e.ends_with("(etcd); did you mean `redis-setnx-expire`?"),
            "{e}"
        );
        // The Redis loader itself, handed another backend's recipe.
        let e =
            super::RedisScenario::parse(Path::new("r.toml"), "recipe = \"curator\"\nclients = 2\n")
                .unwrap_err()
                .to_string();
        assert_eq!(
            e,
            "r.toml:1:1: recipe `curator` runs on ZooKeeper: expected a Redis recipe here"
        );
    }

    #[test]
    fn a_zookeeper_command_refuses_a_redis_scenario_at_its_recipe() {
        let text = format!(
            "clients = 2\n{HEAD}",
            HEAD = "recipe = \"redis-acquirelock\"\n"
        );
        let e = Scenario::parse(Path::new("r.toml"), &text)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("r.toml:2:1: recipe `redis-acquirelock` runs on Redis"),
            "{e}"
        );
        assert!(e.contains("expected a ZooKeeper recipe"), "{e}");
    }
}
