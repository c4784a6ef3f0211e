//! The harness loop every recipe runs in, as the seeds' `main`s do:
//! `lock()`, critical section, `unlock()` — `acquisitions` times. Once
//! `lock()` has returned, the recipes here do the same thing: leave the
//! critical section, send their release operation (most delete their node;
//! a recipe gives its own), then either start the next `lock()` or finish.
//! [`Unlock`] is that tail, embedded in each recipe's main-thread state.

use super::step::{act, release, throw, Action, RecipeConfig, Step};
use crate::zk::{Op, Reply};

/// How many acquisitions are left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rounds {
    left: u8,
}

impl Rounds {
    /// Acquisitions not yet completed.
    pub fn left(self) -> u8 {
        self.left
    }
}

impl Rounds {
    pub fn new(cfg: RecipeConfig) -> Self {
        Rounds {
            left: cfg.acquisitions,
        }
    }
}

/// The seed's code for the two steps of `unlock()`, for traces.
#[derive(Clone, Copy, Debug)]
pub struct UnlockCode {
    pub leave: &'static str,
    /// The release operation's line.
    pub release: &'static str,
}

/// Where the main thread stands after `lock()` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unlock {
    /// In the critical section.
    Holding,
    /// `unlock()` began; the release operation is next.
    Releasing,
    /// The release operation was sent.
    Deleting,
}

/// What the recipe does after an [`Unlock`] step.
pub enum Next {
    Act(Action),
    /// Start the next `lock()`.
    Lock,
}

impl Unlock {
    /// One step of the tail; `release` makes the recipe's release
    /// operation (e.g. `delete(own node, -1)`).
    pub fn step(
        &mut self,
        reply: Option<Reply>,
        release_op: impl FnOnce() -> Op,
        code: UnlockCode,
        rounds: &mut Rounds,
    ) -> Next {
        match (*self, reply) {
            (Unlock::Holding, _) => {
                *self = Unlock::Releasing;
                Next::Act(act(Step::Released, code.leave))
            }
            (Unlock::Releasing, _) => {
                *self = Unlock::Deleting;
                Next::Act(release(release_op(), code.release))
            }
            (Unlock::Deleting, Some(Ok(_))) => {
                rounds.left = rounds.left.saturating_sub(1);
                if rounds.left == 0 {
                    Next::Act(act(Step::Finished, "all acquisitions done"))
                } else {
                    Next::Lock
                }
            }
            (Unlock::Deleting, Some(reply)) => {
                Next::Act(throw(&reply, "unlock: KeeperException escapes"))
            }
            (Unlock::Deleting, None) => {
                unreachable!("main thread resumed without the delete's reply")
            }
        }
    }
}
