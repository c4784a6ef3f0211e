//! `herd-unique` — source 001, "第一步": every client creates the same node,
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

use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{act, call, release, unexpected, Action, RecipeConfig, Resume, Step};
use crate::zk::{CreateMode, Name, Op, OpResult, ZkError};

pub const ROOT: &str = "/";
const LOCK: &str = "/myDistributeLock";
const WATCHER: u8 = 1;
const LATCH: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    Armed,
    Exists,
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HerdUnique {
    main: Main,
    watcher: LatchWatcher,
}

pub fn new(_cfg: RecipeConfig) -> HerdUnique {
    HerdUnique {
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

impl Lock for HerdUnique {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        Some(LOCK)
    }

    fn lock_root(&self) -> &'static str {
        ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => self.create(),
            (Create, Some(Ok(OpResult::Created(_)))) => {
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
            (_, reply) => unexpected(reply, "KeeperException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    /// The lock's node is a constant: the state holds no path.
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}

    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}

    fn unlock(&mut self) -> Action {
        release(Op::delete(LOCK, -1), "zk.delete(/myDistributeLock, -1)")
    }

    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, WATCHER, LATCH)
    }
}
