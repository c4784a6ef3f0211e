//! The harness loop every recipe runs in, as the seeds' `main`s do:
//! `lock()`, critical section, `unlock()` — `acquisitions` times. A recipe
//! writes only its lock: the steps of `lock()` ([`Lock::lock`]), its release
//! operation ([`Lock::unlock`]) and its watchers ([`Lock::on_event`]).
//! [`LockLoop`] runs the rest — the critical section, sending the release,
//! counting rounds, finishing — once for every recipe, and is the
//! [`Recipe`] the drivers step.

use super::guarded::guarded_write;
use super::library::Library;
use super::step::{
    act, call, throw, Action, KeeperState, Recipe, RecipeConfig, Resume, StatFields, Step, Thread,
};
use crate::engine::harness::writes::{Writes, WRITES};
use crate::zk::Name;

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
    /// or the exception `unlock()` throws instead, or — for a re-entrant
    /// recipe counting down an inner hold — [`Step::Unlocked`].
    fn unlock(&mut self) -> Action;

    /// One step of the event thread: a watcher's `process`.
    fn on_event(&mut self, resume: Resume) -> Action;

    /// The `Stat` fields the recipe reads from replies (see
    /// [`Recipe::reads_stat`]).
    fn reads_stat(&self) -> StatFields {
        StatFields::NONE
    }

    /// Every node path the recipe's state holds (see [`Recipe::paths`]).
    fn paths(&self, f: &mut dyn FnMut(&Name));

    /// The same paths, to rewrite in place (see [`Recipe::paths_mut`]).
    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name));

    /// Whether an uncaught exception ends the process (see
    /// [`Recipe::exception_ends_process`]).
    fn exception_ends_process(&self) -> bool {
        false
    }

    /// One step of an executor thread's task (Curator's safe-notify and
    /// background threads; see [`Library::executors`]).
    fn on_task(&mut self, _thread: Thread, _resume: Resume) -> Action {
        act(Step::Return, "no task")
    }

    /// `unlock()` after its release operation: the reply, or `Go` after a
    /// step that was not a call. [`AfterRelease::Done`] lets the loop end
    /// `unlock()`; the default ends it on a success and lets an error
    /// escape (the seeds catch nothing).
    fn after_release(&mut self, resume: Resume) -> AfterRelease {
        match resume.into_reply() {
            Some(Ok(_)) | None => AfterRelease::Done,
            Some(reply) => AfterRelease::Next(throw(&reply, "unlock: KeeperException escapes")),
        }
    }

    /// The client library the recipe's code runs on (see
    /// [`Recipe::library`]).
    const LIBRARY: Library = Library::JAVA;

    /// See [`Recipe::session_changed`].
    fn session_changed(&mut self) {}

    /// See [`Recipe::claims`].
    fn claims(&self, _path: &str) -> bool {
        false
    }

    /// See [`Recipe::connection_state`].
    fn connection_state(&mut self, _state: KeeperState) -> bool {
        false
    }

    /// Whether the application no longer trusts that it holds the lock:
    /// its `ConnectionStateListener` set its flag. The holder reads it
    /// before every write to the resource and leaves its critical section
    /// when it is set.
    fn distrusts(&self) -> bool {
        false
    }

    /// Whether the recipe reads a flag before each write to the resource
    /// ([`Lock::distrusts`]): it is judged at the resource, so its critical
    /// section writes even where a scenario asks for neither fencing nor
    /// guarded writes ([`Writes::Plain`]).
    fn guards_writes(&self) -> bool {
        false
    }

    /// Whether the recipe names its own lock node while it holds
    /// ([`Lock::own_node`]; see [`Recipe::owns_a_node`]).
    const OWNS_A_NODE: bool = false;

    /// The holder's lock node: what a guarded write checks. `None` while
    /// the recipe holds no node of its own.
    fn own_node(&self) -> Option<&str> {
        None
    }
}

/// What `unlock()` does after its release operation's reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterRelease {
    /// `unlock()` returns: the round (or the outer hold) is over.
    Done,
    /// `unlock()` takes this step first (a retry of the release, a task
    /// handed to a background thread, an exception).
    Next(Action),
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
    /// An inner `unlock()` returned without a release; the next outer one
    /// is next.
    Unwinding,
    /// The outermost `unlock()` returned without a release; the round is over.
    Unwound,
}

/// A recipe's [`Lock`] inside the harness loop.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockLoop<L> {
    lock: L,
    stage: Stage,
    /// Acquisitions not yet completed.
    left: u8,
    /// `lock()` calls of this round that returned and are not yet unlocked.
    held: u8,
    /// `lock()` calls per round: 1 + [`RecipeConfig::reentries`].
    depth: u8,
    /// How the critical section writes to the protected resource.
    writes: Writes,
    /// Writes this critical section has made (0 outside one).
    written: u8,
}

impl<L: Lock> LockLoop<L> {
    pub fn new(lock: L, cfg: RecipeConfig) -> Self {
        LockLoop {
            lock,
            stage: Stage::Locking,
            left: cfg.acquisitions,
            held: 0,
            depth: cfg.reentries.saturating_add(1),
            writes: cfg.writes,
            written: 0,
        }
    }

    /// The recipe's own state.
    pub fn lock(&self) -> &L {
        &self.lock
    }

