//! The event-thread side most recipes share: a `Watcher` whose `process`
//! counts a `CountDownLatch` down (source 003's `LockWatcher`, and the
//! textbook's "wait for the notification"). Any other watcher (the default
//! one passed to `new ZooKeeper`, unless it is the latch's) only logs.

use super::step::{act, Action, LatchId, Resume, Step, WatcherId};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LatchWatcher {
    /// Inside `process`, after `countDown()`.
    counted: bool,
}

impl LatchWatcher {
    /// One event-thread step: `latch.countDown()` if the notice is for
    /// `watcher`, then `process` returns.
    pub fn step(&mut self, r: Resume, watcher: WatcherId, latch: LatchId) -> Action {
        if self.counted {
            self.counted = false;
            return act(Step::Return, "watcher.process returns");
        }
        match r {
            Resume::Notify { watcher: w, .. } if w == watcher => {
                self.counted = true;
                act(Step::CountDown(latch), "watcher.process: latch.countDown()")
            }
            _ => act(Step::Return, "another watcher: logs the event"),
        }
    }
}
