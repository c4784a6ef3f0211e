//! The commands a client sends: the string commands the seeds' locks use,
//! and the two standard lock scripts, each `EVAL`ed as one atomic command.

use super::{Key, Reply, Value};
use serde::Serialize;
use std::fmt;

/// The compare-and-delete script (the atomic unlock that Redis's
/// documentation gives): `EVAL <this> 1 key token`. Drivers send exactly
/// this text; the model runs [`Command::CompareAndDelete`] in its place.
pub const COMPARE_AND_DELETE_LUA: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end"#;

/// The compare-and-extend script (a holder renewing its lease):
/// `EVAL <this> 1 key token ms`.
pub const COMPARE_AND_EXTEND_LUA: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end"#;

/// The lock-with-a-token script (source 003's line 217, atomically): set the
/// lock as `SET key token NX PX ms` does and, only if it was set, bump the
/// fencing counter and return it: `EVAL <this> 2 key fence token ms`. The
/// token is then the lock's own version, in the order the server granted
/// the lock — not a second command a pause can fall between.
pub const SET_NX_PX_INCR_LUA: &str = r#"if redis.call("set",KEYS[1],ARGV[1],"NX","PX",ARGV[2]) then return redis.call("incr",KEYS[2]) else return false end"#;

/// SET's condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum SetCondition {
    /// Plain SET: always writes.
    Always,
    /// `NX`: only if the key does not exist.
    Nx,
    /// `XX`: only if the key exists.
    Xx,
}

/// SET's expiry option. Any value is representable: Redis refuses a
/// non-positive one (`ERR invalid expire time in 'set' command`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Expiry {
    /// `PX ms`.
    Px(i64),
    /// `EX seconds`.
    Ex(i64),
}

/// One command. Only well-formed commands are representable (no `NX XX`
/// together, no non-integer expiry): the errors left are the server's own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Command {
    /// `SET key value [NX|XX] [PX ms|EX s]`: OK, or nil when the condition
    /// fails. Removes any TTL the key had unless it sets one.
    Set {
        key: Key,
        value: Value,
        condition: SetCondition,
        expiry: Option<Expiry>,
    },
    /// `GET key`: the value, or nil.
    Get { key: Key },
    /// `DEL key`: the number of keys removed (0 or 1).
    Del { key: Key },
    /// `SETNX key value`: 1 if it set the key (no TTL), 0 if the key exists.
    SetNx { key: Key, value: Value },
    /// `GETSET key value`: the old value or nil; sets the value and, as in
    /// Redis 7 (it is `SET key value GET`), removes the key's TTL.
    GetSet { key: Key, value: Value },
    /// `EXPIRE key seconds`: 1 if the key exists (a non-positive TTL
    /// deletes it), 0 if not.
    Expire { key: Key, seconds: i64 },
    /// `PEXPIRE key ms`: as EXPIRE, in milliseconds.
    PExpire { key: Key, ms: i64 },
    /// `PTTL key`: the remaining ms, -1 without a TTL, -2 without the key.
    PTtl { key: Key },
    /// `INCR key`: the new value; a missing key counts from 0; the TTL
    /// stays.
    Incr { key: Key },
    /// `EVAL` [`COMPARE_AND_DELETE_LUA`] `1 key value`: 1 if the key held
    /// exactly `value` and is now deleted, 0 otherwise.
    CompareAndDelete { key: Key, value: Value },
    /// `EVAL` [`COMPARE_AND_EXTEND_LUA`] `1 key value ms`: PEXPIRE's reply
    /// if the key held exactly `value`, 0 otherwise.
    CompareAndExtend { key: Key, value: Value, ms: i64 },
    /// `EVAL` [`SET_NX_PX_INCR_LUA`] `2 key fence value ms`: `INCR
    /// fence`'s reply if `SET key value NX PX ms` set the key, nil if the
    /// key exists (SET's error, or INCR's after the key was set, as the
    /// script raises it).
    SetNxPxIncr {
        key: Key,
        value: Value,
        ms: i64,
        fence: Key,
    },
}

impl Command {
    /// The key the command touches.
    pub fn key(&self) -> &Key {
        match self {
            Command::Set { key, .. }
            | Command::Get { key }
            | Command::Del { key }
            | Command::SetNx { key, .. }
            | Command::GetSet { key, .. }
            | Command::Expire { key, .. }
            | Command::PExpire { key, .. }
            | Command::PTtl { key }
            | Command::Incr { key }
            | Command::CompareAndDelete { key, .. }
            | Command::CompareAndExtend { key, .. }
            | Command::SetNxPxIncr { key, .. } => key,
        }
    }

    /// Whether the command wrote the key, given its value before and after
    /// and the reply: it changed the value or the key's existence, or it
    /// stored a value over an existing key — GETSET always, SET when it
    /// answers OK — even one equal to what was there. Such a write is an
    /// overwrite all the same: in real time two clients' timestamps differ
    /// by the milliseconds between their reads, and only the checker's
    /// ticks make them equal (source 004's loser whose GETSET "moves the
    /// winner's deadline a little").
    pub fn wrote(&self, before: Option<&Value>, after: Option<&Value>, reply: &Reply) -> bool {
        let stored = matches!(
            (self, reply),
            (Command::GetSet { .. }, Reply::Bulk(_) | Reply::Nil)
                | (Command::Set { .. }, Reply::Ok)
                | (Command::SetNxPxIncr { .. }, Reply::Int(_))
        );
        before != after || (stored && after.is_some())
    }

    /// Whether the command never changes the keyspace.
    pub fn is_read_only(&self) -> bool {
        matches!(self, Command::Get { .. } | Command::PTtl { .. })
    }
}

/// As redis-cli would show it (scripts by name).
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Set {
                key,
                value,
                condition,
                expiry,
            } => {
                write!(f, "SET {key} {value}")?;
                match condition {
                    SetCondition::Always => {}
                    SetCondition::Nx => write!(f, " NX")?,
                    SetCondition::Xx => write!(f, " XX")?,
                }
                match expiry {
                    None => Ok(()),
                    Some(Expiry::Px(ms)) => write!(f, " PX {ms}"),
                    Some(Expiry::Ex(s)) => write!(f, " EX {s}"),
                }
            }
            Command::Get { key } => write!(f, "GET {key}"),
            Command::Del { key } => write!(f, "DEL {key}"),
            Command::SetNx { key, value } => write!(f, "SETNX {key} {value}"),
            Command::GetSet { key, value } => write!(f, "GETSET {key} {value}"),
            Command::Expire { key, seconds } => write!(f, "EXPIRE {key} {seconds}"),
            Command::PExpire { key, ms } => write!(f, "PEXPIRE {key} {ms}"),
            Command::PTtl { key } => write!(f, "PTTL {key}"),
            Command::Incr { key } => write!(f, "INCR {key}"),
            Command::CompareAndDelete { key, value } => {
                write!(f, "EVAL compare-and-delete {key} {value}")
            }
            Command::CompareAndExtend { key, value, ms } => {
                write!(f, "EVAL compare-and-extend {key} {value} {ms}")
            }
            Command::SetNxPxIncr {
                key,
                value,
                ms,
                fence,
            } => write!(f, "EVAL set-nx-px-incr {key} {fence} {value} {ms}"),
        }
    }
}
