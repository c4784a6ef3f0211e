//! `watcher-callback` — source 001's second lock (`LockWatcher`, lines 1–186
//! of its second listing; source 004's `DistributedLock` is the same code):
//! the lock is taken *inside the watcher callback*.
//!
//! ```java
//! public void getLock() throws Exception {                      // pool thread
//!     selfPath = zk.create(LOCK_SUB_PATH, null, ..., EPHEMERAL_SEQUENTIAL);
//!     if (checkMinPath()) getLockSuccess();
//! }                                                              // run() ends
//! public void process(WatchedEvent event) {                     // event thread
//!     if (event.getType() == NodeDeleted && event.getPath().equals(waitPath))
//!         try { if (checkMinPath()) getLockSuccess(); }
//!         catch (Exception e) { e.printStackTrace(); }
//! }
//! private boolean checkMinPath() throws Exception {
//!     List<String> subNodes = zk.getChildren(LOCK_ROOT_PATH, false);
//!     Collections.sort(subNodes);
//!     switch (subNodes.indexOf(selfPath.substring(...))) {
//!         case -1: return false;
//!         case 0:  return true;
//!         default:
//!             waitPath = LOCK_ROOT_PATH + "/" + subNodes.get(index - 1);
//!             try { zk.getData(waitPath, true, new Stat()); return false; }
//!             catch (Exception e) {
//!                 if (zk.exists(waitPath, false) == null) return checkMinPath();
//!                 else throw e;
//!             }
//!     }
//! }
//! private void getLockSuccess() throws KeeperException, InterruptedException {
//!     if (zk.exists(selfPath, false) == null) return;            // "本节点已不在了"
//!     Thread.sleep(2000);                                        // the work
//!     zk.delete(selfPath, -1);
//!     releaseConnection();                                       // zk.close()
//!     threadCompleteLatch.countDown();
//! }
//! ```
//!
//! `checkMinPath` and `getLockSuccess` run on whichever thread finds the
//! lock free: the pool thread for a client that is first at once, the
//! event thread (from `process(NodeDeleted)`) for the rest, both sharing
//! `selfPath` and `waitPath`. Each client acquires once and then closes its
//! session. The seed's `main` awaits one `threadCompleteLatch` shared by
//! every client; here a client is done when it counts down, and a client
//! that never does is a liveness failure (the checker's deadlock or
//! starvation, the simulator's time limit).
//!
//! Modelled as separate client processes, each with its session. In the
//! seed they are five threads of one JVM whose `synchronized
//! (MyDistributedLockByZK.class)` serialises `createPersistentPath`
//! (`exists(root, true)`, then `create`); here the drivers create the root
//! before the clients start, so that step and its watch on the root (which
//! never fires: the root is never deleted) are left out. The connection
//! latch of `createConnection` is left out too: a client starts connected.
//!
//! **Claims:** mutual exclusion, and no herd (each waiter watches its
//! predecessor with `getData`). **Holds** both without faults
//! (`watcher-callback.toml`, 3 clients). **Breaks** (2 clients each):
//! when the holder's session expires while it works, its node goes and
//! the next client takes the lock (`-holder-expiry`: mutual exclusion, 21
//! steps); a waiter whose session expires never finishes — `process` only
//! logs `Expired`, and nothing counts its latch down (`-waiter-expiry`:
//! deadlock, 31 steps); a connection loss on a call ends the pool thread in
//! `run()`'s `catch`, and its node, on a live session, blocks everyone
//! behind it (`-connection-loss`: deadlock, 17 steps).

use crate::zk::client::children::{create_own, rank, Rank};
use crate::zk::client::step::{
    act, call, release, Action, Recipe, RecipeConfig, Resume, Step, Thread, DEFAULT_WATCHER,
};
use crate::zk::client::Notice;
use crate::zk::{EventType, Name, Op, OpResult, Reply};

pub const LOCK_ROOT_PATH: &str = "/myDisLocks";
const LOCK_SUB_PATH: &str = "/myDisLocks/thread";

/// Where one thread stands in `getLock`, `checkMinPath` and
/// `getLockSuccess` (both threads run the last two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pc {
    /// The pool thread before `getLock`; the event thread between callbacks.
    Start,
    /// `getLock`: `create` sent.
    Create,
    /// `checkMinPath`: `getChildren` sent.
    GetChildren,
    /// `getData(waitPath, true)` sent.
    GetData,
    /// In the `catch`: `exists(waitPath, false)` sent after `getData`
    /// threw.
    Exists,
    /// `getLockSuccess`: `exists(selfPath, false)` sent.
    SelfExists,
    /// The lock is held: `Thread.sleep(2000)`, the work.
    Working,
    /// The work is done; `delete(selfPath)` next.
    Done,
    /// `delete(selfPath, -1)` sent.
    Delete,
    /// `releaseConnection()`: `zk.close()` sent.
    Close,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatcherCallback {
    main: Pc,
    event: Pc,
    self_path: Name,
    wait_path: Name,
}

pub fn new(_cfg: RecipeConfig) -> WatcherCallback {
    WatcherCallback {
        main: Pc::Start,
        event: Pc::Start,
        self_path: Name::default(),
        wait_path: Name::default(),
    }
}

impl WatcherCallback {
    fn pc(&mut self, t: Thread) -> &mut Pc {
        match t {
            Thread::Main => &mut self.main,
            // The seed's code runs on these two threads only.
            _ => &mut self.event,
        }
    }

    /// `checkMinPath()` from the top.
    fn check_min_path(&mut self, t: Thread) -> Action {
        *self.pc(t) = Pc::GetChildren;
        call(
            Op::get_children(LOCK_ROOT_PATH, false),
            None,
            "checkMinPath: zk.getChildren(LOCK_ROOT_PATH, false)",
        )
    }

