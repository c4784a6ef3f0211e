//! One client process: its threads, monitors and latches, and the part of
//! ZooKeeper's Java client library that decides what a thread sees.
//!
//! The library rules kept here (`ClientCnxn`, `ZKWatchManager`):
//! - a synchronous call blocks its thread until the reply; the reply wakes
//!   that thread, which then still has to be scheduled to return from the
//!   call;
//! - a watch notification goes into the event thread's queue and the event
//!   thread runs the callbacks one at a time, in arrival order. Nothing ties
//!   it to the main thread: the callback for an event that arrived after a
//!   reply may run before the caller has returned from that call — the
//!   interleaving behind every observed lost wake-up;
//! - a connection loss fails every pending call with `ConnectionLoss` and
//!   tells every watcher `Disconnected`; watches survive (the library
//!   re-registers them on reconnect);
//! - once the library learns its session expired (a `SessionExpired` reply
//!   or a failed heartbeat) it tells every watcher `Expired`, forgets all
//!   watches, and fails every later call with `SessionExpired` locally —
//!   unless it renews sessions (Curator: [`Client::renew_session`]);
//! - Curator's executor threads ([`Thread::SafeNotify`],
//!   [`Thread::Background`]) sleep until a task is submitted to them and
//!   run their tasks one at a time, in order.
//!
//! The client is sans-IO: [`Client::step`] returns the request a thread
//! sends, and the driver hands replies and events back.

use super::monitors::Monitors;
use super::step::{
    Action, KeeperState, MonitorId, Notice, Recipe, Resume, Step, Thread, WatcherId,
};
use super::watchers::{is_expiry, Watchers};
use crate::engine::harness::{LockEvent, Phase, StepKind};
use crate::zk::{Name, Op, OpResult, Reply, WatchedEvent, WatcherType, ZkError};
use std::collections::VecDeque;

/// What a thread is doing between steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Can run; resumes with this input.
    Ready(Resume),
    /// Blocked in a synchronous call.
    Calling { op: Op, watcher: Option<WatcherId> },
    /// Blocked entering (or re-entering after `wait`) a monitor.
    Entering(MonitorId),
    /// In the monitor's wait set.
    Waiting(MonitorId),
    /// In the monitor's wait set until notified or `millis` have passed.
    TimedWaiting { monitor: MonitorId, millis: u32 },
    /// In `latch.await()`.
    Awaiting(super::step::LatchId),
    /// The event thread with nothing queued.
    Idle,
    /// The thread's code returned: the main thread after the client's last
    /// acquisition or its `run()` ([`Step::End`](super::step::Step::End)).
    Finished,
    /// An exception ended the thread.
    Dead(&'static str),
}

/// One step taken: the recipe's action, what the driver must do, and the
/// lock events the step emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stepped {
    pub action: Action,
    pub output: Output,
    pub events: Vec<LockEvent>,
}

impl Stepped {
    /// The step sent the recipe's release operation.
    pub fn sent_release(&self) -> bool {
        self.events.contains(&LockEvent::ReleaseSent)
    }

    /// The step as every driver's trace tells it: the seed's code and what
    /// came of it ("… → releases the monitor and sleeps"). `won`: the thread
    /// had been blocked entering a monitor; `after`: its status now.
    pub fn describe(&self, won: bool, after: &Status) -> String {
        let mut text = String::new();
        if won {
            text.push_str("(wins the monitor) ");
        }
        text.push_str(self.action.code);
        let outcome = match (&self.output, &self.action.step, after) {
            (Output::Send(op), _, _) => format!(" → sends {op}"),
            (_, Step::Call { .. }, Status::Ready(_)) => {
                " → fails at once: session known expired".into()
            }
            (_, Step::Enter(_), Status::Entering(_)) => {
                " → blocks: the other thread holds the monitor".into()
            }
            (_, Step::Wait(_), _) => " → releases the monitor and sleeps".into(),
            (_, Step::TimedWait { millis, .. }, _) => {
                format!(" → releases the monitor and sleeps (for at most {millis} ms)")
            }
            (_, Step::Await(_), Status::Awaiting(_)) => " → blocks until the latch opens".into(),
            (_, Step::Await(_), _) => " → latch already open".into(),
            (_, Step::NotifyAll(_), _) => {
                " → wakes the threads in wait() now (none waiting: lost)".into()
            }
            (_, Step::End, _) => " → run() ends".into(),
            (_, Step::Submit(t), _) => format!(" → queued for the {t} thread"),
            (_, Step::ReadClock, Status::Ready(Resume::Clock { passed: true })) => {
                " → the deadline has passed".into()
            }
            (_, Step::ReadClock, _) => " → time is left".into(),
            (_, Step::Throw(e), Status::Idle) => {
                format!(" → {e} escapes the callback or task; the thread logs it and goes on")
            }
            (_, Step::Throw(e), _) => format!(" → {e} escapes; the thread dies"),
            _ => String::new(),
        };
        text.push_str(&outcome);
        text
    }
}

