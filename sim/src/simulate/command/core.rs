//! What every command backend's world holds and judges alike: the run's
//! setup (its scenario's sizes, times and fault budgets), its clients as
//! the world sees them, the run's record (trace, violations, counts) and,
//! when the scenario fences, the protected resource. Mutual exclusion is
//! judged here, with the checker's definition: a `lock()` returns while
//! another live client believes it holds.

use super::fencing::Fencing;
use super::run_clock::stamp;
use super::BackendRun;
use crate::scenario::CommandSpace;
use locksmith_model::engine::harness::{LockEvent, Phase, Property, StepKind};
use std::collections::BTreeSet;

/// What a run is set up with, times in checker ticks: its scenario's (the
/// checker's configuration, [`Setup::of`]), with the simulator's clients
/// and rounds.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    pub clients: usize,
    /// Rounds of the harness loop per client.
    pub rounds: u8,
    /// How long a pause lasts.
    pub pause: u8,
    /// How long a critical section lasts.
    pub work: u8,
    /// Each critical section writes to the fenced resource.
    pub fencing: bool,
    /// Each fault class's budget, by its scenario key.
    pub budgets: Vec<(&'static str, u8)>,
}

impl Setup {
    /// The setup of a command backend's checker space.
    pub fn of<S: CommandSpace>(space: &S) -> Setup {
        Setup {
            clients: usize::from(space.clients()),
            rounds: space.acquisitions(),
            pause: space.pause(),
            work: space.work(),
            fencing: space.fencing(),
            budgets: space.fault_budgets(),
        }
    }

    /// The budget of the fault class `key` (none: 0).
    pub fn budget(&self, key: &str) -> u8 {
        self.budgets
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |&(_, n)| n)
    }
}

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
    pub setup: Setup,
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
    pub fn new(setup: Setup, trace: bool) -> Core {
        let clients = setup.clients;
        Core {
            fencing: setup.fencing.then(|| Fencing::new(clients)),
            setup,
            clients: (0..clients)
                .map(|_| Client {
                    phase: Phase::Idle,
                    crashed: false,
                    won: false,
                    node: None,
                })
                .collect(),
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

    /// A lock event of `c`'s, as a command backend's world records it by
    /// default: an acquisition judged, a release, a give-up or a death in
    /// the trace, a release ending the tenure.
    pub fn event(&mut self, c: usize, e: LockEvent) {
        match e {
            LockEvent::Acquired => self.acquired(c),
            LockEvent::Released => {
                self.note(|| format!("c{c} released (critical section over)"));
                self.tenure_ends(c);
            }
            LockEvent::GaveUp => self.note(|| format!("c{c} gave up")),
            LockEvent::ThreadDied(why) => self.note(|| format!("c{c} threw {why}")),
            _ => {}
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

    /// `c`'s last reply granted it the lock (`won`: its tenure begins) or
    /// did not.
    pub fn won(&mut self, c: usize, won: bool) {
        self.clients[c].won = won;
        if won {
            self.tenure_begins(c);
        }
    }

    /// `c` has run its rounds: its loop ends.
    pub fn finish(&mut self, c: usize) {
        let phase = self.clients[c].phase;
        self.clients[c].phase = phase.after(StepKind::Finished, true, &mut Vec::new());
    }

    /// The latest a run ends, in ms: every client's every round taking
    /// `round` ticks, a pause and two more, four times over, and `slack`
    /// ms besides (`tick`: ms per tick).
    pub fn bound_ms(&self, round: u64, tick: u64, slack: u64) -> u64 {
        let s = &self.setup;
        u64::from(s.rounds) * s.clients as u64 * (round + u64::from(s.pause) + 2) * tick * 4 + slack
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
