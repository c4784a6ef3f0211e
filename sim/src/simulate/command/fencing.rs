//! Fencing in the command simulators (`fencing = true`), as their checkers
//! have it: a tenure begins when the server grants the lock, numbered in
//! that order, and the critical section writes to the resource twice with
//! its token. The resource is the harness's (the one the ZooKeeper
//! simulator and every checker use): it judges mutual exclusion at the
//! resource and fenced safety by what reached it.

use super::run_clock::micros;
use super::{lock, CommandWorld};
use locksmith_model::engine::harness::resource::{Outcome, Resource, Write};
use locksmith_model::engine::harness::Property;
use std::sync::{Arc, Mutex};

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

/// `c` writes to the resource with `token`, opening (`begin`) or closing
/// its critical section; the write arrives after a link's latency.
pub async fn write<W: CommandWorld>(world: &Arc<Mutex<W>>, c: usize, token: u64, begin: bool) {
    madsim::time::sleep(micros(100, 1000)).await;
    let mut w = lock(world);
    let core = w.core();
    let Some(f) = core.fencing.as_mut() else {
        return;
    };
    let (line, broken) = f.write(c, token, begin);
    core.note(|| line);
    for (p, why) in broken {
        core.violate(p, why);
    }
}
