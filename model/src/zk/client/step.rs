//! The contract between a recipe and the runtime that drives it.
//!
//! A recipe never performs I/O. When one of its threads is scheduled, the
//! runtime hands it a [`Resume`] (what the thread was blocked on: a reply, a
//! watch notification, or nothing) and the recipe answers with one [`Step`]:
//! a single atomic action the runtime carries out. Every step is separately
//! schedulable, so a driver can interleave the event thread's `notifyAll()`
//! between the main thread's `exists(..., watcher)` and its `wait()`.

pub use super::library::KeeperState;
use super::library::Library;
use crate::engine::harness::Writes;
use crate::zk::{Name, Op, Reply, Stat, WatchedEvent};
use serde::Serialize;
use std::fmt;

/// A Java thread of one client process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Thread {
    /// The application thread that calls `lock()` / `unlock()`.
    Main,
    /// ZooKeeper's `EventThread`: runs watcher callbacks one at a time, in
    /// the order the events arrived.
    Event,
    /// An executor thread of the client library that runs the tasks other
    /// threads hand it ([`Step::Submit`]), one at a time, in order:
    /// Curator's `SafeNotifyService`, which runs a watcher's
    /// `synchronized (lock) { lock.notifyAll(); }` off the event thread.
    SafeNotify,
    /// Curator's background-operations thread: guaranteed deletes retried
    /// after a failure, watcher removals, the clean-up of a protected
    /// create that failed ([`Step::Submit`] hands it a task).
    Background,
    /// Curator's `ConnectionStateManager` thread: runs the application's
    /// `ConnectionStateListener` on each state change (SUSPENDED, LOST,
    /// RECONNECTED), one at a time, in order
    /// ([`Recipe::connection_state`] hands it one).
    Listener,
}

impl Thread {
    /// Every thread, in the order drivers look at them.
    pub const ALL: [Thread; 5] = [
        Thread::Main,
        Thread::Event,
        Thread::SafeNotify,
        Thread::Background,
        Thread::Listener,
    ];
}

impl fmt::Display for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Thread::Main => "main",
            Thread::Event => "event",
            Thread::SafeNotify => "safe-notify",
            Thread::Background => "background",
            Thread::Listener => "listener",
        })
    }
}

/// Names a `Watcher` object of the recipe. [`DEFAULT_WATCHER`] is the one
/// passed to `new ZooKeeper(...)`, used by calls made with `watch = true`.
pub type WatcherId = u8;
pub const DEFAULT_WATCHER: WatcherId = 0;

/// Names an object used as a Java monitor (`synchronized`, `wait`, `notifyAll`).
pub type MonitorId = u8;

/// Names a `CountDownLatch(1)`.
pub type LatchId = u8;

/// What a watcher's `process(WatchedEvent)` is called with.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Notice {
    Node(WatchedEvent),
    State(KeeperState),
    /// `DataWatchRemoved` on this path: the watcher was taken off the
    /// client's table by a `removeWatches` for it ([`Op::CheckWatches`]).
    ///
    /// [`Op::CheckWatches`]: crate::zk::Op::CheckWatches
    Removed(Name),
}

/// What a scheduled thread resumes with.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Resume {
    /// Nothing: the thread simply continues (after start, a monitor
    /// acquisition, a wake-up, an opened latch).
    Go,
    /// The reply to the thread's synchronous ZooKeeper call.
    Reply(Reply),
    /// The event thread runs `watcher.process(notice)`.
    Notify { watcher: WatcherId, notice: Notice },
    /// The answer to [`Step::ReadClock`]: whether the deadline has passed.
    Clock { passed: bool },
}

