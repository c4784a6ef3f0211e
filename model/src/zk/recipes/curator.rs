//! `curator` — Apache Curator 5.4's `InterProcessMutex`, the lock source 000
//! opens with (lines 26–48: `ExponentialBackoffRetry(1000, 3, 5000)`,
//! `new InterProcessMutex(zkClient, "/curator/locks")`, `acquire()`,
//! `doSomething()`, `release()`), modelled call for call from Curator's
//! classes:
//!
//! - `InterProcessMutex.internalLock`: a thread that already holds the
//!   mutex counts up (`lockData.lockCount.incrementAndGet()`) with no
//!   ZooKeeper call; otherwise `LockInternals.attemptLock`;
//! - `attemptLock`: `driver.createsTheLock` then `internalLockLoop`; a
//!   `NoNodeException` from either starts again while the retry policy
//!   allows (`allowRetry(retryCount++)`: 3 retries);
//! - `StandardLockInternalsDriver.createsTheLock`:
//!   `create().creatingParentContainersIfNeeded().withProtection()
//!   .withMode(EPHEMERAL_SEQUENTIAL).forPath("…/lock-")` —
//!   `CreateBuilderImpl` with `ProtectedMode`: the node is named
//!   `_c_<uuid>-lock-<seq>`, one uuid per builder (per attempt); the
//!   create runs in a `RetryLoop`, and a retry first looks for its node by
//!   the uuid (`findProtectedNodeInForeground`: `getChildren`, a child that
//!   starts with `_c_<uuid>`) — `validateFoundNode` throws away (deletes in
//!   the background) a node found after the session changed (CURATOR-498);
//! - `internalLockLoop`: `getChildren`, sorted by the suffix after
//!   `lock-`; our index 0 → held; not found → `NoNodeException` (with
//!   `doDelete`); else `synchronized (this) { getData().usingWatcher(w)
//!   .forPath(predecessor); wait(); }`, `NoNodeException` → loop. The
//!   watcher is `client.postSafeNotify(LockInternals.this)`: the event
//!   thread hands `synchronized (this) { notifyAll(); }` to Curator's
//!   safe-notify executor ([`Thread::SafeNotify`]). An exception other
//!   than `NoNode` leaves the loop with `doDelete`: `deleteOurPath` is a
//!   guaranteed delete (`NoNode` ignored), then the exception escapes;
//! - every call goes through `RetryLoop.callWithRetry`: `ConnectionLoss`
//!   and `SessionExpired` are retried (the model's server raises neither
//!   `OperationTimeout` nor `SessionMoved`) up to the policy's 3 retries;
//!   the next try waits until the connection is back (the runtime holds a
//!   request until the reconnect) — unless the outage outlasts the
//!   connection timeout: `ConnectionState.getZooKeeper()` then runs
//!   `checkTimeouts()`, which throws `CuratorConnectionLossException`
//!   before the call is sent, and the retry counts it (the checker's
//!   `connection_timeouts` budget,
//!   [`Recipe::times_out_connecting`](crate::zk::client::Recipe::times_out_connecting));
//! - `release()`: count − 1; at zero `internals.releaseLock(path)` —
//!   `removeWatchers()`, then `deleteOurPath`: `delete().guaranteed()`:
//!   a delete whose retries run out is handed to the background thread
//!   ([`Thread::Background`], `FailedDeleteManager`), retried until it
//!   succeeds, and `release()` throws — after `finally { threadData
//!   .remove(thread) }`: the thread no longer holds the mutex, whether the
//!   node is gone or not (CURATOR-678);
//! - the connection-state machine (`ConnectionStateManager`,
//!   `ConnectionState.reset()`): on a session's expiry — the server's, or
//!   the one Curator injects after `SUSPENDED` for a session timeout by
//!   the client's own clock (the checker's `client_expiries`) — the
//!   library opens a new session (LOST, then RECONNECTED), and every
//!   registered watcher hears `Expired`. Nothing in the acquire loop checks
//!   that its node belongs to the current session (CURATOR-604).
//!
//! **Model choices.** The uuid of an attempt is the client's letter and
//! the attempt's number (`_c_a1-lock-`): unique among the nodes that can
//! exist, and short, so the path stays within `Name`'s 30 inline bytes.
//! The lock root is `/locks`, one level where the seed's `/curator/locks`
//! has two: the drivers create it (persistent) unless a scenario says
//! `root = "recipe"`; then `creatingParentContainersIfNeeded` makes it: a
//! create that finds no parent runs `ZKPaths.mkdirs` (`exists`, then
//! `create(CONTAINER)`, `NodeExists` ignored) and creates again, whose
//! `NoNode` escapes to `attemptLock`; `findNode` and `getSortedChildren`
//! meet a reaped parent as Curator does (none found; `doDelete` and a
//! retry). `releaseLock` is 5.4.0's `client.removeWatchers();
//! revocable.set(null); deleteOurPath(lockPath)`. The client is a
//! `WatcherRemovalFacade` whose `WatcherRemovalManager` keeps a watcher
//! from a successful `getData().usingWatcher()` (`Watching.commitWatcher`)
//! until a node event reaches it (`NamespaceWatcher.process` →
//! `noteTriggeredWatcher`; a state event — Disconnected, Expired — does
//! not): the recipe's `kept`. `removeWatchers()` hands one background
//! `removeWatches(path, watcher, Any)` (quietly: `NoWatcher` ignored;
//! guaranteed: retried) per kept watcher to the background thread, one
//! `Submit` step each, before the delete. For one watcher ZooKeeper's
//! client sends opcode `checkWatches` ([`Op::CheckWatches`]): the server
//! only checks and **keeps its watch**; on `OK` the client drops the
//! watcher from its own table and hands it `DataWatchRemoved` (which
//! Curator's watcher answers like any event: `postSafeNotify`). So the
//! server still notifies the session when that node changes — the herd
//! and the packets are the same — but no watcher hears it. What `kept`
//! holds at a release is stale: the event thread ran the watcher before
//! the caller's `commitWatcher` added it (it runs when `getData` returns),
//! a session ended since (Expired keeps the entry; the new session's server
//! has no such watch), or the holder's `getChildren` saw its predecessor
//! gone before its event thread ran the `NodeDeleted` notice. A client
//! holds only once every node it watched is gone, so every removal is
//! answered `NoWatcher` (`model/tests/checker.rs`, curator 2 × 2). A
//! timed-out waiter keeps its watcher, in the set and on the server, until
//! that node changes or it next releases — which is what makes the herd at
//! 3 clients (README). When the create's
//! retries run out on a `ConnectionLoss`, its node is looked for and
//! deleted by the background thread (`FindAndDeleteProtectedNodeInBackground`,
//! CURATOR-45) and the exception escapes `acquire()`.
//!
//! **`acquire(time, unit)`** — where a scenario sets `acquire_timeout_ms`
//! (`curator-timed.toml`) — is `attemptLock(time, unit)`:
//! the clock starts with the call ([`Step::StartDeadline`]); after each
//! successful `getData` the loop reads it (`millisToWait -= …`), and out
//! of time it breaks out of `synchronized (this)` with `doDelete = true`,
//! `deleteOurPath` deletes its node (a guaranteed delete; its exception
//! would escape instead of the `false`) and `acquire` returns false; the
//! harness's caller tries again. Otherwise it waits in
//! `wait(millisToWait)`, which the deadline ends. **The deadline is a free
//! choice of the checker**, not a budgeted fault: it may pass at any moment
//! of the call (`Action::Deadline`) — time passes, nothing fails — and it
//! stops mattering when `acquire` returns. A timed acquire's uuid is the
//! smallest number no node of the client that may still exist carries, so
//! that a waiter timing out again and again does not make every retry a new
//! state. The simulator and `locksmith real` pass the deadline on their
//! clocks, `acquire_timeout_ms` after the call; `locksmith confirm` passes
//! it in the client at the trace's step (`curator-timed-herd.toml`).
//! Free choices, not faults: the retry loop's sleeps, the reconnect
//! (RECONNECTED), the moment Curator gives up on a suspended session
//! (`GiveUp`, after a client-side expiry began), the server's later end
//! of that session (`ExpireOld`) and a timed acquire's deadline. Budgeted faults: connection losses,
//! expiries, client-side expiries, and an outage that outlasts the
//! connection timeout (`connection_timeouts`: like a client-side expiry,
//! a fault by how long the disconnect lasts; `curator-connection-timeout`
//! has the `acquire()` it makes throw).
//!
//! **Claims:** mutual exclusion, re-entrancy, no herd. **Holds** without
//! faults (`curator.toml`) and across a connection loss on the create
//! (`curator-connection-loss.toml`: the protected create finds its node).
//! **Breaks** on a holder's expiry (CURATOR-206, closed "by design") and
//! on a client-side expiry of a waiter: the loop takes the lock on its old
//! session's node, which the server deletes later (CURATOR-604,
//! `curator-604.toml`). The owner-check variant (`curator-owner-check`)
//! compares the node's `ephemeralOwner` with the current session before
//! it believes it holds, as CURATOR-696 does for `LeaderLatch`. With the
//! resource in the checked system, fencing by the lock node's czxid and
//! writes guarded by `multi(check(ourPath), setData)` (CURATOR-689) keep
//! both from reaching the resource (`curator-holder-expiry-fenced.toml`,
//! `curator-holder-expiry-guarded.toml`, `curator-604-guarded.toml`).
//!
//! **`curator-listener`: Curator as its documentation says to use it.**
//! `InterProcessMutex`'s documentation asks for a
//! `ConnectionStateListener`: on SUSPENDED the application can no longer be
//! sure it holds the lock until RECONNECTED; on LOST it certainly does not
//! (Curator's docs call the lock "dirty"). The recipe is the listener a
//! user writes, not `ConnectionStateErrorPolicy` (`InterProcessMutex`
//! never reads it): `CuratorFrameworkImpl.validateConnection` turns
//! Disconnected into `setToSuspended` (SUSPENDED, unless SUSPENDED or LOST
//! already), Expired into LOST (the server's expiry, or the one Curator
//! injects after SUSPENDED for a session timeout) and SyncConnected into
//! RECONNECTED; `ConnectionStateManager.addStateChange` posts only a state
//! that differs from the current one, and its own thread
//! ([`Thread::Listener`], the thread that also gives up on a suspended
//! session) runs the listener on each, in order. The listener sets a flag
//! on SUSPENDED and on LOST, and clears it on RECONNECTED only when no LOST
//! came since the SUSPENDED. The holder reads the flag before every write
//! to the resource and leaves its critical section (without writing) when
//! it is set; a new `acquire()` starts trusting again (the user clears the
//! flag before calling it). It is judged at the resource: its critical
//! section writes even where a scenario asks for no fencing
//! ([`Writes::Plain`](crate::engine::harness::Writes::Plain)).
//! **What breaks it:** the checker has no clocks, so it lets the server
//! expire a holder's session before the client has heard anything and the
//! listener's thread lag behind a posted state: its holder-expiry,
//! any-expiry and client-expiry cells are violated at the resource
//! (`curator-listener-holder-expiry.toml`, 18 steps) — the case of a paused
//! process. Whether the client learns first under a partition is a matter
//! of ZooKeeper's deadlines, which the simulator keeps: a two-way partition
//! holds (`curator-listener-partition.toml`), a process pause longer than
//! the session timeout breaks it (`curator-listener-pause.toml`) unless the
//! resource is fenced (`curator-listener-pause-fenced.toml`), and
//! CURATOR-604's client-side expiry leaves two holders by belief for a
//! moment but no write out of turn (the waiter's flag was set while it
//! waited).

