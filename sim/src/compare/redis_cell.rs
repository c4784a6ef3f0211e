//! One cell of the Redis matrix: a Redis recipe under one Redis fault
//! class, written as a Redis scenario file and judged by loading that very
//! file as `locksmith check` loads it — so the command beside the cell
//! reproduces it.

use super::backend::{cell_toml, check_file, run_cell, Backend, Fault, Row};
use super::cell::CellResult;
use super::redis_faults::{find, space, RedisFaultClass, REDIS_FAULTS, REDIS_ROWS};
use locksmith_model::redis::check::RedisSpace;

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &RedisSpace, fault: &RedisFaultClass) -> String {
    let head = Fault {
        id: fault.id,
        label: fault.label,
        about: fault.about,
    };
    let mut table = format!(
        "\n[redis]\nlease = {}\ncritical_section = {}\npause = {}\nskew = {}\n",
        s.lease, s.work, s.pause, s.skew
    );
    if s.replica {
        table.push_str("replica = true\n");
    }
    cell_toml(s, &head, &table)
}

/// Runs the cell `recipe` × `fault` (ids of [`REDIS_ROWS`] and
/// [`REDIS_FAULTS`](super::redis_faults::REDIS_FAULTS)); `out` is the
/// report folder as the commands name it.
pub fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let row = REDIS_ROWS
        .iter()
        .find(|r| r.recipe.id() == recipe)
        .ok_or_else(|| format!("no Redis recipe `{recipe}`"))?;
    let class = find(fault).ok_or_else(|| format!("no Redis fault class `{fault}`"))?;
    let mut s = space(row);
    (class.apply)(&mut s);
    let text = to_toml(&s, class);
    run_cell(recipe, fault, out, text, check_file::<RedisSpace>)
}

/// The Redis matrix, as the report's pages draw it.
pub static REDIS: Backend = Backend {
    name: "Redis",
    key: "redis",
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
    rows: || {
        REDIS_ROWS
            .iter()
            .map(|r| Row {
                recipe: r.recipe.id(),
                clients: r.clients,
                claim: r.claim,
                instead: r.instead,
            })
            .collect()
    },
    faults: || {
        REDIS_FAULTS
            .iter()
            .map(|f| Fault {
                id: f.id,
                label: f.label,
                about: f.about,
            })
            .collect()
    },
    run,
};
