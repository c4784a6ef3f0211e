//! The configuration checks the command backends share (Redis, MySQL,
//! etcd): their clients and rounds, a lease-bound lock's times, and the
//! error a `validate` returns — each problem named by its scenario key.

/// A configuration's problem (the scenario key at fault, what was
/// expected) as the error `validate` returns.
pub fn as_error(problem: Option<(&'static str, String)>) -> Result<(), String> {
    problem.map_or(Ok(()), |(key, why)| Err(format!("{key}: {why}")))
}

/// What is wrong with a command backend's clients and rounds, if anything.
pub fn rounds_problem(clients: u8, acquisitions: u8, max: u8) -> Option<(&'static str, String)> {
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
pub fn lease_problem(
    lease: u8,
    work: u8,
    pause: u8,
    k: &LeaseKeys,
) -> Option<(&'static str, String)> {
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
