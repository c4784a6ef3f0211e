//! locksmith's pure core. Nothing here performs I/O, reads a clock or
//! draws a random number; the drivers (the checker here, the simulator in
//! the `locksmith` crate) decide what happens next.
//!
//! - [`engine`]: what every backend shares — the breadth-first search and
//!   its bounds, the visited set, the starvation and stuck-lock analyses,
//!   and the harness (lock events, properties, their judge);
//! - [`zk`], [`redis`], [`mysql`], [`etcd`]: one folder per backend — its server
//!   model, its client library, its lock recipes (as sans-IO state
//!   machines) and its checker space;
//! - [`catalogue`]: every backend's recipes in one list.

pub mod catalogue;
pub mod engine;
pub mod etcd;
pub mod mysql;
pub mod redis;
pub mod zk;