/// One atomic action of a recipe thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A synchronous ZooKeeper call: the thread blocks until the reply. With a
    /// watcher, the call sets a watch (`exists(path, watcher)`, or
    /// `getData(path, true)` with [`DEFAULT_WATCHER`]).
    Call {
        op: Op,
        watcher: Option<WatcherId>,
        /// The call is the recipe's release operation: the request that
        /// frees the lock for the others (see [`crate::engine::harness::Phase`]).
        release: bool,
    },
    /// `synchronized (m) {` — blocks while another thread holds `m`.
    Enter(MonitorId),
    /// `}` closing a synchronized block.
    Exit(MonitorId),
    /// `m.wait()`: releases `m`, sleeps until notified, re-acquires `m`.
    Wait(MonitorId),
    /// `m.wait(millis)`: as `Wait`, but the thread also wakes when the time
    /// is up — and cannot tell which woke it (Java's `wait(long)` returns
    /// nothing). The checker lets the timeout come at any moment; the
    /// simulator and a real run wait `millis`.
    TimedWait { monitor: MonitorId, millis: u32 },
    /// `m.notifyAll()`: wakes the threads waiting on `m` *now*; lost if none.
    NotifyAll(MonitorId),
    /// `latch = new CountDownLatch(1)`.
    ArmLatch(LatchId),
    /// `latch.countDown()`.
    CountDown(LatchId),
    /// `latch.await()`: returns at once if the latch is open.
    Await(LatchId),
    /// `executor.submit(task)`: queues one task for an executor thread
    /// (`SafeNotify` or `Background`); the recipe keeps what the task is, the
    /// runtime how many are queued. The submitting thread goes on.
    Submit(Thread),
    /// `System.currentTimeMillis()` against the deadline a timed call set
    /// with [`Step::StartDeadline`]: the thread resumes with
    /// [`Resume::Clock`].
    ReadClock,
    /// A timed call starts its clock: the deadline is `millis` from now.
    /// While it runs, a `wait()` of the thread ends at the deadline at the
    /// latest (Curator's `wait(millisToWait)`). The checker lets the
    /// deadline pass at any moment ([`Client::pass_deadline`]); the
    /// simulator and `locksmith real` do not pass it yet, and no recipe
    /// uses it yet (it is for Curator's `acquire(time, unit)`).
    ///
    /// [`Client::pass_deadline`]: super::Client::pass_deadline
    StartDeadline(u32),
    /// The timed call returned: its deadline no longer matters.
    StopDeadline,
    /// `lock()` returned: the client now believes it holds the lock.
    Acquired,
    /// `lock()` returned without the lock (a try-lock that failed, a timed
    /// acquire that ran out); the caller tries again.
    GaveUp,
    /// The holder calls `lock()` again (a re-entrant call; see
    /// [`RecipeConfig::reentries`]).
    Reenter,
    /// `unlock()` returned without a release operation: a re-entrant
    /// recipe counted a hold down.
    Unlocked,
    /// The critical section ends; `unlock()` begins.
    Released,
    /// The holder writes to the protected resource with its fencing token
    /// (a fenced critical section, [`Writes::Fenced`]): the driver carries
    /// it to the resource, which judges it; the thread goes on whatever
    /// the resource made of it.
    ///
    /// [`Writes::Fenced`]: crate::engine::harness::Writes::Fenced
    Write,
    /// The event thread's callback returned, or an executor thread's task
    /// ended.
    Return,
    /// The client finished all its acquisitions (on whichever thread
    /// finished the last one).
    Finished,
    /// The main thread's code returned (a pool thread's `run()` ended)
    /// while the client goes on in its event thread's callbacks: source 001
    /// takes the lock inside `process(NodeDeleted)`.
    End,
    /// An exception escaped the thread's code. The main thread dies; the
    /// event thread's `ClientCnxn.EventThread` catches whatever a
    /// `process` throws, logs it and goes on with the next event. Names the
    /// exception (`KeeperException` code name or the recipe's own).
    Throw(&'static str),
}

/// A step together with the seed's code it stands for, for traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub step: Step,
    pub code: &'static str,
}

pub fn act(step: Step, code: &'static str) -> Action {
    Action { step, code }
}

pub fn call(op: Op, watcher: Option<WatcherId>, code: &'static str) -> Action {
    act(
        Step::Call {
            op,
            watcher,
            release: false,
        },
        code,
    )
}

/// The recipe's release operation: `unlock()`'s call that frees the lock.
pub fn release(op: Op, code: &'static str) -> Action {
    act(
        Step::Call {
            op,
            watcher: None,
            release: true,
        },
        code,
    )
}

/// The per-client settings every recipe receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecipeConfig {
    /// How many times the main thread runs lock → critical section → unlock.
    pub acquisitions: u8,
    /// Which client this is, from 0: for what a recipe writes as its own
    /// identity (a GUID in a node name, "my id" in node data). Clients
    /// stay interchangeable for the checker's symmetry reduction: a recipe
    /// may only compare identities, never order them.
    pub client: u8,
    /// How many times, in each round, the holder calls `lock()` again
    /// before its `unlock()`s (one `unlock()` per `lock()`). 0 for the
    /// seeds' `main`s; a lock that is not re-entrant usually deadlocks on
    /// its own node.
    pub reentries: u8,
    /// How the critical section writes to the protected resource (the
    /// checker's `fencing` and `guarded` settings); off for the seeds.
    pub writes: Writes,
    /// `lock()` with a timeout in milliseconds — Curator's
    /// `acquire(time, unit)` — where the scenario sets `acquire_timeout_ms`;
    /// `None`: the seeds' untimed `acquire()`.
    pub acquire_timeout_ms: Option<u32>,
    /// Keep every field's value where no later step reads it: off, a
    /// recipe may set such values back to their initial ones (Curator's
    /// `forget_dead`), a reduction the tests hold to its promise by
    /// exploring with it off too.
    pub keep_dead_values: bool,
}

