//! The "confirmed on a real server" marks — ✔ ZK, ✔ Redis: which violated
//! checker cells had their shortest trace re-enacted and confirmed on a
//! real server by `locksmith confirm`, read from committed records
//! (`confirmed.toml` for ZooKeeper, `confirmed-redis.toml` for Redis)
//! rather than a live run, so that the report stays a function of the
//! repository.
//!
//! A record names each cell with a fingerprint of its trace (every step's
//! actor and line): a cell is marked only if the trace the checker finds
//! now is the one that was confirmed. The records are written, and checked
//! against the real servers, by `sim/tests/confirm.rs` and
//! `sim/tests/confirm_redis.rs` (CI: `scripts/ci-conformance.sh`,
//! `scripts/ci-redis.sh`).

use crate::matrix::backend::cell_id;
use crate::matrix::cell::CellResult;
/// What a record keeps of a trace (the tests that write the records use it).
pub use crate::matrix::fingerprint::{fingerprint, of_trace};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The committed ZooKeeper record.
pub const RECORD: &str = include_str!("confirmed.toml");
/// Its path in the repository, for whoever writes it.
pub const RECORD_PATH: &str = "sim/src/compare/confirmed.toml";
/// The committed Redis record.
pub const REDIS_RECORD: &str = include_str!("confirmed-redis.toml");
pub const REDIS_RECORD_PATH: &str = "sim/src/compare/confirmed-redis.toml";

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The server the cells were confirmed on (`ZooKeeper 3.8.0`).
    #[serde(default)]
    pub server: String,
    /// Cell id → fingerprint of its confirmed trace.
    #[serde(default)]
    pub cells: BTreeMap<String, String>,
}

fn records() -> &'static [Record; 2] {
    static R: OnceLock<[Record; 2]> = OnceLock::new();
    // The records are compiled in; a malformed one is caught by the tests
    // (`the_records_parse`), and marks nothing meanwhile.
    R.get_or_init(|| [RECORD, REDIS_RECORD].map(|t| toml::from_str(t).unwrap_or_default()))
}

/// The ZooKeeper record's server.
pub fn server() -> &'static str {
    &records()[0].server
}

/// The Redis record's server.
pub fn redis_server() -> &'static str {
    &records()[1].server
}

/// The mark's short name for a record's server: `ZK`, `Redis`.
pub fn short(server: &str) -> &'static str {
    if server.starts_with("Redis") {
        "Redis"
    } else {
        "ZK"
    }
}

/// The server cell `id` was confirmed on, if its trace is the recorded one.
pub fn mark(id: &str, fingerprint: &str) -> Option<String> {
    records()
        .iter()
        .find(|r| r.cells.get(id).map(String::as_str) == Some(fingerprint))
        .map(|r| r.server.clone())
}

/// Marks the cell with the server its trace was confirmed on, if its
/// trace is the recorded one (a simulator's trace has no fingerprint).
pub fn mark_cell(c: &mut CellResult) {
    c.confirmed = c
        .trace
        .as_ref()
        .and_then(|t| mark(&cell_id(&c.recipe, &c.fault), &t.fingerprint));
}

/// The record as `confirmed.toml` holds it; `test` is the test that
/// writes it (`confirm`, `confirm_redis`).
pub fn render(server: &str, test: &str, cells: &BTreeMap<String, String>) -> String {
    let mut out = format!(
        "# Cells of the comparison whose checker trace `locksmith confirm` re-enacted\n\
         # and confirmed on a real server: cell id = fingerprint of the trace.\n\
         # Written by `LOCKSMITH_RECORD_CONFIRMED=1 cargo test -p locksmith --test {test}\n\
         # -- --ignored` against a server; checked against one in CI.\n",
    );
    out.push_str(&format!("server = {server:?}\n\n[cells]\n"));
    for (id, f) in cells {
        out.push_str(&format!("{id:?} = {f:?}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_parse() {
        for text in [RECORD, REDIS_RECORD] {
            let r: Record = toml::from_str(text).expect("confirmed.toml");
            assert!(r.cells.values().all(|f| f.len() == 16));
        }
        assert_eq!(short(server()), "ZK");
    }
}
