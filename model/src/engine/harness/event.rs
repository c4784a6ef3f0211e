//! Lock events: what the harness loop around a recipe reports, whatever the
//! backend. The properties are judged over these (and over the server's
//! state where a property needs it), so every driver reads the same story.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum LockEvent {
    /// `lock()` was called.
    AcquireStarted,
    /// `lock()` returned: the client believes it holds the lock.
    Acquired,
    /// A re-entrant `lock()` call by the holder returned: one more hold.
    Reentered,
    /// `lock()` gave up without the lock (a try-lock that failed, a timed
    /// acquire that ran out).
    GaveUp,
    /// The critical section ended; `unlock()` began.
    Released,
    /// `unlock()` sent the recipe's release operation (a delete, a
    /// `setData`, a session close): the request that frees the lock.
    ReleaseSent,
    /// `unlock()` returned without a release operation: a re-entered hold
    /// was counted down.
    Unlocked,
    /// The client finished all its acquisitions.
    Finished,
    /// A thread ended on an uncaught exception (named).
    ThreadDied(&'static str),
}
