//! A string value, as the seeds' locks store them: tokens and counters
//! (integers), expiry timestamps (a clock reading plus a lease), and, for
//! INCR's error case, text that is not an integer.
//!
//! On the wire every value is a byte string; Redis compares values byte for
//! byte (the compare-and-delete script's `==`, the seeds' `equals`) and
//! INCR parses them as canonical decimals (`string2ll`: optional `-`, no `+`,
//! no leading zeros, no spaces). The model keeps timestamps *relative*, so
//! that a checker's states repeat as time passes: [`Value::Stamp`]`(k)` is
//! the decimal of "the reference time now, plus `k` ms", and moves by
//! `-ms` whenever the model's time advances by `ms`.

use super::RedisError;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// Unix milliseconds below which no timestamp lies (2001-09-09). Integers
/// the model stores as [`Value::Int`] must stay below it, and every stamp's
/// wire value at or above it, so that an integer and a stamp never have the
/// same bytes: the model can then answer "equal?" without knowing the
/// absolute time. Drivers check both ends ([`Value::to_wire`],
/// [`Value::from_wire`]).
pub const STAMP_FLOOR: i64 = 1_000_000_000_000;

/// One string value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Value {
    /// A decimal integer below [`STAMP_FLOOR`]: a token, a counter.
    Int(i64),
    /// A time: the decimal of (the reference time now + this many ms). The
    /// reference time is what [`super::RedisServer::advance`] moves; a
    /// client whose clock reads `offset` ms ahead of it and writes
    /// `now() + lease` stores `Stamp(offset + lease)`.
    Stamp(i64),
    /// Text that is not a canonical decimal integer (build it with
    /// [`Value::text`], which turns canonical integers into [`Value::Int`]).
    Text(Arc<str>),
}

impl Value {
    /// The value whose bytes are `s`: an [`Value::Int`] if `s` is a
    /// canonical decimal below [`STAMP_FLOOR`], text otherwise.
    pub fn text(s: &str) -> Value {
        match canonical_int(s) {
            Some(n) if n < STAMP_FLOOR => Value::Int(n),
            _ => Value::Text(Arc::from(s)),
        }
    }

    /// Whether the two values have the same bytes on the wire.
    pub fn same_bytes(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) | (Value::Stamp(a), Value::Stamp(b)) => a == b,
            (Value::Text(a), Value::Text(b)) => a == b,
            (Value::Int(n), Value::Text(t)) | (Value::Text(t), Value::Int(n)) => {
                **t == *n.to_string()
            }
            // An integer lies below STAMP_FLOOR and a stamp above it; text
            // made by `Value::text` is never a canonical integer.
            _ => false,
        }
    }

    /// INCR's new value: the canonical decimal plus one, or INCR's error.
    pub fn incremented(&self) -> Result<Value, RedisError> {
        match self {
            Value::Int(n) => n
                .checked_add(1)
                .map(Value::Int)
                .ok_or(RedisError::IncrOverflow),
            Value::Stamp(k) => Ok(Value::Stamp(k + 1)),
            Value::Text(t) => match canonical_int(t) {
                Some(n) => n
                    .checked_add(1)
                    .map(|n| Value::text(&n.to_string()))
                    .ok_or(RedisError::IncrOverflow),
                None => Err(RedisError::NotAnInteger),
            },
        }
    }

    /// The value `ms` later (a stamp is relative to the reference time).
    pub fn aged(&self, ms: u64) -> Value {
        match self {
            Value::Stamp(k) => Value::Stamp(k.saturating_sub(ms as i64)),
            other => other.clone(),
        }
    }

    /// The value with a stamp below `floor` raised to it: for a checker
    /// whose recipes read every stamp below `floor` alike (its horizon), so
    /// that a forgotten timestamp stops ageing and states repeat.
    pub fn clamped(&self, floor: i64) -> Value {
        match self {
            Value::Stamp(k) if *k < floor => Value::Stamp(floor),
            other => other.clone(),
        }
    }

    /// The bytes a driver sends, when the reference time is `now_unix_ms`
    /// (milliseconds since the epoch). Panics if the value breaks the
    /// [`STAMP_FLOOR`] split, which would make the model's answers wrong.
    pub fn to_wire(&self, now_unix_ms: i64) -> String {
        match self {
            Value::Int(n) => {
                assert!(*n < STAMP_FLOOR, "integer {n} at or above STAMP_FLOOR");
                n.to_string()
            }
            Value::Stamp(k) => {
                let at = now_unix_ms + k;
                assert!(at >= STAMP_FLOOR, "stamp {at} below STAMP_FLOOR");
                at.to_string()
            }
            Value::Text(t) => t.to_string(),
        }
    }

    /// The value whose bytes a real server returned, when the reference
    /// time is `now_unix_ms`: a canonical decimal at or above
    /// [`STAMP_FLOOR`] is a stamp.
    pub fn from_wire(bytes: &[u8], now_unix_ms: i64) -> Value {
        let s = String::from_utf8_lossy(bytes);
        match canonical_int(&s) {
            Some(n) if n >= STAMP_FLOOR => Value::Stamp(n - now_unix_ms),
            _ => Value::text(&s),
        }
    }
}