use crate::zk::client::library::Library;
use crate::zk::client::lock_loop::{AfterRelease, Lock};
use crate::zk::client::step::{
    act, call, release, throw, unexpected, Action, KeeperState, Notice, RecipeConfig, Resume,
    StatFields, Step, Thread,
};
use crate::zk::{path, CreateMode, Name, Op, OpResult, Reply, WatchedEvent, WatcherType, ZkError};

pub const LOCK_ROOT: &str = "/locks";
/// `InterProcessMutex.LOCK_NAME`.
const LOCK_NAME: &str = "lock-";
/// `LockInternals.this`, the monitor of `synchronized (this)`.
const MONITOR: u8 = 0;
/// `LockInternals.watcher`.
const WATCHER: u8 = 1;
/// `ExponentialBackoffRetry(1000, 3, 5000)`: three retries.
const MAX_RETRIES: u8 = 3;

/// Where the main thread stands in `acquire()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    /// `internalLock` next.
    Start,
    /// The protected `create` sent.
    Create,
    /// `creatingParentContainersIfNeeded`: the create found no parent;
    /// `ZKPaths.mkdirs` asks `exists(parent)`.
    MkdirsExists,
    /// `mkdirs`: `create(parent, CONTAINER)` sent.
    MkdirsCreate,
    /// The create again, after `mkdirs`: a `NoNode` now escapes the call.
    CreateAgain,
    /// A retry's `findProtectedNodeInForeground`: `getChildren` sent.
    Find,
    /// `validateFoundNode` handed an old session's node to the background
    /// thread; `create` next.
    Discarded,
    /// The create's retries ran out and its node went to
    /// `FindAndDeleteProtectedNodeInBackground`; the exception escapes.
    Abandoned,
    /// `getSortedChildren`: `getChildren` sent.
    Children,
    /// The owner-check variant: `exists(ourPath)` sent.
    Owner,
    /// `synchronized (this)` entered; `getData` next.
    Entered,
    /// `getData().usingWatcher(watcher)` sent.
    GetData,
    /// `acquire(time, unit)`: the clock started; `createsTheLock` next.
    Timing,
    /// `acquire(time, unit)`: after `getData`, the time left is read.
    Clock,
    /// The time ran out (`doDelete = true; break`): left `synchronized
    /// (this)`; `deleteOurPath` next.
    TimedOut,
    /// In `wait()` (`wait(millisToWait)` in a timed acquire).
    Waiting,
    /// Left `synchronized (this)`; the loop's `getChildren` next.
    Exited,
    /// An exception left `synchronized (this)`; `doDelete` next.
    Leaving,
    /// `deleteOurPath`'s delete sent (`doDelete`).
    Deleting(Then),
    /// The delete's retries ran out and it went to the background thread.
    Handed(Then),
}