/// The executor threads of a client library that has them (Curator), kept
/// apart so that a client without them carries nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Executors {
    pub safe_notify: Status,
    pub background: Status,
    /// `ConnectionStateManager`'s thread, running the application's
    /// listener (idle unless the recipe registers one).
    pub listener: Status,
    /// Tasks submitted and not yet started: safe-notify, background,
    /// listener.
    pub queued: [u8; 3],
}

impl Default for Executors {
    fn default() -> Self {
        Executors {
            safe_notify: Status::Idle,
            background: Status::Idle,
            listener: Status::Idle,
            queued: [0, 0, 0],
        }
    }
}

/// The clock of a timed call (`acquire(time, unit)`): Curator reads it
/// after `getData` and waits at most until the deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deadline {
    /// No timed call runs.
    #[default]
    Off,
    /// Started, not yet passed.
    Running,
    Passed,
}

/// What an executor thread without an executor reads: it never runs.
static IDLE: Status = Status::Idle;

/// What the driver must do after a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Nothing,
    /// Send this request on the client's session.
    Send(Op),
    /// Write to the protected resource with the holder's fencing token
    /// ([`Step::Write`]).
    Write,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client<R> {
    pub recipe: R,
    pub main: Status,
    pub event: Status,
    pub monitors: Monitors,
    pub watchers: Watchers,
    /// The event thread's queue: (watcher to call, what to tell it).
    pub notices: VecDeque<(WatcherId, Notice)>,
    /// Where the client stands in the harness loop (it holds the lock in
    /// [`Phase::Holding`]).
    pub phase: Phase,
    /// Completed acquisitions (lock → critical section → release).
    pub acquired: u8,
    /// The library knows the session has expired.
    pub session_lost: bool,
    /// The application closed a library that renews sessions (`close()`,
    /// kazoo's `stop()`): it opens none after it. Kept only where it
    /// matters: for any other library it would change nothing but split
    /// states.
    pub closed: bool,
    /// Curator's executor threads, if the recipe's library has them.
    pub executors: Option<Box<Executors>>,
    /// The clock of the main thread's timed call, if one runs.
    pub deadline: Deadline,
}

impl<R: Recipe> Client<R> {
    pub fn new(recipe: R) -> Self {
        let recipe_has_executors = recipe.library().executors;
        Client {
            recipe,
            main: Status::Ready(Resume::Go),
            event: Status::Idle,
            monitors: Monitors::default(),
            watchers: Watchers::default(),
            notices: VecDeque::new(),
            phase: Phase::Idle,
            acquired: 0,
            session_lost: false,
            closed: false,
            executors: recipe_has_executors.then(Box::default),
            deadline: Deadline::Off,
        }
    }

    pub fn status(&self, t: Thread) -> &Status {
        match (t, &self.executors) {
            (Thread::Main, _) => &self.main,
            (Thread::Event, _) => &self.event,
            (Thread::SafeNotify, Some(x)) => &x.safe_notify,
            (Thread::Background, Some(x)) => &x.background,
            (Thread::Listener, Some(x)) => &x.listener,
            (_, None) => &IDLE,
        }
    }

    fn status_mut(&mut self, t: Thread) -> &mut Status {
        match t {
            Thread::Main => &mut self.main,
            Thread::Event => &mut self.event,
            Thread::SafeNotify => &mut self.executors.get_or_insert_with(Box::default).safe_notify,
            Thread::Background => &mut self.executors.get_or_insert_with(Box::default).background,
            Thread::Listener => &mut self.executors.get_or_insert_with(Box::default).listener,
        }
    }

    /// Every thread's status, in [`Thread::ALL`]'s order.
    pub fn statuses(&self) -> impl Iterator<Item = &Status> {
        Thread::ALL.into_iter().map(|t| self.status(t))
    }

