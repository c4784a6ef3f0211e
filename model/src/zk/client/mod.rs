//! The runtime recipes run in: one client process and the part of
//! ZooKeeper's Java client library a recipe's threads see.
//!
//! A recipe ([`Recipe`]) is the seed's code as a state machine: each call of
//! [`Recipe::step`] is one atomic action of one Java thread. The [`Client`]
//! around it is the process: the main and event threads, Java monitors and
//! latches ([`monitors`]), and the client library's rules for replies,
//! watches and connection states ([`watchers`], [`process`]). The pieces
//! several recipes share — ranking a `getChildren` reply ([`children`]), a
//! watcher that counts a latch down ([`latch_watcher`]), the harness loop
//! around `lock()` and `unlock()` ([`lock_loop`]) — live here too, so `recipes/` lists recipes only. Drivers —
//! the exhaustive checker, the simulator, a real server — move messages and
//! choose which thread runs next; they never re-implement a recipe.

pub mod children;
pub(crate) mod guarded;
pub(crate) mod latch_watcher;
pub(crate) mod library;
pub(crate) mod lock_loop;
pub(crate) mod monitors;
pub(crate) mod process;
pub(crate) mod step;
pub(crate) mod watchers;

pub use guarded::RESOURCE_NODE;
pub use library::Library;
pub use process::{Client, Deadline, Output, Status};
pub use step::{
    Action, KeeperState, Notice, Recipe, RecipeConfig, Resume, StatFields, Step, Thread, WatcherId,
    DEFAULT_WATCHER,
};
pub use watchers::Watchers;