/// What `acquire()` does once `deleteOurPath` is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Then {
    /// `attemptLock` caught `NoNodeException`: try again.
    Retry,
    /// The exception escapes `acquire()`.
    Throw,
    /// A timed acquire ran out: `acquire(time, unit)` returns false.
    GiveUp,
}

/// A task of Curator's background thread.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
enum Task {
    #[default]
    None,
    /// `delete().guaranteed().inBackground()`: retried until it succeeds.
    Delete(Name),
    /// `FindAndDeleteProtectedNodeInBackground`: `getChildren`, then a
    /// guaranteed delete of the child named `_c_<uuid>-…` (the attempt
    /// number stands for the uuid).
    FindAndDelete(u8),
    /// `removeWatchers()`'s `RemoveWatchesBuilderImpl.internalRemoval`:
    /// `removeWatches(path, watcher, Any)` in the background, quietly
    /// (`NoWatcher` ignored) and guaranteed (retried until answered).
    RemoveWatch(Name),
}

/// The safe-notify executor's task: `synchronized (this) { notifyAll(); }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
enum Notify {
    #[default]
    Idle,
    Entered,
    Notified,
    Exited,
}

/// What Curator's `ConnectionStateManager` posts to its listeners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Posted {
    Suspended,
    Lost,
    Reconnected,
}

/// `curator-listener`: the application's `ConnectionStateListener`, as
/// Curator's documentation for `InterProcessMutex` asks for, and the flag
/// it keeps for the holder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Listener {
    /// `ConnectionStateManager.currentConnectionState` (`None`: CONNECTED):
    /// `addStateChange` posts nothing equal to it, and `setToSuspended`
    /// nothing over LOST.
    current: Option<Posted>,
    /// Posted, not yet run on the listener thread, in order.
    queue: Vec<Posted>,
    /// The flag: set on SUSPENDED and on LOST.
    suspect: bool,
    /// A LOST came since the last SUSPENDED: the lock is "dirty", and
    /// RECONNECTED does not clear the flag.
    lost: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Curator {
    main: Main,
    /// `threadData`'s `lockCount` for the main thread; 0: no entry.
    count: u8,
    /// The protected uuid: this client and its attempt number.
    me: u8,
    attempt: u8,
    /// `RetryLoop`'s count for the call in flight.
    retries: u8,
    /// `attemptLock`'s `retryCount` (`NoNodeException`s).
    lock_retries: u8,
    /// `ProtectedMode.sessionId` is not the current session any more.
    stale: bool,
    own: Name,
    watched: Name,
    /// `WatcherRemovalManager.entries`: the predecessors whose
    /// `getData().usingWatcher(watcher)` succeeded (`commitWatcher`) and
    /// whose watcher no node event has reached yet (`noteTriggeredWatcher`;
    /// a state event leaves them), in path order.
    kept: Vec<Name>,
    /// The event thread's `process` handed its task to safe-notify.
    submitted: bool,
    notify: Notify,
    /// Tasks handed to the background thread, in order.
    background: Vec<Task>,
    /// The one the background thread is running.
    task: Task,
    owner_check: bool,
    /// `acquire(time, unit)`'s timeout in milliseconds; `None`: `acquire()`.
    timeout: Option<u32>,
    /// The application's connection-state listener (`curator-listener`).
    listener: Option<Listener>,
    /// [`Curator::forget_dead`] is off: the tests' run without it
    /// ([`RecipeConfig::keep_dead_values`]).
    keeps_dead: bool,
}

