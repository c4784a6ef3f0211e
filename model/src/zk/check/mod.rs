//! ZooKeeper's checker space: the whole system (server, clients, channels,
//! fault budgets) as a state graph, which the engine's
//! ([`crate::engine`]) breadth-first search explores so that every
//! counterexample is a shortest one.
//!
//! - [`system`]: the state and its actions — where a session expires
//!   (`Action::Expire`) and where a connection drops;
//! - [`property`]: mutual exclusion, deadlock and herd, read off states and
//!   transitions;
//! - [`sequences`]: the sequence-suffix abstraction (when asked), which
//!   makes a polling recipe's state space finite;
//! - [`space`]: the system through the engine's seam; [`symmetry`],
//!   [`por`], [`local`]: the reductions;
//! - [`trace`], [`verdict`]: what a user reads;
//! - [`model`]: the same system as a stateright `Model`, for stateright's
//!   checkers and its Explorer web UI.

pub(crate) mod config;
pub mod explore;
pub(crate) mod local;
pub(crate) mod model;
pub(crate) mod own_step;
pub(crate) mod peer;
pub(crate) mod por;
pub mod property;
pub(crate) mod resource;
pub(crate) mod sequences;
pub(crate) mod server_digest;
pub(crate) mod shortest;
pub(crate) mod space;
pub(crate) mod suffixes;
pub(crate) mod symmetry;
pub(crate) mod system;
pub mod trace;
pub(crate) mod verdict;

pub use crate::engine::verdict::{Report, Verdict};
pub use config::{CheckConfig, FaultBudget, MAX_CLIENTS};
pub use model::{LockModel, EXPLORED, NOT_EXPLORED};
pub use peer::Peer;
pub use property::Property;
pub use shortest::{on_the_server, shortest, CheckerTrace};
pub use system::{Action, Downtime, Message, Request, System};

/// Explores `cfg` and judges every property. Call
/// [`CheckConfig::validate`] first: a configuration it rejects is reported
/// as incomplete here, never explored.
pub fn check(cfg: &CheckConfig) -> Report {
    check_with_progress(cfg, &mut |_| std::ops::ControlFlow::Continue(()))
}

/// [`check`], telling `progress` how far the exploration has come;
/// `progress` breaking stops it (the report is then incomplete:
/// interrupted).
pub fn check_with_progress(
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(crate::engine::explore::Progress) -> std::ops::ControlFlow<()>,
) -> Report {
    if cfg.validate().is_err() {
        let x = explore::Exploration::nothing();
        return Report::from_exploration(cfg, &x);
    }
    let x = explore::explore_with_progress(cfg, progress);
    Report::from_exploration(cfg, &x)
}