    /// Every thread's status, to rewrite in place (the checker's
    /// sequence-suffix abstraction); a client without executors hands two.
    pub fn statuses_mut(&mut self, f: &mut dyn FnMut(&mut Status)) {
        f(&mut self.main);
        f(&mut self.event);
        if let Some(x) = self.executors.as_mut() {
            f(&mut x.safe_notify);
            f(&mut x.background);
            f(&mut x.listener);
        }
    }

    /// Tasks submitted to executor thread `t` and not yet started.
    pub fn queued(&self, t: Thread) -> u8 {
        match (t, &self.executors) {
            (Thread::SafeNotify, Some(x)) => x.queued[0],
            (Thread::Background, Some(x)) => x.queued[1],
            (Thread::Listener, Some(x)) => x.queued[2],
            _ => 0,
        }
    }

    fn queue_mut(&mut self, t: Thread) -> Option<&mut u8> {
        let x = self.executors.get_or_insert_with(Box::default);
        match t {
            Thread::SafeNotify => Some(&mut x.queued[0]),
            Thread::Background => Some(&mut x.queued[1]),
            Thread::Listener => Some(&mut x.queued[2]),
            _ => None,
        }
    }

    /// Whether `t` can take a step now.
    pub fn can_step(&self, t: Thread) -> bool {
        match self.status(t) {
            Status::Ready(_) => true,
            Status::Entering(m) => self.monitors.is_free(*m),
            Status::Awaiting(l) => self.monitors.is_open(*l),
            Status::Idle if t == Thread::Event => !self.notices.is_empty(),
            Status::Idle => self.queued(t) > 0,
            _ => false,
        }
    }

    /// Runs one step of `t`: wins the monitor or passes the latch it was
    /// blocked on, or takes the next notice, and then runs one recipe step.
    /// Returns `None` if `t` cannot run.
    pub fn step(&mut self, t: Thread) -> Option<Stepped> {
        if !self.can_step(t) {
            return None;
        }
        let resume = match std::mem::replace(self.status_mut(t), Status::Idle) {
            Status::Ready(r) => r,
            Status::Entering(m) => {
                self.monitors.take(m, t);
                Resume::Go
            }
            Status::Awaiting(_) => Resume::Go,
            Status::Idle if t == Thread::Event => {
                let (watcher, notice) = self.notices.pop_front()?;
                Resume::Notify { watcher, notice }
            }
            Status::Idle => {
                if let Some(n) = self.queue_mut(t) {
                    *n = n.saturating_sub(1);
                }
                Resume::Go
            }
            other => {
                *self.status_mut(t) = other;
                return None;
            }
        };
        let action = self.recipe.step(t, resume);
        let output = self.apply(t, &action.step);
        let kind = match &action.step {
            Step::Acquired => StepKind::Acquired,
            Step::GaveUp => StepKind::GaveUp,
            Step::Reenter => StepKind::Reenter,
            Step::Unlocked => StepKind::Unlocked,
            Step::Released => StepKind::Released,
            Step::Call { release: true, .. } => StepKind::SentRelease,
            Step::Finished => StepKind::Finished,
            Step::Throw(e) if t == Thread::Main => StepKind::Threw(e),
            _ => StepKind::Other,
        };
        let mut events = Vec::new();
        self.phase = self.phase.after(kind, t == Thread::Main, &mut events);
        if self.phase == Phase::Died && self.recipe.exception_ends_process() {
            self.end_process();
        }
        if t != Thread::Main && *self.status(t) == Status::Ready(Resume::Go) {
            self.return_eagerly(t);
        }
        Some(Stepped {
            action,
            output,
            events,
        })
    }

    /// The client believes it holds the lock.
    pub fn holds(&self) -> bool {
        self.phase.holds()
    }

    /// If the callback's (or the executor task's) next step is `return`,
    /// takes it now. Returning touches nothing but the thread's own status,
    /// so doing it at once removes states without removing any behaviour:
    /// a callback that has not yet returned is indistinguishable from an
    /// idle thread that is not scheduled.
    fn return_eagerly(&mut self, t: Thread) {
        let mut peek = self.recipe.clone();
        if peek.step(t, Resume::Go).step == Step::Return {
            self.recipe = peek;
            *self.status_mut(t) = Status::Idle;
        }
    }

