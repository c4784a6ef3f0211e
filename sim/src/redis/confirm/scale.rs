//! The checker's time and names on a real redis-server: a tick of the
//! model becomes `tick_ms` real milliseconds, the model's keys the run's
//! own, and the model's relative stamps absolute clock readings.
//!
//! Every real operation of a tick happens within its first quarter
//! ([`super::Stage`] checks it), so a TTL of `t` ticks is sent as
//! `t·tick_ms + tick_ms/2`: a key the model keeps for `t` more ticks (its
//! TTL reaches 0 and it is gone at the next tick, as a real Redis keeps a
//! key until its clock is *past* the deadline) is alive on the server at
//! every one of those ticks and gone at the next, whatever the few
//! milliseconds between two steps of one tick. A PTTL of `r` ms reads as
//! `r / tick_ms` ticks for the same reason.
//!
//! Stamps are only ever written and compared by the clients, whose clocks
//! are the harness's: stamp `k` at tick `n` is the reading
//! `epoch + (n + k)·tick_ms`, and a reading between two ticks is no stamp
//! of the model's (it shows as a disagreement). Stamps below the checker's
//! horizon ([`RedisSpace::stamp_floor`]) are read as the horizon, as the
//! checker's recipes read them.

use crate::redis::real::wire::Wire;
use locksmith_model::redis::check::RedisSpace;
use locksmith_model::redis::{Command, Expiry, Key, Reply, Value, STAMP_FLOOR};

/// One run's mapping from the model to the server.
#[derive(Clone, Debug)]
pub struct Scale {
    /// Real milliseconds per tick.
    pub tick_ms: i64,
    /// The harness's clock reading (Unix ms) at tick 0.
    pub epoch_ms: i64,
    /// The run's key prefix: the model's key `lock` is `<prefix>lock`.
    pub prefix: String,
    /// The checker's horizon for stamps, in ticks.
    pub floor: i64,
}

impl Scale {
    pub fn new(space: &RedisSpace, tick_ms: i64, epoch_ms: i64, prefix: String) -> Scale {
        Scale {
            tick_ms,
            epoch_ms,
            prefix,
            floor: space.stamp_floor(),
        }
    }

    /// The harness's reference clock at tick `n`, in Unix ms.
    pub fn now(&self, n: i64) -> i64 {
        self.epoch_ms + n * self.tick_ms
    }

    /// The run's name for the model's key.
    pub fn key(&self, k: &Key) -> Key {
        Key::new(&format!("{}{}", self.prefix, k.as_str()))
    }

    /// A TTL of `t` ticks in real milliseconds (see the module's doc).
    fn ttl(&self, t: i64) -> i64 {
        t * self.tick_ms + self.tick_ms / 2
    }

    /// A value in real milliseconds: a stamp's distance from "now" scaled.
    fn value(&self, v: &Value) -> Value {
        match v {
            Value::Stamp(k) => Value::Stamp(k * self.tick_ms),
            other => other.clone(),
        }
    }

    /// The model's command as the run sends it (through
    /// [`crate::redis::real::wire::request`] at [`Scale::now`]). `Err`
    /// for `EX`, whose seconds cannot carry the half tick.
    pub fn command(&self, cmd: &Command) -> Result<Command, String> {
        Ok(match cmd {
            Command::Set {
                key,
                value,
                condition,
                expiry,
            } => Command::Set {
                key: self.key(key),
                value: self.value(value),
                condition: *condition,
                expiry: match expiry {
                    None => None,
                    Some(Expiry::Px(ms)) => Some(Expiry::Px(self.ttl(*ms))),
                    Some(Expiry::Ex(_)) => {
                        return Err("SET … EX: seconds cannot be scaled to ticks".into())
                    }
                },
            },
            Command::Get { key } => Command::Get { key: self.key(key) },
            Command::Del { key } => Command::Del { key: self.key(key) },
            Command::PTtl { key } => Command::PTtl { key: self.key(key) },
            Command::Incr { key } => Command::Incr { key: self.key(key) },
            Command::SetNx { key, value } => Command::SetNx {
                key: self.key(key),
                value: self.value(value),
            },
            Command::GetSet { key, value } => Command::GetSet {
                key: self.key(key),
                value: self.value(value),
            },
            Command::Expire { .. } => {
                return Err("EXPIRE: seconds cannot be scaled to ticks".into())
            }
            Command::PExpire { key, ms } => Command::PExpire {
                key: self.key(key),
                ms: self.ttl(*ms),
            },
            Command::CompareAndDelete { key, value } => Command::CompareAndDelete {
                key: self.key(key),
                value: self.value(value),
            },
            Command::CompareAndExtend { key, value, ms } => Command::CompareAndExtend {
                key: self.key(key),
                value: self.value(value),
                ms: self.ttl(*ms),
            },
            Command::SetNxPxIncr {
                key,
                value,
                ms,
                fence,
            } => Command::SetNxPxIncr {
                key: self.key(key),
                value: self.value(value),
                ms: self.ttl(*ms),
                fence: self.key(fence),
            },
        })
    }

