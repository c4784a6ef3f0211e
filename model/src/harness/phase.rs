//! The harness loop every client runs, as the seeds' `main`s do: think,
//! `lock()`, critical section, `unlock()`, next round — `acquisitions`
//! times. [`Phase`] is where a client stands in that loop; it moves only on
//! what the recipe's steps say (`lock()` returned, the critical section
//! ended, the release operation went out), so every driver reads the same
//! phase from the same steps and emits the same [`LockEvent`]s.
//!
//! The phase is a function of the recipe's own state, so keeping it adds no
//! state to the checker's graph.

use super::event::LockEvent;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Phase {
    /// Before the first `lock()` (the driver's think time).
    Idle,
    /// Inside `lock()`.
    Acquiring,
    /// `lock()` returned; the critical section runs.
    Holding,
    /// `unlock()` runs; the release operation is not sent yet.
    Releasing,
    /// The release operation was sent; the next step of the thread ends
    /// `unlock()` (the driver's think time comes before it) and starts the
    /// next `lock()` or finishes.
    Released,
    /// All acquisitions done.
    Finished,
    /// The main thread died of an exception.
    Died,
}

/// What a recipe step means to the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// `lock()` returned.
    Acquired,
    /// `lock()` returned without the lock.
    GaveUp,
    /// The critical section ended.
    Released,
    /// The step sent the recipe's release operation.
    SentRelease,
    Finished,
    /// The thread died of this exception.
    Threw(&'static str),
    /// Anything else.
    Other,
}

impl Phase {
    /// The client believes it holds the lock.
    pub fn holds(self) -> bool {
        self == Phase::Holding
    }

    /// The main thread's next step begins a round: drivers think first.
    pub fn thinks_next(self) -> bool {
        matches!(self, Phase::Idle | Phase::Released)
    }

    /// The phase after a step of the main thread (`main`) or another thread,
    /// and the events that step emitted, in order.
    pub fn after(self, kind: StepKind, main: bool, events: &mut Vec<LockEvent>) -> Phase {
        let mut phase = self;
        if main && phase.thinks_next() && !matches!(kind, StepKind::Finished) {
            events.push(LockEvent::AcquireStarted);
            phase = Phase::Acquiring;
        }
        match kind {
            StepKind::Acquired => {
                events.push(LockEvent::Acquired);
                Phase::Holding
            }
            StepKind::GaveUp => {
                events.push(LockEvent::GaveUp);
                Phase::Released
            }
            StepKind::Released => {
                events.push(LockEvent::Released);
                Phase::Releasing
            }
            StepKind::SentRelease => {
                events.push(LockEvent::ReleaseSent);
                Phase::Released
            }
            StepKind::Finished => {
                events.push(LockEvent::Finished);
                Phase::Finished
            }
            StepKind::Threw(e) => {
                events.push(LockEvent::ThreadDied(e));
                if main {
                    Phase::Died
                } else {
                    phase
                }
            }
            StepKind::Other => phase,
        }
    }
}