    fn apply(&mut self, t: Thread, step: &Step) -> Output {
        let mut output = Output::Nothing;
        let next = match step {
            Step::Call { op, watcher, .. } => {
                debug_assert_eq!(
                    op.watches() || matches!(op, Op::CheckWatches { .. }),
                    watcher.is_some(),
                    "a call names a watcher when it sets a watch or removes one"
                );
                if self.session_lost {
                    Status::Ready(Resume::Reply(closing_reply(
                        op,
                        Err(ZkError::SessionExpired),
                    )))
                } else {
                    output = Output::Send(op.clone());
                    Status::Calling {
                        op: op.clone(),
                        watcher: *watcher,
                    }
                }
            }
            Step::Enter(m) => {
                if self.monitors.is_free(*m) || self.monitors.owner(*m) == Some(t) {
                    self.monitors.take(*m, t);
                    Status::Ready(Resume::Go)
                } else {
                    Status::Entering(*m)
                }
            }
            Step::Exit(m) => {
                self.monitors.release(*m);
                Status::Ready(Resume::Go)
            }
            Step::Wait(m) => {
                self.monitors.release(*m);
                Status::Waiting(*m)
            }
            Step::TimedWait { monitor, millis } => {
                self.monitors.release(*monitor);
                Status::TimedWaiting {
                    monitor: *monitor,
                    millis: *millis,
                }
            }
            Step::NotifyAll(m) => {
                for other in Thread::ALL {
                    if other != t && self.waits_on(other) == Some(*m) {
                        *self.status_mut(other) = Status::Entering(*m);
                    }
                }
                Status::Ready(Resume::Go)
            }
            Step::Submit(executor) => {
                if let Some(n) = self.queue_mut(*executor) {
                    *n = n.saturating_add(1);
                }
                Status::Ready(Resume::Go)
            }
            Step::ReadClock => Status::Ready(Resume::Clock {
                passed: self.deadline == Deadline::Passed,
            }),
            Step::StartDeadline(_) => {
                self.deadline = Deadline::Running;
                Status::Ready(Resume::Go)
            }
            Step::StopDeadline => {
                self.deadline = Deadline::Off;
                Status::Ready(Resume::Go)
            }
            Step::ArmLatch(l) => {
                self.monitors.arm(*l);
                Status::Ready(Resume::Go)
            }
            Step::CountDown(l) => {
                self.monitors.count_down(*l);
                Status::Ready(Resume::Go)
            }
            Step::Await(l) => {
                if self.monitors.is_open(*l) {
                    Status::Ready(Resume::Go)
                } else {
                    Status::Awaiting(*l)
                }
            }
            // `acquire(time, unit)` returned, with the lock or without: its
            // clock no longer matters (a deadline left running would let
            // the checker pass it in every later state, for nothing).
            Step::Acquired | Step::GaveUp => {
                self.deadline = Deadline::Off;
                Status::Ready(Resume::Go)
            }
            Step::Reenter | Step::Unlocked => Status::Ready(Resume::Go),
            Step::Write => {
                output = Output::Write;
                Status::Ready(Resume::Go)
            }
            Step::Released => {
                // One completed acquisition per round, however deep it went.
                if self.phase == Phase::Holding(1) {
                    self.acquired += 1;
                }
                Status::Ready(Resume::Go)
            }
            Step::Return => Status::Idle,
            Step::Finished | Step::End => Status::Finished,
            Step::Throw(e) => {
                // Leaving the synchronized blocks on the way out releases them.
                self.monitors.release_all_of(t);
                if t == Thread::Main {
                    self.deadline = Deadline::Off;
                }
                match t {
                    Thread::Main => Status::Dead(e),
                    // ClientCnxn.EventThread: "Error while calling watcher";
                    // an executor logs a failed task and takes the next.
                    _ => Status::Idle,
                }
            }
        };
        *self.status_mut(t) = next;
        output
    }

    /// The deadline of the main thread's timed call passes: a `wait()` it
    /// is in ends now (`wait(millisToWait)` runs out), and the thread must
    /// win the monitor back. Returns whether a deadline was running.
    pub fn pass_deadline(&mut self) -> bool {
        if self.deadline != Deadline::Running {
            return false;
        }
        self.deadline = Deadline::Passed;
        if let Status::Waiting(m) = self.main {
            self.main = Status::Entering(m);
        }
        true
    }

    /// The monitor whose wait set `t` is in, timed or not.
    fn waits_on(&self, t: Thread) -> Option<MonitorId> {
        match self.status(t) {
            Status::Waiting(m) | Status::TimedWaiting { monitor: m, .. } => Some(*m),
            _ => None,
        }
    }

