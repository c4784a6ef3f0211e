//! The recipe catalogue: every recipe registered in one place, as one value
//! type the drivers can hold without knowing which recipe it is.
//!
//! Adding a recipe is one line in the [`catalogue!`] invocation at the end of
//! this file (see `docs/writing-a-recipe.md`): its id as scenario files and
//! the CLI name it, the variant of [`AnyRecipe`] that holds its state, its
//! [`Lock`](crate::zk::client::lock_loop::Lock) type (the catalogue runs it in the
//! harness loop) — or, for a recipe whose lock is not taken by a `lock()`
//! call, a [`Recipe`] of its own with a [`Start`] impl — where it comes
//! from, what it claims (one sentence from its file's doc comment;
//! `locksmith recipes` prints it), and its constructor.

use crate::engine::harness::Writes;
use crate::zk::client::library::Library;
use crate::zk::client::lock_loop::{Lock, LockLoop};
use crate::zk::client::step::{
    Action, KeeperState, Recipe, RecipeConfig, Resume, StatFields, Thread,
};
use crate::zk::Name;
use std::fmt;

/// How a row's state type runs: a [`Lock`] runs in the harness loop
/// ([`LockLoop`]); a recipe whose lock is not taken by a `lock()` call on
/// the main thread (source 001 takes it in a watcher callback) is a
/// [`Recipe`] of its own.
pub trait Start {
    type Running: Recipe;
    fn start(self, cfg: RecipeConfig) -> Self::Running;
}

impl<L: Lock> Start for L {
    type Running = LockLoop<L>;
    fn start(self, cfg: RecipeConfig) -> LockLoop<L> {
        LockLoop::new(self, cfg)
    }
}

impl Start for watcher_callback::WatcherCallback {
    type Running = Self;
    fn start(self, _cfg: RecipeConfig) -> Self {
        self
    }
}

/// Expands the catalogue's rows into [`RecipeId`], [`AnyRecipe`] and the
/// lookups between them. Two ids may share a state type (the two drafts of
/// source 000): each row names its own variant.
macro_rules! catalogue {
    ($( $id:ident => $name:literal, $variant:ident($state:ty), $origin:literal, $claim:literal, $new:path; )+) => {
        /// A recipe id, as scenario files and the CLI name it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RecipeId {
            $( $id, )+
        }

        impl RecipeId {
            /// Every recipe, in catalogue order.
            pub const ALL: &'static [RecipeId] = &[ $( RecipeId::$id, )+ ];

            pub fn name(self) -> &'static str {
                match self { $( RecipeId::$id => $name, )+ }
            }

            /// Where the recipe comes from, in a line.
            pub fn origin(self) -> &'static str {
                match self { $( RecipeId::$id => $origin, )+ }
            }

            /// What the recipe claims, in a sentence from its file's doc comment.
            pub fn claim(self) -> &'static str {
                match self { $( RecipeId::$id => $claim, )+ }
            }

            /// A fresh client's recipe state.
            pub fn instantiate(self, cfg: RecipeConfig) -> AnyRecipe {
                match self { $( RecipeId::$id => AnyRecipe::$variant(Start::start($new(cfg), cfg)), )+ }
            }
        }

        /// Any recipe's state.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum AnyRecipe {
            $( $variant(<$state as Start>::Running), )+
        }

        impl Recipe for AnyRecipe {
            fn lock_root(&self) -> &'static str {
                match self { $( AnyRecipe::$variant(r) => r.lock_root(), )+ }
            }

            fn step(&mut self, thread: Thread, resume: Resume) -> Action {
                match self { $( AnyRecipe::$variant(r) => r.step(thread, resume), )+ }
            }

            fn reads_stat(&self) -> StatFields {
                match self { $( AnyRecipe::$variant(r) => r.reads_stat(), )+ }
            }

            fn paths(&self, f: &mut dyn FnMut(&Name)) {
                match self { $( AnyRecipe::$variant(r) => r.paths(f), )+ }
            }

            fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
                match self { $( AnyRecipe::$variant(r) => r.paths_mut(f), )+ }
            }

            fn exception_ends_process(&self) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.exception_ends_process(), )+ }
            }

            fn library(&self) -> Library {
                match self { $( AnyRecipe::$variant(r) => r.library(), )+ }
            }

            fn session_changed(&mut self) {
                match self { $( AnyRecipe::$variant(r) => r.session_changed(), )+ }
            }

            fn claims(&self, path: &str) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.claims(path), )+ }
            }

            fn owns_a_node(&self) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.owns_a_node(), )+ }
            }

            fn reentrancy_broken(&self) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.reentrancy_broken(), )+ }
            }

            fn connection_state(&mut self, state: KeeperState) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.connection_state(state), )+ }
            }

            fn distrusts(&self) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.distrusts(), )+ }
            }

            fn guards_writes(&self) -> bool {
                match self { $( AnyRecipe::$variant(r) => r.guards_writes(), )+ }
            }
        }
    };
}

