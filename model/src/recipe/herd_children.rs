//! `herd-children` — the common variant of the sequential-node lock that
//! watches the whole lock directory instead of the predecessor (the
//! "惊群" design seed 001 warns against in "第二步"):
//!
//! ```text
//! myNode = zk.create("/herd/lock-", EPHEMERAL_SEQUENTIAL);
//! loop {
//!     latch = new CountDownLatch(1);
//!     children = zk.getChildren("/herd", watcher);   // every waiter watches the children
//!     if (myNode is the lowest) return;              // lock held
//!     latch.await();
//! }
//! ```
//!
//! **Claims:** mutual exclusion (it re-checks after every change). **Holds**
//! that. **Costs** a herd: every release (and every new waiter's create)
//! notifies every waiter, and all of them re-read the children.

use crate::runtime::children::{rank, Rank};
use crate::runtime::latch_watcher::LatchWatcher;
use crate::runtime::rounds::{Next, Rounds, Unlock, UnlockCode};
use crate::runtime::step::{act, call, throw, Action, Recipe, RecipeConfig, Resume, Step, Thread};
use crate::zk::{CreateMode, Op, OpResult};

pub const ROOT: &str = "/herd";
const NODE: &str = "/herd/lock-";
const WATCHER: u8 = 1;
const LATCH: u8 = 0;

const UNLOCK: UnlockCode = UnlockCode {
    leave: "critical section done; unlock()",
    release: "zk.delete(myNode, -1)",
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    Armed,
    GetChildren,
    Await,
    /// `lock()` returned: the critical section and `unlock()`.
    Unlocking(Unlock),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HerdChildren {
    rounds: Rounds,
    main: Main,
    watcher: LatchWatcher,
    own: String,
}

pub fn new(cfg: RecipeConfig) -> HerdChildren {
    HerdChildren {
        rounds: Rounds::new(cfg),
        main: Main::Start,
        watcher: LatchWatcher::default(),
        own: String::new(),
    }
}

impl HerdChildren {
    fn arm(&mut self) -> Action {
        self.main = Main::Armed;
        act(Step::ArmLatch(LATCH), "latch = new CountDownLatch(1)")
    }
}

impl Recipe for HerdChildren {
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

impl HerdChildren {
    fn main_step(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => {
                self.main = Create;
                call(
                    Op::create(NODE, CreateMode::EphemeralSequential),
                    None,
                    "zk.create(/herd/lock-, EPHEMERAL_SEQUENTIAL)",
                )
            }
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.own = p;
                self.arm()
            }
            (Armed, _) => {
                self.main = GetChildren;
                call(
                    Op::get_children(ROOT, true),
                    Some(WATCHER),
                    "zk.getChildren(/herd, watcher)",
                )
            }
            (GetChildren, Some(reply)) => match rank(&reply, ROOT, &self.own) {
                Some(Rank::First) => {
                    self.main = Unlocking(Unlock::Holding);
                    act(Step::Acquired, "lowest node: lock held")
                }
                Some(Rank::After(_)) => {
                    self.main = Await;
                    act(Step::Await(LATCH), "not lowest: latch.await()")
                }
                Some(Rank::Missing) => act(
                    Step::Throw("own node gone"),
                    "own node not among the children",
                ),
                None => throw(&reply, "getChildren threw"),
            },
            (Await, _) => self.arm(),
            (Unlocking(mut unlock), reply) => {
                let next = unlock.step(
                    reply,
                    || Op::delete(self.own.clone(), -1),
                    UNLOCK,
                    &mut self.rounds,
                );
                self.main = Unlocking(unlock);
                match next {
                    Next::Act(a) => a,
                    Next::Lock => {
                        self.main = Start;
                        self.main_step(Resume::Go)
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
