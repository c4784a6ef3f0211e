//! `cas-version` — a lock written the way many teams write one on first
//! contact with ZooKeeper, and the example recipe of
//! `docs/writing-a-recipe.md`: no sequential nodes, only a compare-and-set on
//! one persistent node's version.
//!
//! ```java
//! // lock()
//! if (holds > 0) { holds++; return; }                         // re-entrant
//! while (true) {
//!     latch = new CountDownLatch(1);
//!     Stat stat = new Stat();
//!     byte[] owner = zk.getData("/cas-lock", watcher, stat);   // watcher: latch.countDown()
//!     if (owner.length == 0) {
//!         try { zk.setData("/cas-lock", me, stat.getVersion()); holds = 1; return; }
//!         catch (BadVersionException e) { continue; }              // someone else won
//!     }
//!     latch.await();
//! }
//! // unlock()
//! if (--holds > 0) return;
//! zk.setData("/cas-lock", new byte[0], -1);
//! ```
//!
//! It is the catalogue's one re-entrant lock (`holds`, as Curator counts
//! per thread): with `reentries = 1` the holder's second `lock()` returns at
//! once and only the outer `unlock()` releases.
//!
//! **Claims:** mutual exclusion (the version check lets one writer in per
//! version). **Holds** that. **Costs** a herd: every `setData` — the release
//! and every acquisition — notifies every waiter, all of them re-read. And
//! nothing releases the lock of a client that dies while holding it: the
//! node is persistent, not ephemeral (`cas-version-crash.toml`: deadlock,
//! 13 steps).

use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{
    act, call, release, unexpected, Action, RecipeConfig, Resume, StatFields, Step,
};
use crate::zk::{Name, Op, OpResult, ZkError};

pub const LOCK: &str = "/cas-lock";
const WATCHER: u8 = 1;
const LATCH: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Main {
    /// `latch = new CountDownLatch(1)` next.
    Start,
    /// `getData` sent.
    GetData,
    /// `setData(me, version)` sent.
    SetData,
    /// In `latch.await()`.
    Await,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CasVersion {
    main: Main,
    watcher: LatchWatcher,
    /// `me`: the bytes this client writes as the owner.
    me: u8,
    /// `holds`: `lock()` calls not yet matched by `unlock()`.
    holds: u8,
}

pub fn new(cfg: RecipeConfig) -> CasVersion {
    CasVersion {
        main: Main::Start,
        watcher: LatchWatcher::default(),
        me: cfg.client,
        holds: 0,
    }
}

impl Lock for CasVersion {
    fn lock_root(&self) -> &'static str {
        LOCK
    }

    /// The compare-and-set needs the version `getData` returned.
    fn reads_stat(&self) -> StatFields {
        StatFields {
            version: true,
            ..StatFields::NONE
        }
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Main::*;
        match (self.main, r.into_reply()) {
            (Start, _) if self.holds > 0 => {
                self.holds += 1;
                act(Step::Acquired, "lock: holds > 0, holds++; return")
            }
            (Start, _) => {
                // Armed before `getData` sets the watch, so a notification
                // that comes before `await()` is not lost.
                self.main = GetData;
                act(Step::ArmLatch(LATCH), "latch = new CountDownLatch(1)")
            }
            (GetData, None) => call(
                Op::get_data(LOCK, true),
                Some(WATCHER),
                "lock: zk.getData(/cas-lock, watcher, stat)",
            ),
            (GetData, Some(Ok(OpResult::GetData { data, stat }))) if data.is_empty() => {
                self.main = SetData;
                call(
                    Op::set_data(LOCK, format!("c{}", self.me + 1).into_bytes(), stat.version),
                    None,
                    "lock: owner empty, zk.setData(/cas-lock, me, stat.getVersion())",
                )
            }
            (GetData, Some(Ok(OpResult::GetData { .. }))) => {
                self.main = Await;
                act(Step::Await(LATCH), "lock: owner set, latch.await()")
            }
            (SetData, Some(Ok(_))) => {
                self.holds = 1;
                act(Step::Acquired, "lock: setData succeeded, holds = 1; return")
            }
            (SetData, Some(Err(ZkError::BadVersion))) | (Await, _) => self.restart(),
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
        self.holds = self.holds.saturating_sub(1);
        if self.holds > 0 {
            return act(Step::Unlocked, "unlock: --holds > 0, return");
        }
        release(
            Op::set_data(LOCK, Vec::new(), -1),
            "unlock: zk.setData(/cas-lock, new byte[0], -1)",
        )
    }

    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, WATCHER, LATCH)
    }
}

impl CasVersion {
    /// `continue`: the loop begins again with a new latch.
    fn restart(&mut self) -> Action {
        self.main = Main::Start;
        self.lock(Resume::Go)
    }
}
