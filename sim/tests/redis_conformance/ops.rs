//! The generated sequences: commands over a few keys from several
//! connections, with sleeps.
//!
//! No command may race an expiry: a TTL is either long (100 s and up, far
//! past any case's duration) or short (at most [`SHORT_TTL_MAX`] ms), and a
//! command that may set a short one is followed at once by a sleep of at
//! least [`SHORT_TTL_MAX`] + [`EXPIRY_MARGIN`] ms, so by the next command
//! the key has expired on both sides.

use locksmith_model::redis::{Command, Expiry, Key, SetCondition, Value};
use proptest::prelude::*;

/// The longest short TTL, in ms.
pub const SHORT_TTL_MAX: i64 = 20;
/// How far past a short TTL the following sleep goes.
pub const EXPIRY_MARGIN: u64 = 30;

/// One step of a sequence.
#[derive(Clone, Debug)]
pub enum Step {
    /// Connection `conn` sends `cmd`.
    Send { conn: usize, cmd: Command },
    /// The test sleeps (the model advances by the measured time).
    Sleep { ms: u64 },
}

/// How many connections a case opens.
pub const CONNECTIONS: usize = 3;

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![Just("lock"), Just("lock"), Just("fence"), Just("other")].prop_map(Key::from)
}

/// Few distinct values, so that the scripts' comparisons match often.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (0i64..2).prop_map(Value::Int),
        2 => prop_oneof![Just(-1000i64), Just(30_001)].prop_map(Value::Stamp),
        1 => Just(Value::text("abc")),
        1 => Just(Value::text(&(i64::MAX - 1).to_string())),
    ]
}

/// A TTL in ms, and whether it is short.
fn ttl_ms() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 100_000i64..1_000_000,
        2 => 1i64..=SHORT_TTL_MAX,
        1 => -2i64..=0,
    ]
}

fn expiry() -> impl Strategy<Value = Option<Expiry>> {
    prop_oneof![
        2 => Just(None),
        2 => ttl_ms().prop_map(|ms| Some(Expiry::Px(ms))),
        1 => prop_oneof![100i64..1000, -1i64..=0].prop_map(|s| Some(Expiry::Ex(s))),
    ]
}

fn condition() -> impl Strategy<Value = SetCondition> {
    prop_oneof![
        Just(SetCondition::Always),
        Just(SetCondition::Nx),
        Just(SetCondition::Xx)
    ]
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        4 => (key(), value(), condition(), expiry()).prop_map(|(key, value, condition, expiry)| {
            Command::Set { key, value, condition, expiry }
        }),
        3 => key().prop_map(|key| Command::Get { key }),
        2 => key().prop_map(|key| Command::Del { key }),
        2 => (key(), value()).prop_map(|(key, value)| Command::SetNx { key, value }),
        2 => (key(), value()).prop_map(|(key, value)| Command::GetSet { key, value }),
        1 => (key(), prop_oneof![100i64..1000, -1i64..=0])
            .prop_map(|(key, seconds)| Command::Expire { key, seconds }),
        2 => (key(), ttl_ms()).prop_map(|(key, ms)| Command::PExpire { key, ms }),
        3 => key().prop_map(|key| Command::PTtl { key }),
        2 => key().prop_map(|key| Command::Incr { key }),
        2 => (key(), value()).prop_map(|(key, value)| Command::CompareAndDelete { key, value }),
        2 => (key(), value(), ttl_ms())
            .prop_map(|(key, value, ms)| Command::CompareAndExtend { key, value, ms }),
        2 => (key(), value(), ttl_ms(), key()).prop_map(|(key, value, ms, fence)| {
            Command::SetNxPxIncr { key, value, ms, fence }
        }),
    ]
}

/// The TTL a command may give its key, if it is short.
fn short_ttl(cmd: &Command) -> Option<i64> {
    let ms = match cmd {
        Command::Set {
            expiry: Some(Expiry::Px(ms)),
            ..
        }
        | Command::PExpire { ms, .. }
        | Command::CompareAndExtend { ms, .. }
        | Command::SetNxPxIncr { ms, .. } => *ms,
        _ => return None,
    };
    (1..=SHORT_TTL_MAX).contains(&ms).then_some(ms)
}

/// A sequence of up to `max` commands, each from one of the connections,
/// with the sleeps that keep short TTLs off the expiry boundary and a few
/// short sleeps of its own (so PTTL shows time passing).
pub fn sequence(max: usize) -> impl Strategy<Value = Vec<Step>> {
    let step = (
        0..CONNECTIONS,
        command(),
        prop_oneof![8 => Just(0u64), 1 => 1u64..15],
    );
    proptest::collection::vec(step, 1..=max).prop_map(|steps| {
        let mut out = Vec::new();
        for (conn, cmd, pause) in steps {
            let short = short_ttl(&cmd);
            out.push(Step::Send { conn, cmd });
            if short.is_some() {
                out.push(Step::Sleep {
                    ms: SHORT_TTL_MAX as u64 + EXPIRY_MARGIN,
                });
            } else if pause > 0 {
                out.push(Step::Sleep { ms: pause });
            }
        }
        out
    })
}
