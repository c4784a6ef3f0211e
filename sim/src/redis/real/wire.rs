//! Both sides' replies as the bytes a client sees, and the model's commands
//! as the bytes a client sends.

use locksmith_model::redis::{
    Command, Expiry, Reply, SetCondition, Value, COMPARE_AND_DELETE_LUA, COMPARE_AND_EXTEND_LUA,
    SET_NX_PX_INCR_LUA, STAMP_FLOOR,
};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A reply as it is on the wire (RESP2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wire {
    Nil,
    Ok,
    Int(i64),
    Bulk(Vec<u8>),
    Err(String),
    /// Anything else the real server sent (the modelled commands send none).
    Other(String),
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wire::Nil => write!(f, "(nil)"),
            Wire::Ok => write!(f, "OK"),
            Wire::Int(n) => write!(f, "(integer) {n}"),
            Wire::Bulk(b) => write!(f, "{:?}", String::from_utf8_lossy(b)),
            Wire::Err(e) => write!(f, "(error) {e}"),
            Wire::Other(o) => write!(f, "(unexpected) {o}"),
        }
    }
}

/// The model's reply on the wire, when the reference time is `now_unix_ms`.
pub fn expected(reply: &Reply, now_unix_ms: i64) -> Wire {
    match reply {
        Reply::Nil => Wire::Nil,
        Reply::Ok => Wire::Ok,
        Reply::Int(n) => Wire::Int(*n),
        Reply::Stamp(k) => Wire::Int(now_unix_ms + k),
        Reply::Bulk(v) => Wire::Bulk(v.to_wire(now_unix_ms).into_bytes()),
        Reply::Err(e) => Wire::Err(e.to_string()),
    }
}

/// The real server's reply. An error raised inside a script ends with
/// where it was raised (" script: <sha1>, on @user_script:1."), which is
/// not the error's: it is cut off.
pub fn observed(reply: Result<redis::Value, redis::RedisError>) -> Wire {
    match raw(reply) {
        Wire::Err(e) => match e.find(" script: ") {
            Some(at) => Wire::Err(e[..at].to_string()),
            None => Wire::Err(e),
        },
        other => other,
    }
}

fn raw(reply: Result<redis::Value, redis::RedisError>) -> Wire {
    match reply {
        Ok(redis::Value::Nil) => Wire::Nil,
        Ok(redis::Value::Okay) => Wire::Ok,
        Ok(redis::Value::SimpleString(s)) if s == "OK" => Wire::Ok,
        Ok(redis::Value::Int(n)) => Wire::Int(n),
        Ok(redis::Value::BulkString(b)) => Wire::Bulk(b),
        Ok(redis::Value::ServerError(e)) => {
            Wire::Err(format!("{} {}", e.code(), e.details().unwrap_or("")))
        }
        Ok(other) => Wire::Other(format!("{other:?}")),
        Err(e) => match (e.code(), e.detail()) {
            (Some(code), detail) => Wire::Err(format!("{code} {}", detail.unwrap_or(""))),
            _ => Wire::Other(format!("client error: {e}")),
        },
    }
}

/// The command as sent, when the reference time is `now_unix_ms`: the
/// scripts as `EVAL` of their exact text.
pub fn request(cmd: &Command, now_unix_ms: i64) -> redis::Cmd {
    let v = |v: &locksmith_model::redis::Value| v.to_wire(now_unix_ms);
    match cmd {
        Command::Set {
            key,
            value,
            condition,
            expiry,
        } => {
            let mut c = redis::cmd("SET");
            c.arg(key.as_str()).arg(v(value));
            match condition {
                SetCondition::Always => {}
                SetCondition::Nx => {
                    c.arg("NX");
                }
                SetCondition::Xx => {
                    c.arg("XX");
                }
            }
            match expiry {
                None => {}
                Some(Expiry::Px(ms)) => {
                    c.arg("PX").arg(*ms);
                }
                Some(Expiry::Ex(s)) => {
                    c.arg("EX").arg(*s);
                }
            }
            c
        }
        Command::Get { key } => one("GET", key.as_str()),
        Command::Del { key } => one("DEL", key.as_str()),
        Command::PTtl { key } => one("PTTL", key.as_str()),
        Command::Incr { key } => one("INCR", key.as_str()),
        Command::SetNx { key, value } => {
            let mut c = one("SETNX", key.as_str());
            c.arg(v(value));
            c
        }
        Command::GetSet { key, value } => {
            let mut c = one("GETSET", key.as_str());
            c.arg(v(value));
            c
        }
        Command::Expire { key, seconds } => {
            let mut c = one("EXPIRE", key.as_str());
            c.arg(*seconds);
            c
        }
        Command::PExpire { key, ms } => {
            let mut c = one("PEXPIRE", key.as_str());
            c.arg(*ms);
            c
        }
        Command::CompareAndDelete { key, value } => {
            let mut c = redis::cmd("EVAL");
            c.arg(COMPARE_AND_DELETE_LUA)
                .arg(1)
                .arg(key.as_str())
                .arg(v(value));
            c
        }
        Command::CompareAndExtend { key, value, ms } => {
            let mut c = redis::cmd("EVAL");
            c.arg(COMPARE_AND_EXTEND_LUA)
                .arg(1)
                .arg(key.as_str())
                .arg(v(value))
                .arg(*ms);
            c
        }
        Command::SetNxPxIncr {
            key,
            value,
            ms,
            fence,
        } => {
            let mut c = redis::cmd("EVAL");
            c.arg(SET_NX_PX_INCR_LUA)
                .arg(2)
                .arg(key.as_str())
                .arg(fence.as_str())
                .arg(v(value))
                .arg(*ms);
            c
        }
    }
}

