//! Source 000's hand-written lock, `ZookeeperLookService`, in both drafts the
//! article shows (see [`racy_wait`](super::racy_wait) and
//! [`fixed_wait`](super::fixed_wait) for what each claims and what breaks it).
//!
//! The code, as the seed writes it:
//!
//! ```java
//! public void createLock() {
//!     Stat stat = zkClient.exists(LOCK_ROOT_PATH, false);
//!     if (stat == null) zkClient.create(LOCK_ROOT_PATH, ..., CreateMode.CONTAINER);
//!     currentLockPath = zkClient.create(LOCK_ROOT_PATH + "/" + LOCK_NODE_NAME, pid, ..., EPHEMERAL_SEQUENTIAL);
//! }
//! public void attemptLock() throws Exception {
//!     currentLockPaths = zkClient.getChildren(LOCK_ROOT_PATH, false);
//!     Collections.sort(currentLockPaths);
//!     int index = currentLockPaths.indexOf(currentLockPath.substring(LOCK_ROOT_PATH.length() + 1));
//!     if (index == 0) { /* lock acquired */ }
//!     else if (index < 0) throw new Exception("锁不存在");
//!     else {
//!         String preCurrentLockPath = currentLockPaths.get(index - 1);
//!         // first draft:                      // final draft:
//!         Stat stat = zkClient.exists(pre, watcher);   synchronized (watcher) {
//!         if (stat != null) {                           Stat stat = zkClient.exists(pre, watcher);
//!             synchronized (watcher) {                  if (stat != null) watcher.wait();
//!                 watcher.wait();                   }
//!             }
//!         }
//!         attemptLock();
//!     }
//! }
//! private final Watcher watcher = event -> { synchronized (this) { notifyAll(); } };
//! public void releaseLock() { zkClient.delete(currentLockPath, -1); }
//! ```
//!
//! The harness around it is the article's `buyMaskWithLock` loop: create,
//! attempt, critical section, release, `acquisitions` times. The lock root is
//! created before the clients start (the seed's exists-then-create of the
//! root is still executed each time and finds it).

use crate::zk::client::children::{create_own, rank, Rank};
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{act, call, release, throw, unexpected, Action, Resume, Step};
use crate::zk::{CreateMode, Name, Op, OpResult, Reply};

pub const LOCK_ROOT_PATH: &str = "/DistributeLocks";
const LOCK_NODE: &str = "/DistributeLocks/Lock_";
/// The `watcher` field: a `Watcher` object that is also the monitor.
const WATCHER: u8 = 1;

/// Which draft of `attemptLock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Draft {
    /// `exists(pre, watcher)` outside `synchronized (watcher)`.
    First,
    /// `exists(pre, watcher)` and `wait()` in one `synchronized (watcher)`.
    Final,
    /// The first draft with the article's second fix: `watcher.wait(ms)`.
    Timed,
}

/// The timed draft's `wait` bound. The article names no figure ("wait方法设置
/// 等待时间"); a second is long next to the simulator's millisecond hold
/// times and short next to its 4 s session timeout.
pub const WAIT_MS: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    /// `zkClient.exists(LOCK_ROOT_PATH, false)` sent.
    ExistsRoot,
    /// `zkClient.create(LOCK_ROOT_PATH, CONTAINER)` sent.
    CreateRoot,
    /// `zkClient.create(.../Lock_, EPHEMERAL_SEQUENTIAL)` sent.
    CreateLock,
    /// `zkClient.getChildren(LOCK_ROOT_PATH, false)` sent.
    GetChildren,
    /// Final draft: inside `synchronized (watcher)`, about to call `exists`.
    Synchronized,
    /// `zkClient.exists(pre, watcher)` sent.
    ExistsPre,
    /// Inside `synchronized (watcher)`, about to `watcher.wait()`.
    AboutToWait,
    /// Returned from `wait()` (monitor re-acquired).
    Woken,
    /// Left the synchronized block; `attemptLock()` recurses.
    Recurse,
}

/// The event thread's position in `watcher.process(event)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Event {
    Idle,
    /// `synchronized (this)` entered; `notifyAll()` next.
    Notify,
    /// `notifyAll()` done; leaving the block.
    Leave,
    /// Block left; `process` returns.
    Return,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Seed000 {
    draft: Draft,
    main: Main,
    event: Event,
    current_lock_path: Name,
    pre_current_lock_path: Name,
}

impl Seed000 {
    pub fn new(draft: Draft) -> Self {
        Seed000 {
            draft,
            main: Main::Start,
            event: Event::Idle,
            current_lock_path: Name::default(),
            pre_current_lock_path: Name::default(),
        }
    }

    fn get_children(&mut self) -> Action {
        self.main = Main::GetChildren;
        call(
            Op::get_children(LOCK_ROOT_PATH, false),
            None,
            "attemptLock: zkClient.getChildren(LOCK_ROOT_PATH, false)",
        )
    }

    fn exists_pre(&mut self) -> Action {
        self.main = Main::ExistsPre;
        call(
            Op::exists(self.pre_current_lock_path.clone(), true),
            Some(WATCHER),
            "attemptLock: zkClient.exists(preCurrentLockPath, watcher)",
        )
    }

