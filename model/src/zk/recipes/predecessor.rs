//! `predecessor` — the textbook lock of ZooKeeper's recipes page ("Locks"),
//! which sources 001 and 004 implement as `checkMinPath`:
//!
//! 1. `create("_locknode_/lock-", EPHEMERAL_SEQUENTIAL)`
//! 2. `getChildren("_locknode_", false)` — no watch on the children
//! 3. lowest suffix → the lock is held
//! 4. `exists(next-lower node, true)` — watch only the predecessor
//! 5. `exists` returned null → step 2; otherwise wait for the notification,
//!    then step 2 (re-check: the predecessor may have been a waiter whose
//!    session died, not the holder).
//!
//! The wait is a `CountDownLatch(1)` armed before `exists` and counted down
//! by the default watcher, so a notification that arrives before `await()`
//! is not lost.
//!
//! **Claims:** mutual exclusion, no herd (a release wakes one waiter), no
//! lost wake-up. **Holds** without faults. **Breaks** when the holder's
//! session expires while it is still in its critical section: its node
//! goes, the next client takes the lock, and the old holder does not know
//! (no ZooKeeper lock is safe without a fencing token checked by the
//! resource).

use crate::zk::client::children::{create_own, rank, Rank};
use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{
    act, call, release, throw, unexpected, Action, RecipeConfig, Resume, Step, DEFAULT_WATCHER,
};
use crate::zk::{Name, Op, OpResult};

pub const LOCK_ROOT: &str = "/_locknode_";
const LOCK_NODE: &str = "/_locknode_/lock-";
const LATCH: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    Start,
    /// Step 1 sent.
    Create,
    /// Step 2 sent.
    GetChildren,
    /// Step 4 next (latch armed).
    Armed,
    /// Step 4 sent.
    Exists,
    /// Step 5: waiting for the notification.
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Predecessor {
    main: Main,
    /// The event thread is inside the default watcher's `process`.
    watcher: LatchWatcher,
    own: Name,
    watched: Name,
}

pub fn new(_cfg: RecipeConfig) -> Predecessor {
    Predecessor {
        main: Main::Start,
        watcher: LatchWatcher::default(),
        own: Name::default(),
        watched: Name::default(),
    }
}

impl Predecessor {
    fn get_children(&mut self) -> Action {
        self.main = Main::GetChildren;
        call(
            Op::get_children(LOCK_ROOT, false),
            None,
            "2. getChildren(_locknode_, false)",
        )
    }
}

impl Lock for Predecessor {
    const OWNS_A_NODE: bool = true;

    fn own_node(&self) -> Option<&str> {
        (!self.own.is_empty()).then_some(self.own.as_str())
    }

    fn lock_root(&self) -> &'static str {
        LOCK_ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Main::*;
        let reply = r.into_reply();
        match (self.main, reply) {
            (Start, _) => {
                self.main = Create;
                create_own(
                    LOCK_NODE,
                    "1. create(_locknode_/lock-, EPHEMERAL_SEQUENTIAL)",
                )
            }
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.own = p;
                self.get_children()
            }
            (GetChildren, Some(reply)) => match rank(&reply, LOCK_ROOT, &self.own) {
                Some(Rank::First) => act(Step::Acquired, "3. lowest sequence number: lock held"),
                Some(Rank::After(pre)) => {
                    self.watched = pre;
                    self.main = Armed;
                    act(Step::ArmLatch(LATCH), "latch = new CountDownLatch(1)")
                }
                Some(Rank::Missing) => act(
                    Step::Throw("own node gone"),
                    "3. own node not among the children",
                ),
                None => throw(&reply, "2. getChildren threw"),
            },
            (Armed, _) => {
                self.main = Exists;
                call(
                    Op::exists(self.watched.clone(), true),
                    Some(DEFAULT_WATCHER),
                    "4. exists(next lower node, true)",
                )
            }
            (Exists, Some(Ok(OpResult::Exists(None)))) => self.get_children(),
            (Exists, Some(Ok(OpResult::Exists(Some(_))))) => {
                self.main = Await;
                act(Step::Await(LATCH), "5. latch.await() for the notification")
            }
            (Await, _) => self.get_children(),
            (_, reply) => unexpected(reply, "KeeperException escapes"),
        }
    }

    fn rewind(&mut self) {
        self.main = Main::Start;
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.own);
        f(&self.watched);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.own);
        f(&mut self.watched);
    }

    fn unlock(&mut self) -> Action {
        release(
            Op::delete(self.own.clone(), -1),
            "unlock: delete(own node, -1)",
        )
    }

    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, DEFAULT_WATCHER, LATCH)
    }
}