impl RecipeId {
    pub fn parse(name: &str) -> Option<RecipeId> {
        RecipeId::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// The critical section's writes where a scenario asks for neither
    /// fencing nor guarded writes: none, or — for a recipe that reads a
    /// flag before each write ([`Recipe::guards_writes`]) — plain writes,
    /// so that what the flag protects, the resource, is judged.
    pub fn unfenced_writes(self) -> Writes {
        if self.instantiate(RecipeConfig::new(1, 0)).guards_writes() {
            Writes::Plain
        } else {
            Writes::Off
        }
    }
}

impl fmt::Display for RecipeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

use super::*;

catalogue! {
    Predecessor => "predecessor", Predecessor(predecessor::Predecessor),
        "ZooKeeper recipes page; sources 001/004 checkMinPath",
        "mutual exclusion, no herd (a release wakes one waiter), no lost wake-up",
        predecessor::new;
    RacyWait => "racy-wait", RacyWait(seed000::Seed000),
        "source 000, first draft of attemptLock",
        "a waiter sleeps until its predecessor's node is deleted, then re-checks",
        racy_wait::new;
    FixedWait => "fixed-wait", FixedWait(seed000::Seed000),
        "source 000, final attemptLock",
        "no lost wake-up: the callback cannot notifyAll() until the main thread is inside wait()",
        fixed_wait::new;
    TimedWait => "timed-wait", TimedWait(seed000::Seed000),
        "source 000, first draft with the second fix: wait(millis)",
        "a lost wake-up no longer deadlocks: the waiter re-checks when wait(millis) times out",
        timed_wait::new;
    NoRecheck => "no-recheck", NoRecheck(no_recheck::NoRecheck),
        "source 003 lock()",
        "a waiter holds the lock once its predecessor's node is gone",
        no_recheck::new;
    NoRecheckDeleted => "no-recheck-deleted", NoRecheckDeleted(no_recheck::NoRecheck),
        "source 003 lock(), its LockWatcher counting down on NodeDeleted only",
        "a waiter holds the lock once its predecessor's node is gone, and only a NodeDeleted wakes it",
        no_recheck::new_deleted_only;
    HerdUnique => "herd-unique", HerdUnique(herd_unique::HerdUnique),
        "source 001 step 1",
        "mutual exclusion (node names are unique)",
        herd_unique::new;
    HerdChildren => "herd-children", HerdChildren(herd_children::HerdChildren),
        "common variant: every waiter watches the children",
        "mutual exclusion (it re-checks after every change)",
        herd_children::new;
    HerdLowest => "herd-lowest", HerdLowest(herd_lowest::HerdLowest),
        "source 003's text: every waiter watches the lowest node",
        "mutual exclusion: only the smallest node holds, and a waiter re-checks on every wake-up",
        herd_lowest::new;
    CasVersion => "cas-version", CasVersion(cas_version::CasVersion),
        "docs/writing-a-recipe.md: getData, then setData(me, version)",
        "mutual exclusion (the version check lets one writer in per version)",
        cas_version::new;
    WatcherCallback => "watcher-callback", WatcherCallback(watcher_callback::WatcherCallback),
        "sources 001 (LockWatcher) and 004: the lock taken inside process(NodeDeleted)",
        "mutual exclusion without a herd: each waiter watches its predecessor and takes the lock in the callback",
        watcher_callback::new;
    TryOnce => "try-once", TryOnce(try_once::TryOnce),
        "source 002's kazoo cluster_lock: one attempt, the caller polls",
        "mutual exclusion: only the lowest node holds, and a client that is not lowest withdraws its node",
        try_once::new;
    TryOnceRetry => "try-once-retry", TryOnceRetry(try_once::TryOnce),
        "source 002's cluster_lock, its caller catching every exception and retrying",
        "mutual exclusion, and a failed attempt costs nothing but a retry",
        try_once_retry::new;
    Curator => "curator", Curator(curator::Curator),
        "source 000's InterProcessMutex: Apache Curator 5.4 (InterProcessMutex, LockInternals, StandardLockInternalsDriver, protected create, RetryLoop)",
        "mutual exclusion, re-entrancy per thread, no herd; a protected create survives a connection loss",
        curator::new;
    CuratorOwnerCheck => "curator-owner-check", CuratorOwnerCheck(curator::Curator),
        "Curator's InterProcessMutex with CURATOR-696's check: the node's ephemeralOwner against the current session",
        "mutual exclusion even when Curator gives up on a session the server still holds",
        curator::new_owner_check;
    CuratorListener => "curator-listener", CuratorListener(curator::Curator),
        "Curator's InterProcessMutex as its documentation says to use it: a ConnectionStateListener flags SUSPENDED and LOST, and the holder reads the flag before every write",
        "the holder stops writing once the connection is in doubt, so no write lands after the server gave its lock away",
        curator::new_listener;
    KazooLock => "kazoo-lock", KazooLock(kazoo_lock::KazooLock),
        "kazoo 2.11's Lock (kazoo/recipe/lock.py), as its documentation uses it: with zk.Lock(path, id):",
        "mutual exclusion, no herd; a lost connection or session is retried with the node found again by its uuid prefix",
        kazoo_lock::new;
}
