//! One cell of the Redis matrix: a Redis recipe under one Redis fault
//! class, written as a Redis scenario file and judged by loading that very
//! file as `locksmith check` loads it — so the command beside the cell
//! reproduces it.

use super::rows::{space, REDIS_ROWS};
use crate::matrix::axes::Row;
use crate::matrix::backend::Backend;
use crate::matrix::command::{columns, rows, run, CommandMatrix, FaultClass};
use crate::matrix::command_pages::CommandPages;
use crate::matrix::confirmed::Committed;
use crate::redis::faults::REDIS_FAULTS;
use locksmith_model::redis::check::RedisSpace;

impl CommandMatrix for RedisSpace {
    const ROWS: &'static [Row] = REDIS_ROWS;
    const FAULTS: &'static [FaultClass<RedisSpace>] = REDIS_FAULTS;

    fn row_space(row: &Row) -> Option<RedisSpace> {
        space(row)
    }

    fn table(&self) -> String {
        let mut table = format!(
            "\n[redis]\nlease = {}\ncritical_section = {}\npause = {}\nskew = {}\n",
            self.lease, self.work, self.pause, self.skew
        );
        if self.replica {
            table.push_str("replica = true\n");
        }
        table
    }
}

/// The Redis matrix.
pub static REDIS: Backend = Backend {
    name: "Redis",
    key: "redis",
    rows: rows::<RedisSpace>,
    faults: columns::<RedisSpace>,
    run: run::<RedisSpace>,
    costs: None,
    never_produced: &[],
    record: Some(&CONFIRMED),
    pages: &PAGES,
};

/// Its cells confirmed on a real redis-server, the report's "✔ Redis"
/// marks (`confirmed-redis.toml`, written and checked by
/// `sim/tests/confirm_redis.rs`).
pub static CONFIRMED: Committed = Committed::new(
    include_str!("confirmed-redis.toml"),
    "sim/src/redis/compare/confirmed-redis.toml",
);

/// The Redis matrix's prose, as the report's pages draw it.
static PAGES: CommandPages = CommandPages {
    intro:
        "The lease locks of sources 003 and 004 on the Redis model, each cell judged by the Redis \
            checker (`locksmith check`: every interleaving of the clients' commands, the server \
            and time in ticks; shortest traces). Redis's faults are not ZooKeeper's — a Redis \
            client has no session; its lock ends with a TTL, a clock or a lost key — so they have \
            a matrix of their own, with the same properties, marks and conventions.",
    notes: "Unlock by non-owner: a client deletes or overwrites the key another client set in its \
            current tenure, while that tenure is still valid by the recipe's own rule. Stuck lock: \
            from some reachable state no client can ever acquire again (reachability, not \"a key \
            without a TTL\"). Mutual exclusion at the resource and fenced safety are judged in the \
            fenced column only; orphaned node and herd are ZooKeeper's (n/a). *✔ Redis*: the \
            cell's trace re-enacted step for step on a real redis-server by `locksmith confirm \
            --redis`, which showed the same violation (the record `confirmed-redis.toml`, checked \
            against the server in CI); the failover column's traces need a replica server, which \
            confirm does not run, so they carry no mark.",
    explored: "the clients, the Redis server and time in ticks",
};