    /// How long `t`'s timed `wait` may last, if it is in one.
    pub fn timed_wait(&self, t: Thread) -> Option<u32> {
        match self.status(t) {
            Status::TimedWaiting { millis, .. } => Some(*millis),
            _ => None,
        }
    }

    /// `t`'s timed `wait` runs out: the thread leaves the wait set and must
    /// win the monitor back, as after a notification. Returns whether `t`
    /// was in a timed wait.
    pub fn time_out(&mut self, t: Thread) -> bool {
        let Status::TimedWaiting { monitor, .. } = *self.status(t) else {
            return false;
        };
        *self.status_mut(t) = Status::Entering(monitor);
        true
    }

    /// The thread waiting for a reply, if any: replies come back in the
    /// order their requests were sent, and each thread has at most one call
    /// outstanding.
    pub fn caller(&self, t: Thread) -> bool {
        matches!(self.status(t), Status::Calling { .. })
    }

    /// The reply to `t`'s call arrived (the library's `SendThread`). The
    /// recipe sees only the `Stat` fields it declares it reads.
    pub fn on_reply(&mut self, t: Thread, mut reply: Reply) {
        self.recipe.reads_stat().mask_reply(&mut reply);
        if let Status::Calling { op, watcher } = self.status(t).clone() {
            if let Some(w) = watcher {
                if !self.session_lost {
                    self.watchers.register(&op, w, &reply);
                }
                if let (Op::CheckWatches { path, kind }, Ok(_)) = (&op, &reply) {
                    reply = self.deregister(path, w, *kind);
                }
            }
            if is_expiry(&reply) {
                self.learn_expiry();
            }
            self.closed |= op == Op::CloseSession && self.recipe.library().renews_session;
            *self.status_mut(t) = Status::Ready(Resume::Reply(closing_reply(&op, reply)));
        }
    }

    /// The server kept the watch a `removeWatches(path, watcher, kind)`
    /// asked about: the library takes the watcher off its table and hands
    /// it `DataWatchRemoved` — or, if the table has no such watcher, the
    /// call fails with `NoWatcher` (`ClientCnxn.finishPacket`).
    fn deregister(&mut self, path: &Name, w: WatcherId, kind: WatcherType) -> Reply {
        if self.watchers.deregister(path, w, kind) {
            self.notices.push_back((w, Notice::Removed(path.clone())));
            Ok(OpResult::WatchesChecked)
        } else {
            Err(ZkError::NoWatcher)
        }
    }

    /// A watch notification arrived. Returns how many watchers it triggered.
    pub fn on_event(&mut self, event: &WatchedEvent) -> usize {
        if self.session_lost {
            return 0;
        }
        let ws = self.watchers.materialize(event);
        for w in ws.iter() {
            self.notices.push_back((w, Notice::Node(event.clone())));
        }
        ws.len()
    }

    /// The connection dropped: every pending call fails with
    /// `ConnectionLoss`, and every watcher hears `Disconnected`.
    /// A `close()` in flight returns all the same, and the library is
    /// closed: it will not reconnect, and the session — if the server never
    /// got the close — lives until the server times it out.
    pub fn on_connection_loss(&mut self) {
        let mut closed = false;
        for t in Thread::ALL {
            if let Status::Calling { op, .. } = self.status(t) {
                closed |= *op == Op::CloseSession;
                let reply = closing_reply(op, Err(ZkError::ConnectionLoss));
                *self.status_mut(t) = Status::Ready(Resume::Reply(reply));
            }
        }
        self.tell_everyone(KeeperState::Disconnected);
        if closed {
            self.session_lost = true;
            self.closed = self.recipe.library().renews_session;
            self.watchers.clear();
        }
    }

    /// The process crashed: both threads stop where they are, with what
    /// they held, and nothing reaches them any more.
    pub fn crash(&mut self) {
        self.main = Status::Finished;
        self.end_process();
    }

    /// The process is gone (crashed, or ended by its main thread's uncaught
    /// exception): no thread runs again, and nothing reaches it.
    fn end_process(&mut self) {
        self.event = Status::Finished;
        if let Some(x) = self.executors.as_mut() {
            **x = Executors {
                safe_notify: Status::Finished,
                background: Status::Finished,
                listener: Status::Finished,
                queued: [0, 0, 0],
            };
        }
        self.notices.clear();
        self.phase = Phase::Crashed;
    }

