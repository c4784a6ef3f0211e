//! The harness loop every recipe runs in, as the seeds' `main`s do:
//! `lock()`, critical section, `unlock()` — `acquisitions` times — and the
//! two steps every `unlock()` here shares: leave the critical section, then
//! `delete(own node, -1)`.

use super::step::{act, call, Action, RecipeConfig, Step};
use crate::zk::Op;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rounds {
    left: u8,
}

impl Rounds {
    pub fn new(cfg: RecipeConfig) -> Self {
        Rounds {
            left: cfg.acquisitions,
        }
    }

    /// One acquisition ended. `Some(Finished)` if it was the last; `None`
    /// means the caller starts the next `lock()`.
    pub fn finish(&mut self) -> Option<Action> {
        self.left = self.left.saturating_sub(1);
        (self.left == 0).then(|| act(Step::Finished, "all acquisitions done"))
    }
}

/// The critical section ends; `unlock()` begins.
pub fn leave(code: &'static str) -> Action {
    act(Step::Released, code)
}

/// `zk.delete(path, -1)`.
pub fn delete(path: &str, code: &'static str) -> Action {
    call(
        Op::Delete {
            path: path.to_string(),
            version: -1,
        },
        None,
        code,
    )
}
