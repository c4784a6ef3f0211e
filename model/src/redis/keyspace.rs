//! One database's keys, their values and their remaining TTLs, and the
//! commands' effects on them.
//!
//! **Time is relative.** Redis stores each TTL as an absolute deadline in
//! unix ms of its own clock; the model stores what is left of it, so that
//! two states a tick apart with the same remaining leases are equal. Redis
//! keeps a key until its clock is *past* the deadline (`now > when` in
//! `keyIsExpired` and in the active expire cycle): a key set with `PX 10`
//! still exists 10 ms later (PTTL 0) and is gone at 11 ms. The model keeps
//! the same rule: an entry with `ttl: Some(0)` exists; aging it by one
//! more millisecond removes it. Redis never shows an expired key, whether
//! it was removed lazily or actively, so neither does the model.

use super::{Command, Expiry, Key, RedisError, Reply, SetCondition, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// A key's value and remaining time to live.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Entry {
    pub value: Value,
    /// Milliseconds left by the server's clock; `None`: no TTL.
    pub ttl: Option<u64>,
}

/// The keys of one server (database 0).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Keyspace {
    entries: BTreeMap<Key, Entry>,
}

impl Keyspace {
    pub fn get(&self, key: &Key) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Every key, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Entry)> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Puts a key's state as it is (replication applies whole key states).
    pub fn put(&mut self, key: Key, entry: Option<Entry>) {
        match entry {
            Some(e) => self.entries.insert(key, e),
            None => self.entries.remove(&key),
        };
    }

    /// Real time passes: every TTL shrinks by `ms` (keys past their
    /// deadline go) and every stamp moves with the reference time.
    pub fn advance(&mut self, ms: u64) {
        self.expire_after(ms);
        for e in self.entries.values_mut() {
            e.value = e.value.aged(ms);
        }
    }

    /// Every stamp below `floor` is raised to it ([`Value::clamped`]).
    pub fn clamp_stamps(&mut self, floor: i64) {
        for e in self.entries.values_mut() {
            if matches!(e.value, Value::Stamp(k) if k < floor) {
                e.value = e.value.clamped(floor);
            }
        }
    }

    /// The server's clock jumps `ms` forward while real time stands still:
    /// TTLs shrink (keys past their deadline go); stamps, which are
    /// readings of the clients' clocks, do not move.
    pub fn jump_forward(&mut self, ms: u64) {
        self.expire_after(ms);
    }

    /// The server's clock jumps `ms` backward: Redis stores absolute
    /// deadlines, so every TTL grows by `ms`.
    pub fn jump_back(&mut self, ms: u64) {
        for e in self.entries.values_mut() {
            if let Some(t) = &mut e.ttl {
                *t = t.saturating_add(ms);
            }
        }
    }

    fn expire_after(&mut self, ms: u64) {
        self.entries.retain(|_, e| match &mut e.ttl {
            None => true,
            Some(t) if *t >= ms => {
                *t -= ms;
                true
            }
            Some(_) => false,
        });
    }

    /// Handles one command, as Redis 7.0's `t_string.c`, `expire.c` and
    /// the two scripts do.
    pub fn apply(&mut self, cmd: &Command) -> Reply {
        match cmd {
            Command::Set {
                key,
                value,
                condition,
                expiry,
            } => {
                // getExpireMillisecondsOrReply runs before the NX/XX check:
                // a bad TTL is an error even when the condition fails.
                let ttl = match expiry.map(set_ttl).transpose() {
                    Ok(ttl) => ttl,
                    Err(e) => return Reply::Err(e),
                };
                let exists = self.entries.contains_key(key);
                match (condition, exists) {
                    (SetCondition::Nx, true) | (SetCondition::Xx, false) => Reply::Nil,
                    _ => {
                        self.set(key, value, ttl);
                        Reply::Ok
                    }
                }
            }
            Command::Get { key } => self.read(key),
            Command::PTtl { key } => self.pttl(key),
            Command::Del { key } => Reply::Int(self.entries.remove(key).is_some() as i64),
            Command::SetNx { key, value } => {
                if self.entries.contains_key(key) {
                    Reply::Int(0)
                } else {
                    self.set(key, value, None);
                    Reply::Int(1)
                }
            }
            Command::GetSet { key, value } => {
                let old = self.read(key);
                self.set(key, value, None);
                old
            }
            Command::Expire { key, seconds } => match seconds.checked_mul(1000) {
                Some(ms) => self.pexpire(key, ms),
                None => Reply::Err(RedisError::InvalidExpire("expire")),
            },
            Command::PExpire { key, ms } => self.pexpire(key, *ms),
            Command::Incr { key } => {
                let current = self.entries.get(key).map(|e| &e.value);
                let next = match current.map_or(Ok(Value::Int(1)), Value::incremented) {
                    Ok(v) => v,
                    Err(e) => return Reply::Err(e),
                };
                let reply = match next {
                    Value::Stamp(k) => Reply::Stamp(k),
                    Value::Int(n) => Reply::Int(n),
                    // `incremented` gives text only for integers at or
                    // above STAMP_FLOOR; the wire reply is that integer.
                    Value::Text(ref t) => Reply::Int(t.parse().unwrap_or_default()),
                };
                // INCR keeps the key's TTL (it overwrites the value in place).
                let ttl = self.entries.get(key).and_then(|e| e.ttl);
                self.set(key, &next, ttl);
                reply
            }
            Command::CompareAndDelete { key, value } => {
                if self.holds(key, value) {
                    self.entries.remove(key);
                    Reply::Int(1)
                } else {
                    Reply::Int(0)
                }
            }
            Command::CompareAndExtend { key, value, ms } => {
                if self.holds(key, value) {
                    self.pexpire(key, *ms)
                } else {
                    Reply::Int(0)
                }
            }
            Command::SetNxPxIncr {
                key,
                value,
                ms,
                fence,
            } => {
                let set = self.apply(&Command::Set {
                    key: key.clone(),
                    value: value.clone(),
                    condition: SetCondition::Nx,
                    expiry: Some(Expiry::Px(*ms)),
                });
                match set {
                    // A script's writes are not undone when it fails after
                    // them: the key stays set if INCR fails.
                    Reply::Ok => match self.apply(&Command::Incr { key: fence.clone() }) {
                        Reply::Int(n) => Reply::Int(through_lua(n)),
                        other => other,
                    },
                    other => other,
                }
            }
        }
    }

    /// The reply to a command that changes nothing (GET, PTTL), or `None`.
    pub fn answer(&self, cmd: &Command) -> Option<Reply> {
        match cmd {
            Command::Get { key } => Some(self.read(key)),
            Command::PTtl { key } => Some(self.pttl(key)),
            _ => None,
        }
    }

    /// PTTL: -2 without the key, -1 without a TTL.
    fn pttl(&self, key: &Key) -> Reply {
        Reply::Int(match self.entries.get(key) {
            None => -2,
            Some(Entry { ttl: None, .. }) => -1,
            Some(Entry { ttl: Some(t), .. }) => *t as i64,
        })
    }

    fn read(&self, key: &Key) -> Reply {
        self.entries
            .get(key)
            .map_or(Reply::Nil, |e| Reply::Bulk(e.value.clone()))
    }

    /// The script's `redis.call("get",KEYS[1]) == ARGV[1]`: a missing key
    /// reads as Lua's `false`, never equal to a string.
    fn holds(&self, key: &Key, value: &Value) -> bool {
        self.entries
            .get(key)
            .is_some_and(|e| e.value.same_bytes(value))
    }

    fn set(&mut self, key: &Key, value: &Value, ttl: Option<u64>) {
        self.entries.insert(
            key.clone(),
            Entry {
                value: value.clone(),
                ttl,
            },
        );
    }

    /// `expireGenericCommand`: 0 for a missing key; a deadline at or
    /// before now (`checkAlreadyExpired`) deletes the key and answers 1.
    fn pexpire(&mut self, key: &Key, ms: i64) -> Reply {
        match self.entries.get_mut(key) {
            None => Reply::Int(0),
            Some(_) if ms <= 0 => {
                self.entries.remove(key);
                Reply::Int(1)
            }
            Some(e) => {
                e.ttl = Some(ms as u64);
                Reply::Int(1)
            }
        }
    }
}

/// SET's TTL in ms: positive, and in range when given in seconds.
fn set_ttl(expiry: Expiry) -> Result<u64, RedisError> {
    let ms = match expiry {
        Expiry::Px(ms) => Some(ms),
        Expiry::Ex(s) => s.checked_mul(1000),
    };
    match ms {
        Some(ms) if ms > 0 => Ok(ms as u64),
        _ => Err(RedisError::InvalidExpire("set")),
    }
}

/// An integer reply that went through a Lua script's `return`: Redis's Lua
/// keeps numbers as doubles, and turns one back into an integer reply with
/// C's cast, which gives `i64::MIN` for a double at or past 2^63 (x86-64;
/// the conformance test measured it: INCR to `i64::MAX` inside the script
/// answers -9223372036854775808). Exact below 2^53.
fn through_lua(n: i64) -> i64 {
    let d = n as f64;
    if d >= 9_223_372_036_854_775_808.0 {
        i64::MIN
    } else {
        d as i64
    }
}
