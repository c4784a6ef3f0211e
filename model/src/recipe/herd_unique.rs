//! `herd-unique` — seed 001, "第一步": every client creates the same node,
//! `/myDistributeLock`; ZooKeeper lets exactly one create succeed. The losers
//! watch the node and try again when it goes:
//!
//! ```text
//! loop {
//!     try { zk.create("/myDistributeLock", EPHEMERAL); return; }   // lock held
//!     catch (NodeExistsException e) {
//!         latch = new CountDownLatch(1);
//!         if (zk.exists("/myDistributeLock", watcher) != null) latch.await();
//!     }
//! }
//! ```
//!
//! **Claims:** mutual exclusion (node names are unique). **Holds** that.
//! **Costs** what the seed itself names "惊群效应": every release wakes every
//! waiter, all of them race to create, one wins, the rest watch again — a
//! herd, which the checker reports as a violation of the herd bound.

use crate::runtime::latch_watcher::LatchWatcher;
use crate::runtime::rounds::{Next, Rounds, Unlock, UnlockCode};
use crate::runtime::step::{act, call, throw, Action, Recipe, RecipeConfig, Resume, Step, Thread};
use crate::zk::{CreateMode, Op, OpResult, ZkError};

pub const ROOT: &str = "/";
const LOCK: &str = "/myDistributeLock";
const WATCHER: u8 = 1;
const LATCH: u8 = 0;

const UNLOCK: UnlockCode = UnlockCode {
    leave: "critical section done; unlock()",
    release: "zk.delete(/myDistributeLock, -1)",
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    Armed,
    Exists,
    Await,
    /// `lock()` returned: the critical section and `unlock()`.
    Unlocking(Unlock),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HerdUnique {
    rounds: Rounds,
    main: Main,
    watcher: LatchWatcher,
}

pub fn new(cfg: RecipeConfig) -> HerdUnique {
    HerdUnique {
        rounds: Rounds::new(cfg),
        main: Main::Start,
        watcher: LatchWatcher::default(),
    }
}

impl HerdUnique {
    fn create(&mut self) -> Action {
        self.main = Main::Create;
        call(
            Op::create(LOCK, CreateMode::Ephemeral),
            None,
            "zk.create(/myDistributeLock, EPHEMERAL)",
        )
    }
}

impl Recipe for HerdUnique {
    fn lock_root(&self) -> &'static str {
        ROOT
    }

    fn step(&mut self, thread: Thread, resume: Resume) -> Action {
        match thread {
            Thread::Main => self.main_step(resume),
            Thread::Event => self.event_step(resume),
        }
    }
}

impl HerdUnique {
    fn main_step(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => self.create(),
            (Create, Some(Ok(OpResult::Created(_)))) => {
                self.main = Unlocking(Unlock::Holding);
                act(Step::Acquired, "create succeeded: lock held")
            }
            (Create, Some(Err(ZkError::NodeExists))) => {
                self.main = Armed;
                act(
                    Step::ArmLatch(LATCH),
                    "NodeExistsException: latch = new CountDownLatch(1)",
                )
            }
            (Armed, _) => {
                self.main = Exists;
                call(
                    Op::exists(LOCK, true),
                    Some(WATCHER),
                    "zk.exists(/myDistributeLock, watcher)",
                )
            }
            (Exists, Some(Ok(OpResult::Exists(Some(_))))) => {
                self.main = Await;
                act(Step::Await(LATCH), "stat != null: latch.await()")
            }
            (Exists, Some(Ok(OpResult::Exists(None)))) => self.create(),
            (Await, _) => self.create(),
            (Unlocking(mut unlock), reply) => {
                let next = unlock.step(reply, || Op::delete(LOCK, -1), UNLOCK, &mut self.rounds);
                self.main = Unlocking(unlock);
                match next {
                    Next::Act(a) => a,
                    Next::Lock => {
                        self.main = Start;
                        self.create()
                    }
                }
            }
            (_, Some(reply)) => throw(&reply, "KeeperException escapes"),
            (_, None) => unreachable!("main thread resumed without a reply while calling"),
        }
    }

    fn event_step(&mut self, r: Resume) -> Action {
        self.watcher.step(r, WATCHER, LATCH)
    }
}