    /// `attemptLock` after `getChildren`: sort, find our index, act on it.
    fn on_children(&mut self, reply: Reply) -> Action {
        match rank(&reply, LOCK_ROOT_PATH, &self.current_lock_path) {
            Some(Rank::First) => act(Step::Acquired, "attemptLock: index == 0, lock acquired"),
            Some(Rank::Missing) => act(
                Step::Throw("Exception(锁不存在)"),
                "attemptLock: index < 0, throw",
            ),
            Some(Rank::After(pre)) => {
                self.pre_current_lock_path = pre;
                match self.draft {
                    Draft::First | Draft::Timed => self.exists_pre(),
                    Draft::Final => {
                        self.main = Main::Synchronized;
                        act(
                            Step::Enter(WATCHER),
                            "attemptLock: synchronized (watcher) {",
                        )
                    }
                }
            }
            None => throw(&reply, "attemptLock: getChildren threw"),
        }
    }

    /// `exists(preCurrentLockPath, watcher)` returned: `stat != null` waits,
    /// `stat == null` recurses — each draft with its own monitor steps.
    fn on_exists_pre(&mut self, exists: bool) -> Action {
        use Main::*;
        match (exists, self.draft) {
            (true, Draft::First | Draft::Timed) => {
                self.main = AboutToWait;
                act(
                    Step::Enter(WATCHER),
                    "attemptLock: stat != null, synchronized (watcher) {",
                )
            }
            (true, Draft::Final) => {
                self.main = Woken;
                act(
                    Step::Wait(WATCHER),
                    "attemptLock: stat != null, watcher.wait()",
                )
            }
            (false, Draft::First | Draft::Timed) => self.get_children(),
            (false, Draft::Final) => {
                self.main = Recurse;
                act(
                    Step::Exit(WATCHER),
                    "attemptLock: stat == null, } (leave synchronized)",
                )
            }
        }
    }

    fn create_lock(&mut self) -> Action {
        self.main = Main::CreateLock;
        create_own(
            LOCK_NODE,
            "createLock: zkClient.create(LOCK_ROOT_PATH/Lock_, EPHEMERAL_SEQUENTIAL)",
        )
    }
}

impl Lock for Seed000 {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        (!self.current_lock_path.is_empty()).then_some(self.current_lock_path.as_str())
    }

    const LEAVE: &'static str = "buyMask() done; releaseLock()";

    fn lock_root(&self) -> &'static str {
        LOCK_ROOT_PATH
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => {
                self.main = ExistsRoot;
                call(
                    Op::exists(LOCK_ROOT_PATH, false),
                    None,
                    "createLock: zkClient.exists(LOCK_ROOT_PATH, false)",
                )
            }
            (ExistsRoot, Some(Ok(OpResult::Exists(Some(_))))) => self.create_lock(),
            (ExistsRoot, Some(Ok(OpResult::Exists(None)))) => {
                self.main = CreateRoot;
                call(
                    Op::create(LOCK_ROOT_PATH, CreateMode::Container),
                    None,
                    "createLock: zkClient.create(LOCK_ROOT_PATH, CONTAINER)",
                )
            }
            (CreateRoot, Some(Ok(_))) => self.create_lock(),
            (CreateLock, Some(Ok(OpResult::Created(p)))) => {
                self.current_lock_path = p;
                self.get_children()
            }
            (GetChildren, Some(reply)) => self.on_children(reply),
            (Synchronized, _) => self.exists_pre(),
            (ExistsPre, Some(Ok(OpResult::Exists(stat)))) => self.on_exists_pre(stat.is_some()),
            (AboutToWait, _) => {
                self.main = Woken;
                match self.draft {
                    Draft::Timed => act(
                        Step::TimedWait {
                            monitor: WATCHER,
                            millis: WAIT_MS,
                        },
                        "attemptLock: watcher.wait(millis) (解决方案二)",
                    ),
                    _ => act(Step::Wait(WATCHER), "attemptLock: watcher.wait()"),
                }
            }
            (Woken, _) => {
                self.main = Recurse;
                act(
                    Step::Exit(WATCHER),
                    "attemptLock: woken, } (leave synchronized)",
                )
            }
            (Recurse, _) => self.get_children(),
            (_, reply) => unexpected(reply, "KeeperException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.current_lock_path);
        f(&self.pre_current_lock_path);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.current_lock_path);
        f(&mut self.pre_current_lock_path);
    }

    fn unlock(&mut self) -> Action {
        release(
            Op::delete(self.current_lock_path.clone(), -1),
            "releaseLock: zkClient.delete(currentLockPath, -1)",
        )
    }

    fn on_event(&mut self, r: Resume) -> Action {
        match (self.event, r) {
            (
                Event::Idle,
                Resume::Notify {
                    watcher: WATCHER, ..
                },
            ) => {
                self.event = Event::Notify;
                act(
                    Step::Enter(WATCHER),
                    "watcher.process: synchronized (this) {",
                )
            }
            (Event::Idle, _) => act(Step::Return, "default watcher: log the event"),
            (Event::Notify, _) => {
                self.event = Event::Leave;
                act(Step::NotifyAll(WATCHER), "watcher.process: notifyAll()")
            }
            (Event::Leave, _) => {
                self.event = Event::Return;
                act(Step::Exit(WATCHER), "watcher.process: }")
            }
            (Event::Return, _) => {
                self.event = Event::Idle;
                act(Step::Return, "watcher.process returns")
            }
        }
    }
}
