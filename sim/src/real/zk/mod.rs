//! The one adapter between the model's ZooKeeper requests ([`Op`]) and a
//! real server, through the `zookeeper-client` crate over plain tokio
//! (never inside a madsim simulation).
//!
//! `locksmith real` drives the recipes through it with normalised replies
//! (the model's [`Reply`]); the conformance test (sim/tests/conformance)
//! compares raw ones ([`RawReply`]: every `Stat` field the server sent).
//! Both get each session's watch notifications in the order the server
//! sent them, relative to the replies ([`arrivals`]).
//!
//! [`Op`]: locksmith_model::zk::Op
//! [`Reply`]: locksmith_model::zk::Reply

mod arrivals;
mod convert;
mod raw;
mod session;

pub use convert::{error, stat_of, Notification};
pub use raw::{normalise, RawReply, RawResult, RawTxn};
pub use session::{unreachable, CallOutcome, Detached, Refusal, Session};

use std::time::Duration;

/// How long one call may take before it counts as unanswered (a lost
/// connection to the recipe, a failure to the conformance test). Also
/// bounds the wait for the server to confirm a close.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
