//! ZooKeeper's entry points into the engine's search
//! ([`crate::engine::explore`]): a scenario's [`CheckConfig`] made into its
//! [`ZkSpace`] and explored, resolved, replayed or judged there.

use super::config::CheckConfig;
use super::space::ZkSpace;
use super::system::{Action, System};
use crate::engine::explore::{self as engine, Progress};
use crate::engine::lasso;
use crate::engine::path::{self, Path};
use std::ops::ControlFlow;

/// A ZooKeeper run's exploration.
pub type Exploration = engine::Exploration<Action>;
/// A ZooKeeper counterexample.
pub type Counterexample = path::Counterexample<Action>;

pub fn explore(cfg: &CheckConfig) -> Exploration {
    explore_with_progress(cfg, &mut |_| ControlFlow::Continue(()))
}

/// [`explore`], telling `progress` how far it has come after every batch;
/// `progress` breaking stops the run
/// ([`Bound::Interrupted`](crate::engine::explore::Bound::Interrupted)).
pub fn explore_with_progress(
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Exploration {
    engine::explore_space(&ZkSpace::new(cfg), progress)
}

/// Replays a recorded path into concrete actions: the explorer keeps every
/// state as the path it records reached it, so the path's actions are the
/// trace.
pub fn resolve(cfg: &CheckConfig, path: &Path) -> Counterexample {
    path::resolve_in(&ZkSpace::new(cfg), path)
}

/// The state a path of ordinals from the initial state reaches, and the
/// actions it took.
pub fn replay(cfg: &CheckConfig, ordinals: &[u16]) -> (System<'static>, Vec<Action>) {
    path::replay_in(&ZkSpace::new(cfg), ordinals)
}

/// Judges a starvation counterexample by replaying it apart from the
/// search that found it ([`lasso::judge_in`]).
pub fn judge(cfg: &CheckConfig, cx: &Counterexample) -> Result<(), String> {
    lasso::judge_in(&ZkSpace::new(cfg), cx)
}
