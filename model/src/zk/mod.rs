//! An in-memory ZooKeeper 3.8 server, as a pure state machine.
//!
//! Lock recipes break on details — which call leaves a watch behind, which
//! counter a sequential suffix comes from, whether an event reaches a client
//! before the reply that reflects it — so this model keeps ZooKeeper's own
//! rules rather than a simplified key-value store. Every rule is named where
//! it is implemented:
//!
//! - [`tree`]: znodes, their [`Stat`], the create modes and the sequential
//!   suffix (the number of children the parent ever had, `%010d`; deletes
//!   bump the `cversion` a client sees but not the suffix);
//! - [`watches`]: one-shot data and child watches and which operation fires
//!   which [`EventType`];
//! - [`sessions`]: session liveness, expiry and close (ephemerals deleted in
//!   one transaction, their watches fired);
//! - [`server`]: the request handler, a function of (state, request) to
//!   (state, reply, events), behind the [`Service`] interface that other
//!   coordination backends can implement too.
//!
//! The model has no clock, no I/O and no randomness. Time-dependent behaviour
//! (session timeouts, container reaping) happens when a driver says so.

pub mod check;
pub mod client;
mod error;
mod event;
mod name;
mod op;
pub mod path;
pub mod recipes;
mod server;
mod service;
mod sessions;
mod small_map;
mod stat;
mod tree;
mod watches;

pub use error::ZkError;
pub use event::{EventType, WatchedEvent};
pub use name::Name;
pub use op::{CreateMode, Op, OpResult, Reply, TxnOp, TxnResult, WatcherType};
pub use server::{ServerState, ZkServer};
pub use service::{Outcome, Service, SessionId};
pub use stat::Stat;
pub use tree::Node;
