//! The harness loop every recipe runs in, as the seeds' `main`s do:
//! `lock()`, critical section, `unlock()` — `acquisitions` times. A recipe
//! writes only its lock: the steps of `lock()` ([`Lock::lock`]), its release
//! operation ([`Lock::unlock`]) and its watchers ([`Lock::on_event`]).
//! [`LockLoop`] runs the rest — the critical section, sending the release,
//! counting rounds, finishing — once for every recipe, and is the
//! [`Recipe`] the drivers step.

use super::step::{act, throw, Action, Recipe, RecipeConfig, Resume, StatFields, Step, Thread};

/// A lock recipe's own code: what `lock()`, `unlock()` and its watchers do.
pub trait Lock: Clone + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync + 'static {
    /// The seed's code for leaving the critical section, for traces.
    const LEAVE: &'static str = "critical section done; unlock()";

    /// The parent node the recipe's lock nodes live under. Drivers create it
    /// (persistent) before the clients start, as the seeds' `main` does.
    fn lock_root(&self) -> &'static str;

    /// One step of `lock()` on the main thread. A fresh `lock()` starts
    /// with [`Resume::Go`]; the step [`Step::Acquired`] returns from it.
    fn lock(&mut self, resume: Resume) -> Action;

    /// Back to the top of `lock()`. The loop calls it when `lock()`
    /// returns, so a holder's state does not remember which path led it to
    /// the lock (states that differ only in that are one state).
    fn rewind(&mut self);

    /// `unlock()`'s release operation ([`release`](super::step::release)),
    /// or the exception `unlock()` throws instead.
    fn unlock(&self) -> Action;

    /// One step of the event thread: a watcher's `process`.
    fn on_event(&mut self, resume: Resume) -> Action;

    /// The `Stat` fields the recipe reads from replies (see
    /// [`Recipe::reads_stat`]).
    fn reads_stat(&self) -> StatFields {
        StatFields::NONE
    }
}

/// Where the main thread stands in the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Stage {
    /// Inside `lock()`: the recipe's steps.
    Locking,
    /// `lock()` returned: in the critical section.
    Holding,
    /// `unlock()` began; the release operation is next.
    Unlocking,
    /// The release operation was sent.
    Released,
}

/// A recipe's [`Lock`] inside the harness loop.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockLoop<L> {
    lock: L,
    stage: Stage,
    /// Acquisitions not yet completed.
    left: u8,
}

impl<L: Lock> LockLoop<L> {
    pub fn new(lock: L, cfg: RecipeConfig) -> Self {
        LockLoop {
            lock,
            stage: Stage::Locking,
            left: cfg.acquisitions,
        }
    }

    /// The recipe's own state.
    pub fn lock(&self) -> &L {
        &self.lock
    }

    fn locking(&mut self, resume: Resume) -> Action {
        let action = self.lock.lock(resume);
        if action.step == Step::Acquired {
            self.stage = Stage::Holding;
            self.lock.rewind();
        }
        action
    }

    fn main_step(&mut self, resume: Resume) -> Action {
        match self.stage {
            Stage::Locking => self.locking(resume),
            Stage::Holding => {
                self.stage = Stage::Unlocking;
                act(Step::Released, L::LEAVE)
            }
            Stage::Unlocking => {
                let action = self.lock.unlock();
                if matches!(action.step, Step::Call { .. }) {
                    self.stage = Stage::Released;
                }
                action
            }
            Stage::Released => match resume.into_reply() {
                Some(Ok(_)) => {
                    self.left = self.left.saturating_sub(1);
                    if self.left == 0 {
                        act(Step::Finished, "all acquisitions done")
                    } else {
                        self.stage = Stage::Locking;
                        self.locking(Resume::Go)
                    }
                }
                Some(reply) => throw(&reply, "unlock: KeeperException escapes"),
                None => unreachable!("main thread resumed without the release's reply"),
            },
        }
    }
}

impl<L: Lock> Recipe for LockLoop<L> {
    fn lock_root(&self) -> &'static str {
        self.lock.lock_root()
    }

    fn step(&mut self, thread: Thread, resume: Resume) -> Action {
        match thread {
            Thread::Main => self.main_step(resume),
            Thread::Event => self.lock.on_event(resume),
        }
    }

    fn reads_stat(&self) -> StatFields {
        self.lock.reads_stat()
    }
}
