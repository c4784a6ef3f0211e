//! `no-recheck` — seed 003's `lock()` ("zookeeper实现分布式锁"):
//!
//! ```java
//! String myNode = zk.create(root + "/" + lockName, data, ..., EPHEMERAL_SEQUENTIAL);
//! List<String> subNodes = zk.getChildren(root, false);
//! TreeSet<String> sortedNodes = ...;            // root + "/" + node
//! String smallNode = sortedNodes.first();
//! String preNode = sortedNodes.lower(myNode);
//! if (myNode.equals(smallNode)) { nodeId.set(myNode); return; }
//! CountDownLatch latch = new CountDownLatch(1);
//! Stat stat = zk.exists(preNode, new LockWatcher(latch));
//! if (stat != null) { latch.await(); nodeId.set(myNode); latch = null; }
//! // and unlock(): zk.delete(nodeId.get(), -1); nodeId.remove();
//! ```
//!
//! **Claims:** a waiter holds the lock once its predecessor's node is gone.
//! **Breaks** when the predecessor was itself a waiter and its session
//! expired: its node goes, the watcher fires, and this client walks into the
//! critical section without re-reading the children — while the real holder
//! is still in it (mutual exclusion violated). A second defect: if `exists`
//! finds the predecessor already gone, `lock()` returns without
//! `nodeId.set(myNode)`, so `unlock()` calls `delete(null)`, which throws
//! `IllegalArgumentException`, and the node stays until the session ends.

use crate::runtime::children::{lowest, rank, Rank};
use crate::runtime::latch_watcher::LatchWatcher;
use crate::runtime::rounds::{Next, Rounds, Unlock, UnlockCode};
use crate::runtime::step::{act, call, throw, Action, Recipe, RecipeConfig, Resume, Step, Thread};
use crate::zk::{CreateMode, Op, OpResult, Reply};

pub const ROOT: &str = "/locks";
const LOCK_NAME: &str = "/locks/lock_";
/// `new LockWatcher(latch)`.
const LOCK_WATCHER: u8 = 1;
const LATCH: u8 = 0;

const UNLOCK: UnlockCode = UnlockCode {
    leave: "critical section done; unlock()",
    release: "unlock: zk.delete(nodeId.get(), -1)",
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    GetChildren,
    Armed,
    Exists,
    Await,
    /// `lock()` returned: the critical section and `unlock()`.
    Unlocking(Unlock),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NoRecheck {
    rounds: Rounds,
    main: Main,
    watcher: LatchWatcher,
    my_node: String,
    pre_node: String,
    /// `nodeId.get()`: `None` when `lock()` returned without setting it.
    node_id: Option<String>,
}

pub fn new(cfg: RecipeConfig) -> NoRecheck {
    NoRecheck {
        rounds: Rounds::new(cfg),
        main: Main::Start,
        watcher: LatchWatcher::default(),
        my_node: String::new(),
        pre_node: String::new(),
        node_id: None,
    }
}

impl NoRecheck {}

impl Recipe for NoRecheck {
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

impl NoRecheck {
    /// `lock()` after `getChildren`: the `TreeSet`, `first()`, `lower(myNode)`.
    fn on_children(&mut self, reply: Reply) -> Action {
        use Main::*;
        let small = lowest(&reply, ROOT);
        match (rank(&reply, ROOT, &self.my_node), small) {
            (Some(Rank::First), _) => {
                self.node_id = Some(self.my_node.clone());
                self.main = Unlocking(Unlock::Holding);
                act(
                    Step::Acquired,
                    "lock: myNode.equals(smallNode), nodeId.set(myNode)",
                )
            }
            (Some(Rank::After(pre)), _) => {
                self.pre_node = pre;
                self.main = Armed;
                act(Step::ArmLatch(LATCH), "lock: latch = new CountDownLatch(1)")
            }
            // `sortedNodes.lower(myNode)` of a missing node is still
            // the next lower name, or null if none.
            (Some(Rank::Missing), Some(_)) => {
                act(Step::Throw("own node gone"), "lock: myNode not in children")
            }
            (_, _) => throw(&reply, "lock: getChildren threw"),
        }
    }

    fn main_step(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => {
                self.main = Create;
                call(
                    Op::create(LOCK_NAME, CreateMode::EphemeralSequential),
                    None,
                    "lock: zk.create(root/lockName, EPHEMERAL_SEQUENTIAL)",
                )
            }
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.my_node = p;
                self.main = GetChildren;
                call(
                    Op::get_children(ROOT, false),
                    None,
                    "lock: zk.getChildren(root, false)",
                )
            }
            (GetChildren, Some(reply)) => self.on_children(reply),
            (Armed, _) => {
                self.main = Exists;
                call(
                    Op::exists(self.pre_node.clone(), true),
                    Some(LOCK_WATCHER),
                    "lock: zk.exists(preNode, new LockWatcher(latch))",
                )
            }
            (Exists, Some(Ok(OpResult::Exists(Some(_))))) => {
                self.main = Await;
                act(Step::Await(LATCH), "lock: stat != null, latch.await()")
            }
            (Exists, Some(Ok(OpResult::Exists(None)))) => {
                self.node_id = None;
                self.main = Unlocking(Unlock::Holding);
                act(
                    Step::Acquired,
                    "lock: stat == null, return (nodeId not set)",
                )
            }
            (Await, _) => {
                self.node_id = Some(self.my_node.clone());
                self.main = Unlocking(Unlock::Holding);
                act(
                    Step::Acquired,
                    "lock: latch released, nodeId.set(myNode) — no re-check",
                )
            }
            (Unlocking(Unlock::Releasing), _) if self.node_id.is_none() => act(
                Step::Throw("IllegalArgumentException(Path cannot be null)"),
                "unlock: zk.delete(null, -1)",
            ),
            (Unlocking(mut unlock), reply) => {
                let node_id = &self.node_id;
                let next = unlock.step(
                    reply,
                    || Op::delete(node_id.clone().unwrap_or_default(), -1),
                    UNLOCK,
                    &mut self.rounds,
                );
                self.main = Unlocking(unlock);
                match next {
                    Next::Act(a) => a,
                    Next::Lock => {
                        self.main = Start;
                        self.node_id = None;
                        self.main_step(Resume::Go)
                    }
                }
            }
            (_, Some(reply)) => throw(
                &reply,
                "KeeperException wrapped in RuntimeException escapes",
            ),
            (_, None) => unreachable!("main thread resumed without a reply while calling"),
        }
    }

    fn event_step(&mut self, r: Resume) -> Action {
        self.watcher.step(r, LOCK_WATCHER, LATCH)
    }
}