    /// The model's reply as the server should send it at tick `n`.
    pub fn expected(&self, reply: &Reply, n: i64) -> Wire {
        let scaled = match reply {
            Reply::Stamp(k) => Reply::Stamp(k * self.tick_ms),
            Reply::Bulk(v) => Reply::Bulk(self.value(v)),
            other => other.clone(),
        };
        crate::redis::real::wire::expected(&scaled, self.now(n))
    }

    /// The server's reply in the model's units at tick `n`: a PTTL in
    /// ticks, a stamp below the horizon at the horizon.
    pub fn observed(&self, w: Wire, pttl: bool, n: i64) -> Wire {
        match w {
            Wire::Int(r) if pttl && r >= 0 => Wire::Int(r / self.tick_ms),
            Wire::Int(r) if r >= STAMP_FLOOR => Wire::Int(self.horizon(r, n)),
            Wire::Bulk(b) => {
                let text = String::from_utf8_lossy(&b);
                match text.parse::<i64>() {
                    Ok(r) if r >= STAMP_FLOOR && r.to_string() == text => {
                        Wire::Bulk(self.horizon(r, n).to_string().into_bytes())
                    }
                    _ => Wire::Bulk(b),
                }
            }
            other => other,
        }
    }

    /// A clock reading below the horizon at tick `n` raised to it.
    fn horizon(&self, reading: i64, n: i64) -> i64 {
        reading.max(self.now(n) + self.floor * self.tick_ms)
    }

    /// What the server should show of a model key at tick `n`: its value
    /// (GET) and its TTL in ticks (PTTL: -1 without one, -2 without the
    /// key).
    pub fn entry(&self, e: Option<&locksmith_model::redis::Entry>, n: i64) -> (Wire, Wire) {
        match e {
            None => (Wire::Nil, Wire::Int(-2)),
            Some(e) => (
                Wire::Bulk(self.value(&e.value).to_wire(self.now(n)).into_bytes()),
                Wire::Int(e.ttl.map_or(-1, |t| t as i64)),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksmith_model::redis::recipes::RedisRecipe;
    use locksmith_model::redis::SetCondition;

    fn scale() -> Scale {
        let space = RedisSpace::new(RedisRecipe::SetPxDel);
        Scale::new(&space, 100, 1_700_000_000_000, "run:".into())
    }

    #[test]
    fn a_lease_of_t_ticks_lasts_past_the_tth_tick_by_half_a_tick() {
        let s = scale();
        let set = Command::Set {
            key: Key::new("lock"),
            value: Value::Stamp(3),
            condition: SetCondition::Nx,
            expiry: Some(Expiry::Px(3)),
        };
        let Ok(Command::Set {
            key, value, expiry, ..
        }) = s.command(&set)
        else {
            panic!("SET scales");
        };
        assert_eq!(key.as_str(), "run:lock");
        assert_eq!(value, Value::Stamp(300));
        assert_eq!(expiry, Some(Expiry::Px(350)));
        assert!(s.command(&Command::Expire { key, seconds: 1 }).is_err());
    }

    #[test]
    fn readings_and_ttls_come_back_in_ticks() {
        let s = scale();
        // PTTL 249 ms: two whole ticks left.
        assert_eq!(s.observed(Wire::Int(249), true, 0), Wire::Int(2));
        assert_eq!(s.observed(Wire::Int(-1), true, 0), Wire::Int(-1));
        // A stamp two ticks ahead at tick 5 is what the model expects.
        let at = s.now(7).to_string().into_bytes();
        assert_eq!(
            s.observed(Wire::Bulk(at), false, 5),
            s.expected(&Reply::Bulk(Value::Stamp(2)), 5)
        );
        // Far below the horizon: read as the horizon.
        let old = s.now(-1000).to_string().into_bytes();
        assert_eq!(
            s.observed(Wire::Bulk(old), false, 0),
            s.expected(&Reply::Bulk(Value::Stamp(s.floor)), 0)
        );
    }
}
