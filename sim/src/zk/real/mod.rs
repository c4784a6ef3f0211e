//! A real ZooKeeper: the same recipe machines against a real server
//! (`locksmith real`), through the one adapter to it ([`Session`]).
//!
//! One tokio runtime (built here, never inside a madsim simulation), one
//! real session per client ([`zk`], the adapter the conformance test uses
//! too), one driver task per client
//! ([`driver`]) that runs the model's [`Client`] exactly as the simulator
//! does: it steps a runnable thread (the event thread first), sends the
//! request a step yields as the matching `zookeeper-client` call, and hands
//! the reply and the watch notifications back in the order the server sent
//! them. A client that finishes its acquisitions is replaced by a fresh one
//! on the same session, so every client keeps competing until the run ends.
//!
//! What it judges, over the wall-clock run:
//! - **mutual exclusion**: when a client acquires, no other client believes
//!   it holds the lock (the clients' `holds` flags are read under one lock,
//!   so the check sees every overlap of beliefs; exit 1);
//! - **stall**: no acquisition for `stall_after` while a client waits (the
//!   run stops and reports which client waits; exit 1).
//!
//! What it measures, with the simulator's names ([`Metrics`] is the
//! simulator's own type): acquisitions, requests, replies, notifications
//! (watch events the server sent to the clients, copies merged), latency
//! (`lock()` called → returned), wake-ups per contended release, and:
//!
//! - a **contended acquisition** is one during whose attempt (from the
//!   call of `lock()` to its return) the client received at least one watch
//!   notification — it had to wait to be told. The textbook lock needs one
//!   per contended acquisition (its predecessor's deletion); the herd
//!   variants get one from every release and every new waiter's create.
//! - `notifications_per_contended_acquisition` = all notifications ÷
//!   contended acquisitions.
//!
//! Heartbeats are the client crate's business and not visible to the
//! driver; they are reported as 0 (the simulator's
//! `packets_per_acquisition` leaves them out as well). `simulated_ms` in
//! the shared metrics object is the run's wall-clock time here.
//!
//! [`Client`]: locksmith_model::zk::client::Client
//! [`Metrics`]: crate::zk::sim::Metrics
//!
//! The adapter ([`Session`]) is the one bridge between the model's ZooKeeper requests ([`Op`]) and a
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
pub mod calibrate;
pub mod command;
mod convert;
pub mod driver;
mod raw;
pub mod root;
mod session;

pub use convert::{error, stat_of, Notification};
pub use raw::{normalise, RawReply, RawResult, RawTxn};
pub use session::{unreachable, CallOutcome, Detached, Refusal, Session};

use std::time::Duration;

/// How long one call may take before it counts as unanswered (a lost
/// connection to the recipe, a failure to the conformance test). Also
/// bounds the wait for the server to confirm a close.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

pub use driver::{run, RealConfig, RealError, RealReport};
