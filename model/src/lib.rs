//! locksmith's pure core: a ZooKeeper model ([`zk`]), a Redis model
//! ([`redis`]), a MariaDB/InnoDB model ([`sql`]), lock recipes written as sans-IO state machines ([`recipe`]),
//! every backend's recipes in one list ([`catalogue`]),
//! and the exhaustive checker ([`check`]). Nothing here performs I/O, reads a clock or draws a random
//! number; the drivers (the checker here, the simulator in the `locksmith`
//! crate) decide what happens next.

pub mod catalogue;
pub mod check;
pub mod harness;
pub mod recipe;
pub mod redis;
pub mod runtime;
pub mod sql;
pub mod zk;
