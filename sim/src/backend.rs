//! What each backend can serve, declared once: the commands ask for a
//! capability instead of matching on a backend, and a command a scenario's
//! backend cannot serve is refused with one message that names the missing
//! capability (at the file's `recipe` line, exit 2).

use locksmith_model::catalogue::Backend;

/// Something a command needs of a scenario's backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// `locksmith explorer`: stateright's web UI over the checker's model.
    Explorer,
    /// `locksmith confirm`: a checker trace re-enacted on a real server.
    Confirm,
    /// `check --por`: ample sets built for the backend's actions.
    PartialOrderReduction,
    /// `check --abstract-sequences`: sequence numbers in its states.
    SequenceAbstraction,
    /// `replay --timeline`, `real --timeline`: a run's timeline of what
    /// each client sent and saw.
    Timeline,
    /// `locksmith sim`, `replay`: the deterministic simulator.
    Simulator,
    /// `locksmith real`: the recipe run against a real server.
    RealServer,
}

impl Capability {
    /// What the capability is, as a refusal names it.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Explorer => "the Explorer web UI",
            Capability::Confirm => "a trace re-enacted on a real server",
            Capability::PartialOrderReduction => {
                "partial-order reduction (ample sets built for its actions)"
            }
            Capability::SequenceAbstraction => "sequence numbers in its states to abstract",
            Capability::Timeline => "a run that records its timeline",
            Capability::Simulator => "a simulated world of its server and clients",
            Capability::RealServer => "an adapter to a real server",
        }
    }
}

/// The capabilities each backend declares.
pub fn capabilities(b: Backend) -> &'static [Capability] {
    match b {
        Backend::ZooKeeper => &[
            Capability::Explorer,
            Capability::Confirm,
            Capability::PartialOrderReduction,
            Capability::SequenceAbstraction,
            Capability::Timeline,
            Capability::Simulator,
            Capability::RealServer,
        ],
        Backend::Redis => &[
            Capability::Confirm,
            Capability::Simulator,
            Capability::RealServer,
        ],
        Backend::Mysql => &[Capability::Simulator, Capability::RealServer],
        Backend::Etcd => &[
            Capability::Simulator,
            Capability::Confirm,
            Capability::RealServer,
        ],
    }
}

/// The backend's key, as `--json` and the report spell it.
pub fn key(b: Backend) -> &'static str {
    match b {
        Backend::ZooKeeper => "zookeeper",
        Backend::Redis => "redis",
        Backend::Mysql => "mysql",
        Backend::Etcd => "etcd",
    }
}

pub fn has(b: Backend, c: Capability) -> bool {
    capabilities(b).contains(&c)
}

/// The one refusal every command gives when `recipe`'s backend lacks `c`
/// (`command`: the command and the flag that asked for it, as typed).
pub fn refusal(command: &str, b: Backend, recipe: &str, c: Capability) -> String {
    let with: Vec<&str> = Backend::ALL
        .into_iter()
        .filter(|&o| has(o, c))
        .map(Backend::name)
        .collect();
    format!(
        "recipe `{recipe}` runs on {}: `locksmith {command}` needs {}, which {} does not have (it is there for {})",
        b.name(),
        c.name(),
        b.name(),
        prose(&with)
    )
}

/// "A", "A and B", "A, B and C".
fn prose(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal names the command, the backend, what is missing and
    /// where it can be had.
    #[test]
    fn a_refusal_names_the_missing_capability_and_who_has_it() {
        let m = refusal(
            "confirm",
            Backend::Mysql,
            "mysql-status-cas",
            Capability::Confirm,
        );
        assert_eq!(
            m,
            "recipe `mysql-status-cas` runs on MySQL: `locksmith confirm` needs a trace \
             re-enacted on a real server, which MySQL does not have (it is there for \
             ZooKeeper, Redis and etcd)"
        );
        assert!(!has(Backend::Redis, Capability::Explorer));
        assert!(has(Backend::ZooKeeper, Capability::Explorer));
    }
}
