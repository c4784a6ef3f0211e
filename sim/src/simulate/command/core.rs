//! What every command backend's world holds and judges alike: its clients
//! as the world sees them, the run's record (trace, violations, counts)
//! and, when the scenario fences, the protected resource. Mutual exclusion
//! is judged here, with the checker's definition: a `lock()` returns while
//! another live client believes it holds.

use super::fencing::Fencing;
use super::run_clock::stamp;
use super::BackendRun;
use locksmith_model::engine::harness::{Phase, Property};
use std::collections::BTreeSet;

/// One client as the world sees it.
pub struct Client {
    pub phase: Phase,
    pub crashed: bool,
    /// Its last reply said it won the lock (its tenure began at the server
    /// before it read it).
    pub won: bool,
    pub node: Option<madsim::task::NodeId>,
}

impl Client {
    pub fn in_tenure(&self) -> bool {
        self.phase.holds() || self.won
    }

    /// Crashed, or out of its loop for good.
    pub fn done(&self) -> bool {
        self.crashed || matches!(self.phase, Phase::Finished | Phase::Died)
    }
}

pub struct Core {
    pub clients: Vec<Client>,
    /// The resource and the tenures, when the scenario fences.
    pub fencing: Option<Fencing>,
    violation: Option<(Property, String)>,
    violated: BTreeSet<Property>,
    trace: Option<Vec<String>>,
    pub acquisitions: u64,
    /// Commands or statements the server ran.
    pub commands: u64,
    /// Watch events the server sent the clients (etcd's: the Redis and
    /// MySQL locks poll).
    pub notifications: u64,
}

impl Core {
    pub fn new(clients: usize, trace: bool, fenced: bool) -> Core {
        Core {
            clients: (0..clients)
                .map(|_| Client {
                    phase: Phase::Idle,
                    crashed: false,
                    won: false,
                    node: None,
                })
                .collect(),
            fencing: fenced.then(|| Fencing::new(clients)),
            violation: None,
            violated: BTreeSet::new(),
            trace: trace.then(Vec::new),
            acquisitions: 0,
            commands: 0,
            notifications: 0,
        }
    }

    /// A trace line, stamped with the simulated time (built only when the
    /// run keeps a trace).
    pub fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(t) = &mut self.trace {
            t.push(format!("{}  {}", stamp(), line()));
        }
    }

    pub fn violate(&mut self, p: Property, why: String) {
        self.note(|| format!("VIOLATION {p}: {why}"));
        self.violated.insert(p);
        if self.violation.is_none() {
            self.violation = Some((p, why));
        }
    }

    /// `c`'s `lock()` returned: mutual exclusion holds if no other live
    /// client believes it holds.
    pub fn acquired(&mut self, c: usize) {
        self.acquisitions += 1;
        self.clients[c].won = false;
        let others: Vec<String> = (0..self.clients.len())
            .filter(|&o| o != c && !self.clients[o].crashed && self.clients[o].phase.holds())
            .map(|o| format!("c{o}"))
            .collect();
        self.note(|| format!("c{c} acquired"));
        if !others.is_empty() {
            self.violate(
                Property::MutualExclusion,
                format!(
                    "c{c} acquired while {} still believed it held the lock",
                    others.join(", ")
                ),
            );
        }
    }

    /// `c`'s tenure is over: the resource forgets it as a writer.
    pub fn tenure_ends(&mut self, c: usize) {
        if let Some(f) = &mut self.fencing {
            f.tenure_ends(c);
        }
    }

    /// `c`'s lock was just granted at the server.
    pub fn tenure_begins(&mut self, c: usize) {
        if let Some(f) = &mut self.fencing {
            f.tenure_begins(c);
        }
    }

    pub fn all_done(&self) -> bool {
        self.clients.iter().all(Client::done)
    }

    /// The run's result.
    pub fn into_run(&mut self, seed: u64) -> BackendRun {
        BackendRun {
            seed,
            violation: self.violation.clone(),
            violated: self.violated.clone(),
            trace: self.trace.take().unwrap_or_default(),
            acquisitions: self.acquisitions,
            commands: self.commands,
            notifications: self.notifications,
        }
    }
}
