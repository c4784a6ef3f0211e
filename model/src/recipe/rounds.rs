//! The harness loop every recipe runs in, as the seeds' `main`s do:
//! `lock()`, critical section, `unlock()` — `acquisitions` times. Once
//! `lock()` has returned, every recipe here does the same thing: leave the
//! critical section, `delete(own node, -1)`, then either start the next
//! `lock()` or finish. [`Unlock`] is that tail, embedded in each recipe's
//! main-thread state.

use super::step::{act, call, throw, Action, RecipeConfig, Step};
use crate::zk::{Op, Reply};

/// How many acquisitions are left.
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
}

/// The seed's code for the two steps of `unlock()`, for traces.
#[derive(Clone, Copy, Debug)]
pub struct UnlockCode {
    pub leave: &'static str,
    pub delete: &'static str,
}

/// Where the main thread stands after `lock()` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unlock {
    /// In the critical section.
    Holding,
    /// `unlock()` began; the delete is next.
    Releasing,
    /// The delete was sent.
    Deleting,
}

/// What the recipe does after an [`Unlock`] step.
pub enum Next {
    Act(Action),
    /// Start the next `lock()`.
    Lock,
}

impl Unlock {
    /// One step of the tail; `node` is the path `unlock()` deletes.
    pub fn step(
        &mut self,
        reply: Option<Reply>,
        node: &str,
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
                Next::Act(call(
                    Op::Delete {
                        path: node.to_string(),
                        version: -1,
                    },
                    None,
                    code.delete,
                ))
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
