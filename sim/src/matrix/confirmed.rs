//! The "confirmed on a real server" marks — ✔ ZK, ✔ Redis: which violated
//! checker cells had their shortest trace re-enacted and confirmed on a
//! real server by `locksmith confirm`, read from a committed record each
//! backend with a re-enactment keeps in its folder
//! (`<backend>/compare/`, its [`Backend::record`]: a [`Committed`]) rather
//! than a live run, so that the report stays a function of the
//! repository.
//!
//! A record names each cell with a fingerprint of its trace (every step's
//! actor and line): a cell is marked only if the trace the checker finds
//! now is the one that was confirmed. The records are written, and checked
//! against the real servers, by `sim/tests/confirm.rs` and
//! `sim/tests/confirm_redis.rs` (CI: `scripts/ci-conformance.sh`,
//! `scripts/ci-redis.sh`).
//!
//! [`Backend::record`]: super::backend::Backend::record

use super::cell::{cell_id, CellResult};
use crate::confirm::line_of;
use locksmith_model::engine::TraceStep;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A record, as `confirmed.toml` holds it.
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

/// A backend's committed record: its text (compiled in), its path in the
/// repository (for the test that writes it), and the record, read once.
pub struct Committed {
    pub text: &'static str,
    pub path: &'static str,
    read: OnceLock<Record>,
}

impl Committed {
    pub const fn new(text: &'static str, path: &'static str) -> Committed {
        Committed {
            text,
            path,
            read: OnceLock::new(),
        }
    }

    /// The record; a malformed one marks nothing (the test that every
    /// backend's record parses, in `crate::compare`, catches it).
    pub fn record(&self) -> &Record {
        self.read
            .get_or_init(|| toml::from_str(self.text).unwrap_or_default())
    }
}

/// The mark's short name for a record's server: `ZK`, `Redis`.
pub fn short(server: &str) -> &'static str {
    if server.starts_with("Redis") {
        "Redis"
    } else {
        "ZK"
    }
}

/// FNV-1a (64 bits) of every step's actor and line, in hex.
pub fn fingerprint<'a>(steps: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (actor, line) in steps {
        for b in actor
            .bytes()
            .chain([b'\t'])
            .chain(line.bytes())
            .chain([b'\n'])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The fingerprint of a checker trace.
pub fn of_trace(steps: &[TraceStep]) -> String {
    let lines: Vec<(String, String)> = steps
        .iter()
        .map(|s| (s.actor.clone(), line_of(s)))
        .collect();
    fingerprint(lines.iter().map(|(a, l)| (a.as_str(), l.as_str())))
}

impl Record {
    /// The server cell `id` was confirmed on, if its trace is the recorded
    /// one.
    pub fn mark(&self, id: &str, fingerprint: &str) -> Option<String> {
        (self.cells.get(id).map(String::as_str) == Some(fingerprint)).then(|| self.server.clone())
    }

    /// Marks the cell with the server its trace was confirmed on, if its
    /// trace is the recorded one (a simulator's trace has no fingerprint).
    pub fn mark_cell(&self, c: &mut CellResult) {
        c.confirmed = c
            .trace
            .as_ref()
            .and_then(|t| self.mark(&cell_id(&c.recipe, &c.fault), &t.fingerprint));
    }
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
    fn a_fingerprint_changes_with_any_step() {
        let a = fingerprint([("c1.main", "sends x")]);
        assert_eq!(a.len(), 16);
        assert_ne!(a, fingerprint([("c2.main", "sends x")]));
        assert_ne!(a, fingerprint([("c1.main", "sends y")]));
        assert_ne!(a, fingerprint([("c1.main", "sends x"), ("c1.main", "")]));
    }
}
