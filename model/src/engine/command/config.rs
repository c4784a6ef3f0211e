//! The configuration the command backends share (Redis, MySQL, etcd):
//! their defaults (two clients, one round each, the bounds) and their
//! checks (their clients and rounds, a lease-bound lock's times, the jobs,
//! and the error a `validate` returns), each problem named by its scenario
//! key.

use super::backend::Backend;
use crate::engine::space::Limits;

/// The most clients a configuration may have (the engine's bound).
pub use crate::engine::space::MAX_CLIENTS;

/// A configuration's bounds until its scenario says otherwise.
pub const LIMITS: Limits = Limits {
    max_states: 2_000_000,
    max_depth: usize::MAX,
    max_memory: 2 << 30,
    max_time: None,
    starvation: true,
    jobs: 1,
};

/// A configuration's problem: the scenario file's key at fault (`clients`,
/// `redis.lease`, `faults.failovers`, ...) and what was expected.
pub type Problem = (&'static str, String);

/// A command backend's configuration checks of its own.
pub trait Configured: Backend {
    /// What is wrong with the configuration's own settings, if anything
    /// (the engine checks the clients, rounds and jobs around it:
    /// [`problem`]).
    fn own_problem(&self) -> Option<Problem>;
}

/// What is wrong with `b`'s configuration, if anything: its clients and
/// rounds, then its own settings ([`Configured::own_problem`]), then its
/// jobs.
pub fn problem<B: Configured>(b: &B) -> Option<Problem> {
    let h = b.harness();
    rounds_problem(h.clients, h.acquisitions, MAX_CLIENTS)
        .or_else(|| b.own_problem())
        .or_else(|| (h.limits.jobs == 0).then(|| ("jobs", "expected at least 1".into())))
}

/// A configuration's problem (the scenario key at fault, what was
/// expected) as the error `validate` returns.
pub fn as_error(problem: Option<Problem>) -> Result<(), String> {
    problem.map_or(Ok(()), |(key, why)| Err(format!("{key}: {why}")))
}

/// What is wrong with a command backend's clients and rounds, if anything.
fn rounds_problem(clients: u8, acquisitions: u8, max: u8) -> Option<Problem> {
    if clients == 0 || clients > max {
        return Some((
            "clients",
            format!("expected 1 to {max} clients, got {clients}"),
        ));
    }
    if acquisitions == 0 {
        return Some(("acquisitions", "expected at least 1 round".into()));
    }
    None
}

/// The scenario keys of a lease-bound lock's times (Redis's lease, etcd's
/// TTL), and how its messages name the lease.
pub struct LeaseKeys {
    pub lease: &'static str,
    pub work: &'static str,
    pub pause: &'static str,
    /// "the lease", "the TTL".
    pub named: &'static str,
}

/// What is wrong with a lease-bound lock's times, if anything: a critical
/// section fits inside the lease, and a pause outlasts it.
pub fn lease_problem(lease: u8, work: u8, pause: u8, k: &LeaseKeys) -> Option<Problem> {
    if lease < 2 {
        return Some((
            k.lease,
            format!(
                "expected at least 2 ticks (a critical section of a tick or more fits inside it), got {lease}"
            ),
        ));
    }
    if work == 0 || work >= lease {
        return Some((
            k.work,
            format!(
                "expected 1 to {} ticks (shorter than {}), got {work}",
                lease - 1,
                k.named
            ),
        ));
    }
    if pause <= lease {
        return Some((
            k.pause,
            format!(
                "expected more than {} ({lease} ticks), got {pause}",
                k.named
            ),
        ));
    }
    None
}

/// `config_checks!()`, in a command space's own `impl`: its `validate` and
/// `problem` ([`problem`]: the engine's checks around the backend's own),
/// inherent, as the app and the tests call them.
macro_rules! config_checks {
    () => {
        /// What is wrong with the configuration, if anything.
        pub fn validate(&self) -> Result<(), String> {
            $crate::engine::command::config::as_error(self.problem())
        }

        /// What is wrong with the configuration: the scenario file's key
        /// at fault (`clients`, `redis.lease`, `faults.failovers`, ...) and
        /// what was expected.
        pub fn problem(&self) -> Option<$crate::engine::command::config::Problem> {
            $crate::engine::command::config::problem(self)
        }
    };
}

pub(crate) use config_checks;
