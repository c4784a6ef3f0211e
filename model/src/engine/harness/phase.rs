//! The harness loop every client runs, as the seeds' `main`s do: think,
//! `lock()`, critical section, `unlock()`, next round — `acquisitions`
//! times, and in each round `lock()` called again `reentries` times by the
//! holder before the matching `unlock()`s. [`Phase`] is where a client
//! stands in that loop; it moves only on what the recipe's steps say
//! (`lock()` returned or gave up, the critical section ended, the release
//! operation went out), so every driver reads the same phase from the same
//! steps and emits the same [`LockEvent`]s.
//!
//! The phase is a function of the recipe's own state, so keeping it adds no
//! state to the checker's graph.

use super::event::LockEvent;
use serde::Serialize;

/// Holds that `lock()` returned and `unlock()` has not yet begun for: the
/// depth of a re-entrant hold (1 for the seeds' locks).
pub type Depth = u8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Phase {
    /// Before the first `lock()` (the driver's think time).
    Idle,
    /// Inside `lock()`.
    Acquiring,
    /// `lock()` returned; the critical section runs.
    Holding(Depth),
    /// The holder called `lock()` again (a re-entrant call) and it has not
    /// returned: the client still holds its outer acquisitions.
    Reacquiring(Depth),
    /// `unlock()` runs for the innermost hold; the release operation is not
    /// sent yet. The client still holds if the depth is above 1.
    Releasing(Depth),
    /// The release operation was sent; the next step of the thread ends
    /// `unlock()` (the driver's think time comes before it) and starts the
    /// next `lock()` or finishes.
    Released,
    /// All acquisitions done.
    Finished,
    /// The main thread died of an exception.
    Died,
    /// The client's process crashed: none of its threads runs again, and
    /// its session lives on until the server times it out.
    Crashed,
}

/// What a recipe step means to the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// `lock()` returned.
    Acquired,
    /// `lock()` returned without the lock.
    GaveUp,
    /// The holder called `lock()` again.
    Reenter,
    /// The critical section ended.
    Released,
    /// The step sent the recipe's release operation.
    SentRelease,
    /// `unlock()` returned without a release operation: a re-entered hold
    /// was counted down.
    Unlocked,
    Finished,
    /// The thread died of this exception.
    Threw(&'static str),
    /// Anything else.
    Other,
}

impl Phase {
    /// The client believes it holds the lock.
    pub fn holds(self) -> bool {
        match self {
            Phase::Holding(_) | Phase::Reacquiring(_) => true,
            Phase::Releasing(depth) => depth > 1,
            _ => false,
        }
    }