    fn locking(&mut self, resume: Resume) -> Action {
        let action = self.lock.lock(resume);
        match action.step {
            Step::Acquired => {
                self.held += 1;
                self.stage = Stage::Holding;
                self.lock.rewind();
            }
            // The caller tries again, as the seeds' polling loops do (a
            // re-entrant call that gave up leaves the outer holds as they are).
            Step::GaveUp => {
                if self.held > 0 {
                    self.stage = Stage::Holding;
                }
                self.lock.rewind();
            }
            _ => {}
        }
        action
    }

    fn main_step(&mut self, resume: Resume) -> Action {
        match self.stage {
            Stage::Locking => self.locking(resume),
            Stage::Holding if self.held < self.depth => {
                self.stage = Stage::Locking;
                act(Step::Reenter, "lock() again: a re-entrant call")
            }
            Stage::Holding => {
                // Before every write the holder reads its listener's flag.
                let distrusted =
                    self.writes.is_on() && self.written < WRITES && self.lock.distrusts();
                if !distrusted {
                    if let Some(action) = self.write(resume) {
                        return action;
                    }
                }
                self.written = 0;
                self.stage = Stage::Unlocking;
                if distrusted {
                    act(
                        Step::Released,
                        "the listener's flag is set (SUSPENDED or LOST): leave the critical section without writing; unlock()",
                    )
                } else {
                    act(Step::Released, L::LEAVE)
                }
            }
            Stage::Unlocking => self.unlocking(),
            Stage::Released => match self.lock.after_release(resume) {
                AfterRelease::Done => {
                    self.held = self.held.saturating_sub(1);
                    if self.held > 0 {
                        self.unwind()
                    } else {
                        self.next_round()
                    }
                }
                AfterRelease::Next(action) => action,
            },
            Stage::Unwinding => self.unwind(),
            Stage::Unwound => self.next_round(),
        }
    }

    /// The critical section's next write to the protected resource, if it
    /// makes one more (`resume`: the reply to the last guarded write). A
    /// guarded write ZooKeeper refused ends the section: the holder has
    /// learned that its lock node is gone.
    fn write(&mut self, resume: Resume) -> Option<Action> {
        if self.writes == Writes::Off {
            return None;
        }
        if matches!(resume, Resume::Reply(Err(_))) {
            self.written = WRITES;
        }
        if self.written >= WRITES {
            return None;
        }
        self.written += 1;
        match self.writes {
            Writes::Off => None,
            Writes::Fenced => Some(act(
                Step::Write,
                "critical section: write to the resource with the lock node's czxid as the token",
            )),
            Writes::Plain => Some(act(Step::Write, "critical section: write to the resource")),
            Writes::Guarded => {
                let op = guarded_write(self.lock.own_node().unwrap_or_default());
                Some(call(
                    op,
                    None,
                    "critical section: zk.multi(check(ourPath), setData(resource))",
                ))
            }
        }
    }

    fn unlocking(&mut self) -> Action {
        let action = self.lock.unlock();
        match action.step {
            Step::Call { .. } => self.stage = Stage::Released,
            Step::Unlocked => {
                self.held = self.held.saturating_sub(1);
                self.stage = if self.held > 0 {
                    Stage::Unwinding
                } else {
                    Stage::Unwound
                };
            }
            _ => {}
        }
        action
    }

    /// The `unlock()` of the next outer hold.
    fn unwind(&mut self) -> Action {
        self.stage = Stage::Unlocking;
        act(Step::Released, "unlock() again: the outer hold")
    }

    /// Every `unlock()` of the round returned: the next round, or the end.
    fn next_round(&mut self) -> Action {
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            act(Step::Finished, "all acquisitions done")
        } else {
            self.stage = Stage::Locking;
            self.locking(Resume::Go)
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
            executor => self.lock.on_task(executor, resume),
        }
    }

    fn library(&self) -> Library {
        L::LIBRARY
    }

    fn session_changed(&mut self) {
        self.lock.session_changed()
    }

    fn connection_state(&mut self, state: KeeperState) -> bool {
        self.lock.connection_state(state)
    }

    fn distrusts(&self) -> bool {
        self.lock.distrusts()
    }

    fn guards_writes(&self) -> bool {
        self.lock.guards_writes()
    }

    fn claims(&self, path: &str) -> bool {
        self.lock.claims(path)
    }

    fn owns_a_node(&self) -> bool {
        L::OWNS_A_NODE
    }

    fn reads_stat(&self) -> StatFields {
        self.lock.reads_stat()
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        self.lock.paths(f)
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        self.lock.paths_mut(f)
    }

    fn exception_ends_process(&self) -> bool {
        self.lock.exception_ends_process()
    }

    /// Read off the loop's own fields, so judging it adds nothing to the
    /// state: the release operation in flight while more than one hold is
    /// counted (`held` drops only when `unlock()` returns) was sent by an
    /// inner `unlock()`; and after the last round (`left` and `held` both
    /// 0: every `unlock()` returned) the recipe's `unlock()` is run on a
    /// copy — the call one more `unlock()` would make — and must throw.
    fn reentrancy_broken(&self) -> bool {
        if self.depth < 2 {
            return false;
        }
        let inner_release = self.stage == Stage::Released && self.held > 1;
        let finished = self.left == 0 && self.held == 0;
        inner_release || finished && !matches!(self.lock.clone().unlock().step, Step::Throw(_))
    }
}
