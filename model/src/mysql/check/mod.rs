//! MySQL (MariaDB 10.11 / InnoDB) as the checker's third backend: the
//! seeds' database locks on the InnoDB model ([`crate::mysql`]), explored
//! through the [`Space`](crate::engine::space::Space) seam with the same search,
//! bounds and shortest traces as ZooKeeper's and Redis's systems.
//!
//! - [`config`]: [`MysqlSpace`], one configuration — recipe, clients, rounds,
//!   the critical section, a pause and the lock wait timeout in ticks,
//!   `CLIENT_FOUND_ROWS`, fault budgets (pauses, crashes), bounds;
//! - [`state`]: the engine's command state over the server: per client its
//!   recipe position, harness [`Phase`](crate::engine::harness::Phase),
//!   its timers and (MySQL's own) its connection; who took the lock row;
//! - [`action`]: what can happen;
//! - [`step`]: which actions are enabled and what MySQL's own do (the
//!   engine takes the shared ones: [`crate::engine::command::step`]);
//! - [`space`]: what the explorer asks of MySQL's own;
//! - [`trace`]: a counterexample narrated step by step;
//! - [`report`]: why MySQL judges no herd, no orphaned node, no
//!   reentrancy; every other verdict is the engine's.
//!
//! Each file answers one of the engine's command traits, as Redis's do.
//!
//! **Time** is the Redis checker's: actions are instantaneous, a
//! [`Action::Tick`] is one model millisecond for everyone and is taken
//! only when nothing instantaneous is left and something counts down (a
//! client's work, sleep or pause, or a statement waiting for a row lock,
//! whose `innodb_lock_wait_timeout` runs). The server keeps time relative
//! ([`crate::mysql::MysqlServer::rebase_time`]) and renumbers its
//! AUTO_INCREMENT ids after every step ([`crate::mysql::MysqlServer::renumber_ids`]):
//! the recipes here read no id, and a retry loop that uses an id up on
//! every failed `INSERT` would otherwise never repeat a state.
//!
//! **Connections.** Each client has one connection, opened when the run
//! begins. A crash closes it: the operating system closes the socket, the
//! server notices at once, rolls its transaction back and releases its row
//! locks; committed rows stay.
//!
//! **Properties.** Mutual exclusion (by belief), thread died, deadlock and
//! starvation as for ZooKeeper; unlock by non-owner, read off the
//! transition that changed the lock row of another client whose tenure is
//! current ([`State::foreign_unlock`]); stuck lock by reachability in the
//! kept graph, as the Redis checker judges it ([`crate::engine::stuck`]: no
//! state where [`crate::mysql::recipes::MysqlRecipe::acquirable`] holds is
//! reachable).
//!
//! **No symmetry reduction yet**, as for Redis.

pub(crate) mod action;
pub(crate) mod config;
pub(crate) mod report;
pub(crate) mod space;
pub(crate) mod state;
pub(crate) mod step;
pub(crate) mod trace;

pub use action::Action;
pub use config::{MysqlFaults, MysqlSpace};
pub use state::{Channel, Client, Connection, RowOwner, State};
pub use trace::mermaid;
