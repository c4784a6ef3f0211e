//! What the simulators of the backends other than ZooKeeper share: one
//! seed's result, and the protected resource with the tenures a fenced
//! run keeps (`fencing = true`), as the checkers have them — a tenure
//! begins when the server grants the lock, numbered in that order, and
//! the critical section writes to the resource twice with its token. The
//! resource is the harness's (the one the ZooKeeper simulator and every
//! checker use): it judges mutual exclusion at the resource and fenced
//! safety by what reached it.

use locksmith_model::engine::harness::resource::{Outcome, Resource, Write};
use locksmith_model::engine::harness::Property;
use std::collections::BTreeSet;

/// What one seed found.
#[derive(Clone, Debug)]
pub struct BackendRun {
    pub seed: u64,
    /// The first violation.
    pub violation: Option<(Property, String)>,
    /// Every property the run violated.
    pub violated: BTreeSet<Property>,
    /// One line per event, with its simulated time (empty unless asked).
    pub trace: Vec<String>,
    pub acquisitions: u64,
    /// Commands or statements the server ran.
    pub commands: u64,
}

/// The resource and the tenures, when the scenario fences.
pub struct Fencing {
    resource: Resource,
    /// Tenures begun so far.
    tenures: u64,
    /// Each client's current tenure (0: none).
    tenure: Vec<u64>,
}

impl Fencing {
    pub fn new(clients: usize) -> Fencing {
        Fencing {
            resource: Resource::new(true),
            tenures: 0,
            tenure: vec![0; clients],
        }
    }

    /// `c`'s lock was just granted at the server.
    pub fn tenure_begins(&mut self, c: usize) {
        if self.tenure[c] == 0 {
            self.tenures += 1;
            self.tenure[c] = self.tenures;
        }
    }

    /// `c`'s tenure is over (it released, or its process is gone).
    pub fn tenure_ends(&mut self, c: usize) {
        self.tenure[c] = 0;
        self.resource.writer_gone(c);
    }

    /// `c` writes to the resource with `token`, opening (`begin`) or
    /// closing its critical section: the trace's line, and the properties
    /// the write broke.
    pub fn write(
        &mut self,
        c: usize,
        token: u64,
        begin: bool,
    ) -> (String, Vec<(Property, String)>) {
        let w = Write {
            client: c,
            tenure: self.tenure[c],
            token: Some(token),
            begin,
        };
        let what = if begin { "begin" } else { "end" };
        let accepted = format!("resource accepts c{c}'s {what} write, token {token}");
        match self.resource.apply(w) {
            Outcome::Accepted => (accepted, Vec::new()),
            Outcome::Stale { newest } => (
                format!(
                    "resource rejects c{c}'s {what} write: token {token} < {newest} (stale holder)"
                ),
                Vec::new(),
            ),
            Outcome::Violation(broken) => (accepted, broken),
        }
    }
}

/// A fault's target: a random client of `live`, the holders among them
/// (`holds`) half the time when there are any — a fault that finds no
/// holder shows little.
pub fn target(
    live: impl Iterator<Item = usize>,
    holds: impl Fn(usize) -> bool,
    rng: &mut impl madsim::rand::Rng,
) -> Option<usize> {
    let live: Vec<usize> = live.collect();
    let holders: Vec<usize> = live.iter().copied().filter(|&c| holds(c)).collect();
    let pool = if !holders.is_empty() && rng.gen_bool(0.5) {
        holders
    } else {
        live
    };
    (!pool.is_empty()).then(|| pool[rng.gen_range(0..pool.len())])
}