/// `s` as Redis's `string2ll` reads it: exactly the text `i64::to_string`
/// writes (no `+`, no leading zeros, no `-0`, no spaces).
fn canonical_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok().filter(|n| n.to_string() == s)
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Stamp(0) => write!(f, "now"),
            Value::Stamp(k) if *k > 0 => write!(f, "now+{k}"),
            Value::Stamp(k) => write!(f, "now{k}"),
            Value::Text(t) => write!(f, "{t:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_integers_are_what_redis_parses() {
        assert_eq!(canonical_int("12"), Some(12));
        assert_eq!(canonical_int("-3"), Some(-3));
        assert_eq!(canonical_int("0"), Some(0));
        for not in ["+1", "01", "-0", " 1", "1 ", "", "-", "1.0", "abc"] {
            assert_eq!(canonical_int(not), None, "{not:?}");
        }
    }

    #[test]
    fn text_of_an_integer_is_the_integer() {
        assert_eq!(Value::text("41"), Value::Int(41));
        assert!(matches!(Value::text("041"), Value::Text(_)));
        assert!(Value::Int(7).same_bytes(&Value::Text(Arc::from("7"))));
        assert!(!Value::Int(7).same_bytes(&Value::text("07")));
    }

    #[test]
    fn stamps_round_trip_through_the_wire() {
        let now = 1_700_000_000_000;
        for v in [
            Value::Stamp(-5),
            Value::Stamp(30_001),
            Value::Int(3),
            Value::text("x"),
        ] {
            assert_eq!(Value::from_wire(v.to_wire(now).as_bytes(), now), v);
        }
        assert_eq!(Value::Stamp(10).aged(4), Value::Stamp(6));
        // The checker's horizon: only stamps below the floor move.
        assert_eq!(Value::Stamp(-10).clamped(-5), Value::Stamp(-5));
        assert_eq!(Value::Stamp(-3).clamped(-5), Value::Stamp(-3));
        assert_eq!(Value::Int(-10).clamped(-5), Value::Int(-10));
        assert_eq!(Value::Int(10).aged(4), Value::Int(10));
    }

    #[test]
    fn incr_follows_the_decimal() {
        assert_eq!(Value::Int(-1).incremented(), Ok(Value::Int(0)));
        assert_eq!(Value::Stamp(9).incremented(), Ok(Value::Stamp(10)));
        assert_eq!(
            Value::text("abc").incremented(),
            Err(RedisError::NotAnInteger)
        );
        assert_eq!(
            Value::Int(i64::MAX).incremented(),
            Err(RedisError::IncrOverflow)
        );
    }
}