pub fn new(cfg: RecipeConfig) -> Curator {
    Curator {
        main: Main::Start,
        count: 0,
        me: cfg.client,
        attempt: 0,
        retries: 0,
        lock_retries: 0,
        stale: false,
        own: Name::default(),
        watched: Name::default(),
        kept: Vec::new(),
        submitted: false,
        notify: Notify::Idle,
        background: Vec::new(),
        task: Task::None,
        owner_check: false,
        timeout: cfg.acquire_timeout_ms,
        listener: None,
        keeps_dead: cfg.keep_dead_values,
    }
}

/// Curator as its documentation says to use it: a
/// `ConnectionStateListener` whose flag the holder reads before every write
/// to the resource.
pub fn new_listener(cfg: RecipeConfig) -> Curator {
    Curator {
        listener: Some(Listener::default()),
        ..new(cfg)
    }
}

/// The CURATOR-696 fix applied to the mutex: the holder checks its node's
/// `ephemeralOwner` against its current session.
pub fn new_owner_check(cfg: RecipeConfig) -> Curator {
    Curator {
        owner_check: true,
        ..new(cfg)
    }
}

/// `RetryLoop.shouldRetry`'s codes that the model's server can return.
fn retryable(reply: &Reply) -> bool {
    matches!(
        reply,
        Err(ZkError::ConnectionLoss) | Err(ZkError::SessionExpired)
    )
}

/// `StandardLockInternalsDriver.fixForSorting`: the part after `lock-`.
fn suffix(name: &str) -> &str {
    match name.rfind(LOCK_NAME) {
        Some(i) => &name[i + LOCK_NAME.len()..],
        None => name,
    }
}

impl Curator {
    /// `_c_<uuid>-`: what a protected name starts with.
    fn protected_prefix(&self) -> String {
        self.prefix_of(self.attempt)
    }

    /// `forPath("…/lock-")` under protection: `/locks/_c_<uuid>-lock-`.
    fn protected_path(&self) -> String {
        format!("{LOCK_ROOT}/{}{LOCK_NAME}", self.protected_prefix())
    }

    fn prefix_of(&self, attempt: u8) -> String {
        format!("_c_{}{:x}-", (b'a' + self.me) as char, attempt)
    }

    /// `createsTheLock` with a new builder: a new uuid, a new retry loop.
    fn start_attempt(&mut self) -> Action {
        self.attempt = match self.timeout {
            Some(_) => self.free_attempt(),
            None => self.attempt.wrapping_add(1),
        };
        self.retries = 0;
        self.stale = false;
        self.create()
    }

    /// The uuid of a timed acquire's next attempt: the smallest number no
    /// node of this client that may still exist carries — its pending
    /// background deletes and searches (the last attempt's own node was
    /// deleted before `acquire(time, unit)` returned false). A uuid need
    /// only tell this client's live nodes apart; a waiter that times out
    /// again and again would otherwise make every retry a new state.
    fn free_attempt(&self) -> u8 {
        let taken = |a: u8| {
            let prefix = self.prefix_of(a);
            std::iter::once(&self.task)
                .chain(&self.background)
                .any(|t| match t {
                    Task::Delete(p) => path::name(p).starts_with(&prefix),
                    Task::FindAndDelete(b) => *b == a,
                    Task::None | Task::RemoveWatch(_) => false,
                })
        };
        (1..=u8::MAX).find(|&a| !taken(a)).unwrap_or(1)
    }

    fn create(&mut self) -> Action {
        self.main = Main::Create;
        call(
            Op::create(self.protected_path(), CreateMode::EphemeralSequential),
            None,
            "createsTheLock: create().creatingParentContainersIfNeeded().withProtection().withMode(EPHEMERAL_SEQUENTIAL)",
        )
    }

    /// `ZKPaths.mkdirs(parent, asContainers)`: `exists` first.
    fn mkdirs_exists(&mut self) -> Action {
        self.main = Main::MkdirsExists;
        call(
            Op::exists(LOCK_ROOT, false),
            None,
            "creatingParentContainersIfNeeded: NoNode: ZKPaths.mkdirs: exists(parent)",
        )
    }

    fn create_again(&mut self) -> Action {
        self.main = Main::CreateAgain;
        call(
            Op::create(self.protected_path(), CreateMode::EphemeralSequential),
            None,
            "creatingParentContainersIfNeeded: the parents made: create again",
        )
    }

    fn find(&mut self) -> Action {
        self.main = Main::Find;
        call(
            Op::get_children(LOCK_ROOT, false),
            None,
            "RetryLoop retries the create: findProtectedNodeInForeground: getChildren",
        )
    }

    fn children(&mut self) -> Action {
        self.main = Main::Children;
        call(
            Op::get_children(LOCK_ROOT, false),
            None,
            "internalLockLoop: getSortedChildren()",
        )
    }

    /// One more try of the call in flight, if the policy allows.
    fn retry(&mut self) -> bool {
        if self.retries < MAX_RETRIES {
            self.retries += 1;
            true
        } else {
            false
        }
    }

    /// A retry loop of its own for the next call.
    fn fresh(&mut self) {
        self.retries = 0;
    }

    /// The create's `RetryLoop` after a failure.
    fn create_failed(&mut self, reply: Option<Reply>) -> Action {
        match reply {
            Some(r) if retryable(&r) && self.retry() => self.find(),
            // CURATOR-45: the create may have been applied; the node is
            // looked for and deleted in the background, and the
            // exception escapes.
            Some(Err(ZkError::ConnectionLoss)) => {
                self.background.push(Task::FindAndDelete(self.attempt));
                self.main = Main::Abandoned;
                act(
                    Step::Submit(Thread::Background),
                    "protectedPathInForeground: new FindAndDeleteProtectedNodeInBackground(...).execute()",
                )
            }
            other => unexpected(
                other,
                "createsTheLock: the create's exception escapes acquire()",
            ),
        }
    }

