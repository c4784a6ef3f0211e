//! `clients = N`, read the same way in every backend's file and in
//! `[sim]`: one range and one message, whatever the mistake (0, -1,
//! `"two"`, 100000) — the TOML reader's own would say "0 to 255" for some
//! and the scenario's check "1 to 255" for others.

use serde::de::{self, Deserializer, Unexpected, Visitor};
use std::fmt;

/// What a `clients` value must be.
pub const EXPECTED: &str = "a whole number from 1 to 255";

/// `clients = N`.
pub fn clients<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    d.deserialize_any(Count)
}

/// An optional `clients = N` (`[sim]`'s override).
pub fn some_clients<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    clients(d).map(Some)
}

struct Count;

impl<'de> Visitor<'de> for Count {
    type Value = u8;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u8, E> {
        u8::try_from(v)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u8, E> {
        u8::try_from(v)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
}