fn one(name: &str, key: &str) -> redis::Cmd {
    let mut c = redis::cmd(name);
    c.arg(key);
    c
}

/// The command's name, for the coverage table.
pub fn name(cmd: &Command) -> String {
    match cmd {
        Command::Set {
            condition, expiry, ..
        } => {
            let cond = match condition {
                SetCondition::Always => "",
                SetCondition::Nx => " NX",
                SetCondition::Xx => " XX",
            };
            let exp = match expiry {
                None => "",
                Some(Expiry::Px(_)) => " PX",
                Some(Expiry::Ex(_)) => " EX",
            };
            format!("SET{cond}{exp}")
        }
        Command::Get { .. } => "GET".into(),
        Command::Del { .. } => "DEL".into(),
        Command::SetNx { .. } => "SETNX".into(),
        Command::GetSet { .. } => "GETSET".into(),
        Command::Expire { .. } => "EXPIRE".into(),
        Command::PExpire { .. } => "PEXPIRE".into(),
        Command::PTtl { .. } => "PTTL".into(),
        Command::Incr { .. } => "INCR".into(),
        Command::CompareAndDelete { .. } => "EVAL compare-and-delete".into(),
        Command::CompareAndExtend { .. } => "EVAL compare-and-extend".into(),
        Command::SetNxPxIncr { .. } => "EVAL set-nx-px-incr".into(),
    }
}

/// A reply's kind, for the coverage table.
pub fn kind(w: &Wire) -> String {
    match w {
        Wire::Nil => "nil".into(),
        Wire::Ok => "OK".into(),
        Wire::Int(n) if *n <= 1 => format!("{n}"),
        Wire::Int(_) => "integer".into(),
        Wire::Bulk(_) => "bulk".into(),
        Wire::Err(e) => e.clone(),
        Wire::Other(_) => "other".into(),
    }
}

/// The real server's reply as the recipe reads it, when the reference time
/// is `now_unix_ms` (a number at or above the stamp floor is a time). An
/// error reply or anything unexpected is the run's error: no recipe of the
/// catalogue sends a command that fails.
pub fn reply(w: &Wire, now_unix_ms: i64) -> Result<Reply, String> {
    Ok(match w {
        Wire::Nil => Reply::Nil,
        Wire::Ok => Reply::Ok,
        Wire::Int(n) if *n >= STAMP_FLOOR => Reply::Stamp(n - now_unix_ms),
        Wire::Int(n) => Reply::Int(*n),
        Wire::Bulk(b) => Reply::Bulk(Value::from_wire(b, now_unix_ms)),
        Wire::Err(e) => return Err(format!("the server answered an error: {e}")),
        Wire::Other(o) => return Err(format!("an unexpected reply: {o}")),
    })
}

/// How long a connection, a command or a reply may take before the run
/// gives up on the server.
const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// The wall clock in Unix milliseconds: what the seeds' recipes read.
pub(crate) fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A blocking connection to the server at `addr`, with the run's I/O
/// timeouts (`confirm --redis` uses it too).
pub(crate) fn connect(addr: &str) -> Result<redis::Connection, String> {
    let client = redis::Client::open(format!("redis://{addr}/"))
        .map_err(|e| format!("--redis {addr}: {e}"))?;
    let conn = client
        .get_connection_with_timeout(IO_TIMEOUT)
        .map_err(|e| format!("cannot connect to Redis at {addr}: {e}"))?;
    conn.set_read_timeout(Some(IO_TIMEOUT))
        .and_then(|()| conn.set_write_timeout(Some(IO_TIMEOUT)))
        .map_err(|e| format!("Redis at {addr}: {e}"))?;
    Ok(conn)
}