    /// `findNode` + `validateFoundNode`.
    fn found(&mut self, reply: Reply) -> Action {
        // `findNode` catches the parent's NoNode: no node found.
        if reply == Err(ZkError::NoNode) {
            self.stale = false;
            return self.create();
        }
        let Ok(OpResult::GetChildren { children, .. }) = &reply else {
            return self.create_failed(Some(reply));
        };
        let prefix = self.protected_prefix();
        let found = children
            .iter()
            .find(|c| c.as_str().starts_with(&prefix))
            .cloned();
        let stale = std::mem::take(&mut self.stale);
        match found {
            Some(node) if stale => {
                self.background
                    .push(Task::Delete(path::join(LOCK_ROOT, &node)));
                self.main = Main::Discarded;
                act(
                    Step::Submit(Thread::Background),
                    "validateFoundNode: the session changed: delete the old session's node in the background (CURATOR-498)",
                )
            }
            Some(node) => {
                self.own = path::join(LOCK_ROOT, &node);
                self.fresh();
                self.children()
            }
            None => self.create(),
        }
    }

    /// `getsTheLock` on a sorted `getChildren` reply.
    fn ranked(&mut self, reply: Reply) -> Action {
        // The parent is gone (a reaped container): the NoNodeException
        // leaves internalLockLoop with doDelete, and attemptLock catches it.
        if reply == Err(ZkError::NoNode) {
            return self.delete_own(
                Then::Retry,
                "getSortedChildren: NoNodeException (the parent is gone): doDelete",
            );
        }
        let Ok(OpResult::GetChildren { children, .. }) = &reply else {
            return self.loop_failed(Some(reply));
        };
        let mut sorted: Vec<&Name> = children.iter().collect();
        sorted.sort_by(|a, b| suffix(a).cmp(suffix(b)));
        let me = path::name(&self.own);
        match sorted.iter().position(|c| c.as_str() == me) {
            None => self.delete_own(
                Then::Retry,
                "getsTheLock: NoNodeException (our node is gone): doDelete",
            ),
            Some(0) if self.owner_check => {
                self.fresh();
                self.main = Main::Owner;
                call(
                    Op::exists(self.own.clone(), false),
                    None,
                    "owner check: checkExists(ourPath).getEphemeralOwner() == getSessionId()",
                )
            }
            Some(0) => self.acquired(),
            Some(i) => {
                self.watched = path::join(LOCK_ROOT, sorted[i - 1]);
                self.main = Main::Entered;
                act(Step::Enter(MONITOR), "synchronized (this)")
            }
        }
    }

    /// `Watching.commitWatcher`: a `getData` that succeeded leaves its
    /// watcher with `WatcherRemovalManager` (one entry per path).
    fn keep_watcher(&mut self) {
        if let Err(i) = self.kept.binary_search(&self.watched) {
            self.kept.insert(i, self.watched.clone());
        }
    }

    fn acquired(&mut self) -> Action {
        self.count = 1;
        act(
            Step::Acquired,
            "getsTheLock: our index is 0: threadData.put(thread, new LockData(ourPath))",
        )
    }

    fn get_data(&mut self) -> Action {
        self.main = Main::GetData;
        call(
            Op::get_data(self.watched.clone(), true),
            Some(WATCHER),
            "getData().usingWatcher(watcher).forPath(previousSequencePath)",
        )
    }

    /// A timed acquire reads its clock after `getData`: out of time, it
    /// breaks out of the loop to delete its node; else `wait(millisToWait)`
    /// — a plain wait that the deadline ends ([`Step::StartDeadline`]).
    fn clock(&mut self, r: Resume) -> Action {
        if matches!(r, Resume::Clock { passed: true }) {
            self.main = Main::TimedOut;
            act(
                Step::Exit(MONITOR),
                "millisToWait <= 0: doDelete = true; break (leaves synchronized)",
            )
        } else {
            self.main = Main::Waiting;
            act(Step::Wait(MONITOR), "wait(millisToWait)")
        }
    }

    /// An exception other than `NoNode` in `internalLockLoop`'s calls:
    /// `doDelete`, then it escapes.
    fn loop_failed(&mut self, reply: Option<Reply>) -> Action {
        match reply {
            Some(r) if retryable(&r) && self.retry() => self.children(),
            _ => self.delete_own(Then::Throw, "internalLockLoop: exception: doDelete"),
        }
    }

    /// `deleteOurPath`: `delete().guaranteed().forPath(ourPath)`.
    fn delete_own(&mut self, then: Then, code: &'static str) -> Action {
        self.fresh();
        self.main = Main::Deleting(then);
        call(Op::delete(self.own.clone(), -1), None, code)
    }

    fn deleted(&mut self, then: Then, reply: Option<Reply>) -> Action {
        match reply {
            Some(Ok(_)) | Some(Err(ZkError::NoNode)) | None => self.after_delete(then),
            Some(r) if retryable(&r) && self.retry() => call(
                Op::delete(self.own.clone(), -1),
                None,
                "RetryLoop: delete again",
            ),
            Some(_) => {
                self.background.push(Task::Delete(self.own.clone()));
                self.main = Main::Handed(then);
                act(
                    Step::Submit(Thread::Background),
                    "guaranteed: the failed delete goes to the FailedDeleteManager",
                )
            }
        }
    }

    fn after_delete(&mut self, then: Then) -> Action {
        match then {
            Then::Retry if self.lock_retries < MAX_RETRIES => {
                self.lock_retries += 1;
                self.start_attempt()
            }
            Then::GiveUp => act(
                Step::GaveUp,
                "attemptLock returns null: acquire(time, unit) returns false",
            ),
            _ => act(
                Step::Throw("KeeperException"),
                "the exception escapes acquire()",
            ),
        }
    }