    /// `checkMinPath()` or `getLockSuccess()` returned without the lock:
    /// `getLock()` returns and the pool thread's `run()` ends, or
    /// `process` returns.
    fn give_back(&mut self, t: Thread, code: &'static str) -> Action {
        *self.pc(t) = Pc::Start;
        match t {
            Thread::Main => act(Step::End, code),
            _ => act(Step::Return, code),
        }
    }

    /// An exception reached the `catch (Exception e) { e.printStackTrace(); }`
    /// of `run()` (pool thread) or of `process` (event thread): the
    /// client's attempt ends there, and nothing will count it down.
    fn caught(&mut self, t: Thread) -> Action {
        let code = match t {
            Thread::Main => "exception: run() catches it, printStackTrace()",
            _ => "exception: process() catches it, printStackTrace()",
        };
        self.give_back(t, code)
    }

    /// One step of `checkMinPath` or `getLockSuccess` on thread `t`.
    fn flow(&mut self, t: Thread, reply: Option<Reply>) -> Action {
        match (*self.pc(t), reply) {
            (Pc::GetChildren, Some(reply)) => self.ranked(t, &reply),
            (Pc::GetData, Some(Ok(_))) => {
                self.give_back(t, "checkMinPath: getData set the watch; return false")
            }
            (Pc::GetData, Some(Err(_))) => {
                *self.pc(t) = Pc::Exists;
                call(
                    Op::exists(self.wait_path.clone(), false),
                    None,
                    "checkMinPath: getData threw; catch: zk.exists(waitPath, false)",
                )
            }
            (Pc::Exists, Some(Ok(OpResult::Exists(None)))) => self.check_min_path(t),
            (Pc::Exists, Some(Ok(_))) => self.caught(t),
            (Pc::SelfExists, Some(Ok(OpResult::Exists(None)))) => {
                self.give_back(t, "getLockSuccess: exists(selfPath) == null: return")
            }
            (Pc::SelfExists, Some(Ok(_))) => {
                *self.pc(t) = Pc::Working;
                act(
                    Step::Acquired,
                    "getLockSuccess: lock held; Thread.sleep(2000)",
                )
            }
            (Pc::Working, _) => {
                *self.pc(t) = Pc::Done;
                act(Step::Released, "getLockSuccess: work done, delete selfPath")
            }
            (Pc::Done, _) => {
                *self.pc(t) = Pc::Delete;
                release(
                    Op::delete(self.self_path.clone(), -1),
                    "getLockSuccess: zk.delete(selfPath, -1)",
                )
            }
            (Pc::Delete, Some(Ok(_))) => {
                *self.pc(t) = Pc::Close;
                call(Op::CloseSession, None, "releaseConnection: zk.close()")
            }
            (Pc::Close, _) => act(Step::Finished, "threadCompleteLatch.countDown()"),
            (_, Some(_)) => self.caught(t),
            (pc, None) => unreachable!("{t} resumed without a reply at {pc:?}"),
        }
    }

    /// `Collections.sort(subNodes)`, then `switch (index)`.
    fn ranked(&mut self, t: Thread, reply: &Reply) -> Action {
        match rank(reply, LOCK_ROOT_PATH, &self.self_path) {
            Some(Rank::Missing) => self.give_back(t, "checkMinPath: index -1: return false"),
            Some(Rank::First) => {
                *self.pc(t) = Pc::SelfExists;
                call(
                    Op::exists(self.self_path.clone(), false),
                    None,
                    "checkMinPath: index 0, true; getLockSuccess: zk.exists(selfPath, false)",
                )
            }
            Some(Rank::After(pre)) => {
                self.wait_path = pre;
                *self.pc(t) = Pc::GetData;
                call(
                    Op::get_data(self.wait_path.clone(), true),
                    Some(DEFAULT_WATCHER),
                    "checkMinPath: zk.getData(waitPath, true, new Stat())",
                )
            }
            None => self.caught(t),
        }
    }

    fn main_step(&mut self, r: Resume) -> Action {
        match (self.main, r) {
            (Pc::Start, _) => {
                self.main = Pc::Create;
                create_own(
                    LOCK_SUB_PATH,
                    "getLock: zk.create(LOCK_SUB_PATH, EPHEMERAL_SEQUENTIAL)",
                )
            }
            (Pc::Create, Resume::Reply(Ok(OpResult::Created(p)))) => {
                self.self_path = p;
                self.check_min_path(Thread::Main)
            }
            (_, r) => self.flow(Thread::Main, r.into_reply()),
        }
    }

    fn event_step(&mut self, r: Resume) -> Action {
        match (self.event, r) {
            (Pc::Start, Resume::Notify { notice, .. }) => match notice {
                Notice::Node(e) if e.kind == EventType::NodeDeleted && e.path == self.wait_path => {
                    self.check_min_path(Thread::Event)
                }
                _ => act(Step::Return, "process: logs the event"),
            },
            (Pc::Start, _) => act(Step::Return, "process returns"),
            (_, r) => self.flow(Thread::Event, r.into_reply()),
        }
    }
}

impl Recipe for WatcherCallback {
    fn lock_root(&self) -> &'static str {
        LOCK_ROOT_PATH
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.self_path);
        f(&self.wait_path);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.self_path);
        f(&mut self.wait_path);
    }

    fn step(&mut self, thread: Thread, resume: Resume) -> Action {
        match thread {
            Thread::Main => self.main_step(resume),
            _ => self.event_step(resume),
        }
    }
}
