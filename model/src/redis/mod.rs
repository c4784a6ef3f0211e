//! A Redis 7.0 server, as a pure state machine: the string commands the
//! seeds' lease locks use (sources 003 and 004), time as remaining TTLs, and
//! the server-side faults those locks meet.
//!
//! What is modelled, each rule where it is implemented:
//!
//! - [`command`]: `SET key value [NX|XX] [PX ms|EX s]`, `GET`, `DEL` (one
//!   key), `SETNX`, `GETSET`, `EXPIRE`, `PEXPIRE`, `PTTL`, `INCR`, and the
//!   two standard lock scripts, compare-and-delete and compare-and-extend,
//!   as atomic commands of their own (their Lua text is a `const` there, so
//!   a real driver sends exactly that script);
//! - [`reply`]: nil, OK, integers, bulk strings and Redis's own error texts;
//! - [`value`]: tokens and counters as integers, the seeds' expiry
//!   timestamps as *stamps* relative to the reference time, and text; the
//!   model compares and increments them as Redis does the decimal strings
//!   they are on the wire;
//! - [`keyspace`]: each key's value and *remaining* TTL; a key exists until
//!   the server's clock is past its deadline, and an expired key is never
//!   seen (lazy and active expiry alike);
//! - [`server`]: [`RedisServer::apply`], time ([`RedisServer::advance`]:
//!   real time passes; [`RedisServer::jump_forward`] and
//!   [`RedisServer::jump_back`]: the server's clock jumps; a backward jump
//!   lengthens every TTL, because Redis 7 stores absolute unix-ms
//!   deadlines), [`RedisServer::restart`] without persistence (all keys
//!   lost), and [`replication`] to one replica with
//!   [`RedisServer::replicate_one`] and [`RedisServer::failover`] (what
//!   the replica had not received is lost).
//!
//! What is not: other types than strings, other options (`KEEPTTL`,
//! `GET`, `EXAT`/`PXAT`, EXPIRE's `NX`/`XX`/`GT`/`LT`), multi-key `DEL`,
//! arbitrary scripts, `MULTI`/`WATCH`, client-side state (a connection
//! holds nothing here, so a client crash leaves the server as it is),
//! persistence, and TTLs so large that the deadline overflows an `i64` of
//! unix ms (Redis refuses those; the model, without an absolute clock,
//! does not). Integers at or above [`STAMP_FLOOR`] are not integers to the
//! model but stamps or text: see [`value`].
//!
//! The model has no clock, no I/O and no randomness. It is held against a
//! real redis-server by `sim/tests/redis_conformance/` (docs/conformance.md).

pub mod check;
pub(crate) mod command;
mod key;
pub(crate) mod keyspace;
pub mod recipes;
pub(crate) mod replication;
pub(crate) mod reply;
pub(crate) mod server;
pub(crate) mod value;

pub use command::{
    Command, Expiry, SetCondition, COMPARE_AND_DELETE_LUA, COMPARE_AND_EXTEND_LUA,
    SET_NX_PX_INCR_LUA,
};
pub use key::Key;
pub use keyspace::{Entry, Keyspace};
pub use reply::{RedisError, Reply};
pub use server::RedisServer;
pub use value::{Value, STAMP_FLOOR};

#[cfg(test)]
mod tests;
