//! `no-recheck` — source 003's `lock()` ("zookeeper实现分布式锁"):
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
//!
//! The seed does not show its `LockWatcher`. The common form counts the
//! latch down on whatever `process` receives, and the Java client hands
//! connection-state events (`Disconnected`, `SyncConnected`, `Expired`) to
//! every registered watcher, the one passed to `exists` included: one
//! disconnect while a waiter is parked lets it in beside the holder, with
//! no expiry at all (`no-recheck-disconnect.toml`). `no-recheck-deleted`
//! is the same lock with a `LockWatcher` that counts down only on
//! `NodeDeleted` (`no-recheck-deleted-disconnect.toml`).

use crate::zk::client::children::{create_own, lowest, rank, Rank};
use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{
    act, call, release, throw, unexpected, Action, RecipeConfig, Resume, Step,
};
use crate::zk::client::Notice;
use crate::zk::{EventType, Name, Op, OpResult, Reply};

pub const ROOT: &str = "/locks";
const LOCK_NAME: &str = "/locks/lock_";
/// `new LockWatcher(latch)`.
const LOCK_WATCHER: u8 = 1;
const LATCH: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    GetChildren,
    Armed,
    Exists,
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NoRecheck {
    main: Main,
    watcher: LatchWatcher,
    my_node: Name,
    pre_node: Name,
    /// `nodeId.get()`: `None` when `lock()` returned without setting it.
    node_id: Option<Name>,
    /// The `LockWatcher` counts down only on `NodeDeleted`.
    deleted_only: bool,
}

pub fn new(_cfg: RecipeConfig) -> NoRecheck {
    NoRecheck {
        main: Main::Start,
        watcher: LatchWatcher::default(),
        my_node: Name::default(),
        pre_node: Name::default(),
        node_id: None,
        deleted_only: false,
    }
}

/// The same lock with `if (event.getType() == NodeDeleted) latch.countDown()`.
pub fn new_deleted_only(cfg: RecipeConfig) -> NoRecheck {
    NoRecheck {
        deleted_only: true,
        ..new(cfg)
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
}

impl Lock for NoRecheck {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        (!self.my_node.is_empty()).then_some(self.my_node.as_str())
    }

    fn lock_root(&self) -> &'static str {
        ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => {
                // `nodeId.remove()` in the last `unlock()`.
                self.node_id = None;
                self.main = Create;
                create_own(
                    LOCK_NAME,
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
                act(
                    Step::Acquired,
                    "lock: stat == null, return (nodeId not set)",
                )
            }
            (Await, _) => {
                self.node_id = Some(self.my_node.clone());
                act(
                    Step::Acquired,
                    "lock: latch released, nodeId.set(myNode) — no re-check",
                )
            }
            (_, reply) => unexpected(reply, "KeeperException wrapped in RuntimeException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.my_node);
        f(&self.pre_node);
        if let Some(p) = &self.node_id {
            f(p);
        }
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.my_node);
        f(&mut self.pre_node);
        if let Some(p) = self.node_id.as_mut() {
            f(p);
        }
    }

    fn unlock(&mut self) -> Action {
        match &self.node_id {
            Some(node) => release(
                Op::delete(node.clone(), -1),
                "unlock: zk.delete(nodeId.get(), -1)",
            ),
            None => act(
                Step::Throw("IllegalArgumentException(Path cannot be null)"),
                "unlock: zk.delete(null, -1)",
            ),
        }
    }

    fn on_event(&mut self, r: Resume) -> Action {
        let deleted = matches!(
            &r,
            Resume::Notify { notice: Notice::Node(e), .. } if e.kind == EventType::NodeDeleted
        );
        if self.deleted_only && !deleted && matches!(r, Resume::Notify { .. }) {
            return act(
                Step::Return,
                "LockWatcher.process: not NodeDeleted, ignored",
            );
        }
        self.watcher.step(r, LOCK_WATCHER, LATCH)
    }
}