    /// One step of the background thread's task.
    fn background_step(&mut self, resume: Resume) -> Action {
        let reply = resume.into_reply();
        match (self.task.clone(), reply) {
            (Task::None, _) => {
                if self.background.is_empty() {
                    return act(Step::Return, "no task");
                }
                self.task = self.background.remove(0);
                self.background_step(Resume::Go)
            }
            (Task::Delete(p), None) => call(
                Op::delete(p, -1),
                None,
                "background: delete().guaranteed().inBackground()",
            ),
            (Task::Delete(p), Some(r)) if retryable(&r) => call(
                Op::delete(p, -1),
                None,
                "background: guaranteed: delete again",
            ),
            (Task::RemoveWatch(p), None) => call(
                Op::check_watches(p, WatcherType::Any),
                Some(WATCHER),
                "background: removeWatches(path, watcher, Any), quietly, guaranteed",
            ),
            (Task::RemoveWatch(p), Some(r)) if retryable(&r) => call(
                Op::check_watches(p, WatcherType::Any),
                Some(WATCHER),
                "background: guaranteed: removeWatches again",
            ),
            (Task::FindAndDelete(_), None) => call(
                Op::get_children(LOCK_ROOT, false),
                None,
                "background: FindAndDeleteProtectedNode: getChildren",
            ),
            (Task::FindAndDelete(_), Some(r)) if retryable(&r) => call(
                Op::get_children(LOCK_ROOT, false),
                None,
                "background: FindAndDeleteProtectedNode: getChildren again",
            ),
            (Task::FindAndDelete(attempt), Some(Ok(OpResult::GetChildren { children, .. }))) => {
                let prefix = self.prefix_of(attempt);
                match children.iter().find(|c| c.as_str().starts_with(&prefix)) {
                    Some(node) => {
                        let p = path::join(LOCK_ROOT, node);
                        self.task = Task::Delete(p.clone());
                        call(
                            Op::delete(p, -1),
                            None,
                            "background: found it: delete().guaranteed().inBackground()",
                        )
                    }
                    None => {
                        self.task = Task::None;
                        act(Step::Return, "background: no such node")
                    }
                }
            }
            (_, Some(_)) => {
                self.task = Task::None;
                act(Step::Return, "background task done")
            }
        }
    }

    /// The listener thread: `stateChanged(client, newState)` for the next
    /// posted state.
    fn listener_step(&mut self) -> Action {
        let Some(l) = self.listener.as_mut() else {
            return act(Step::Return, "no listener");
        };
        if l.queue.is_empty() {
            return act(Step::Return, "no state posted");
        }
        match l.queue.remove(0) {
            Posted::Suspended => {
                l.suspect = true;
                l.lost = false;
                act(
                    Step::Return,
                    "listener.stateChanged(SUSPENDED): suspect = true (the lock may be gone)",
                )
            }
            Posted::Lost => {
                l.suspect = true;
                l.lost = true;
                act(
                    Step::Return,
                    "listener.stateChanged(LOST): suspect = true; the lock is dirty",
                )
            }
            Posted::Reconnected if l.lost => act(
                Step::Return,
                "listener.stateChanged(RECONNECTED): a LOST came since SUSPENDED, suspect stays true",
            ),
            Posted::Reconnected => {
                l.suspect = false;
                act(
                    Step::Return,
                    "listener.stateChanged(RECONNECTED), no LOST since SUSPENDED: suspect = false",
                )
            }
        }
    }

    /// Sets every field whose value no later step reads before it writes it
    /// again to its value in [`new`] (a dead value): states that differ
    /// only in dead values behave alike step for step (a bisimulation), so
    /// every verdict and every shortest trace's length is kept and the
    /// count of states can only fall. Run after every step of `acquire()`
    /// and after a session change, the only steps that move `main` or set
    /// `stale` (`rewind`, after `acquire()` returns, finds the fields
    /// cleared already); a field is live in these phases of `main` only:
    ///
    /// - `stale` (`ProtectedMode.sessionId` no longer current) is read by
    ///   `validateFoundNode` alone, on a retry's `findProtectedNodeInForeground`
    ///   ([`Main::Find`]), and `createsTheLock` starts a new builder with it
    ///   cleared: it lives while one create's `RetryLoop` runs — `Create`,
    ///   `MkdirsExists`, `MkdirsCreate`, `CreateAgain`, `Find`, `Discarded`.
    ///   A session that ends while the loop waits in `wait()` leaves a state
    ///   like the one where it lived on (CURATOR-604's waiter);
    /// - `watched` (`previousSequencePath`) is read by `getData` and by
    ///   `commitWatcher` after it — `Entered`, `GetData` — and set by the
    ///   next `getsTheLock` before the next `getData`;
    /// - `retries` (the `RetryLoop` of the call in flight) is read when a
    ///   call fails; from `Timing`, `Entered`, `Clock`, `Waiting`,
    ///   `Exited`, `Leaving`, `TimedOut`, `Handed` and `Abandoned` the next
    ///   call starts a retry loop of its own ([`Curator::fresh`],
    ///   [`Curator::start_attempt`]) or none follows (`acquire()` throws or
    ///   returns false, and [`Lock::rewind`] clears it). Not in `Start`: a
    ///   holder's release reads it there.
    ///
    /// `watched` is also one of [`Lock::paths`], which the sequence
    /// abstraction renames and the orphan property reads. That property
    /// asks only the peers on a node's own session: a predecessor is
    /// another session's node, or a mate thread's that the mate names as
    /// its `own`; a node of this client's session that only `watched`
    /// names (a create stranded by a connection loss, applied before the
    /// retried one) was already unnamed, and judged, in the state where
    /// the loop sent its `getChildren`, before `getsTheLock` named it.
    ///
    /// The `dead::` trials (`sim/tests/scenarios.rs`) explore every checked
    /// Curator scenario with this off as well and compare.
    fn forget_dead(&mut self) {
        use Main::*;
        if self.keeps_dead {
            return;
        }
        let creating = matches!(
            self.main,
            Create | MkdirsExists | MkdirsCreate | CreateAgain | Find | Discarded
        );
        if !creating {
            self.stale = false;
        }
        if !matches!(self.main, Entered | GetData) {
            self.watched = Name::default();
        }
        if matches!(
            self.main,
            Timing
                | Entered
                | Clock
                | Waiting
                | Exited
                | Leaving
                | TimedOut
                | Handed(_)
                | Abandoned
        ) {
            self.retries = 0;
        }
    }

