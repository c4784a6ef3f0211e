//! The harness around every recipe, shared by the checker, the simulator
//! and the real driver, and blind to the backend (ZooKeeper now; Redis and
//! SQL recipes run in the same loop):
//!
//! - [`phase`]: the loop — think, `lock()`, critical section, `unlock()`,
//!   next round — as a [`Phase`] moved by the recipe's steps;
//! - [`event`]: the [`LockEvent`]s the loop emits;
//! - [`property`]: every property's one name ([`Property`]) and the
//!   [`Verdict`]s;
//! - [`judge`]: the property definitions every driver shares;
//! - [`outcome`]: what one step of a command recipe did ([`Outcome`]),
//!   and whether its place waits for a reply ([`AwaitsReply`]);
//! - [`severity`]: how bad a violation is, worst first ([`Severity`]);
//! - [`resource`]: the protected resource that judges mutual exclusion by
//!   what reaches it, with or without fencing tokens;
//! - [`writes`]: how a critical section writes to the resource when a
//!   scenario turns fencing or guarded writes on.

pub(crate) mod event;
pub mod judge;
pub(crate) mod outcome;
pub(crate) mod phase;
pub(crate) mod property;
pub mod resource;
pub(crate) mod severity;
pub(crate) mod writes;

pub use event::LockEvent;
pub use judge::Violations;
pub use outcome::{AwaitsReply, Outcome};
pub use phase::{Phase, StepKind};
pub use property::{Property, Verdict};
pub use severity::Severity;
pub use writes::Writes;