    /// Nothing keeps the client's session alive any more — its process is
    /// gone, or its library was closed — so the server times it out
    /// (unless it already ended).
    pub fn abandoned_session(&self) -> bool {
        self.phase == Phase::Crashed || self.session_lost
    }

    /// The library reconnected within the session timeout. Like
    /// `Disconnected`, `SyncConnected` reaches every registered watcher
    /// (the Java client's `ZKWatchManager.materialize` for `EventType.None`),
    /// a watcher passed to `exists` or `getData` included.
    pub fn on_reconnect(&mut self) {
        self.tell_everyone(KeeperState::SyncConnected);
    }

    /// A connection state, told as the library tells it
    /// ([`Library::states_reach_watchers`](super::Library::states_reach_watchers)): the Java client hands it to
    /// every watcher and its default watcher and keeps the watches; kazoo
    /// fires each data and child watcher once on a drop or an expiry and
    /// forgets them, and tells a reconnect to no watcher. Either way the
    /// state listeners hear it.
    fn tell_everyone(&mut self, state: KeeperState) {
        let library = self.recipe.library();
        if library.states_reach_watchers {
            for w in self.watchers.everyone().iter() {
                self.notices.push_back((w, Notice::State(state)));
            }
        } else if state != KeeperState::SyncConnected {
            for w in self.watchers.registered().iter() {
                self.notices.push_back((w, Notice::State(state)));
            }
            self.watchers.clear();
        }
        if library.state_listeners && self.recipe.connection_state(state) {
            if let Some(n) = self.queue_mut(Thread::Listener) {
                *n = n.saturating_add(1);
            }
        }
    }

    /// The library gives up on its session by itself, on the client's
    /// clock, while the server may still hold it: Curator's
    /// `ConnectionStateManager`, `SUSPENDED` for a session timeout, injects
    /// an expiry (`injectSessionExpiration`: the old handle is closed
    /// without a word to the server). Pending calls fail with
    /// `SessionExpired`, every watcher hears `Expired` and the watch table
    /// is emptied; `ConnectionState.reset()` then opens a new handle, so
    /// the library goes on with a new session (the driver opens it).
    pub fn give_up_session(&mut self) {
        for t in Thread::ALL {
            if let Status::Calling { op, .. } = self.status(t) {
                let reply = closing_reply(op, Err(ZkError::SessionExpired));
                *self.status_mut(t) = Status::Ready(Resume::Reply(reply));
            }
        }
        self.tell_everyone(KeeperState::Expired);
        self.watchers.clear();
        self.recipe.session_changed();
    }

    /// A library that renews sessions ([`Library::renews_session`](super::Library::renews_session)) goes on
    /// with a new one after learning that its session expired: Curator's
    /// `ConnectionState.reset()` on `Expired`. Calls work again; the driver
    /// opens the session. The old handle's calls still pending on any
    /// thread fail with `SessionExpired` first (`ClientCnxn`'s cleanup of a
    /// closed handle): the driver drops the old connection's queues, so a
    /// thread whose request went with them would wait for its reply forever
    /// — a deadlock of the model's making, which Curator's background
    /// thread, calling while the main thread calls, made reachable.
    pub fn renew_session(&mut self) {
        for t in Thread::ALL {
            if let Status::Calling { op, .. } = self.status(t) {
                let reply = closing_reply(op, Err(ZkError::SessionExpired));
                *self.status_mut(t) = Status::Ready(Resume::Reply(reply));
            }
        }
        self.session_lost = false;
        self.recipe.session_changed();
    }

    /// The library learned that the session expired.
    pub fn learn_expiry(&mut self) {
        if self.session_lost {
            return;
        }
        self.session_lost = true;
        self.tell_everyone(KeeperState::Expired);
        self.watchers.clear();
    }

    /// The application still wants the lock and does not hold it.
    /// A holder inside a re-entrant `lock()` call waits too, and so does a
    /// client whose main thread has returned while its callbacks still want
    /// the lock.
    pub fn is_waiting(&self) -> bool {
        (!self.holds() || self.phase.locking()) && !self.is_done()
    }

    /// The client sleeps until notified: its main thread in `wait()`,
    /// `await()`, or blocked re-entering the monitor after a wake-up — or
    /// returned, leaving the lock to a callback (source 001) that is not
    /// running.
    pub fn is_parked(&self) -> bool {
        !self.holds()
            && match self.main {
                Status::Waiting(_) | Status::TimedWaiting { .. } | Status::Awaiting(_) => true,
                Status::Finished => !self.is_done() && self.event == Status::Idle,
                _ => false,
            }
    }

