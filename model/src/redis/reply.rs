//! What the server answers, and its errors, as Redis 7.0 words them.

use super::Value;
use serde::Serialize;
use std::fmt;

/// One reply (RESP2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Reply {
    /// The nil bulk string: GET of a missing key, SET NX on an existing one.
    Nil,
    /// `+OK`.
    Ok,
    /// An integer reply: counts, flags, PTTL, INCR of an integer.
    Int(i64),
    /// An integer reply whose number is a stamp: INCR of a key holding
    /// [`Value::Stamp`]`(k)` answers `Stamp(k + 1)` (on the wire, the
    /// decimal of the reference time plus `k + 1`).
    Stamp(i64),
    /// A bulk string.
    Bulk(Value),
    /// An error reply.
    Err(RedisError),
}

/// The server's errors for the modelled commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum RedisError {
    /// INCR of a value that is not a canonical decimal integer.
    NotAnInteger,
    /// INCR of `i64::MAX`.
    IncrOverflow,
    /// A non-positive (or overflowing) TTL in the named command:
    /// `"set"`, `"expire"` or `"pexpire"`.
    InvalidExpire(&'static str),
}

impl fmt::Display for RedisError {
    /// The error text exactly as the server sends it (after the `-`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisError::NotAnInteger => write!(f, "ERR value is not an integer or out of range"),
            RedisError::IncrOverflow => write!(f, "ERR increment or decrement would overflow"),
            RedisError::InvalidExpire(cmd) => {
                write!(f, "ERR invalid expire time in '{cmd}' command")
            }
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Nil => write!(f, "(nil)"),
            Reply::Ok => write!(f, "OK"),
            Reply::Int(n) => write!(f, "(integer) {n}"),
            Reply::Stamp(k) => write!(f, "(integer) {}", Value::Stamp(*k)),
            Reply::Bulk(v) => write!(f, "{v}"),
            Reply::Err(e) => write!(f, "(error) {e}"),
        }
    }
}
