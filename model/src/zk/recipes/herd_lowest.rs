//! `herd-lowest` — source 003's *text* (line 222, "zookeeper实现分布式锁"):
//! every client creates an ephemeral-sequential node under a parent; if its
//! node is the smallest of its siblings it holds the lock; otherwise it
//! "监听这个顺序最小的节点的删除事件,然后在继续根据这个流程获取最小节点" —
//! watches the deletion of the *smallest* node, then runs the same steps
//! again.
//!
//! The seed's code beneath that sentence (lines 226–267, modelled as
//! `no-recheck`) is a different variant: it watches `preNode` and does not
//! re-check. This recipe keeps that code's calls, order and names (lines
//! 230, 236–242, 245–253, 255, 259, and `unlock()` at 272–275; line 243's
//! `preNode` is not needed) and changes only what the text says
//! differently:
//!
//! ```java
//! String myNode = zk.create(root + "/" + lockName, data, ..., EPHEMERAL_SEQUENTIAL);
//! while (true) {                                      // the text: "继续根据这个流程"
//!     List<String> subNodes = zk.getChildren(root, false);
//!     TreeSet<String> sortedNodes = ...;              // root + "/" + node
//!     String smallNode = sortedNodes.first();
//!     if (myNode.equals(smallNode)) { nodeId.set(myNode); return; }
//!     CountDownLatch latch = new CountDownLatch(1);
//!     Stat stat = zk.exists(smallNode, new LockWatcher(latch));  // smallNode, not preNode
//!     if (stat != null) latch.await();
//! }
//! // unlock(): zk.delete(nodeId.get(), -1); nodeId.remove();
//! ```
//!
//! What the text leaves open, and what was chosen: the loop goes back to
//! `getChildren`, not to `create` (the text repeats "获取最小节点", and a
//! second `create` would leave the first node behind, blocking everyone);
//! when `exists` finds the smallest node already gone (`stat == null`) it
//! re-checks at once instead of returning as line 255 does; `nodeId` is
//! always set before `lock()` returns, so the seed's `delete(null)` defect
//! (see `no-recheck`) is not here. A reply that lacks the client's own
//! node throws, as in the other sequential recipes (the seed does not
//! check; its `getChildren` would fail on the expired session first).
//!
//! **Claims:** mutual exclusion — only the smallest node holds the lock, and
//! every waiter re-reads the children after any wake-up. **Holds** that
//! without faults (`scenarios/herd-lowest.toml`, 3 clients × 1
//! acquisition, exhaustive). **Costs** a herd: every waiter watches the same
//! node, so each release notifies them all — the checker's **herd** in 28
//! steps (c3's delete reaches two clients parked on its node; 2 clients
//! cannot show it), and in the simulator 3.46 wake-ups per release at 5
//! clients, 8.11 at 10, 17.39 at 20 (`herd-lowest-sim.toml`).
//!
//! **Breaks**, one fault each, 2 clients × 1 acquisition (exploration):
//! `holder_expiries` → mutual exclusion (15 steps, as for `predecessor`:
//! the holder's node goes while it is still inside, the waiter takes the
//! lock); `waiter_expiries` → thread died (19 steps: the expired waiter's
//! next call throws `SessionExpired` and nothing catches it — but nobody
//! walks in beside the holder, since a waiter's node is never the one the
//! others watch while the holder's is there); `connection_losses` →
//! deadlock (16 steps: the `create` is applied, its reply lost, the thread
//! dies on `ConnectionLoss`, and its node, the lowest, stays while the
//! session lives).

use crate::zk::client::children::{create_own, lowest, rank, Rank};
use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{
    act, call, release, throw, unexpected, Action, RecipeConfig, Resume, Step,
};
use crate::zk::{Name, Op, OpResult, Reply};

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
    /// The latch is armed; `exists(smallNode, …)` next.
    Armed,
    Exists,
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HerdLowest {
    main: Main,
    watcher: LatchWatcher,
    my_node: Name,
    small_node: Name,
}

pub fn new(_cfg: RecipeConfig) -> HerdLowest {
    HerdLowest {
        main: Main::Start,
        watcher: LatchWatcher::default(),
        my_node: Name::default(),
        small_node: Name::default(),
    }
}

impl HerdLowest {
    fn get_children(&mut self, code: &'static str) -> Action {
        self.main = Main::GetChildren;
        call(Op::get_children(ROOT, false), None, code)
    }

    /// After `getChildren`: the `TreeSet`, `first()`, the comparison.
    fn on_children(&mut self, reply: Reply) -> Action {
        match (rank(&reply, ROOT, &self.my_node), lowest(&reply, ROOT)) {
            (Some(Rank::First), _) => act(
                Step::Acquired,
                "lock: myNode.equals(smallNode), nodeId.set(myNode)",
            ),
            (Some(Rank::After(_)), Some(small)) => {
                self.small_node = small;
                self.main = Main::Armed;
                act(Step::ArmLatch(LATCH), "lock: latch = new CountDownLatch(1)")
            }
            (Some(_), _) => act(Step::Throw("own node gone"), "lock: myNode not in children"),
            (None, _) => throw(&reply, "lock: getChildren threw"),
        }
    }
}

impl Lock for HerdLowest {
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
                self.main = Create;
                create_own(
                    LOCK_NAME,
                    "lock: zk.create(root/lockName, EPHEMERAL_SEQUENTIAL)",
                )
            }
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.my_node = p;
                self.get_children("lock: zk.getChildren(root, false)")
            }
            (GetChildren, Some(reply)) => self.on_children(reply),
            (Armed, _) => {
                self.main = Exists;
                call(
                    Op::exists(self.small_node.clone(), true),
                    Some(LOCK_WATCHER),
                    "lock: zk.exists(smallNode, new LockWatcher(latch))",
                )
            }
            (Exists, Some(Ok(OpResult::Exists(Some(_))))) => {
                self.main = Await;
                act(Step::Await(LATCH), "lock: stat != null, latch.await()")
            }
            (Exists, Some(Ok(OpResult::Exists(None)))) => {
                self.get_children("lock: stat == null, again: zk.getChildren(root, false)")
            }
            (Await, _) => {
                self.get_children("lock: smallNode deleted, again: zk.getChildren(root, false)")
            }
            (_, reply) => unexpected(reply, "KeeperException wrapped in RuntimeException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.my_node);
        f(&self.small_node);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.my_node);
        f(&mut self.small_node);
    }

    fn unlock(&mut self) -> Action {
        release(
            Op::delete(self.my_node.clone(), -1),
            "unlock: zk.delete(nodeId.get(), -1)",
        )
    }

    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, LOCK_WATCHER, LATCH)
    }
}