    /// The client finished its acquisitions, or its main thread died, or
    /// its process crashed.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Finished | Phase::Died | Phase::Crashed)
    }

    /// Whether the main thread has a call in flight.
    pub fn has_pending_call(&self) -> bool {
        self.caller(Thread::Main) || self.caller(Thread::Event)
    }
}

/// `close()` never throws (`ZooKeeper.close()` ignores the reply of its
/// closeSession, kazoo's `close()` raises nothing): whatever became of it,
/// the caller sees it return.
fn closing_reply(op: &Op, reply: Reply) -> Reply {
    match op {
        Op::CloseSession => Ok(crate::zk::OpResult::Closed),
        _ => reply,
    }
}

#[cfg(test)]
mod tests {
    use super::super::step::act;
    use super::*;

    /// Every driver's trace reads a step through `describe`: each outcome
    /// is pinned here, so a trace cannot silently lose what a step did.
    #[test]
    fn every_outcome_of_a_step_reads_as_the_traces_say() {
        let op = Op::get_children("/locks", false);
        let call = Step::Call {
            op: op.clone(),
            watcher: None,
            release: false,
        };
        let cases: Vec<(Output, Step, Status, &str)> = vec![
            (
                Output::Send(op.clone()),
                call.clone(),
                Status::Calling {
                    op: op.clone(),
                    watcher: None,
                },
                "code → sends getChildren(/locks)",
            ),
            (
                Output::Nothing,
                call,
                Status::Ready(Resume::Go),
                "code → fails at once: session known expired",
            ),
            (
                Output::Nothing,
                Step::Enter(0),
                Status::Entering(0),
                "code → blocks: the other thread holds the monitor",
            ),
            (
                Output::Nothing,
                Step::Enter(0),
                Status::Ready(Resume::Go),
                "code",
            ),
            (
                Output::Nothing,
                Step::Wait(0),
                Status::Waiting(0),
                "code → releases the monitor and sleeps",
            ),
            (
                Output::Nothing,
                Step::TimedWait {
                    monitor: 0,
                    millis: 1000,
                },
                Status::TimedWaiting {
                    monitor: 0,
                    millis: 1000,
                },
                "code → releases the monitor and sleeps (for at most 1000 ms)",
            ),
            (
                Output::Nothing,
                Step::Await(0),
                Status::Awaiting(0),
                "code → blocks until the latch opens",
            ),
            (
                Output::Nothing,
                Step::Await(0),
                Status::Ready(Resume::Go),
                "code → latch already open",
            ),
            (
                Output::Nothing,
                Step::NotifyAll(0),
                Status::Ready(Resume::Go),
                "code → wakes the threads in wait() now (none waiting: lost)",
            ),
            (
                Output::Nothing,
                Step::End,
                Status::Finished,
                "code → run() ends",
            ),
            (
                Output::Nothing,
                Step::Submit(Thread::SafeNotify),
                Status::Ready(Resume::Go),
                "code → queued for the safe-notify thread",
            ),
            (
                Output::Nothing,
                Step::ReadClock,
                Status::Ready(Resume::Clock { passed: true }),
                "code → the deadline has passed",
            ),
            (
                Output::Nothing,
                Step::ReadClock,
                Status::Ready(Resume::Clock { passed: false }),
                "code → time is left",
            ),
            (
                Output::Nothing,
                Step::Throw("KeeperException"),
                Status::Idle,
                "code → KeeperException escapes the callback or task; the thread logs it and goes on",
            ),
            (
                Output::Nothing,
                Step::Throw("KeeperException"),
                Status::Dead("KeeperException"),
                "code → KeeperException escapes; the thread dies",
            ),
        ];
        for (output, step, after, text) in cases {
            let stepped = Stepped {
                action: act(step.clone(), "code"),
                output,
                events: Vec::new(),
            };
            assert_eq!(stepped.describe(false, &after), text, "{step:?}");
        }
        let won = Stepped {
            action: act(Step::Exit(0), "code"),
            output: Output::Nothing,
            events: Vec::new(),
        };
        assert_eq!(
            won.describe(true, &Status::Ready(Resume::Go)),
            "(wins the monitor) code"
        );
    }
}
