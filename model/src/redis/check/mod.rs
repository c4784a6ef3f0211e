//! Redis as the checker's second backend: the seeds' lease locks on the
//! Redis server model ([`crate::redis`]), explored through the
//! [`Space`](crate::engine::space::Space) seam with the same search, bounds and
//! shortest traces as ZooKeeper's system.
//!
//! - [`config`]: [`RedisSpace`], one configuration — recipe, clients,
//!   rounds, the lease, the critical section, a pause and a clock skew in
//!   ticks, a replica, fault budgets (pauses, crashes, client and server
//!   clock jumps, restarts, failovers), bounds;
//! - [`state`]: the engine's command state over the server: per client its
//!   recipe position, harness [`Phase`](crate::engine::harness::Phase), its
//!   one command in flight or reply waiting, its timers and (Redis's own)
//!   its clock; who set the lock's key;
//! - [`action`]: what can happen — a client step, the server serving a
//!   command, a tick of time, and the faults;
//! - [`step`]: which actions are enabled and what Redis's own do (the
//!   engine takes the shared ones: [`crate::engine::command::step`]);
//! - [`space`]: what the explorer asks of Redis's own;
//! - [`trace`]: a counterexample narrated step by step, and as a trace
//!   (text and Mermaid) the CLI prints;
//! - [`report`]: why Redis judges no herd, no orphaned node, no
//!   reentrancy; every other verdict is the engine's.
//!
//! Each file answers one of the engine's command traits ([`config`]:
//! `Backend`, [`step`]: `Steps`, [`space`]: `Explored`, [`trace`]:
//! `Narrated`, [`report`]: `Reported`); with them `RedisSpace` is a
//! `Space` and a `Judged`.
//!
//! **Time.** Actions are instantaneous; [`Action::Tick`] is the only one
//! that takes time, one tick for everyone at once: every TTL on the server
//! shrinks by one model millisecond (a tick *is* one of the server model's
//! milliseconds: `PX 3` lasts three ticks and the key is gone at the
//! fourth, as a real Redis keeps a key until its clock is *past* the
//! deadline), and every client's work, think and pause counter counts one
//! down (a paused client's work counter stands still: its process is
//! frozen). A tick is taken only when nothing instantaneous is left —
//! no command in flight and no client able to step (maximal progress) —
//! and only when something counts down. So a holder whose critical section
//! is shorter than the lease releases before the key expires unless a
//! fault (a pause) stops it: a slow holder is not a violation by itself.
//! A client that could begin a round may instead think for one tick
//! ([`Action::Think`], again and again): rounds start at any time, which is
//! how a second client comes to try after a lease ran out.
//!
//! **A busy loop costs time.** A recipe step never loops without a
//! blocking call: a step ends at the first command it sends, and a retry
//! after a failed attempt must sleep, a counter of ticks like the work
//! (source 004's `redis-setnx-getset` loop sleeps a tick; source 003's
//! callers give up instead).
//!
//! **The horizon.** States keep time relative: a key's *remaining* TTL and
//! each counter's remaining ticks, never an absolute time. Nothing in a
//! state looks further ahead than `max(lease, work, pause)` ticks, so the
//! space is finite and a correct recipe reaches `holds`; a bound (states,
//! depth) that stops a run makes it `incomplete`, never `holds`.
//!
//! **Clocks and stamps.** Each client's clock reads `clock` ticks ahead of
//! the reference time (0 until a [`Action::ClockAhead`] or
//! [`Action::ClockBack`] fault moves it by the configured skew; the drift
//! is bounded by skew × budget). A timestamp recipe stores a
//! [stamp](crate::redis::Value::Stamp) — its clock's reading plus a lease,
//! relative to the reference time — and stamps age with every tick, on the
//! server, in replies not yet read and in the recipe's locals. Stamps
//! below the horizon [`RedisSpace::stamp_floor`] are clamped to it
//! (`-(2·lease + pause + 2·drift + 2)`: every recipe reads them alike
//! there, see its doc), and time stops passing for a stamp once it is
//! clamped, so a forgotten timestamp does not make the space infinite.
//!
//! **Properties.** Mutual exclusion (by belief), thread died, deadlock and
//! starvation as for ZooKeeper; unlock by non-owner, read off the
//! transition that deleted or overwrote the key of a client whose tenure
//! is current and, by the recipe's own rule on that client's clock, still
//! valid ([`State::foreign_unlock`], [`State::owner`]); stuck lock by
//! reachability in the kept graph ([`crate::engine::stuck`]: no state where
//! [`crate::redis::recipes::RedisRecipe::acquirable`] holds is reachable).
//!
//! **No symmetry reduction yet**: a client's token is its number, stored in
//! the server's keys, so renaming clients would have to rename values too.

pub(crate) mod action;
pub(crate) mod config;
pub(crate) mod report;
pub(crate) mod space;
pub(crate) mod state;
pub(crate) mod step;
pub(crate) mod trace;

pub use crate::engine::command::config::MAX_CLIENTS;
pub use crate::engine::command::Fence;
pub use action::Action;
pub use config::{RedisFaults, RedisSpace};
pub use state::{Channel, Client, Clock, KeyOwner, State};
pub use step::{FENCE_KEY, LOCK_KEY};
pub use trace::mermaid;