    /// One step of `InterProcessMutex.internalLock`/`LockInternals
    /// .attemptLock` on the main thread.
    fn internal_lock(&mut self, r: Resume) -> Action {
        use Main::*;
        if self.main == Clock {
            return self.clock(r);
        }
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) if self.count > 0 => {
                self.count += 1;
                act(
                    Step::Acquired,
                    "internalLock: re-entering: lockData.lockCount.incrementAndGet()",
                )
            }
            (Start, _) => {
                self.lock_retries = 0;
                // A new acquire() starts trusting: a state the listener
                // runs from here on counts against the lock it returns.
                if let Some(l) = self.listener.as_mut() {
                    l.suspect = false;
                    l.lost = false;
                }
                match self.timeout {
                    Some(ms) => {
                        self.main = Timing;
                        act(
                            Step::StartDeadline(ms),
                            "acquire(time, unit): startMillis = currentTimeMillis(); millisToWait = unit.toMillis(time)",
                        )
                    }
                    None => self.start_attempt(),
                }
            }
            (Timing, _) => self.start_attempt(),
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.own = p;
                self.fresh();
                self.children()
            }
            // `CreateBuilderImpl`: a create that finds no parent makes the
            // parents (as containers: `ZKPaths.mkdirs`) and creates again.
            (Create, Some(Err(ZkError::NoNode))) => self.mkdirs_exists(),
            (Create, reply) => self.create_failed(reply),
            (MkdirsExists, Some(Ok(OpResult::Exists(Some(_))))) => self.create_again(),
            (MkdirsExists, Some(Ok(OpResult::Exists(None)))) => {
                self.main = MkdirsCreate;
                call(
                    Op::create(LOCK_ROOT, CreateMode::Container),
                    None,
                    "ZKPaths.mkdirs: create(parent, CONTAINER)",
                )
            }
            (MkdirsCreate, Some(Ok(_))) | (MkdirsCreate, Some(Err(ZkError::NodeExists))) => {
                self.create_again()
            }
            (MkdirsExists | MkdirsCreate, reply) => self.create_failed(reply),
            (CreateAgain, Some(Ok(OpResult::Created(p)))) => {
                self.own = p;
                self.fresh();
                self.children()
            }
            // The parent went again (reaped): the NoNodeException leaves
            // createsTheLock, and attemptLock tries again if the policy allows.
            (CreateAgain, Some(Err(ZkError::NoNode))) => self.after_delete(Then::Retry),
            (CreateAgain, reply) => self.create_failed(reply),
            (Find, Some(reply)) => self.found(reply),
            (Discarded, _) => self.create(),
            (Abandoned, _) => act(
                Step::Throw("ConnectionLossException"),
                "createsTheLock: the create's ConnectionLossException escapes acquire()",
            ),
            (Children, Some(reply)) => self.ranked(reply),
            (Owner, Some(Ok(OpResult::Exists(Some(st))))) if st.ephemeral_owner == 1 => {
                self.acquired()
            }
            (Owner, Some(Ok(OpResult::Exists(_)))) => self.delete_own(
                Then::Retry,
                "owner check: our node belongs to an old session: delete it, try again",
            ),
            (Owner, Some(r)) if retryable(&r) && self.retry() => call(
                Op::exists(self.own.clone(), false),
                None,
                "RetryLoop: checkExists again",
            ),
            (Owner, _) => self.delete_own(Then::Throw, "internalLockLoop: exception: doDelete"),
            (Entered, _) => {
                self.fresh();
                self.get_data()
            }
            (GetData, Some(Ok(_))) if self.timeout.is_some() => {
                self.keep_watcher();
                self.main = Clock;
                act(
                    Step::ReadClock,
                    "millisToWait -= (currentTimeMillis() - startMillis); millisToWait <= 0?",
                )
            }
            (GetData, Some(Ok(_))) => {
                self.keep_watcher();
                self.main = Waiting;
                act(Step::Wait(MONITOR), "wait()")
            }
            (GetData, Some(Err(ZkError::NoNode))) => {
                self.main = Exited;
                act(
                    Step::Exit(MONITOR),
                    "NoNodeException: the predecessor is gone; leave synchronized, try again",
                )
            }
            (GetData, Some(r)) if retryable(&r) && self.retry() => self.get_data(),
            (GetData, _) => {
                self.main = Leaving;
                act(
                    Step::Exit(MONITOR),
                    "getData's exception leaves synchronized",
                )
            }
            (Waiting, _) => {
                self.main = Exited;
                act(Step::Exit(MONITOR), "woken: leave synchronized (this)")
            }
            (Exited, _) => {
                self.fresh();
                self.children()
            }
            (Leaving, _) => self.delete_own(Then::Throw, "internalLockLoop: exception: doDelete"),
            (TimedOut, _) => self.delete_own(
                Then::GiveUp,
                "finally: doDelete: deleteOurPath(ourPath): delete().guaranteed()",
            ),
            // deleteOurPath's exception replaces the timeout's false.
            (Handed(Then::GiveUp), _) => act(
                Step::Throw("ConnectionLossException"),
                "deleteOurPath: the guaranteed delete's exception escapes acquire(time, unit)",
            ),
            (Deleting(then), reply) => self.deleted(then, reply),
            (Handed(then), _) => self.after_delete(then),
            (_, reply) => unexpected(reply, "KeeperException escapes"),
        }
    }

    fn safe_notify_step(&mut self) -> Action {
        let (next, step, code) = match self.notify {
            Notify::Idle => (
                Notify::Entered,
                Step::Enter(MONITOR),
                "postSafeNotify: synchronized (LockInternals.this)",
            ),
            Notify::Entered => (
                Notify::Notified,
                Step::NotifyAll(MONITOR),
                "postSafeNotify: notifyAll()",
            ),
            Notify::Notified => (Notify::Exited, Step::Exit(MONITOR), "postSafeNotify: }"),
            Notify::Exited => (Notify::Idle, Step::Return, "safe-notify task done"),
        };
        self.notify = next;
        act(step, code)
    }
}

