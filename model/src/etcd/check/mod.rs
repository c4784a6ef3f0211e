//! etcd as the checker's fourth backend: the etcd locks on the server
//! model ([`crate::etcd`]), explored through the
//! [`Space`](crate::engine::space::Space) seam with the same search, bounds
//! and shortest traces as the other backends.
//!
//! - [`config`]: [`EtcdSpace`], one configuration — recipe, clients,
//!   rounds, the TTL, the critical section and a pause in ticks, fault
//!   budgets (pauses, crashes, revokes, a waiter's lease expiring,
//!   compactions, late unlocks, partitions), fencing, bounds;
//! - [`state`]: the engine's command state over the server: per client its
//!   recipe position, harness phase, its request in flight, watch or reply
//!   waiting, its timers and (etcd's own) its link;
//! - [`action`]: what can happen;
//! - [`step`]: which actions are enabled and what etcd's own do (the
//!   engine takes the shared ones: [`crate::engine::command::step`]);
//! - [`space`]: what the explorer asks of etcd's own, and the herd;
//! - [`trace`]: a counterexample narrated step by step;
//! - [`report`]: why etcd judges no orphaned node, no reentrancy (and no
//!   herd under 3 clients); every other verdict is the engine's.
//!
//! Each file answers one of the engine's command traits, as Redis's do.
//!
//! **Time** is the Redis checker's: actions are instantaneous, a
//! [`Action::Tick`] passes for everyone and is taken only when nothing
//! instantaneous is left and something counts down (a client's work,
//! think, pause or partition, or a lease nobody keeps alive).
//!
//! **Leases.** A running client's keep-alives renew its lease every tick
//! (etcd's client sends one every TTL/3 and the server resets the lease
//! to its full TTL, so a running client's lease never runs out); a paused,
//! crashed or cut-off client's lease counts down and, at zero, is revoked: its
//! keys go in one revision and the watches on them fire. The lag etcd
//! adds on top (the lessor checks every 500 ms; the client learns at its
//! last keep-alive response + TTL, checked every second) is not modelled
//! here but in the simulator (`sim/src/simulate/etcd/leases.rs`): only the
//! order matters here, and the server expires a lease before its client
//! can know (unlike ZooKeeper there is no margin in the client's favour). A client learns its session is gone at the start of
//! its next round, and opens a new one.
//!
//! **Properties.** Mutual exclusion (by belief), thread died, deadlock and
//! starvation as for the other backends; unlock by non-owner, read off the
//! transition that deleted the key of another client whose tenure is
//! current ([`State::foreign_unlock`]); stuck lock by reachability in the
//! kept graph ([`crate::engine::stuck`]); herd, a release (an unlock's
//! delete) whose events wake two or more waiters ([`space`]).
//! With `fencing = true`, mutual exclusion at the resource and fenced
//! safety: the token is the holder's key's create revision.
//!
//! **No symmetry reduction**, as for Redis and MySQL; revisions are kept
//! as they are (rounds bound them).

pub(crate) mod action;
pub(crate) mod config;
pub(crate) mod report;
pub(crate) mod space;
pub(crate) mod state;
pub(crate) mod step;
pub(crate) mod trace;

pub use action::Action;
pub use config::{EtcdFaults, EtcdSpace};
pub use state::{client_of, Channel, Client, Link, State};
pub use trace::mermaid;