    /// The client's main thread is inside a `lock()` call, the first or a
    /// re-entrant one: it waits for the lock.
    pub fn locking(self) -> bool {
        matches!(self, Phase::Acquiring | Phase::Reacquiring(_))
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
        match (kind, phase) {
            (StepKind::Acquired, Phase::Reacquiring(depth)) => {
                events.push(LockEvent::Reentered);
                Phase::Holding(depth + 1)
            }
            (StepKind::Acquired, _) => {
                events.push(LockEvent::Acquired);
                Phase::Holding(1)
            }
            (StepKind::GaveUp, Phase::Reacquiring(depth)) => {
                events.push(LockEvent::GaveUp);
                Phase::Holding(depth)
            }
            (StepKind::GaveUp, _) => {
                events.push(LockEvent::GaveUp);
                Phase::Released
            }
            (StepKind::Reenter, Phase::Holding(depth)) => Phase::Reacquiring(depth),
            (StepKind::Released, Phase::Holding(depth)) => {
                events.push(LockEvent::Released);
                Phase::Releasing(depth)
            }
            (StepKind::SentRelease, Phase::Releasing(depth)) if depth > 1 => {
                events.push(LockEvent::ReleaseSent);
                Phase::Holding(depth - 1)
            }
            (StepKind::SentRelease, _) => {
                events.push(LockEvent::ReleaseSent);
                Phase::Released
            }
            (StepKind::Unlocked, Phase::Releasing(depth)) if depth > 1 => {
                events.push(LockEvent::Unlocked);
                Phase::Holding(depth - 1)
            }
            // The outermost `unlock()` returned without a release: the lock
            // stays taken, and the program no longer believes it holds it.
            (StepKind::Unlocked, _) => {
                events.push(LockEvent::Unlocked);
                Phase::Released
            }
            (StepKind::Finished, _) => {
                events.push(LockEvent::Finished);
                Phase::Finished
            }
            (StepKind::Threw(e), _) => {
                events.push(LockEvent::ThreadDied(e));
                if main {
                    Phase::Died
                } else {
                    phase
                }
            }
            _ => phase,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: &[StepKind]) -> (Phase, Vec<LockEvent>) {
        let mut events = Vec::new();
        let phase = steps
            .iter()
            .fold(Phase::Idle, |p, k| p.after(*k, true, &mut events));
        (phase, events)
    }

    #[test]
    fn a_reentered_hold_is_held_until_the_outer_unlock() {
        use StepKind::*;
        let mut events = Vec::new();
        let mut phase = Phase::Idle;
        let mut held = Vec::new();
        for k in [
            Acquired,
            Reenter,
            Acquired,
            Released,
            Unlocked,
            Released,
            SentRelease,
        ] {
            phase = phase.after(k, true, &mut events);
            held.push(phase.holds());
        }
        assert_eq!(held, [true, true, true, true, true, false, false]);
        assert_eq!(phase, Phase::Released);
        assert_eq!(
            events,
            [
                LockEvent::AcquireStarted,
                LockEvent::Acquired,
                LockEvent::Reentered,
                LockEvent::Released,
                LockEvent::Unlocked,
                LockEvent::Released,
                LockEvent::ReleaseSent,
            ]
        );
    }

    #[test]
    fn a_reentrant_call_that_blocks_is_locking_while_holding() {
        let (phase, _) = run(&[StepKind::Acquired, StepKind::Reenter]);
        assert!(phase.holds() && phase.locking());
    }

    #[test]
    fn each_unlock_path_leaves_the_phase_the_harness_expects() {
        use StepKind::*;
        // An inner unlock() that sends a release operation still holds the
        // outer acquisition; the outer one ends the hold.
        let (phase, _) = run(&[Acquired, Reenter, Acquired, Released, SentRelease]);
        assert_eq!(phase, Phase::Holding(1));
        assert!(phase.holds());
        let (phase, _) = run(&[
            Acquired,
            Reenter,
            Acquired,
            Released,
            SentRelease,
            Released,
            SentRelease,
        ]);
        assert_eq!(phase, Phase::Released);
        // The outermost unlock() returning without a release ends the hold
        // too (the lock stays taken on the server).
        let (phase, events) = run(&[Acquired, Released, Unlocked]);
        assert_eq!(phase, Phase::Released);
        assert!(!phase.holds());
        assert_eq!(events.last(), Some(&LockEvent::Unlocked));
        // A re-entrant lock() that gives up leaves the outer hold.
        let (phase, _) = run(&[Acquired, Reenter, GaveUp]);
        assert_eq!(phase, Phase::Holding(1));
        // The last round ends the loop; an exception ends the main
        // thread, while the event thread's is caught by ZooKeeper's.
        let (phase, events) = run(&[Acquired, Released, SentRelease, Finished]);
        assert_eq!(
            (phase, events.last()),
            (Phase::Finished, Some(&LockEvent::Finished))
        );
        let (phase, events) = run(&[Threw("KeeperException")]);
        assert_eq!(phase, Phase::Died);
        assert_eq!(
            events.last(),
            Some(&LockEvent::ThreadDied("KeeperException"))
        );
        let mut events = Vec::new();
        let phase = Phase::Holding(1).after(Threw("NPE"), false, &mut events);
        assert_eq!(
            (phase, events),
            (Phase::Holding(1), vec![LockEvent::ThreadDied("NPE")])
        );
        // Only a thread inside lock() is locking.
        assert!(!Phase::Holding(1).locking() && !Phase::Idle.locking());
        assert!(!Phase::Released.locking() && Phase::Acquiring.locking());
    }

    #[test]
    fn giving_up_ends_the_attempt_and_the_next_step_starts_another() {
        let (phase, events) = run(&[StepKind::GaveUp, StepKind::Other]);
        assert_eq!(phase, Phase::Acquiring);
        assert_eq!(
            events,
            [
                LockEvent::AcquireStarted,
                LockEvent::GaveUp,
                LockEvent::AcquireStarted
            ]
        );
    }
}