impl Lock for Curator {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        (!self.own.is_empty()).then_some(self.own.as_str())
    }

    const LEAVE: &'static str = "doSomething() done; mutex.release()";

    fn lock_root(&self) -> &'static str {
        LOCK_ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        let action = self.internal_lock(r);
        self.forget_dead();
        action
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
        self.retries = 0;
        self.lock_retries = 0;
    }

    fn unlock(&mut self) -> Action {
        // `threadData.get(currentThread) == null`: a release by a thread
        // that does not hold the mutex — one more than it acquired.
        if self.count == 0 {
            return act(
                Step::Throw("IllegalMonitorStateException"),
                "release(): IllegalMonitorStateException: You do not own the lock",
            );
        }
        if self.count > 1 {
            self.count -= 1;
            return act(
                Step::Unlocked,
                "release(): lockCount.decrementAndGet() > 0: still held",
            );
        }
        // `releaseLock`: `client.removeWatchers()` hands each kept
        // watcher's removal to the background thread, one by one.
        if !self.kept.is_empty() {
            let path = self.kept.remove(0);
            self.background.push(Task::RemoveWatch(path));
            return act(
                Step::Submit(Thread::Background),
                "releaseLock: client.removeWatchers(): watches().remove(watcher).ofType(Any).inBackground()",
            );
        }
        self.fresh();
        release(
            Op::delete(self.own.clone(), -1),
            "releaseLock: deleteOurPath: delete().guaranteed().forPath(ourPath)",
        )
    }

    fn after_release(&mut self, resume: Resume) -> AfterRelease {
        match resume.into_reply() {
            Some(Ok(_)) | Some(Err(ZkError::NoNode)) => {
                self.count = 0;
                AfterRelease::Done
            }
            Some(r) if retryable(&r) && self.retry() => AfterRelease::Next(release(
                Op::delete(self.own.clone(), -1),
                "RetryLoop: delete again",
            )),
            Some(r) if retryable(&r) => {
                self.background.push(Task::Delete(self.own.clone()));
                AfterRelease::Next(act(
                    Step::Submit(Thread::Background),
                    "guaranteed: the failed delete goes to the FailedDeleteManager",
                ))
            }
            Some(r) => {
                self.count = 0;
                AfterRelease::Next(throw(&r, "release: the delete's exception escapes"))
            }
            // After handing the delete over: `finally { threadData.remove }`
            // (CURATOR-678), and the exception escapes.
            None => {
                self.count = 0;
                AfterRelease::Next(act(
                    Step::Throw("ConnectionLossException"),
                    "release(): finally threadData.remove(thread); the exception escapes",
                ))
            }
        }
    }

    fn on_event(&mut self, r: Resume) -> Action {
        // `NamespaceWatcher.process`: a node event (not a state event)
        // takes the watcher out of `WatcherRemovalManager`.
        if let Resume::Notify {
            watcher: WATCHER,
            notice: Notice::Node(WatchedEvent { path, .. }) | Notice::Removed(path),
        } = &r
        {
            self.kept.retain(|k| k != path);
        }
        match r {
            Resume::Notify { watcher, .. } if watcher == WATCHER && !self.submitted => {
                self.submitted = true;
                act(
                    Step::Submit(Thread::SafeNotify),
                    "watcher.process: client.postSafeNotify(LockInternals.this)",
                )
            }
            _ => {
                self.submitted = false;
                act(Step::Return, "process returns")
            }
        }
    }

    fn on_task(&mut self, thread: Thread, resume: Resume) -> Action {
        match thread {
            Thread::SafeNotify => self.safe_notify_step(),
            Thread::Listener => self.listener_step(),
            _ => self.background_step(resume),
        }
    }

    fn reads_stat(&self) -> StatFields {
        StatFields {
            ephemeral_owner: self.owner_check,
            ..StatFields::NONE
        }
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.own);
        f(&self.watched);
        self.kept.iter().for_each(&mut *f);
        for t in std::iter::once(&self.task).chain(&self.background) {
            if let Task::Delete(p) | Task::RemoveWatch(p) = t {
                f(p);
            }
        }
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.own);
        f(&mut self.watched);
        self.kept.iter_mut().for_each(&mut *f);
        // Back in path order; two names renamed into one are one entry.
        self.kept.sort();
        self.kept.dedup();
        for t in std::iter::once(&mut self.task).chain(&mut self.background) {
            if let Task::Delete(p) | Task::RemoveWatch(p) = t {
                f(p);
            }
        }
    }

    const LIBRARY: Library = Library::CURATOR;

    fn session_changed(&mut self) {
        self.stale = true;
        self.forget_dead();
    }

    /// `CuratorFrameworkImpl.validateConnection`: Disconnected →
    /// `setToSuspended` (SUSPENDED, unless SUSPENDED or LOST already),
    /// Expired → LOST, SyncConnected → RECONNECTED; `addStateChange` posts
    /// a state only when it differs from the current one.
    fn connection_state(&mut self, state: KeeperState) -> bool {
        let Some(l) = self.listener.as_mut() else {
            return false;
        };
        let posted = match state {
            KeeperState::Disconnected => {
                if matches!(l.current, Some(Posted::Suspended | Posted::Lost)) {
                    return false;
                }
                Posted::Suspended
            }
            KeeperState::Expired => Posted::Lost,
            KeeperState::SyncConnected => Posted::Reconnected,
        };
        if l.current == Some(posted) {
            return false;
        }
        l.current = Some(posted);
        l.queue.push(posted);
        true
    }

    fn distrusts(&self) -> bool {
        self.listener.as_ref().is_some_and(|l| l.suspect)
    }

    fn guards_writes(&self) -> bool {
        self.listener.is_some()
    }

    /// While the protected create's retry loop runs, a node whose name
    /// starts with the attempt's `_c_<uuid>` is one the next try finds.
    /// So is a node the background thread is about to look for.
    fn claims(&self, path: &str) -> bool {
        let name = path::name(path);
        let finding = std::iter::once(&self.task)
            .chain(&self.background)
            .any(|t| matches!(t, Task::FindAndDelete(a) if name.starts_with(&self.prefix_of(*a))));
        finding
            || matches!(
                self.main,
                Main::Create
                    | Main::Find
                    | Main::Discarded
                    | Main::MkdirsExists
                    | Main::MkdirsCreate
                    | Main::CreateAgain
            ) && name.starts_with(&self.protected_prefix())
    }
}
