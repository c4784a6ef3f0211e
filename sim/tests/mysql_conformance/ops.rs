//! The generated sequences: statements on three lock names from three
//! connections, with lock wait timeouts and killed connections.

use locksmith_model::mysql::{Name, SetVersion, Statement};
use proptest::prelude::*;

/// How many connections a case opens.
pub const CONNECTIONS: usize = 3;

/// The lock names. In the real table a row no statement touches sits
/// between each pair (`b`, `d`), so that each name has a gap of its own,
/// as the model's per-name gap locks assume.
pub const NAMES: [&str; 3] = ["a", "c", "e"];

/// One step of a sequence.
#[derive(Clone, Debug)]
pub enum Step {
    /// Connection `conn` sends `stmt` (skipped if the connection is still
    /// waiting, or if it would leave two statements waiting at once).
    Send { conn: usize, stmt: Statement },
    /// Time passes until the first waiting statement's lock wait timeout
    /// (skipped if none waits).
    WaitTimeout,
    /// `KILL` the connection: the server rolls its transaction back; the
    /// slot reconnects.
    Kill { conn: usize },
}

fn name() -> impl Strategy<Value = Name> {
    prop_oneof![3 => Just(NAMES[0]), 3 => Just(NAMES[1]), 1 => Just(NAMES[2])].prop_map(Name::from)
}

fn status() -> impl Strategy<Value = i64> {
    -1i64..=1
}

fn set_version() -> impl Strategy<Value = SetVersion> {
    prop_oneof![
        2 => Just(SetVersion::Keep),
        1 => Just(SetVersion::Bump),
        1 => Just(SetVersion::Token),
    ]
}

fn statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        3 => Just(Statement::Begin),
        3 => Just(Statement::Commit),
        1 => Just(Statement::Rollback),
        5 => (name(), status()).prop_map(|(name, status)| Statement::Insert { name, status }),
        3 => name().prop_map(|name| Statement::Delete { name }),
        5 => name().prop_map(|name| Statement::SelectForUpdate { name }),
        1 => name().prop_map(|name| Statement::Select { name }),
        4 => (
            name(),
            status(),
            set_version(),
            proptest::option::of(status()),
            proptest::option::weighted(0.3, 0i64..3),
        )
            .prop_map(|(name, set_status, set_version, where_status, where_version)| {
                Statement::Update {
                    name,
                    set_status,
                    set_version,
                    where_status,
                    where_version,
                }
            }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        120 => (0..CONNECTIONS, statement()).prop_map(|(conn, stmt)| Step::Send { conn, stmt }),
        2 => Just(Step::WaitTimeout),
        3 => (0..CONNECTIONS).prop_map(|conn| Step::Kill { conn }),
    ]
}

/// A sequence of up to `max` steps.
pub fn sequence(max: usize) -> impl Strategy<Value = Vec<Step>> {
    proptest::collection::vec(step(), 1..=max)
}