impl RecipeConfig {
    pub fn new(acquisitions: u8, client: u8) -> RecipeConfig {
        RecipeConfig {
            acquisitions,
            client,
            reentries: 0,
            writes: Writes::Off,
            acquire_timeout_ms: None,
            keep_dead_values: false,
        }
    }

    pub fn with_acquire_timeout(self, acquire_timeout_ms: Option<u32>) -> RecipeConfig {
        RecipeConfig {
            acquire_timeout_ms,
            ..self
        }
    }

    pub fn with_reentries(self, reentries: u8) -> RecipeConfig {
        RecipeConfig { reentries, ..self }
    }

    pub fn with_writes(self, writes: Writes) -> RecipeConfig {
        RecipeConfig { writes, ..self }
    }

    pub fn with_dead_values_kept(self, keep_dead_values: bool) -> RecipeConfig {
        RecipeConfig {
            keep_dead_values,
            ..self
        }
    }
}

/// A lock recipe as a sans-IO state machine. Its value is the recipe's whole
/// state: every thread's program counter, locals and shared fields.
pub trait Recipe: Clone + Eq + std::hash::Hash + fmt::Debug + Send + Sync + 'static {
    /// The parent node the recipe's lock nodes live under. Drivers create it
    /// (persistent) before the clients start, as the seeds' `main` does.
    fn lock_root(&self) -> &'static str;

    /// One atomic step of `thread`, resumed with `resume`: the recipe's one
    /// entry point. A recipe with code on both threads dispatches here.
    fn step(&mut self, thread: Thread, resume: Resume) -> Action;

    /// The `Stat` fields the recipe reads from replies. Every driver hands
    /// the recipe these and zeroes the rest, so the checker does not keep
    /// apart states that differ only in zxids nobody looks at.
    fn reads_stat(&self) -> StatFields {
        StatFields::NONE
    }

    /// Hands `f` every node path (or child name) the recipe's state holds:
    /// its fields and the locals it keeps between steps. The checker reads
    /// them for the orphaned-node property (a node nobody refers to) and
    /// renames sequence suffixes through [`paths_mut`](Self::paths_mut); a
    /// recipe must hand over every one, or both go wrong.
    fn paths(&self, f: &mut dyn FnMut(&Name));

    /// [`paths`](Self::paths), each one to rewrite in place.
    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name));

    /// Whether an exception that escapes the main thread ends the whole
    /// process — a script with no `except` — so that its session lives
    /// only until the server times it out. By default the process lives
    /// on (a pool thread of a JVM dies, the JVM and its session stay).
    fn exception_ends_process(&self) -> bool {
        false
    }

    /// The client library the recipe's code runs on, as the behaviours
    /// the model follows ([`Library`]): whether it renews a lost session,
    /// gives up on one by itself, times calls out while disconnected,
    /// tells watchers of connection states, has listeners and threads of
    /// its own. By default the Java client, used directly.
    fn library(&self) -> Library {
        Library::JAVA
    }

    /// The client library moved to a new session (see
    /// [`Library::renews_session`]): what code that remembers
    /// "the session I created this on" compares against, without a session
    /// id in the recipe's state.
    fn session_changed(&mut self) {}

    /// Whether the recipe will find `path` by a name it holds only in part
    /// — Curator's protected create looks for `_c_<uuid>` among the
    /// children when it retries — although [`paths`](Self::paths) does not
    /// list it: the orphaned-node property does not count such a node as
    /// forgotten.
    fn claims(&self, _path: &str) -> bool {
        false
    }

    /// Whether the recipe names a lock node of its own while it holds —
    /// what a fencing token is read from and a guarded write checks. A
    /// recipe without one (a shared lock node, a lock taken in a callback)
    /// cannot run with fencing or guarded writes.
    fn owns_a_node(&self) -> bool {
        false
    }

    /// Whether the recipe's own state breaks re-entrancy
    /// ([`Property::Reentrancy`](crate::engine::harness::Property::Reentrancy)):
    /// an inner `unlock()` sent the release operation, or — once the main
    /// thread has finished its rounds — one `unlock()` more would do
    /// anything but throw. (A re-entrant `lock()` that waits is read off
    /// the client's threads, not here.)
    fn reentrancy_broken(&self) -> bool {
        false
    }

    /// The client library's connection state changed (every watcher hears
    /// `state` too). Returns whether the recipe handed a task to its
    /// [`Thread::Listener`]: Curator's `ConnectionStateManager` posts
    /// SUSPENDED, LOST or RECONNECTED to the application's listener. By
    /// default no listener is registered.
    fn connection_state(&mut self, _state: KeeperState) -> bool {
        false
    }

    /// Whether the application no longer trusts that it holds the lock
    /// (its listener's flag): the holder writes no more in this critical
    /// section and leaves it.
    fn distrusts(&self) -> bool {
        false
    }

    /// Whether the recipe reads such a flag before each write to the
    /// resource (see [`Writes::Plain`]).
    fn guards_writes(&self) -> bool {
        false
    }
}

