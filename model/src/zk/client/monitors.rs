//! Java's monitors and `CountDownLatch`es, exactly as the JVM schedules them.
//!
//! The lost wake-up of source 000 lives here: `notifyAll()` wakes only threads
//! already in the wait set, so a notification that arrives before `wait()`
//! is gone; `wait()` releases the monitor, and a woken thread must win the
//! monitor back before it continues. A latch, by contrast, stays open once
//! counted down, so a late `await()` still returns.

use super::step::{LatchId, MonitorId, Thread};

/// Owners of the recipe's monitors and the state of its latches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Monitors {
    owners: Vec<Option<Thread>>,
    /// `true` once counted down (open).
    latches: Vec<bool>,
}

impl Monitors {
    pub fn owner(&self, m: MonitorId) -> Option<Thread> {
        self.owners.get(m as usize).copied().flatten()
    }

    pub fn is_free(&self, m: MonitorId) -> bool {
        self.owner(m).is_none()
    }

    pub fn take(&mut self, m: MonitorId, t: Thread) {
        let i = m as usize;
        if self.owners.len() <= i {
            self.owners.resize(i + 1, None);
        }
        self.owners[i] = Some(t);
    }

    pub fn release(&mut self, m: MonitorId) {
        if let Some(o) = self.owners.get_mut(m as usize) {
            *o = None;
        }
    }

    /// Every monitor `t` holds is released (an exception unwound its
    /// synchronized blocks).
    pub fn release_all_of(&mut self, t: Thread) {
        for o in &mut self.owners {
            if *o == Some(t) {
                *o = None;
            }
        }
    }

    pub fn arm(&mut self, l: LatchId) {
        let i = l as usize;
        if self.latches.len() <= i {
            self.latches.resize(i + 1, true);
        }
        self.latches[i] = false;
    }

    pub fn count_down(&mut self, l: LatchId) {
        if let Some(x) = self.latches.get_mut(l as usize) {
            *x = true;
        }
    }

    /// A latch that was never armed counts as open.
    pub fn is_open(&self, l: LatchId) -> bool {
        self.latches.get(l as usize).copied().unwrap_or(true)
    }
}
