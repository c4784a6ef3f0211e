//! `herd-children` — the common variant of the sequential-node lock that
//! watches the whole lock directory instead of the predecessor (the
//! "惊群" design source 001 warns against in "第二步"):
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

use crate::zk::client::children::{create_own, rank, Rank};
use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{
    act, call, release, throw, unexpected, Action, RecipeConfig, Resume, Step,
};
use crate::zk::{Name, Op, OpResult};

pub const ROOT: &str = "/herd";
const NODE: &str = "/herd/lock-";
const WATCHER: u8 = 1;
const LATCH: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    Create,
    Armed,
    GetChildren,
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HerdChildren {
    main: Main,
    watcher: LatchWatcher,
    own: Name,
}

pub fn new(_cfg: RecipeConfig) -> HerdChildren {
    HerdChildren {
        main: Main::Start,
        watcher: LatchWatcher::default(),
        own: Name::default(),
    }
}

impl HerdChildren {
    fn arm(&mut self) -> Action {
        self.main = Main::Armed;
        act(Step::ArmLatch(LATCH), "latch = new CountDownLatch(1)")
    }
}

impl Lock for HerdChildren {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        (!self.own.is_empty()).then_some(self.own.as_str())
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
                create_own(NODE, "zk.create(/herd/lock-, EPHEMERAL_SEQUENTIAL)")
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
                Some(Rank::First) => act(Step::Acquired, "lowest node: lock held"),
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
            (_, reply) => unexpected(reply, "KeeperException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.own);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.own);
    }

    fn unlock(&mut self) -> Action {
        release(Op::delete(self.own.clone(), -1), "zk.delete(myNode, -1)")
    }

    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, WATCHER, LATCH)
    }
}