/// A set of `Stat` fields, as a recipe declares what it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatFields {
    pub version: bool,
    pub czxid: bool,
    pub mzxid: bool,
    pub cversion: bool,
    /// Read as `stat.getEphemeralOwner() == zk.getSessionId()`: the recipe
    /// sees 1 where the node's owner is the client's current session and
    /// 0 otherwise ([`StatFields::own_session`], applied by every driver),
    /// never a session id — the checker's symmetry reduction keeps session
    /// ids out of client state.
    pub ephemeral_owner: bool,
}

impl StatFields {
    pub const NONE: StatFields = StatFields {
        version: false,
        czxid: false,
        mzxid: false,
        cversion: false,
        ephemeral_owner: false,
    };

    /// Zeroes every field of `stat` the set leaves out.
    pub fn mask(self, stat: &mut Stat) {
        let kept = *stat;
        *stat = Stat::default();
        if self.version {
            stat.version = kept.version;
        }
        if self.czxid {
            stat.czxid = kept.czxid;
        }
        if self.mzxid {
            stat.mzxid = kept.mzxid;
        }
        if self.cversion {
            stat.cversion = kept.cversion;
        }
        if self.ephemeral_owner {
            stat.ephemeral_owner = kept.ephemeral_owner;
        }
    }

    /// Turns the `ephemeralOwner` of a reply's stat into whether it is
    /// `session` (1) or not (0), for a recipe that reads it (see
    /// [`StatFields::ephemeral_owner`]); drivers call it before
    /// [`mask_reply`](Self::mask_reply).
    pub fn own_session(self, reply: &mut Reply, session: i64) {
        if !self.ephemeral_owner {
            return;
        }
        each_stat(reply, |st| {
            st.ephemeral_owner = i64::from(st.ephemeral_owner == session && session != 0);
        });
    }

    /// Masks the stats inside a reply, if it carries any.
    pub fn mask_reply(self, reply: &mut Reply) {
        each_stat(reply, |st| self.mask(st));
    }
}

/// Calls `f` on each stat a reply carries: one for a read or a `setData`,
/// one per `setData` inside an applied `multi` (a guarded write's).
fn each_stat(reply: &mut Reply, mut f: impl FnMut(&mut Stat)) {
    use crate::zk::{OpResult, TxnResult};
    match reply {
        Ok(OpResult::Exists(Some(st))) | Ok(OpResult::SetData(st)) => f(st),
        Ok(OpResult::GetData { stat, .. }) | Ok(OpResult::GetChildren { stat, .. }) => f(stat),
        Ok(OpResult::Multi(results)) => {
            for r in results {
                if let TxnResult::SetData(st) = r {
                    f(st);
                }
            }
        }
        _ => {}
    }
}

/// The step a thread takes when a call failed and the seed's code has no
/// `catch` for it: the `KeeperException` escapes and the thread dies.
pub fn throw(reply: &Reply, code: &'static str) -> Action {
    let name = match reply {
        Err(e) => e.name(),
        Ok(_) => "UnexpectedReply",
    };
    act(Step::Throw(name), code)
}

/// A reply the seed's code has no branch for: the exception escapes and
/// the thread dies.
pub fn unexpected(reply: Option<Reply>, code: &'static str) -> Action {
    match reply {
        Some(reply) => throw(&reply, code),
        None => unreachable!("a thread resumed without a reply while calling"),
    }
}

impl Resume {
    /// The reply, if the thread resumed from a call.
    pub fn into_reply(self) -> Option<Reply> {
        match self {
            Resume::Reply(r) => Some(r),
            _ => None,
        }
    }
}
